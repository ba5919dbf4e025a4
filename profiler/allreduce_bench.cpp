// mgsim-allreduce-bench: times NCCL all-reduce on this node's GPUs for
// `mgsim profile allreduce`. One process drives every GPU (ncclCommInitAll);
// each repetition is an in-place all-reduce of floats on all GPUs at once,
// timed from the first NCCL kernel's start to the last one's end over the
// GPUs, as CUPTI records them. Writes one line per timed repetition
// ("bytes gpus repetition seconds kernel") after "# key: value" facts; mgsim
// turns them into a curve (median, spread). Format: docs/profiling.md.

#include <cuda_runtime.h>
#include <cupti.h>
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Options {
  int gpus = 0;
  long long min_bytes = 4;
  long long max_bytes = 1LL << 30;
  int warmup = 5;
  int repetitions = 20;
  std::string output;
};

struct Kernel {
  std::uint64_t start, end;
  std::string name;
};

std::mutex g_mutex;
std::vector<Kernel> g_kernels;

[[noreturn]] void die(int code, const std::string& message) {
  std::fprintf(stderr, "mgsim-allreduce-bench: %s\n", message.c_str());
  std::exit(code);
}

void check_cuda(cudaError_t result, const char* what) {
  if (result != cudaSuccess) die(4, std::string(what) + ": " + cudaGetErrorString(result));
}
void check_nccl(ncclResult_t result, const char* what) {
  if (result != ncclSuccess) die(4, std::string(what) + ": " + ncclGetErrorString(result));
}
void check_cupti(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  die(4, std::string(what) + ": " + (text != nullptr ? text : "CUPTI error"));
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  constexpr size_t kBytes = 4 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBytes));
  *size = *buffer != nullptr ? kBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    g_kernels.push_back({k->start, k->end, k->name != nullptr ? k->name : "?"});
  }
  std::free(buffer);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--gpus")
      o.gpus = std::atoi(value.c_str());
    else if (key == "--min-bytes")
      o.min_bytes = std::atoll(value.c_str());
    else if (key == "--max-bytes")
      o.max_bytes = std::atoll(value.c_str());
    else if (key == "--warmup")
      o.warmup = std::atoi(value.c_str());
    else if (key == "--repetitions")
      o.repetitions = std::atoi(value.c_str());
    else if (key == "--output")
      o.output = value;
    else
      die(2, "unknown option " + key);
  }
  if (o.output.empty() || o.min_bytes < 1 || o.max_bytes < o.min_bytes || o.repetitions < 1 || o.warmup < 0) {
    die(2,
        "usage: mgsim-allreduce-bench [--gpus N] [--min-bytes B] [--max-bytes B] [--warmup W] "
        "[--repetitions R] --output FILE");
  }
  return o;
}

struct Window {
  std::uint64_t from, to;
};

/// Per window: first kernel start to last kernel end, and the first kernel's name.
void time_windows(const std::vector<Window>& windows, std::vector<double>& seconds, std::vector<std::string>& names) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const Window& w : windows) {
    std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
    std::string name;
    for (const Kernel& k : g_kernels) {
      if (k.start < w.from || k.start > w.to) continue;
      if (k.start < first) name = k.name;
      first = std::min(first, k.start);
      last = std::max(last, k.end);
    }
    if (last == 0) die(4, "CUPTI recorded no NCCL kernel for a repetition");
    seconds.push_back(static_cast<double>(last - first) * 1e-9);
    names.push_back(name.substr(0, name.find('(')));
  }
  g_kernels.clear();
}

void write_facts(std::FILE* out, int gpus, int argc, char** argv) {
  std::string names;
  for (int d = 0; d < gpus; ++d) {
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
    names += (d > 0 ? ", " : "") + std::string(prop.name);
  }
  int driver = 0, runtime = 0, nccl = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  ncclGetVersion(&nccl);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::fprintf(out, "# hardware: %s\n# cuda_driver_version: %d\n# cuda_runtime_version: %d\n", names.c_str(), driver,
               runtime);
  std::fprintf(out, "# nccl_version: %d\n# host: %s\n# bench_command:", nccl, host);
  for (int i = 0; i < argc; ++i) std::fprintf(out, " %s", argv[i]);
  std::fprintf(out, "\n");
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  int present = 0;
  check_cuda(cudaGetDeviceCount(&present), "cudaGetDeviceCount");
  const int gpus = o.gpus > 0 ? o.gpus : present;
  if (present < 2) die(3, "only " + std::to_string(present) + " CUDA GPU: no collective can be measured");
  if (gpus < 2 || gpus > present) die(3, std::to_string(gpus) + " GPUs asked, " + std::to_string(present) + " present");

  check_cupti(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
  check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable");
  std::vector<int> devices(gpus);
  for (int d = 0; d < gpus; ++d) devices[d] = d;
  std::vector<ncclComm_t> comms(gpus);
  check_nccl(ncclCommInitAll(comms.data(), gpus, devices.data()), "ncclCommInitAll");
  const size_t max_count = static_cast<size_t>((o.max_bytes + 3) / 4);
  std::vector<float*> buffers(gpus);
  std::vector<cudaStream_t> streams(gpus);
  for (int d = 0; d < gpus; ++d) {
    check_cuda(cudaSetDevice(d), "cudaSetDevice");
    check_cuda(cudaMalloc(&buffers[d], max_count * sizeof(float)), "cudaMalloc");
    check_cuda(cudaMemset(buffers[d], 0, max_count * sizeof(float)), "cudaMemset");
    check_cuda(cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking), "cudaStreamCreate");
  }

  std::FILE* out = std::fopen(o.output.c_str(), "w");
  if (out == nullptr) die(4, "cannot write " + o.output);
  write_facts(out, gpus, argc, argv);
  for (long long bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
    const size_t count = static_cast<size_t>((bytes + 3) / 4);
    std::vector<Window> windows;
    for (int rep = 0; rep < o.warmup + o.repetitions; ++rep) {
      std::uint64_t from = 0, to = 0;
      cuptiGetTimestamp(&from);
      check_nccl(ncclGroupStart(), "ncclGroupStart");
      for (int d = 0; d < gpus; ++d) {
        check_nccl(ncclAllReduce(buffers[d], buffers[d], count, ncclFloat, ncclSum, comms[d], streams[d]),
                   "ncclAllReduce");
      }
      check_nccl(ncclGroupEnd(), "ncclGroupEnd");
      for (int d = 0; d < gpus; ++d) check_cuda(cudaStreamSynchronize(streams[d]), "cudaStreamSynchronize");
      cuptiGetTimestamp(&to);
      if (rep >= o.warmup) windows.push_back({from, to});
    }
    check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    std::vector<double> seconds;
    std::vector<std::string> names;
    time_windows(windows, seconds, names);
    for (size_t r = 0; r < seconds.size(); ++r) {
      std::fprintf(out, "%lld\t%d\t%zu\t%.9e\t%s\n", static_cast<long long>(count * 4), gpus, r, seconds[r],
                   names[r].c_str());
    }
    std::fflush(out);
  }
  std::fclose(out);
  for (int d = 0; d < gpus; ++d) {
    cudaSetDevice(d);
    cudaFree(buffers[d]);
    cudaStreamDestroy(streams[d]);
    ncclCommDestroy(comms[d]);
  }
  return 0;
}
