#pragma once
// What a profiler sees of one training process, and how gradient-ready times
// are read from it. A RecordSet holds three streams: GPU work (kernels,
// copies, sets) with the correlation id of the API call that launched it, the
// launching API calls (thread, CPU time), and the markers the training script
// emits (iteration boundaries, and one "gradient ready" marker per parameter
// and iteration). The CUPTI injection library (profiler/) and the Kineto
// importer both produce a RecordSet; attribute_iterations() turns it into
// per-iteration times. It is pure: no CUDA, no files.
//
// The rule (docs/profiling.md): the gradient of a parameter is ready on the
// GPU at the end of the last GPU work launched, by the thread that emitted its
// marker, before the marker, on the stream of that work. Collective kernels
// (NCCL's) are never compute: they are read apart, as the in-situ durations
// of the messages the training loop sent (one "comm" marker each).

#include <cstdint>
#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mgsim::profile {

/// One piece of GPU work (kernel, memcpy, memset). Times in ns on the
/// profiler's clock (CUPTI puts CPU and GPU records on one clock).
struct GpuActivity {
  std::uint64_t correlation = 0;  ///< the id of the API call that launched it
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool collective = false;  ///< a collective kernel (NCCL's): communication, not compute
};

/// Whether a kernel of this name is a collective library's (NCCL, RCCL:
/// "ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllReduce_Sum_f32_RING_LL").
bool is_collective_kernel(std::string_view name);

/// A CUDA runtime or driver API call made on a CPU thread.
struct LaunchCall {
  std::uint64_t correlation = 0;
  std::uint64_t thread = 0;
  std::int64_t start_ns = 0;
};

enum class MarkerKind {
  iteration_begin,  ///< before the forward pass of a measured iteration
  backward_begin,   ///< before loss.backward()
  iteration_end,    ///< after the backward pass (the optimizer step is not measured)
  grad_ready,       ///< a parameter's gradient was accumulated (CPU side)
  comm_launch,      ///< the training loop is about to launch an all-reduce of `bytes` (DDP comm hook)
  forward_done,     ///< the forward of the layer holding parameter `index` returned (CPU side)
};

struct Marker {
  MarkerKind kind = MarkerKind::grad_ready;
  std::int64_t time_ns = 0;
  std::uint64_t thread = 0;
  int index = 0;  ///< iteration number, the parameter index for grad_ready and forward_done; unused for comm_launch
  std::int64_t bytes = 0;  ///< comm_launch: the message's size
};

struct RecordSet {
  std::vector<GpuActivity> activities;
  std::vector<LaunchCall> launches;
  std::vector<Marker> markers;
  std::map<std::string, std::string> info;  ///< facts the recorder wrote (device names, driver version)
};

/// The measurements of one iteration, in ns.
struct IterationTiming {
  int iteration = 0;
  std::int64_t forward_ns = 0;   ///< from the first forward GPU work to the first backward GPU work
  std::int64_t backward_ns = 0;  ///< from the first backward GPU work to the last gradient ready
  /// Per parameter: when its gradient was ready, from the start of the
  /// backward on the GPU; empty when the iteration had no marker for it.
  std::vector<std::optional<std::int64_t>> ready_ns;
  /// Per parameter: when the forward of its layer ended on the GPU, from the
  /// start of the forward; empty when the iteration had no marker for it.
  std::vector<std::optional<std::int64_t>> forward_done_ns;
  /// The all-reduces the iteration launched, in launch order: each comm
  /// marker's size and the duration of the first collective work its thread
  /// launched after it (first start to last end).
  struct Message {
    std::int64_t bytes = 0;
    std::int64_t duration_ns = 0;
  };
  std::vector<Message> messages;
};

/// What attribution had to work around; each count is reported, never hidden.
struct AttributionNotes {
  int incomplete_iterations = 0;      ///< dropped: a boundary marker or all backward GPU work missing
  int activities_without_launch = 0;  ///< GPU work whose launching call was not recorded (ignored)
  std::int64_t activities_without_launch_ns = 0;  ///< their time, summed
  int markers_without_work = 0;       ///< no GPU work launched before them in their phase: at its start
  int markers_any_thread = 0;         ///< their thread launched nothing: matched against every thread
  int duplicate_markers = 0;          ///< a parameter marked twice in one iteration: the last one counts
  int stray_markers = 0;              ///< gradient or comm markers outside every backward window, forward markers outside every forward (ignored)
  int unknown_parameters = 0;         ///< gradient or forward markers with an index >= the parameter count (ignored)
  int comm_markers_without_kernel = 0;  ///< comm markers with no collective work launched after them (ignored)
};

/// Per measured iteration (those with all three boundary markers, in
/// iteration order), the forward time and each parameter's ready time.
/// Records may come in any order. Throws TraceError when no iteration is
/// complete.
std::vector<IterationTiming> attribute_iterations(const RecordSet& records, int parameter_count,
                                                  AttributionNotes& notes);

/// Reads the record file written by the injection library (format in
/// docs/profiling.md). Throws TraceError naming the file and line.
RecordSet read_record_file(std::istream& in, const std::string& source);
RecordSet read_record_file(const std::filesystem::path& file);

/// Parses an NVTX marker name of the helper ("mgsim:iter:begin:3",
/// "mgsim:grad:17", ...); nullopt for names that are not mgsim's.
std::optional<Marker> parse_marker_name(const std::string& name);

}  // namespace mgsim::profile
