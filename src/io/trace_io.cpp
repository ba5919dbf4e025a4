#include "mgsim/io/trace_io.hpp"

#include <limits>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "json_reader.hpp"
#include "mgsim/limits.hpp"

namespace mgsim {
namespace {

constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

/// Checks the header every mgsim input file shares: format name, version 1,
/// and a provenance object that says whether it was measured or synthesised.
void read_header(JsonReader& top, std::string_view format) {
  const JsonWhere at = top.where().key("format");
  if (top.required("format") != format) at.expected(fmt::format("\"{}\"", format), top.required("format"));
  top.integer("version", 1, 1);
  JsonReader provenance = top.object("provenance");
  const std::string kind = provenance.text("kind");
  if (kind != "measured" && kind != "synthetic") {
    provenance.where().key("kind").expected("\"measured\" or \"synthetic\"", kind);
  }
}

Layer read_layer(const nlohmann::json& value, const JsonWhere& where) {
  JsonReader in(value, where);
  Layer layer;
  layer.name = in.text("name");
  for (const auto& [element, at] : in.array("params")) {
    layer.params.push_back(read_integer(*element, at, 1, kMaxTensorElements));
  }
  layer.dtype_bytes = static_cast<int>(in.integer("dtype_bytes", 1, 16));
  layer.backward_time_s = in.number("backward_time_s", 0.0, true, kMaxStepSeconds);
  if (in.has("grad_ready_s")) {
    const auto ready = in.array("grad_ready_s");
    if (ready.size() != layer.params.size()) {
      where.key("grad_ready_s").fail(fmt::format("expected one time per tensor ({}), got {}", layer.params.size(),
                                                 ready.size()));
    }
    for (const auto& [element, at] : ready) {
      const double t = read_number(*element, at, 0.0, true);
      if (t > layer.backward_time_s) at.expected(fmt::format("a time <= backward_time_s ({})", layer.backward_time_s), *element);
      layer.grad_ready_s.push_back(t);
    }
  }
  in.reject_unknown();
  return layer;
}

/// The bounds on a whole trace (docs/limits.md): gradient bytes, tensors,
/// compute. Summed with a check at every step, so no sum can overflow.
void check_totals(const Trace& trace, const JsonWhere& top) {
  std::int64_t bytes = 0, tensors = 0;
  double compute = trace.forward_time_s;
  for (const Layer& layer : trace.layers) {
    compute += layer.backward_time_s;
    for (std::int64_t elements : layer.params) {
      bytes += elements * layer.dtype_bytes;
      if (bytes > kMaxTraceBytes) {
        top.key("layers").fail(fmt::format("expected at most {} gradient bytes in all", kMaxTraceBytes));
      }
      if (++tensors > kMaxTensors) {
        top.key("layers").fail(fmt::format("expected at most {} gradient tensors in all", kMaxTensors));
      }
    }
  }
  if (compute > kMaxComputeSeconds) {
    top.fail(fmt::format("expected forward_time_s + every backward_time_s <= {:g} s (a year), got {:g} s",
                         kMaxComputeSeconds, compute));
  }
}

}  // namespace

Trace load_trace(const std::filesystem::path& file) {
  const nlohmann::json document = parse_json_file(file, InputKind::trace);
  JsonReader top(document, {file.string(), "", InputKind::trace});
  read_header(top, "mgsim-trace");
  Trace trace;
  trace.model = top.text("model");
  trace.batch_size = static_cast<int>(top.integer("batch_size", 1, kIntMax));
  trace.forward_time_s = top.number("forward_time_s", 0.0, true, kMaxStepSeconds);
  const auto layers = top.array("layers");
  if (static_cast<std::int64_t>(layers.size()) > kMaxLayers) {
    top.where().key("layers").fail(fmt::format("expected at most {} layers, got {}", kMaxLayers, layers.size()));
  }
  for (const auto& [element, at] : layers) trace.layers.push_back(read_layer(*element, at));
  top.reject_unknown();
  check_totals(trace, top.where());
  if (make_profile(trace).compute_time() <= 0) {
    top.where().fail("expected some compute: forward_time_s and every backward_time_s are 0");
  }
  return trace;
}

std::vector<CurvePoint> load_curve(const std::filesystem::path& file) {
  const nlohmann::json document = parse_json_file(file, InputKind::curve);
  JsonReader top(document, {file.string(), "", InputKind::curve});
  read_header(top, "mgsim-curve");
  if (top.text("collective") != "allreduce") {
    top.where().key("collective").expected("\"allreduce\"", top.required("collective"));
  }
  std::vector<CurvePoint> points;
  std::set<std::pair<int, std::int64_t>> seen;
  for (const auto& [element, at] : top.array("points")) {
    JsonReader in(*element, at);
    CurvePoint point{static_cast<int>(in.integer("gpus", 2, kIntMax)), in.integer("bytes", 1, kMaxMessageBytes),
                     in.number("seconds", 0.0, false, kMaxStepSeconds)};
    if (in.has("spread_s")) in.number("spread_s", 0.0, true, kMaxStepSeconds);
    in.reject_unknown();
    if (!seen.emplace(point.gpus, point.bytes).second) {
      at.fail(fmt::format("duplicate point for gpus {} and bytes {}", point.gpus, point.bytes));
    }
    points.push_back(point);
  }
  top.reject_unknown();
  return points;
}

std::vector<SelectionPoint> load_selection_curve(const std::filesystem::path& file) {
  const nlohmann::json document = parse_json_file(file, InputKind::curve);
  JsonReader top(document, {file.string(), "", InputKind::curve});
  read_header(top, "mgsim-selection-curve");
  std::vector<SelectionPoint> points;
  std::set<std::int64_t> seen;
  for (const auto& [element, at] : top.array("points")) {
    JsonReader in(*element, at);
    const SelectionPoint point{in.integer("elements", 1, kMaxTensorElements * 1024), in.number("seconds", 0.0, true, kMaxStepSeconds)};
    if (in.has("spread_s")) in.number("spread_s", 0.0, true, kMaxStepSeconds);
    in.reject_unknown();
    if (!seen.insert(point.elements).second) at.fail(fmt::format("duplicate point for {} elements", point.elements));
    points.push_back(point);
  }
  top.reject_unknown();
  return points;
}

}  // namespace mgsim
