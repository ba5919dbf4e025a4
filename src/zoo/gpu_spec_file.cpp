// GPU spec files: a catalogue entry written by the user for a card the
// catalogue lacks, read strictly (docs/models.md#gpu-spec-files).

#include <algorithm>

#include "mgsim/io/json_reader.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/zoo/calibration.hpp"  // kMinEfficiency, kMaxEfficiency: the range zoo calibrate fits in
#include "mgsim/zoo/gpus.hpp"

namespace mgsim::zoo {
namespace {

// A device's peaks lie between a gigaflop or a tenth of a GB/s (slower than
// any GPU, so a typo such as 1e-300 is refused here, not as an absurd layer
// time of the trace) and these.
constexpr double kMinTflops = 1e-3;
constexpr double kMaxTflops = 1e5;  // 100 PFLOP/s per device
constexpr double kMinGbPerS = 0.1;
constexpr double kMaxGbPerS = 1e6;  // 1 PB/s per device
constexpr double kDefaultComputeEfficiency = 0.6;
constexpr double kDefaultMemoryEfficiency = 0.8;

std::array<double, 4> read_peaks(JsonReader peaks) {
  std::array<double, 4> out{};
  // fp32 (required) last: tf32 given without it is then a key read, not a misspelling (red team).
  for (std::size_t p = kPrecisions.size(); p-- > 0;) {
    const std::string_view key = precision_name(kPrecisions[p]);
    if (p == 0 || peaks.has(key)) out[p] = peaks.number(key, kMinTflops, true, kMaxTflops);
  }
  peaks.reject_unknown();
  return out;
}

}  // namespace

GpuSpec load_gpu_spec(const std::filesystem::path& file) {
  const nlohmann::json document = parse_json_file(file, InputKind::config);
  JsonReader top(document, {file.string(), "", InputKind::config});
  GpuSpec gpu;
  gpu.name = top.prose("name", kMaxNameBytes);
  if (const std::string refusal = hidden_characters_refusal("a name", gpu.name); !refusal.empty()) {
    top.where().key("name").fail(refusal);
  }
  const auto& catalogue = gpu_catalogue();
  if (std::any_of(catalogue.begin(), catalogue.end(), [&](const GpuSpec& g) { return g.name == gpu.name; })) {
    top.where().key("name").fail("'" + gpu.name + "' is a catalogue entry: give the file's card another name");
  }
  gpu.description = top.prose("description");
  gpu.source = top.prose("source");
  gpu.matrix_tflops = read_peaks(top.object("matrix_tflops"));
  gpu.vector_tflops = top.has("vector_tflops") ? top.number("vector_tflops", kMinTflops, true, kMaxTflops) : gpu.matrix_tflops[0];
  gpu.memory_gb_per_s = top.number("memory_gb_per_s", kMinGbPerS, true, kMaxGbPerS);
  gpu.compute_efficiency = top.has("compute_efficiency")
                               ? top.number("compute_efficiency", kMinEfficiency, true, kMaxEfficiency)
                               : kDefaultComputeEfficiency;
  gpu.memory_efficiency = top.has("memory_efficiency")
                              ? top.number("memory_efficiency", kMinEfficiency, true, kMaxEfficiency)
                              : kDefaultMemoryEfficiency;
  top.reject_unknown();
  return gpu;
}

}  // namespace mgsim::zoo
