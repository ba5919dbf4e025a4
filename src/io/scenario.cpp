#include "mgsim/io/scenario.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mgsim/error.hpp"
#include "mgsim/io/config_parts.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/json_reader.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/registry_lookup.hpp"

namespace mgsim {
namespace {

using Element = std::pair<const nlohmann::json*, JsonWhere>;

/// Fails at `where` when an axis of the grid would hold `count` `what`, past kMaxAxisValues.
void check_axis(std::size_t count, std::string_view what, const JsonWhere& where) {
  if (count > kMaxAxisValues) {
    where.fail(fmt::format("{} {}, past the {} one axis of a grid holds (docs/limits.md)", count, what, kMaxAxisValues));
  }
}

/// The value of `key` alone, or the elements of a non-empty array: the axis of
/// a grid. `what` names one element for the error message.
std::vector<Element> read_axis(JsonReader& top, std::string_view key, std::string_view what) {
  const nlohmann::json& value = top.required(key);
  const JsonWhere at = top.where().key(key);
  if (!value.is_array()) return {{&value, at}};
  if (value.empty()) at.expected(fmt::format("{} or a non-empty array of them", what), value);
  check_axis(value.size(), "values", at);
  std::vector<Element> elements;
  for (std::size_t i = 0; i < value.size(); ++i) elements.emplace_back(&value[i], at.index(i));
  return elements;
}

/// Fails at `where` when `label` is already among `seen`.
void refuse_repeat(std::unordered_set<std::string>& seen, const std::string& label, const JsonWhere& where) {
  if (!seen.insert(label).second) where.fail(fmt::format("'{}' given twice", label));
}

void read_traces(JsonReader& top, Scenario& scenario) {
  std::unordered_set<std::string> seen;
  std::vector<FileIdentity> files;
  for (const auto& [element, at] : read_axis(top, "trace", "a trace file")) {
    const std::string label = read_text(*element, at);
    refuse_repeat(seen, label, at);
    scenario.trace_labels.push_back(label);
    scenario.traces.push_back(read_file_name(*element, at, scenario.file.parent_path(), true));
    files.push_back(FileIdentity::of(scenario.traces.back()));
    for (std::size_t t = 0; t + 1 < files.size(); ++t) {  // one file by two names: the same rows twice
      if (files[t] == files.back()) {
        at.fail(fmt::format("'{}' is '{}' again (a link to it, or another spelling): give each trace once", label,
                            scenario.trace_labels[t]));
      }
    }
  }
}

/// An axis of distinct integers in [1, kMaxGpus].
std::vector<int> read_counts(const std::vector<Element>& elements) {
  std::vector<int> counts;
  std::unordered_set<std::string> seen;
  for (const auto& [element, at] : elements) {
    counts.push_back(static_cast<int>(read_integer(*element, at, 1, kMaxGpus)));
    refuse_repeat(seen, std::to_string(counts.back()), at);
  }
  return counts;
}

/// The "name" `entry` gives; empty where it gives none (reading the entry
/// says why).
std::string_view entry_name(const nlohmann::json& entry) {
  if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) return {};
  return entry["name"].get_ref<const std::string&>();
}

/// Calls `each` with every combination of an entry's parameters that are
/// arrays (a schedule's or a collective's), the first parameter (by name)
/// outermost, values in file order; with none, the entry as written, never
/// copied (a copy recurses as deep as the value). Fails before any when the
/// combinations and the `before` entries of the axis would pass
/// kMaxAxisValues `what`, and calls `check(key, element, where)` on every
/// element of every list first, so that one out of its parameter's range is
/// named by its index.
template <typename Each, typename Check>
void for_each_combination(const nlohmann::json& value, const JsonWhere& where, std::size_t before,
                          std::string_view what, Each each, Check check) {
  std::vector<std::pair<std::string, const nlohmann::json*>> axes;
  if (value.is_object()) {
    for (const auto& [key, parameter] : value.items()) {
      if (key == "name" || key == "layer_density" || !parameter.is_array()) continue;  // densities: an object
      const JsonWhere at = where.key(key);
      if (key == "selection_curve") at.expected("a selection curve file name (an entry per curve to compare several)", parameter);
      if (parameter.empty()) at.expected("a number or a non-empty array of numbers", parameter);
      // Each element in its parameter's range, by its index (red team: [25, -1] was said to need ">= 0", not
      // bucket_cap_mb's "> 0"; ["1", 1] was named as a whole): a number parameter's check names the element.
      for (std::size_t j = 0; j < parameter.size(); ++j) check(key, parameter[j], at.index(j));
      const auto text = [](const nlohmann::json& e) { return !e.is_number(); };
      if (std::any_of(parameter.begin(), parameter.end(), text)) {  // a text parameter's list, or an unknown key's
        at.expected(what == "schedules" ? "a number or an array of numbers, or for a text parameter one text (an entry "
                                          "per value compares several)"
                                        : "a number or an array of numbers",  // a collective has no text parameter
                    parameter);
      }
      axes.emplace_back(key, &parameter);
    }
  }
  if (axes.empty()) {
    check_axis(before + 1, what, where);
    each(value);
    return;
  }
  double combinations = 1;  // a double: the lists of a 1 GiB file can multiply past any integer
  for (const auto& axis : axes) combinations *= static_cast<double>(axis.second->size());
  if (static_cast<double>(before) + combinations > static_cast<double>(kMaxAxisValues)) {
    const std::string with_before =
        before == 0 ? "" : fmt::format(", {:.0f} with the entries before it", static_cast<double>(before) + combinations);
    where.fail(fmt::format("its lists make {:.0f} {}{}, past the {} one axis of a grid holds (docs/limits.md)",
                           combinations, what, with_before, kMaxAxisValues));
  }
  for (const auto& [key, list] : axes) {
    std::unordered_map<double, std::size_t> first;  // of each value: a repeat is named here (red team: at the entry)
    for (std::size_t j = 0; j < list->size(); ++j) {
      const auto [earlier, fresh] = first.try_emplace((*list)[j].template get<double>(), j);
      if (!fresh) {
        where.key(key).index(j).fail(
            fmt::format("{} again (as [{}]): give each value once", (*list)[j].dump(), earlier->second));
      }
    }
  }
  nlohmann::json base = value;  // without its lists: a copy per combination would copy them all (red team: quadratic)
  for (const auto& axis : axes) base.erase(axis.first);
  std::vector<std::size_t> digit(axes.size(), 0);
  while (true) {
    nlohmann::json combination = base;
    for (std::size_t a = 0; a < axes.size(); ++a) combination[axes[a].first] = (*axes[a].second)[digit[a]];
    each(combination);
    std::size_t a = axes.size();
    while (a > 0 && ++digit[a - 1] == axes[a - 1].second->size()) digit[--a] = 0;
    if (a == 0) return;
  }
}

/// The value of the parameter `key` of collective `info`, in its range.
double read_collective_param(const CollectiveInfo& info, const std::string& key, const nlohmann::json& value,
                             const JsonWhere& at) {
  const auto param =
      std::find_if(info.params.begin(), info.params.end(), [&](const CollectiveParam& p) { return p.name == key; });
  if (param == info.params.end()) {
    std::vector<std::string_view> names;
    for (const CollectiveParam& p : info.params) names.push_back(p.name);
    at.fail(unknown_name(fmt::format("collective '{}' parameter", info.name), key, names));
  }
  if (!param->integer) return read_number(value, at, param->min, true, param->max);
  return static_cast<double>(read_integer(value, at, static_cast<std::int64_t>(param->min),
                                          static_cast<std::int64_t>(param->max)));
}

/// Reads the collectives, each a name or {"name": ..., <parameter>: number or
/// [numbers]}; returns whether any needs measured curves and any a network.
std::pair<bool, bool> read_collectives(JsonReader& top, Scenario& scenario) {
  if (!top.has("collective")) return {false, true};
  bool any_curve = false, any_network = false;
  scenario.collectives.clear();
  std::unordered_set<std::string> labels;
  for (const auto& [element, where] : read_axis(top, "collective", "a collective name or object")) {
    const JsonWhere at = where;  // structured bindings: clang 14 cannot capture them
    const nlohmann::json& entry = *element;
    for_each_combination(
        *element, at, scenario.collectives.size(), "collectives",
        [&](const nlohmann::json& one) {
          scenario.collectives.push_back(read_collective(one, at));
          refuse_repeat(labels, scenario.collectives.back().label(), at);
        },
        [&](const std::string& key, const nlohmann::json& value, const JsonWhere& where) {
          const auto takes = [&](const CollectiveParam& p) { return p.name == key; };
          for (const CollectiveInfo& info : collective_registry()) {  // an unknown name or key is said as the entry is read
            if (info.name == entry_name(entry) && std::any_of(info.params.begin(), info.params.end(), takes)) {
              read_collective_param(info, key, value, where);
            }
          }
        });
    (find_collective(scenario.collectives.back().name).needs_curve ? any_curve : any_network) = true;
  }
  return {any_curve, any_network};
}

void read_networks(JsonReader& top, Scenario& scenario) {
  std::unordered_set<std::string> seen;
  for (const auto& [element, at] : read_axis(top, "network", "a network object")) {
    JsonReader in(*element, at);
    NamedNetwork entry;
    entry.label = in.has("name") ? in.text("name") : fmt::format("net{}", scenario.networks.size());
    entry.network = read_network(in);
    for (const CollectiveSpec& collective : scenario.collectives) {  // as the config is read, not when a run reaches
      check_network_for(find_collective(collective.name), entry.network, *element, at);  // it (red team)
    }
    refuse_repeat(seen, entry.label, at);
    const auto values = [](const Network& n) {  // + 0.0: -0 is 0
      return std::array{n.intra.alpha_s + 0.0, n.intra.beta_s_per_byte + 0.0, n.intra.gamma_s_per_byte + 0.0,
                        n.inter.alpha_s + 0.0, n.inter.beta_s_per_byte + 0.0, n.inter.gamma_s_per_byte + 0.0,
                        n.fabric_s_per_byte + 0.0};
    };
    for (const NamedNetwork& earlier : scenario.networks) {
      if (values(earlier.network) == values(entry.network)) {
        at.fail(fmt::format("the values of network '{}' again: one network would run twice under two names",
                            printable(earlier.label)));
      }
    }
    scenario.networks.push_back(std::move(entry));
  }
}

void read_curves(JsonReader& top, Scenario& scenario) {
  // Which curve gave each (collective, gpus, bytes): two files may not time one point.
  std::map<std::tuple<CurveCollective, int, std::int64_t>, std::size_t> given;
  const std::vector<Element> curves = top.array("curves");
  for (std::size_t c = 0; c < curves.size(); ++c) {
    const auto& [element, where] = curves[c];
    const std::filesystem::path curve = read_file_name(*element, where, scenario.file.parent_path(), false);
    const CurveFile file = where.reading_file(InputKind::curve, [&] { return load_curve_file(curve); });
    if (file.collective == CurveCollective::reducescatter) {
      where.fail(fmt::format("{} is a reduce-scatter curve: no schedule uses one; give all-reduce or all-gather curves",
                             curve.string()));
    }
    for (const CurvePoint& point : file.points) {
      const auto [first, fresh] = given.try_emplace({file.collective, point.gpus, point.bytes}, c);
      if (!fresh) {
        where.fail(fmt::format("{} times {} GPUs and {} bytes, which curves[{}] times too: give each point once "
                               "(one curve per GPU count, or their points merged into one file)",
                               curve.string(), point.gpus, point.bytes, first->second));
      }
    }
    auto& all = file.collective == CurveCollective::allgather ? scenario.allgather_curve : scenario.curve;
    all.insert(all.end(), file.points.begin(), file.points.end());
    scenario.curve_source += fmt::format("{}{}", scenario.curve_source.empty() ? "" : ", ", curve.string());
    scenario.inputs.push_back(curve);
  }
}

/// `curve_scale`: every time of the measured curves multiplied by it (a curve
/// from an idle benchmark brought to the training loop's, fitted by calibrate).
void scale_curves(JsonReader& top, Scenario& scenario) {
  const double scale = top.number("curve_scale", kMinCurveScale, true, kMaxCurveScale);
  for (std::vector<CurvePoint>* points : {&scenario.curve, &scenario.allgather_curve}) {
    for (CurvePoint& point : *points) {
      point.seconds *= scale;
      if (point.seconds > kMaxStepSeconds) {
        top.where().key("curve_scale").fail(fmt::format(
            "scales a measured time of {} GPUs, {} bytes to {} s, past the longest step ({} s)", point.gpus,
            point.bytes, point.seconds, kMaxStepSeconds));
      }
    }
  }
}

void read_links(JsonReader& top, Scenario& scenario) {
  const auto [any_curve, any_network] = read_collectives(top, scenario);
  if (any_network) {
    read_networks(top, scenario);
  } else if (top.has("network")) {
    top.where().key("network").fail("not used by collective 'measured'; remove it");
  }
  if (any_curve) {
    read_curves(top, scenario);
    if (top.has("curve_scale")) scale_curves(top, scenario);
  } else {
    for (const char* key : {"curves", "curve_scale"}) {
      if (!top.has(key)) continue;
      top.where().key(key).fail(
          fmt::format("only collective 'measured' uses {}, not '{}'", key, scenario.collectives.front().label()));
    }
  }
}

void read_schedules(JsonReader& top, Scenario& scenario) {
  if (!top.has("schedules")) {
    scenario.schedules = default_schedules();
    return;
  }
  std::unordered_set<std::string> labels;
  for (const auto& [element, where] : top.array("schedules")) {
    const JsonWhere at = where;  // structured bindings: clang 14 cannot capture them
    const nlohmann::json& entry = *element;
    const std::size_t first = scenario.schedules.size();
    for_each_combination(
        *element, at, scenario.schedules.size(), "schedules",
        [&](const nlohmann::json& one) {
          scenario.schedules.push_back(read_schedule(one, at, scenario.file.parent_path(), scenario.inputs));
        },
        [&](const std::string& key, const nlohmann::json& value, const JsonWhere& where) {
          if (const ParamSpec* param = find_schedule_param(entry_name(entry), key)) {  // else said as the entry is read
            read_schedule_param(*param, value, where);
          }
        });
    for (std::size_t s = first; s < scenario.schedules.size(); ++s) {
      const ScheduleSpec& spec = scenario.schedules[s];
      check_builder_gpus(spec, scenario.gpus, at);
      check_unique_label(spec, scenario.file.parent_path(), labels, at);
      const BuilderInfo* builder = spec.builder();
      const auto measured = [](const CollectiveSpec& c) { return find_collective(c.name).needs_curve; };
      if (builder && builder->needs_network && scenario.collectives.size() > 1) {  // red team: one row per collective, alike
        at.fail(fmt::format("schedule '{}' exchanges models point to point at a network's alpha and beta, whatever the "
                            "collective: with {} collectives it would run {} times alike; give one collective, or the "
                            "schedule a config of its own",
                            builder->name, scenario.collectives.size(), scenario.collectives.size()));
      }
      if (builder && builder->needs_network &&
          std::any_of(scenario.collectives.begin(), scenario.collectives.end(), measured)) {
        at.fail(fmt::format("schedule '{}' prices exchanges with a network's alpha and beta; collective 'measured' "
                            "has none",
                            builder->name));
      }
    }
  }
}

/// [{"fraction": f, "speed": s}, ...]: fractions in (0, 1] adding up to at
/// most 1, speeds in [kMinSpeed, kMaxSpeed].
std::vector<SpeedShare> read_speed_classes(JsonReader& top) {
  std::vector<SpeedShare> shares;
  double total = 0.0;
  for (const auto& [element, at] : top.array("speed_classes")) {
    JsonReader share(*element, at);
    const double fraction = share.number("fraction", 0.0, false);
    const double speed = share.number("speed", kMinSpeed, true, kMaxSpeed);
    share.reject_unknown();
    if (fraction > 1.0) at.key("fraction").fail(fmt::format("expected a fraction of the GPUs in (0, 1], got {}", fraction));
    total += fraction;
    shares.push_back({fraction, speed});
  }
  if (total > 1.0 + 1e-9) {
    top.where().key("speed_classes").fail(fmt::format("the fractions add up to {}, more than 1", total));
  }
  return shares;
}

}  // namespace

CollectiveSpec read_collective(const nlohmann::json& value, const JsonWhere& where) {
  CollectiveSpec spec;
  if (!value.is_string() && !value.is_object()) where.expected("a collective name or an object with \"name\"", value);
  spec.name = value.is_string() ? read_text(value, where) : JsonReader(value, where).text("name");
  const CollectiveInfo& info = where.reporting([&]() -> const CollectiveInfo& { return find_collective(spec.name); });
  if (value.is_object()) {
    for (const auto& [key, parameter] : value.items()) {
      if (key == "name") continue;
      const auto [number, at] = one_run_value(parameter, where.key(key));
      spec.params[key] = read_collective_param(info, key, *number, at);
    }
  }
  for (const CollectiveParam& param : info.params) {
    if (param.required && !spec.params.contains(param.name)) {
      where.fail(fmt::format("collective '{}' needs '{}' ({}): {{\"name\": \"{}\", \"{}\": ...}}", spec.name,
                             param.name, param.description, spec.name, param.name));
    }
  }
  if (info.check) where.reporting([&] { info.check(spec.params); });
  return spec;
}

CollectiveSettings Scenario::collective_settings(const CollectiveSpec& collective, const Network& network,
                                                int per_node) const {
  CollectiveSettings settings;
  settings.params = collective.params;
  settings.network = network;
  settings.gpus_per_node = per_node;
  settings.curve = curve;
  settings.curve_source = curve_source;
  settings.allgather_curve = allgather_curve;
  settings.message_overhead_s = message_overhead_s;
  return settings;
}

std::vector<int> default_gpus() {
  std::vector<int> gpus;
  for (int p = 4; p <= 2048; p *= 2) gpus.push_back(p);
  return gpus;
}

Scenario load_scenario(const std::filesystem::path& file) {
  return read_scenario(parse_json_file(file, InputKind::config), file);
}

Scenario read_scenario(const nlohmann::json& document, const std::filesystem::path& file, std::string_view at) {
  JsonReader top(document, {file.string(), std::string(at), InputKind::config});
  Scenario scenario;
  scenario.file = file;
  scenario.at = at;
  if (top.has("description")) top.text("description", kMaxProseBytes);
  read_traces(top, scenario);
  if (top.has("gpus")) {
    const std::vector<Element> counts = top.array("gpus");
    check_axis(counts.size(), "GPU counts", top.where().key("gpus"));
    scenario.gpus = read_counts(counts);
  } else {
    scenario.gpus = default_gpus();
  }
  if (top.has("gpus_per_node")) scenario.gpus_per_node = read_counts(read_axis(top, "gpus_per_node", "an integer"));
  read_links(top, scenario);
  if (top.has("overlap")) scenario.overlap = read_overlap(top.object("overlap"));
  if (top.has("speed_classes")) scenario.speed_classes = read_speed_classes(top);
  if (top.has("message_overhead_s")) {
    scenario.message_overhead_s = top.number("message_overhead_s", 0.0, true, kMaxMessageOverhead);
  }
  if (top.has("iteration_overhead_s")) {
    scenario.iteration_overhead_s = top.number("iteration_overhead_s", 0.0, true, kMaxIterationOverhead);
  }
  if (top.has("sync_overhead_s")) {
    scenario.sync_overhead_s = top.number("sync_overhead_s", 0.0, true, kMaxIterationOverhead);
  }
  if (top.has("node_input_samples_per_s")) {
    scenario.node_input_samples_per_s = top.number("node_input_samples_per_s", 0.0, true, kMaxInputSamplesPerS);
  }
  if (top.has("optimizer")) {
    const std::string name = top.text("optimizer");
    scenario.optimizer = top.where().key("optimizer").reporting([&] { return parse_optimizer(name); });
  }
  read_schedules(top, scenario);
  scenario.message_unit = read_message_unit(top);
  for (ScheduleSpec& spec : scenario.schedules) spec.unit = scenario.message_unit;
  if (top.has("variability")) {
    scenario.variability =
        read_variability(top.object("variability"), *std::min_element(scenario.gpus.begin(), scenario.gpus.end()));
  }
  scenario.iterations = read_iterations(top);
  check_builder_delays(scenario.schedules, scenario.variability, top.where());
  top.reject_unknown();
  // Only now, every value checked (none nested deeper than a schedule's layer_density).
  nlohmann::json canonical = document;
  canonical.erase("description");  // free text: changes no result
  scenario.canonical = canonical.dump();
  scenario.inputs.insert(scenario.inputs.end(), scenario.traces.begin(), scenario.traces.end());
  return scenario;
}

JsonWhere Scenario::where(std::string_view key) const {
  return JsonWhere{file.string(), at, InputKind::config}.key(key);
}

void require_one_of_each(const Scenario& scenario, std::string_view command) {
  const auto one = [&](std::string_view key, std::size_t count) {
    if (count <= 1) return;
    const std::string sweep = scenario.at.empty()
                                  ? fmt::format("a grid of them is a sweep (mgsim sweep -c {})", scenario.file.string())
                                  : std::string("a grid of them is a sweep's");
    scenario.where(key).fail(fmt::format("{} values given: '{}' takes one; {}", count, command, sweep));
  };
  one("trace", scenario.traces.size());
  one("gpus_per_node", scenario.gpus_per_node.size());
  one("collective", scenario.collectives.size());
  one("network", scenario.networks.size());
}

}  // namespace mgsim
