#include "mgsim/io/sweep_config.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "mgsim/io/config_parts.hpp"
#include "mgsim/io/json_reader.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim {
namespace {

using Element = std::pair<const nlohmann::json*, JsonWhere>;

/// The value of `key` alone, or the elements of a non-empty array: the axis of
/// a grid. `what` names one element for the error message.
std::vector<Element> read_axis(JsonReader& top, std::string_view key, std::string_view what) {
  const nlohmann::json& value = top.required(key);
  const JsonWhere at = top.where().key(key);
  if (!value.is_array()) return {{&value, at}};
  if (value.empty()) at.expected(fmt::format("{} or a non-empty array of them", what), value);
  std::vector<Element> elements;
  for (std::size_t i = 0; i < value.size(); ++i) elements.emplace_back(&value[i], at.index(i));
  return elements;
}

/// Fails at `where` when `label` is already among `seen`.
void refuse_repeat(std::vector<std::string>& seen, const std::string& label, const JsonWhere& where) {
  if (std::find(seen.begin(), seen.end(), label) != seen.end()) where.fail(fmt::format("'{}' given twice", label));
  seen.push_back(label);
}

void read_traces(JsonReader& top, SweepConfig& config) {
  const std::filesystem::path folder = config.file.parent_path();
  for (const auto& [element, at] : read_axis(top, "trace", "a trace file")) {
    const std::string label = read_text(*element, at);
    refuse_repeat(config.trace_labels, label, at);
    config.traces.push_back(folder / label);
  }
}

void read_gpus(JsonReader& top, SweepConfig& config) {
  if (!top.has("gpus")) {
    config.gpus = default_sweep_gpus();
  } else {
    std::vector<std::string> seen;
    for (const auto& [element, at] : top.array("gpus")) {
      config.gpus.push_back(static_cast<int>(read_integer(*element, at, 1, kMaxGpus)));
      refuse_repeat(seen, std::to_string(config.gpus.back()), at);
    }
  }
  if (!top.has("gpus_per_node")) {
    config.gpus_per_node = {1};
    return;
  }
  std::vector<std::string> seen;
  for (const auto& [element, at] : read_axis(top, "gpus_per_node", "an integer")) {
    config.gpus_per_node.push_back(static_cast<int>(read_integer(*element, at, 1, kMaxGpus)));
    refuse_repeat(seen, std::to_string(config.gpus_per_node.back()), at);
  }
}

/// Reads the collectives; returns whether any needs measured curves and any a network.
std::pair<bool, bool> read_collectives(JsonReader& top, SweepConfig& config) {
  bool any_curve = false, any_network = false;
  if (!top.has("collective")) {
    config.collectives = {"ring"};
    return {false, true};
  }
  for (const auto& [element, at] : read_axis(top, "collective", "a collective name")) {
    const std::string name = read_text(*element, at);
    refuse_repeat(config.collectives, name, at);
    (at.reporting([&] { return find_collective(name).needs_curve; }) ? any_curve : any_network) = true;
  }
  return {any_curve, any_network};
}

void read_networks(JsonReader& top, SweepConfig& config) {
  std::vector<std::string> seen;
  for (const auto& [element, at] : read_axis(top, "network", "a network object")) {
    JsonReader in(*element, at);
    SweepNetwork entry;
    entry.label = in.has("name") ? in.text("name") : fmt::format("net{}", config.networks.size());
    entry.network = read_network(in);
    refuse_repeat(seen, entry.label, at);
    config.networks.push_back(std::move(entry));
  }
}

void read_links(JsonReader& top, SweepConfig& config) {
  const auto [any_curve, any_network] = read_collectives(top, config);
  if (any_network) {
    read_networks(top, config);
  } else if (top.has("network")) {
    top.where().key("network").fail("not used by collective 'measured'; remove it");
  }
  if (!any_curve) {
    if (top.has("curves")) top.where().key("curves").fail("only collective 'measured' uses curves");
    return;
  }
  for (const auto& [element, where] : top.array("curves")) {
    const std::filesystem::path curve = config.file.parent_path() / read_text(*element, where);
    const std::vector<CurvePoint> points = load_curve(curve);
    config.curve.insert(config.curve.end(), points.begin(), points.end());
    config.curve_source += fmt::format("{}{}", config.curve_source.empty() ? "" : ", ", curve.string());
  }
}

/// One schedule entry, whose parameters may be arrays: one spec per
/// combination, the first parameter (by name) outermost, values in file order.
void expand_schedule(const nlohmann::json& value, const JsonWhere& where, const std::filesystem::path& folder,
                     std::vector<ScheduleSpec>& out) {
  std::vector<std::pair<std::string, const nlohmann::json*>> axes;
  if (value.is_object()) {
    for (const auto& [key, parameter] : value.items()) {
      if (key == "name" || !parameter.is_array()) continue;
      const JsonWhere at = where.key(key);
      if (parameter.empty()) at.expected("a number or a non-empty array of numbers", parameter);
      for (std::size_t j = 0; j < parameter.size(); ++j) read_number(parameter[j], at.index(j), 0.0, true);
      axes.emplace_back(key, &parameter);
    }
  }
  std::vector<std::size_t> digit(axes.size(), 0);
  while (true) {
    nlohmann::json combination = value;
    for (std::size_t a = 0; a < axes.size(); ++a) combination[axes[a].first] = (*axes[a].second)[digit[a]];
    out.push_back(read_schedule(combination, where, folder));
    std::size_t a = axes.size();
    while (a > 0 && ++digit[a - 1] == axes[a - 1].second->size()) digit[--a] = 0;
    if (a == 0) return;
  }
}

void read_schedules(JsonReader& top, SweepConfig& config) {
  if (!top.has("schedules")) {
    config.schedules = default_schedules();
    return;
  }
  std::unordered_set<std::string> labels;
  for (const auto& [element, at] : top.array("schedules")) {
    std::vector<ScheduleSpec> expanded;
    expand_schedule(*element, at, config.file.parent_path(), expanded);
    for (ScheduleSpec& spec : expanded) {
      check_builder_gpus(spec, config.gpus, at);
      check_unique_label(spec, labels, at);
      config.schedules.push_back(std::move(spec));
    }
  }
}

}  // namespace

std::vector<int> default_sweep_gpus() {
  std::vector<int> gpus;
  for (int p = 4; p <= 2048; p *= 2) gpus.push_back(p);
  return gpus;
}

SweepConfig load_sweep_config(const std::filesystem::path& file) {
  const nlohmann::json document = parse_json_file(file, InputKind::config);
  JsonReader top(document, {file.string(), "", InputKind::config});
  SweepConfig config;
  config.file = file;
  if (top.has("description")) top.text("description");
  read_traces(top, config);
  read_gpus(top, config);
  read_links(top, config);
  read_schedules(top, config);
  const MessageUnit unit = read_message_unit(top);
  for (ScheduleSpec& spec : config.schedules) spec.unit = unit;
  if (top.has("variability")) {
    config.variability = read_variability(top.object("variability"), *std::min_element(config.gpus.begin(), config.gpus.end()));
  }
  config.iterations = read_iterations(top);
  check_builder_delays(config.schedules, config.variability, top.where());
  top.reject_unknown();
  return config;
}

}  // namespace mgsim
