#pragma once
// The CPU half of `mgsim profile layers`: the training helper
// (profiler/mgsim_profile_model.py) describes the model's parameters in a
// JSON file, the CUPTI injection library records GPU work and NVTX markers;
// assemble_layer_profile() turns the two into a trace with full provenance.
// Nothing here needs CUDA, so the whole path is tested on synthetic records.

#include <filesystem>
#include <optional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "mgsim/model_memory.hpp"
#include "mgsim/profile/layer_timing.hpp"
#include "mgsim/profile/records.hpp"
#include "mgsim/trace.hpp"

namespace mgsim::profile {

/// What the helper wrote ("format": "mgsim-profile-model", version 1).
struct ModelDescription {
  std::string model;
  int batch_size = 1;
  std::string precision;
  int warmup = 0;
  int iterations = 0;
  int world_size = 1;             ///< processes (GPUs) of the run: > 1 trains under DDP
  /// Median wall-clock forward + backward of as many iterations run with the
  /// recorder paused (one GPU only); 0 when not timed.
  double unrecorded_forward_backward_s = 0;
  /// The optimizer the helper trained with, and the median wall-clock time
  /// of its step in the unrecorded iterations (0: not timed).
  std::optional<Optimizer> optimizer;
  double unrecorded_optimizer_step_s = 0;
  std::vector<ParamInfo> params;  ///< the framework's parameter order; marker i is params[i]
  nlohmann::json provenance;      ///< framework, versions, GPU, command, date (free-form)
};

/// Throws TraceError naming the file and key.
ModelDescription read_model_description(const std::filesystem::path& file);
ModelDescription parse_model_description(const nlohmann::json& document, const std::string& source);

struct LayerProfile {
  Trace trace;
  nlohmann::json provenance;
  std::vector<std::string> warnings;  ///< one line each
};

/// Attributes the records, takes medians and builds the trace. `ranks` holds
/// one RecordSet per process, rank 0 first: rank 0's backward gives the
/// trace; with world_size > 1 every all-reduce the iterations launched
/// becomes an in-situ observation, the shortest of the ranks' kernel
/// durations for that message (the last rank to arrive waits for nobody).
/// When the recorded forward + backward is longer than the unrecorded one
/// (recording slows a run bound by its launches), every compute time of the
/// trace is scaled down to the unrecorded iteration (scale_compute), with
/// both figures in the provenance ("recording_overhead") and a warning. A
/// timed optimizer step becomes the trace's optimizer_bytes_per_s
/// (set_optimizer_step).
/// `command` is the mgsim command line that ran the profile, for provenance.
LayerProfile assemble_layer_profile(const ModelDescription& description, std::span<const RecordSet> ranks,
                                    const std::string& command);

}  // namespace mgsim::profile
