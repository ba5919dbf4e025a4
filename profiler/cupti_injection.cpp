// libmgsim_cupti.so: a CUPTI injection library for `mgsim profile layers`.
// Loaded into an unmodified CUDA process by the driver (CUDA_INJECTION64_PATH)
// and by NVTX (NVTX_INJECTION64_PATH), it records with the CUPTI activity API
//   - GPU work: kernels (with their names: NCCL's are communication, not
//     compute), memcpys, memsets (stream, start, end, correlation id),
//   - the runtime and driver API calls that launched them (thread, start),
//   - NVTX marks (thread, time, name): the helper's iteration,
//     gradient-ready and all-reduce markers,
// and at process exit writes them to $MGSIM_CUPTI_RECORDS in the text format
// read by mgsim::profile::read_record_file (docs/profiling.md). It computes
// nothing: attribution happens in mgsim, where it is tested without a GPU.

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

extern "C" {
// Exported by libcupti for injection libraries that forward NVTX to CUPTI
// (CUPTI documentation, "Initialization to Receive NVTX Callbacks or Activity Records").
CUptiResult CUPTIAPI cuptiNvtxInitialize(void* pfnGetExportTable);
CUptiResult CUPTIAPI cuptiNvtxInitialize2(void* pfnGetExportTable);
}

namespace {

constexpr std::size_t kBufferBytes = 8 << 20;

struct Work {
  std::uint32_t correlation, device, stream;
  std::uint64_t start, end;
  char what;  // K kernel, C memcpy, S memset
  std::string name;  // kernels only (CUPTI's, often mangled)
};
struct Call {
  std::uint32_t correlation, thread;
  std::uint64_t start;
};
struct Mark {
  std::uint32_t thread;
  std::uint64_t time;
  std::string name;
};

/// Everything recorded so far; CUPTI delivers buffers from its own thread.
struct Store {
  std::mutex mutex;
  std::vector<Work> work;
  std::vector<Call> calls;
  std::vector<Mark> marks;
  std::vector<std::string> info;
  std::uint64_t dropped = 0;
};

Store& store() {
  static Store* s = new Store;  // never destroyed: used from atexit and CUPTI's thread
  return *s;
}

void report(const char* what, CUptiResult result) {
  if (result == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  std::fprintf(stderr, "mgsim-cupti: %s failed: %s\n", what, text != nullptr ? text : "unknown error");
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void keep(Store& s, const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      s.work.push_back({k->correlationId, k->deviceId, k->streamId, k->start, k->end, 'K',
                        k->name != nullptr ? k->name : "unknown"});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      s.work.push_back({m->correlationId, m->deviceId, m->streamId, m->start, m->end, 'C', {}});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      s.work.push_back({m->correlationId, m->deviceId, m->streamId, m->start, m->end, 'S', {}});
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      s.calls.push_back({a->correlationId, a->threadId, a->start});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
      if ((m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) && m->name != nullptr &&
          std::strncmp(m->name, "mgsim:", 6) == 0) {
        s.marks.push_back({m->objectId.pt.threadId, m->timestamp, m->name});
      }
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
      s.info.push_back("device" + std::to_string(d->id) + "\t" + (d->name != nullptr ? d->name : "unknown") +
                       " (compute capability " + std::to_string(d->computeCapabilityMajor) + "." +
                       std::to_string(d->computeCapabilityMinor) + ")");
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  Store& s = store();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) keep(s, record);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) s.dropped += dropped;
  }
  std::free(buffer);
}

/// Writes the records at exit; API calls only where they launched GPU work.
void write_records() {
  report("cuptiActivityFlushAll", cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  const char* path = std::getenv("MGSIM_CUPTI_RECORDS");
  if (path == nullptr || *path == '\0') return;
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::FILE* out = std::fopen(path, "w");
  if (out == nullptr) {
    std::fprintf(stderr, "mgsim-cupti: cannot write %s\n", path);
    return;
  }
  std::fprintf(out, "# mgsim-cupti-records 2\n");
  // The driver is loaded in any process that injected us; look it up rather than link it.
  using GetVersion = CUresult (*)(int*);
  int driver = 0;
  if (auto get = reinterpret_cast<GetVersion>(dlsym(RTLD_DEFAULT, "cuDriverGetVersion"));
      get != nullptr && get(&driver) == CUDA_SUCCESS) {
    std::fprintf(out, "I\tcuda_driver_version\t%d\n", driver);
  }
  uint32_t cupti = 0;
  if (cuptiGetVersion(&cupti) == CUPTI_SUCCESS) std::fprintf(out, "I\tcupti_api_version\t%u\n", cupti);
  std::fprintf(out, "I\tdropped_records\t%llu\n", static_cast<unsigned long long>(s.dropped));
  for (const std::string& line : s.info) std::fprintf(out, "I\t%s\n", line.c_str());
  std::unordered_set<std::uint32_t> launched;
  for (const Work& w : s.work) {
    launched.insert(w.correlation);
    std::fprintf(out, "A\t%u\t%u\t%u\t%llu\t%llu\t%c%s%s\n", w.correlation, w.device, w.stream,
                 static_cast<unsigned long long>(w.start), static_cast<unsigned long long>(w.end), w.what,
                 w.what == 'K' ? "\t" : "", w.name.c_str());
  }
  for (const Call& c : s.calls) {
    if (launched.count(c.correlation) == 0) continue;
    std::fprintf(out, "L\t%u\t%u\t%llu\n", c.correlation, c.thread, static_cast<unsigned long long>(c.start));
  }
  for (const Mark& m : s.marks) {
    std::fprintf(out, "M\t%u\t%llu\t%s\n", m.thread, static_cast<unsigned long long>(m.time), m.name.c_str());
  }
  std::fclose(out);
}

/// The kinds that time the work; recording them costs time per launch.
constexpr CUpti_ActivityKind kTimedKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                              CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_RUNTIME,
                                              CUPTI_ACTIVITY_KIND_DRIVER,            CUPTI_ACTIVITY_KIND_MARKER};

/// Registers the buffers and enables the activity kinds, once, whichever of
/// CUDA and NVTX loads the library first.
void start_recording() {
  static std::once_flag once;
  std::call_once(once, [] {
    report("cuptiActivityRegisterCallbacks", cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    report("cuptiActivityEnable", cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE));
    for (const CUpti_ActivityKind kind : kTimedKinds) report("cuptiActivityEnable", cuptiActivityEnable(kind));
    std::atexit(write_records);
  });
}

}  // namespace

/// Called by the CUDA driver when CUDA_INJECTION64_PATH names this library.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  start_recording();
  return 1;
}

/// Writes the records now (the helper calls it before exiting, while CUDA is
/// still up); the exit handler writes them again, with anything recorded later.
extern "C" __attribute__((visibility("default"))) void mgsim_cupti_flush(void) { write_records(); }

/// Stops (0) or resumes (1) recording the GPU work, the launches and the
/// marks: the helper times iterations without the recorder's overhead.
extern "C" __attribute__((visibility("default"))) void mgsim_cupti_record(int on) {
  for (const CUpti_ActivityKind kind : kTimedKinds) {
    report(on != 0 ? "cuptiActivityEnable" : "cuptiActivityDisable",
           on != 0 ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind));
  }
}

/// Called by NVTX (v1/v2, and v3 per module) when NVTX_INJECTION64_PATH names this library.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx(void* table) {
  start_recording();
  return cuptiNvtxInitialize(table) == CUPTI_SUCCESS ? 1 : 0;
}
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(void* table) {
  start_recording();
  return cuptiNvtxInitialize2(table) == CUPTI_SUCCESS ? 1 : 0;
}
