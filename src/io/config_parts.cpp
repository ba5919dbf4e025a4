#include "mgsim/io/config_parts.hpp"

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim {
namespace {

/// Slowest network accepted (docs/limits.md): a latency of a second per
/// message step, a kilobyte per second of bandwidth or of reduction.
constexpr double kMaxAlphaUs = 1e6;
constexpr double kMaxSecondsPerByte = 1e-3;

}  // namespace

Link read_link(JsonReader in) {
  Link link;
  link.alpha_s = in.number("alpha_us", 0.0, true, kMaxAlphaUs) * 1e-6;
  link.beta_s_per_byte = in.number("beta_s_per_byte", 0.0, true, kMaxSecondsPerByte);
  link.gamma_s_per_byte = in.has("gamma_s_per_byte") ? in.number("gamma_s_per_byte", 0.0, true, kMaxSecondsPerByte) : 0.0;
  in.reject_unknown();
  return link;
}

Overlap read_overlap(JsonReader in) {
  Overlap overlap;
  if (in.has("compute_slowdown")) overlap.compute_slowdown = in.number("compute_slowdown", 0.0, true);
  if (in.has("comm_slowdown")) overlap.comm_slowdown = in.number("comm_slowdown", 0.0, true);
  in.reject_unknown();
  return overlap;
}

Network read_network(JsonReader in) {
  if (in.has("intra") || in.has("inter")) {
    Network network{read_link(in.object("intra")), read_link(in.object("inter"))};
    in.reject_unknown();
    return network;
  }
  const Link link = read_link(in);
  return {link, link};
}

namespace {

/// {"conv1": 0.01, ...}: per-layer densities of a sparse schedule.
std::map<std::string, double, std::less<>> read_layer_density(const nlohmann::json& value, const JsonWhere& where) {
  if (!value.is_object() || value.empty()) where.expected("an object of layer name -> density", value);
  std::map<std::string, double, std::less<>> densities;
  for (const auto& [layer, density] : value.items()) densities[layer] = read_number(density, where.key(layer), 0.0, false);
  return densities;
}

}  // namespace

ScheduleSpec read_schedule(const nlohmann::json& value, const JsonWhere& where, const std::filesystem::path& folder) {
  ScheduleSpec spec;
  if (value.is_string()) {
    spec.name = read_text(value, where);
  } else {
    JsonReader in(value, where);
    spec.name = in.text("name");
    for (const auto& [key, parameter] : value.items()) {
      if (key == "name") continue;
      if (key == "layer_density") {
        spec.sparse.layer_density = read_layer_density(parameter, where.key(key));
      } else if (key == "selection_curve") {
        spec.selection_curve_file = (folder / read_text(parameter, where.key(key))).string();
        spec.sparse.selection_curve = load_selection_curve(spec.selection_curve_file);
      } else {
        spec.params[key] = read_number(parameter, where.key(key), 0.0, true);
      }
    }
  }
  try {
    spec.build();
  } catch (const ConfigError& error) {
    where.fail(error.what());
  }
  return spec;
}

std::vector<ScheduleSpec> default_schedules() {
  std::vector<ScheduleSpec> specs;
  for (const ScheduleInfo& info : schedule_registry()) {
    if (!info.sparse) specs.push_back({std::string(info.name), {}, {}, {}});
  }
  return specs;
}

MessageUnit read_message_unit(JsonReader& top) {
  if (!top.has("message_unit")) return MessageUnit::tensor;
  const nlohmann::json& value = top.required("message_unit");
  if (value == "layer") return MessageUnit::layer;
  if (value != "tensor") top.where().key("message_unit").expected("\"tensor\" or \"layer\"", value);
  return MessageUnit::tensor;
}

void check_unique_label(const ScheduleSpec& spec, std::unordered_set<std::string>& taken, const JsonWhere& where) {
  std::string label = spec.label();
  if (taken.contains(label)) where.fail(fmt::format("schedule '{}' given twice", label));
  taken.insert(std::move(label));
}

}  // namespace mgsim
