#include "mgsim/io/trace_io.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "mgsim/io/json_text.hpp"
#include "mgsim/version.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/json_reader.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/limits.hpp"

namespace mgsim {
namespace {

constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

/// Checks the header every mgsim input file shares: format name, version (1
/// to `latest`), and a provenance object that says whether it was measured or
/// synthesised. Returns the version.
int read_header(JsonReader& top, std::string_view format, int latest = 1) {
  const JsonWhere at = top.where().key("format");
  if (top.required("format") != format) at.expected(fmt::format("\"{}\"", format), top.required("format"));
  const auto version = static_cast<int>(top.integer("version", 1, latest));
  JsonReader provenance = top.object("provenance");
  // Copied into what is made from the file (every rank of an export): bounded as prose (red team: 5 MB each).
  if (const std::size_t size = top.required("provenance").dump().size(); size > kMaxProseBytes) {
    provenance.where().fail(fmt::format("expected at most {} bytes (as JSON), got {}", kMaxProseBytes, size));
  }
  const std::string kind = provenance.text("kind");
  if (kind != "measured" && kind != "synthetic") {
    provenance.where().key("kind").expected("\"measured\" or \"synthetic\"", kind);
  }
  return version;
}

void require_kind(const nlohmann::ordered_json& provenance) {
  if (!provenance.is_object() || !provenance.contains("kind")) {
    throw OutputError("internal: provenance without \"kind\"");
  }
}

Layer read_layer(const nlohmann::json& value, const JsonWhere& where) {
  JsonReader in(value, where);
  Layer layer;
  layer.name = in.text("name");
  for (const auto& [element, at] : in.array("params")) {
    layer.params.push_back(read_integer(*element, at, 1, kMaxTensorElements));
  }
  layer.dtype_bytes = static_cast<int>(in.integer("dtype_bytes", 1, kMaxDtypeBytes));
  layer.backward_time_s = in.number("backward_time_s", 0.0, true, kMaxStepSeconds);
  if (in.has("forward_time_s")) layer.forward_time_s = in.number("forward_time_s", 0.0, true, kMaxStepSeconds);
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

/// {"gpus", "bytes", "seconds"} of a curve point or an in-situ observation.
CurvePoint read_point(const nlohmann::json& value, const JsonWhere& where, int min_gpus) {
  JsonReader in(value, where);
  const CurvePoint point{static_cast<int>(in.integer("gpus", min_gpus, kIntMax)),
                         in.integer("bytes", 1, kMaxMessageBytes), in.number("seconds", kMinMeasuredSeconds, true, kMaxStepSeconds)};
  if (in.has("spread_s")) in.number("spread_s", 0.0, true, kMaxStepSeconds);
  in.reject_unknown();
  return point;
}

/// The mean of every (gpus, bytes) of in-situ observations: one point per
/// size, and the same total as the observations when the same messages are sent.
std::vector<CurvePoint> mean_per_size(const std::vector<CurvePoint>& observations) {
  std::map<std::pair<int, std::int64_t>, std::pair<double, int>> by_size;  // (sum, count)
  for (const CurvePoint& o : observations) {
    auto& [sum, count] = by_size[{o.gpus, o.bytes}];
    sum += o.seconds;
    ++count;
  }
  std::vector<CurvePoint> points;
  for (const auto& [key, total] : by_size) points.push_back({key.first, key.second, total.first / total.second});
  return points;
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

/// Version 1: the whole forward pass, `forward_time_s`, and none per layer;
/// version 2: every layer's own and no whole one (it is their sum).
void read_forward(JsonReader& top, int version, const std::vector<bool>& has_forward, Trace& trace) {
  const JsonWhere layers_at = top.where().key("layers");
  for (std::size_t l = 0; l < has_forward.size(); ++l) {
    if (version == 1 && has_forward[l]) {
      layers_at.index(l).key("forward_time_s").fail("a layer's forward time needs \"version\": 2");
    }
    if (version == 2 && !has_forward[l]) {
      layers_at.index(l).fail("missing key \"forward_time_s\" (version 2: every layer has its forward time)");
    }
  }
  if (version == 1) {
    trace.forward_time_s = top.number("forward_time_s", 0.0, true, kMaxStepSeconds);
    return;
  }
  if (top.has("forward_time_s")) {
    top.where().key("forward_time_s").fail("not in version 2: each layer has its own forward_time_s");
  }
  for (const Layer& layer : trace.layers) trace.forward_time_s += layer.forward_time_s;
  if (trace.forward_time_s > kMaxStepSeconds) {  // red team: written to an export, which its import refused
    layers_at.fail(fmt::format("expected the layers' forward_time_s to sum to at most {:g} s (the forward pass, one "
                               "step: docs/limits.md), got {:g} s",
                               kMaxStepSeconds, trace.forward_time_s));
  }
}

}  // namespace

Trace load_trace(const std::filesystem::path& file) {
  return parse_trace(read_input_file(file, InputKind::trace), file.string());
}

Trace parse_trace(std::string text, const std::string& source) {
  const JsonWhere where{source, "", InputKind::trace};
  const JsonWhere layers_at = where.key("layers");
  Trace trace;
  std::vector<bool> has_forward;  // per layer: whether it gave forward_time_s
  // Each layer is read as soon as it is parsed and its JSON dropped, so the
  // document never holds them all.
  const StreamedArray layers{"layers", [&](const nlohmann::json& element, std::size_t i) {
    if (static_cast<std::int64_t>(i) >= kMaxLayers) {
      layers_at.fail(fmt::format("expected at most {} layers, got more", kMaxLayers));
    }
    trace.layers.push_back(read_layer(element, layers_at.index(i)));
    has_forward.push_back(element.is_object() && element.contains("forward_time_s"));
  }};
  const nlohmann::json document = parse_json_text(std::move(text), source, InputKind::trace, &layers);
  JsonReader top(document, where);
  const int version = read_header(top, "mgsim-trace", 2);
  trace.model = top.text("model");
  trace.batch_size = static_cast<int>(top.integer("batch_size", 1, kIntMax));
  read_forward(top, version, has_forward, trace);
  if (top.has("optimizer_bytes_per_s")) {
    trace.optimizer_bytes_per_s = top.number("optimizer_bytes_per_s", kMinMemoryBytesPerS, true, kMaxMemoryBytesPerS);
  }
  const nlohmann::json& listed = top.required("layers");  // [] once streamed
  if (trace.layers.empty()) layers_at.expected("a non-empty array", listed);
  if (top.has("insitu_allreduce")) {
    for (const auto& [element, at] : top.array("insitu_allreduce")) {
      trace.insitu_allreduce.push_back(read_point(*element, at, 1));
    }
  }
  top.reject_unknown();
  check_totals(trace, top.where());
  if (make_profile(trace).compute_time() <= 0) {
    top.where().fail("expected some compute: forward_time_s and every backward_time_s are 0");
  }
  return trace;
}

std::vector<CurvePoint> insitu_curve(const Trace& trace, const std::filesystem::path& file) {
  if (trace.insitu_allreduce.empty()) {
    JsonWhere{file.string(), "insitu_allreduce", InputKind::curve}.fail(
        "expected in-situ all-reduce observations in a trace used as a curve, got none");
  }
  return mean_per_size(trace.insitu_allreduce);
}

namespace {

/// A curve file's document (format "mgsim-curve") read from `source`.
CurveFile read_curve(const nlohmann::json& document, const std::string& source) {
  JsonReader top(document, {source, "", InputKind::curve});
  read_header(top, "mgsim-curve");
  CurveFile curve;
  const std::string collective = top.text("collective");
  if (const auto named = curve_collective_named(collective)) {
    curve.collective = *named;
  } else {
    top.where().key("collective").expected("\"allreduce\", \"allgather\" or \"reducescatter\"",
                                           top.required("collective"));
  }
  std::set<std::pair<int, std::int64_t>> seen;
  std::map<int, std::size_t> sizes;  // per GPU count
  for (const auto& [element, at] : top.array("points")) {
    const CurvePoint point = read_point(*element, at, 2);
    if (!seen.emplace(point.gpus, point.bytes).second) {
      at.fail(fmt::format("duplicate point for gpus {} and bytes {}", point.gpus, point.bytes));
    }
    if (++sizes[point.gpus] > kMaxCurveSizes) {
      at.fail(fmt::format("expected at most {} sizes for {} GPUs (a measured sweep has a few dozen)", kMaxCurveSizes,
                          point.gpus));
    }
    curve.points.push_back(point);
  }
  top.reject_unknown();
  curve.provenance = document.at("provenance");
  return curve;
}

/// What a file's writer names in a message when the file it made would not
/// load (an importer's number past a reader's bound, a NaN written as null):
/// with the file it was imported from, where its provenance says (red team:
/// an import's provenance past its bound named neither file).
std::string to_write(const nlohmann::ordered_json& provenance) {
  const auto from = provenance.find("source_file");
  if (from == provenance.end() || !from->is_string()) return "the file to write";
  return fmt::format("the file to write from {}", printable(from->get<std::string>()));
}

}  // namespace

CurveFile load_curve_file(const std::filesystem::path& file) {
  const nlohmann::json document = parse_json_file(file, InputKind::curve);
  if (const auto format = document.is_object() ? document.find("format") : document.end();
      format != document.end() && *format == "mgsim-trace") {
    return {CurveCollective::allreduce, insitu_curve(load_trace(file), file), nullptr};
  }
  return read_curve(document, file.string());
}

std::vector<CurvePoint> load_curve(const std::filesystem::path& file) {
  CurveFile curve = load_curve_file(file);
  if (curve.collective != CurveCollective::allreduce) {
    throw CurveError(fmt::format("{}: collective: expected an \"allreduce\" curve here, got \"{}\"", file.string(),
                                 curve_collective_name(curve.collective)));
  }
  return std::move(curve.points);
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
    if (seen.size() > kMaxCurveSizes) {
      at.fail(fmt::format("expected at most {} sizes (a measured sweep has a few dozen)", kMaxCurveSizes));
    }
    points.push_back(point);
  }
  top.reject_unknown();
  return points;
}

std::string format_trace_json(const Trace& trace, const nlohmann::ordered_json& provenance, std::string what) {
  require_kind(provenance);
  nlohmann::ordered_json out;
  const bool per_layer = has_layer_forward(trace);
  out["format"] = "mgsim-trace";
  out["version"] = per_layer ? 2 : 1;
  out["model"] = trace.model;
  out["batch_size"] = trace.batch_size;
  if (!per_layer) out["forward_time_s"] = trace.forward_time_s;
  if (trace.optimizer_bytes_per_s > 0) out["optimizer_bytes_per_s"] = trace.optimizer_bytes_per_s;
  out["provenance"] = provenance;
  out["provenance"]["mgsim_version"] = std::string(version());  // the mgsim that wrote the file
  out["layers"] = nlohmann::ordered_json::array();
  for (const Layer& layer : trace.layers) {
    nlohmann::ordered_json l;
    l["name"] = layer.name;
    l["params"] = layer.params;
    l["dtype_bytes"] = layer.dtype_bytes;
    if (per_layer) l["forward_time_s"] = layer.forward_time_s;
    l["backward_time_s"] = layer.backward_time_s;
    if (!layer.grad_ready_s.empty()) l["grad_ready_s"] = layer.grad_ready_s;
    out["layers"].push_back(std::move(l));
  }
  if (!trace.insitu_allreduce.empty()) {
    out["insitu_allreduce"] = nlohmann::ordered_json::array();
    for (const CurvePoint& p : trace.insitu_allreduce) {
      out["insitu_allreduce"].push_back({{"gpus", p.gpus}, {"bytes", p.bytes}, {"seconds", p.seconds}});
    }
  }
  std::string text = json_text(out, 1) + "\n";
  parse_trace(text, what.empty() ? to_write(provenance) : what);  // nothing is written that mgsim would not read back
  return text;
}

std::string format_curve_json(std::vector<CurveSample> points, const nlohmann::ordered_json& provenance,
                              CurveCollective collective) {
  require_kind(provenance);
  std::sort(points.begin(), points.end(), [](const CurveSample& a, const CurveSample& b) {
    return a.gpus != b.gpus ? a.gpus < b.gpus : a.bytes < b.bytes;
  });
  nlohmann::ordered_json out;
  out["format"] = "mgsim-curve";
  out["version"] = 1;
  out["collective"] = curve_collective_name(collective);
  out["provenance"] = provenance;
  out["provenance"]["mgsim_version"] = std::string(version());  // the mgsim that wrote the file
  out["points"] = nlohmann::ordered_json::array();
  for (const CurveSample& p : points) {
    nlohmann::ordered_json point = {{"gpus", p.gpus}, {"bytes", p.bytes}, {"seconds", p.seconds}};
    if (p.spread_s) point["spread_s"] = *p.spread_s;
    out["points"].push_back(std::move(point));
  }
  std::string text = json_text(out, 1) + "\n";
  const std::string label = to_write(provenance);
  read_curve(parse_json_text(text, label, InputKind::curve), label);  // nothing mgsim would not read back
  return text;
}

}  // namespace mgsim
