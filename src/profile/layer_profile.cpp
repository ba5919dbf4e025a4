#include "mgsim/profile/layer_profile.hpp"

#include <fmt/format.h>

#include "mgsim/io/json_reader.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim::profile {
namespace {

ParamInfo read_param(const nlohmann::json& value, const JsonWhere& where) {
  JsonReader in(value, where);
  ParamInfo param;
  param.name = in.text("name");
  param.layer = in.text("layer");
  param.elements = in.integer("elements", 1, kMaxTensorElements);
  param.dtype_bytes = static_cast<int>(in.integer("dtype_bytes", 1, 16));
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
          {"markers_of_unknown_parameters", notes.unknown_parameters}};
}

std::vector<std::string> warnings_of(const AttributionNotes& notes, const BuiltTrace& built, int complete, int asked) {
  std::vector<std::string> w;
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

LayerProfile assemble_layer_profile(const ModelDescription& description, const RecordSet& records,
                                    const std::string& command) {
  const int count = static_cast<int>(description.params.size());
  AttributionNotes notes;
  const std::vector<IterationTiming> timings = attribute_iterations(records, count, notes);
  const TimingSummary summary = summarize(timings, count);
  BuiltTrace built = build_trace(description.params, summary, description.model, description.batch_size);

  LayerProfile profile;
  profile.warnings = warnings_of(notes, built, static_cast<int>(timings.size()), description.iterations);
  profile.trace = std::move(built.trace);
  nlohmann::json provenance = description.provenance.is_object() ? description.provenance : nlohmann::json::object();
  provenance["kind"] = "measured";
  provenance["tool"] = "mgsim profile layers (CUPTI activity API + NVTX gradient-ready markers)";
  provenance["precision"] = description.precision;
  provenance["warmup_iterations"] = description.warmup;
  provenance["gradient_ready"] =
      "end of the last GPU work launched before each parameter's marker, by the marker's thread, on that work's stream";
  provenance["statistics"] = built.stats;
  provenance["attribution"] = notes_json(notes);
  if (!records.info.empty()) provenance["recorder"] = records.info;
  provenance["mgsim_command"] = command;
  profile.provenance = std::move(provenance);
  return profile;
}

}  // namespace mgsim::profile
