#include "mgsim/profile/output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "mgsim/error.hpp"

namespace mgsim::profile {
namespace {

void require_kind(const nlohmann::json& provenance) {
  if (!provenance.is_object() || !provenance.contains("kind")) {
    throw OutputError("internal: provenance without \"kind\"");
  }
}

}  // namespace

std::string format_trace_json(const Trace& trace, const nlohmann::json& provenance) {
  require_kind(provenance);
  nlohmann::ordered_json out;
  out["format"] = "mgsim-trace";
  out["version"] = 1;
  out["model"] = trace.model;
  out["batch_size"] = trace.batch_size;
  out["forward_time_s"] = trace.forward_time_s;
  out["provenance"] = provenance;
  out["layers"] = nlohmann::ordered_json::array();
  for (const Layer& layer : trace.layers) {
    nlohmann::ordered_json l;
    l["name"] = layer.name;
    l["params"] = layer.params;
    l["dtype_bytes"] = layer.dtype_bytes;
    l["backward_time_s"] = layer.backward_time_s;
    if (!layer.grad_ready_s.empty()) l["grad_ready_s"] = layer.grad_ready_s;
    out["layers"].push_back(std::move(l));
  }
  return out.dump(1) + "\n";
}

std::string format_curve_json(std::vector<CurveSample> points, const nlohmann::json& provenance) {
  require_kind(provenance);
  std::sort(points.begin(), points.end(), [](const CurveSample& a, const CurveSample& b) {
    return a.gpus != b.gpus ? a.gpus < b.gpus : a.bytes < b.bytes;
  });
  nlohmann::ordered_json out;
  out["format"] = "mgsim-curve";
  out["version"] = 1;
  out["collective"] = "allreduce";
  out["provenance"] = provenance;
  out["points"] = nlohmann::ordered_json::array();
  for (const CurveSample& p : points) {
    nlohmann::ordered_json point = {{"gpus", p.gpus}, {"bytes", p.bytes}, {"seconds", p.seconds}};
    if (p.spread_s) point["spread_s"] = *p.spread_s;
    out["points"].push_back(std::move(point));
  }
  return out.dump(1) + "\n";
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  return fmt::format("{:04}-{:02}-{:02}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
}

}  // namespace mgsim::profile
