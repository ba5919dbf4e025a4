#include "mgsim/profile/layer_profile.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mgsim/io/json_reader.hpp"
#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/profile/output.hpp"

namespace mgsim::profile {
namespace {

ParamInfo read_param(const nlohmann::json& value, const JsonWhere& where) {
  JsonReader in(value, where);
  ParamInfo param;
  param.name = in.text("name");
  param.layer = in.text("layer");
  param.elements = in.integer("elements", 1, kMaxTensorElements);
  param.dtype_bytes = static_cast<int>(in.integer("dtype_bytes", 1, kMaxDtypeBytes));
  in.reject_unknown();
  return param;
}

nlohmann::json notes_json(const AttributionNotes& notes) {
  return {{"incomplete_iterations", notes.incomplete_iterations},
          {"gpu_work_without_launch_record", notes.activities_without_launch},
          {"markers_without_gpu_work_before_them", notes.markers_without_work},
          {"markers_matched_against_all_threads", notes.markers_any_thread},
          {"duplicate_markers", notes.duplicate_markers},
          {"markers_outside_backward", notes.stray_markers},
          {"markers_of_unknown_parameters", notes.unknown_parameters},
          {"comm_markers_without_collective_kernel", notes.comm_markers_without_kernel}};
}

/// Per all-reduce of rank 0's iterations, the shortest duration any rank
/// saw for it: ranks agree on a message when they timed the same iteration
/// and launched the same size at the same place in it.
std::vector<CurvePoint> insitu_observations(std::span<const std::vector<IterationTiming>> ranks, int world_size) {
  std::vector<CurvePoint> points;
  if (world_size < 2) return points;
  for (const IterationTiming& timing : ranks.front()) {
    for (std::size_t m = 0; m < timing.messages.size(); ++m) {
      std::int64_t shortest = timing.messages[m].duration_ns;
      for (const std::vector<IterationTiming>& other : ranks.subspan(1)) {
        const auto same = std::find_if(other.begin(), other.end(),
                                       [&](const IterationTiming& t) { return t.iteration == timing.iteration; });
        if (same != other.end() && m < same->messages.size() && same->messages[m].bytes == timing.messages[m].bytes) {
          shortest = std::min(shortest, same->messages[m].duration_ns);
        }
      }
      points.push_back({world_size, timing.messages[m].bytes, static_cast<double>(shortest) * 1e-9});
    }
  }
  return points;
}

std::vector<std::string> warnings_of(const AttributionNotes& notes, const BuiltTrace& built, int complete, int asked) {
  std::vector<std::string> w;
  if (notes.comm_markers_without_kernel > 0) {
    w.push_back(fmt::format("{} all-reduces marked by the comm hook launched no NCCL kernel after the marker: "
                            "not observed",
                            notes.comm_markers_without_kernel));
  }
  if (complete < asked) w.push_back(fmt::format("{} of {} measured iterations were complete", complete, asked));
  if (notes.markers_any_thread > 0) {
    w.push_back(
        fmt::format("{} gradient markers came from a thread that launched no GPU work: matched against all "
                    "threads",
                    notes.markers_any_thread));
  }
  if (notes.markers_without_work > 0) {
    w.push_back(fmt::format("{} gradient markers had no GPU work launched before them in the backward pass",
                            notes.markers_without_work));
  }
  if (!built.unused_parameters.empty()) {
    w.push_back(fmt::format("{} parameters never got a gradient (left out of the trace), e.g. {}",
                            built.unused_parameters.size(), built.unused_parameters.front()));
  }
  if (built.clamped_tensors > 0) {
    w.push_back(fmt::format("{} tensors were ready before their layer's backward started (their offset is 0)",
                            built.clamped_tensors));
  }
  return w;
}

/// Scales the trace to the unrecorded forward + backward when recording
/// slowed it; returns the provenance entry and adds a warning above 5%.
nlohmann::json remove_recording_overhead(Trace& trace, double unrecorded_s, std::vector<std::string>& warnings) {
  const double recorded_s = compute_time_s(trace);
  const double factor = recorded_s > unrecorded_s ? unrecorded_s / recorded_s : 1.0;
  if (factor < 1) scale_compute(trace, factor);
  if (factor < 0.95) {
    warnings.push_back(fmt::format("recording slowed forward + backward from {:.3f} to {:.3f} ms (+{:.0f}%): the run "
                                   "is bound by its kernel launches; every time in the trace is scaled by {:.3f}",
                                   unrecorded_s * 1e3, recorded_s * 1e3, (recorded_s / unrecorded_s - 1) * 100,
                                   factor));
  }
  return {{"recorded_forward_backward_s", recorded_s},
          {"unrecorded_forward_backward_s", unrecorded_s},
          {"scale_factor", factor},
          {"method",
           "unrecorded: median wall clock (synchronized) of forward + backward over as many iterations with the "
           "recorder paused; where the recorded median is longer, every forward, backward and ready time is "
           "multiplied by unrecorded / recorded (scale_factor, else 1): the per-layer split stays the recorded one"}};
}

}  // namespace

ModelDescription parse_model_description(const nlohmann::json& document, const std::string& source) {
  JsonReader top(document, {source, "", InputKind::trace});
  const JsonWhere at = top.where().key("format");
  if (top.required("format") != "mgsim-profile-model") at.expected("\"mgsim-profile-model\"", top.required("format"));
  top.integer("version", 1, 1);
  ModelDescription d;
  d.model = top.text("model");
  d.batch_size = static_cast<int>(top.integer("batch_size", 1, 1 << 30));
  d.precision = top.text("precision");
  d.warmup = static_cast<int>(top.integer("warmup", 0, 1 << 20));
  d.iterations = static_cast<int>(top.integer("iterations", 1, 1 << 20));
  if (top.has("world_size")) d.world_size = static_cast<int>(top.integer("world_size", 1, kMaxGpus));
  if (top.has("unrecorded_forward_backward_s")) {
    d.unrecorded_forward_backward_s = top.number("unrecorded_forward_backward_s", 0, false, kMaxComputeSeconds);
  }
  if (top.has("optimizer")) {
    const std::string name = top.text("optimizer");
    try {
      d.optimizer = parse_optimizer(name);
    } catch (const ConfigError&) {
      top.where().key("optimizer").expected("sgd, momentum or adam", top.required("optimizer"));
    }
  }
  if (top.has("unrecorded_optimizer_step_s")) {
    if (!d.optimizer) top.where().key("unrecorded_optimizer_step_s").expected("an \"optimizer\" key with it", top.required("unrecorded_optimizer_step_s"));
    d.unrecorded_optimizer_step_s = top.number("unrecorded_optimizer_step_s", 0, false, kMaxComputeSeconds);
  }
  for (const auto& [element, where] : top.array("params")) d.params.push_back(read_param(*element, where));
  const nlohmann::json& provenance = top.required("provenance");
  if (!provenance.is_object()) top.where().key("provenance").expected("an object", provenance);
  d.provenance = provenance;
  top.reject_unknown();
  return d;
}

ModelDescription read_model_description(const std::filesystem::path& file) {
  return parse_model_description(parse_json_file(file, InputKind::trace), file.string());
}

LayerProfile assemble_layer_profile(const ModelDescription& description, std::span<const RecordSet> ranks,
                                    const std::string& command) {
  if (ranks.empty()) throw TraceError("no record file to attribute");
  const int count = static_cast<int>(description.params.size());
  AttributionNotes notes;
  std::vector<std::vector<IterationTiming>> timings;
  for (const RecordSet& records : ranks) {
    AttributionNotes rank_notes;
    timings.push_back(attribute_iterations(records, count, timings.empty() ? notes : rank_notes));
  }
  const TimingSummary summary = summarize(timings.front(), count);
  BuiltTrace built = build_trace(description.params, summary, description.model, description.batch_size);

  LayerProfile profile;
  profile.warnings = warnings_of(notes, built, static_cast<int>(timings.front().size()), description.iterations);
  profile.trace = std::move(built.trace);
  profile.trace.insitu_allreduce = insitu_observations(timings, description.world_size);
  nlohmann::json overhead;
  if (description.unrecorded_forward_backward_s > 0) {
    overhead = remove_recording_overhead(profile.trace, description.unrecorded_forward_backward_s, profile.warnings);
  }
  nlohmann::json provenance = description.provenance.is_object() ? description.provenance : nlohmann::json::object();
  provenance["kind"] = "measured";
  provenance["tool"] = "mgsim profile layers (CUPTI activity API + NVTX gradient-ready markers)";
  provenance["precision"] = description.precision;
  provenance["warmup_iterations"] = description.warmup;
  provenance["gradient_ready"] =
      "end of the last GPU work launched before each parameter's marker, by the marker's thread, on that work's "
      "stream; collective (NCCL) kernels excluded";
  if (description.world_size > 1) {
    provenance["world_size"] = description.world_size;
    provenance["backward_times"] = "rank 0's, trained under DDP: they include its interference with the all-reduces";
    provenance["insitu_allreduce"] =
        "per all-reduce launched by DDP's comm hook in a measured iteration: the NCCL kernel's duration (start to "
        "end), the shortest over the ranks";
  }
  provenance["statistics"] = built.stats;
  if (!overhead.is_null()) provenance["recording_overhead"] = std::move(overhead);
  if (description.unrecorded_optimizer_step_s > 0) {
    provenance["optimizer_step"] = set_optimizer_step(
        profile.trace, *description.optimizer, description.unrecorded_optimizer_step_s,
        "median wall clock (synchronized before and after) of the optimizer step and zero_grad over the "
        "iterations timed with the recorder paused",
        profile.warnings);
  }
  provenance["attribution"] = notes_json(notes);
  if (!ranks.front().info.empty()) provenance["recorder"] = ranks.front().info;
  provenance["mgsim_command"] = command;
  profile.provenance = std::move(provenance);
  return profile;
}

}  // namespace mgsim::profile
