#include "mgsim/io/config_parts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/graph_io.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/registry_lookup.hpp"
#include "mgsim/variability.hpp"

namespace mgsim {
namespace {

/// Slowest network accepted (docs/limits.md): a latency of a second per
/// message step (and kMaxSecondsPerByte: a kilobyte per second of bandwidth
/// or of reduction).
constexpr double kMaxAlphaUs = 1e6;

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
  if (in.has("compute_slowdown")) overlap.compute_slowdown = in.number("compute_slowdown", 0.0, true, kMaxSlowdown);
  if (in.has("comm_slowdown")) overlap.comm_slowdown = in.number("comm_slowdown", 0.0, true, kMaxSlowdown);
  in.reject_unknown();
  return overlap;
}

void check_network_for(const CollectiveInfo& collective, const Network& network, const nlohmann::json& entry,
                       const JsonWhere& where) {
  try {
    collective.check_network(network);
  } catch (const Error& error) {  // red team: said at "network 'net1'", a label the config may not write
    JsonWhere at = where;
    for (const char* level : {"intra", "inter"}) {
      const bool reduces = entry.contains(level) && entry[level].is_object() && entry[level].contains("gamma_s_per_byte") &&
                           entry[level]["gamma_s_per_byte"] != 0;
      if (reduces) at = where.key(level);
    }
    at.key("gamma_s_per_byte").fail(error.what());
  }
}

Network read_network(JsonReader in) {
  const double fabric =
      in.has("fabric_s_per_byte") ? in.number("fabric_s_per_byte", 0.0, true, kMaxSecondsPerByte) : 0.0;
  if (in.has("intra") || in.has("inter")) {
    Network network{read_link(in.object("intra")), read_link(in.object("inter")), fabric};
    in.reject_unknown();
    return network;
  }
  const Link link = read_link(in);  // the flat link's keys, with fabric_s_per_byte already read
  return {link, link, fabric};
}

namespace {

/// {"conv1": 0.01, ...}: per-layer densities of a sparse schedule.
std::map<std::string, double, std::less<>> read_layer_density(const nlohmann::json& value, const JsonWhere& where) {
  if (!value.is_object() || value.empty()) where.expected("an object of layer name -> density", value);
  std::map<std::string, double, std::less<>> densities;
  for (const auto& [layer, density] : value.items()) densities[layer] = read_number(density, where.key(layer), 0.0, false);
  return densities;
}

/// A builder's text parameter: a string, or a boolean as "true" / "false".
std::string read_choice(const nlohmann::json& value, const JsonWhere& where) {
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return read_text(value, where);
}

/// Refuses `key` unless the builder takes it, as a number or a text.
void check_builder_param_name(const BuilderInfo& info, const std::string& key, const JsonWhere& where) {
  std::vector<std::string_view> names;
  for (const ParamSpec& p : info.params) names.push_back(p.name);
  for (const ChoiceSpec& c : info.choices) names.push_back(c.name);
  if (std::find(names.begin(), names.end(), key) == names.end()) {
    where.fail(fmt::format("schedule '{}': {}", info.name, unknown_name("parameter", key, names)));
  }
}

/// Validates a standalone builder's parameters and loads the graph its
/// `topology` names when that is a file.
void check_builder_spec(ScheduleSpec& spec, const BuilderInfo& info, const JsonWhere& where,
                        const std::filesystem::path& folder, std::vector<std::filesystem::path>& inputs) {
  // A choice that may name a file (a topology) and names none of its choices: read that graph.
  for (const ChoiceSpec& choice : info.choices) {
    const auto given = spec.choices.find(choice.name);
    if (given == spec.choices.end() || !choice.names_file(given->second)) continue;
    if (given->second == "-") {
      where.key(given->first).fail(fmt::format("expected {} or a graph file name, got \"-\": standard input is for a "
                                               "trace alone",
                                               fmt::join(choice.choices, " or ")));
    }
    try {
      spec.graph = load_graph(folder / given->second);
      inputs.push_back(folder / given->second);
    } catch (const Error& error) {
      where.key(given->first).fail(
          fmt::format("not {}, so a graph file: {}", fmt::join(choice.choices, " or "), error.what()));
    }
  }
  const int ranks = spec.graph ? spec.graph->vertices() : kMaxGpus;
  where.reporting([&] { check_builder_params(info, spec.builder_params(), ranks); });
}

}  // namespace

const ParamSpec* find_schedule_param(std::string_view name, std::string_view key) {
  std::span<const ParamSpec> params;
  for (const ScheduleInfo& info : schedule_registry()) {
    if (info.name == name) params = info.params;
  }
  for (const BuilderInfo& info : builder_registry()) {
    if (info.standalone && info.name == name) params = info.params;
  }
  const auto found = std::find_if(params.begin(), params.end(), [&](const ParamSpec& p) { return p.name == key; });
  return found == params.end() ? nullptr : &*found;
}

double read_schedule_param(const ParamSpec& param, const nlohmann::json& value, const JsonWhere& where) {
  const double number = read_number(value, where, 0.0, param.zero_allowed, param.max_value);
  if (param.whole && number != std::floor(number)) where.expected("a whole number", value);
  return number;
}

std::pair<const nlohmann::json*, JsonWhere> one_run_value(const nlohmann::json& parameter, const JsonWhere& where) {
  if (!parameter.is_array()) return {&parameter, where};
  if (parameter.size() > 1) {  // a list of several is several runs, which only a config's list makes
    where.expected("one value: this is one run (a list of several makes one run per value in a config)", parameter);
  }
  if (parameter.empty()) where.expected("a number", parameter);
  return {&parameter.front(), where.index(0)};  // red team: [10] refused in a row, taken in a config
}

ScheduleSpec read_schedule(const nlohmann::json& value, const JsonWhere& where, const std::filesystem::path& folder,
                           std::vector<std::filesystem::path>& inputs) {
  ScheduleSpec spec;
  if (!value.is_string() && !value.is_object()) where.expected("a schedule name or an object with \"name\"", value);
  if (value.is_string()) {
    spec.name = read_text(value, where);
  } else {
    JsonReader in(value, where);
    spec.name = in.text("name");
  }
  const ScheduleChoice choice = where.reporting([&] { return find_schedule_or_builder(spec.name); });
  if (!value.is_string()) {
    for (const auto& item : value.items()) {  // not a structured binding: clang 14 cannot capture one
      const std::string& key = item.key();
      const nlohmann::json& parameter = item.value();
      if (key == "name") continue;
      const ChoiceSpec* named = nullptr;  // a builder's text parameter of this name
      for (const ChoiceSpec& c : choice.builder ? choice.builder->choices : std::span<const ChoiceSpec>{}) {
        if (c.name == key) named = &c;
      }
      if (choice.builder && !named) check_builder_param_name(*choice.builder, key, where);
      if (named) {  // a text: say which texts it takes when given another value
        const bool takes_boolean = std::find(named->choices.begin(), named->choices.end(), "true") != named->choices.end();
        if (!parameter.is_string() && !(parameter.is_boolean() && takes_boolean)) {
          where.key(key).expected(fmt::format("{}{}", fmt::join(named->choices, " or "),
                                              named->file_allowed ? " or a graph file name" : ""),
                                  parameter);
        }
        spec.choices[key] = read_choice(parameter, where.key(key));
      } else if (key == "layer_density") {
        spec.sparse.layer_density = read_layer_density(parameter, where.key(key));
        spec.layer_density_at = where.key(key).named();
      } else if (key == "selection_curve") {
        const std::filesystem::path file = read_file_name(parameter, where.key(key), folder, false);
        spec.selection_curve_file = parameter.get<std::string>();
        spec.sparse.selection_curve =
            where.key(key).reading_file(InputKind::curve, [&] { return load_selection_curve(file); });
        inputs.push_back(file);
      } else {
        if (choice.schedule) {  // unknown whatever its value, before its range
          where.reporting([&] { check_param_name(fmt::format("schedule '{}'", spec.name), choice.schedule->params, key); });
        }
        const auto [number, at] = one_run_value(parameter, where.key(key));
        spec.params[key] = read_schedule_param(*find_schedule_param(spec.name, key), *number, at);
      }
    }
  }
  if (choice.builder) {
    check_builder_spec(spec, *choice.builder, where, folder, inputs);
    return spec;
  }
  where.reporting([&] { spec.build(); });
  return spec;
}

void check_builder_delays(const std::vector<ScheduleSpec>& specs, const Variability& variability,
                          const JsonWhere& where) {
  if (variability.law.empty() || variability.per != DelayUnit::layer) return;
  for (const ScheduleSpec& spec : specs) {
    if (spec.builder()) {
      where.key("variability").key("per").fail(fmt::format(
          "schedule '{}' draws one delay per mini-batch or round: use \"iteration\", not \"layer\"", spec.name));
    }
  }
}

void check_builder_gpus(const ScheduleSpec& spec, const std::vector<int>& gpus, const JsonWhere& where) {
  const BuilderInfo* info = spec.builder();
  if (!info) return;
  for (int count : gpus) where.reporting([&] { check_builder_params(*info, spec.builder_params(), count); });
}

std::vector<ScheduleSpec> default_schedules() {
  std::vector<ScheduleSpec> specs;
  for (const ScheduleInfo& info : schedule_registry()) {
    if (info.sparse || info.sharded) continue;
    ScheduleSpec spec;
    spec.name = info.name;
    specs.push_back(std::move(spec));
  }
  return specs;
}

MessageUnit read_message_unit(JsonReader& top) {
  return top.one_of_two("message_unit", "tensor", "layer") ? MessageUnit::layer : MessageUnit::tensor;
}

namespace {

/// {"ranks": [r, ...], "speed": s}: distinct ranks below `gpus`, s in [kMinSpeed, kMaxSpeed].
Stragglers read_stragglers(JsonReader in, int gpus) {
  Stragglers stragglers;
  for (const auto& [element, at] : in.array("ranks")) {
    const int rank = static_cast<int>(read_integer(*element, at, 0, kMaxGpus - 1));
    if (rank >= gpus) at.fail(fmt::format("rank {} is not below the smallest GPU count, {}", rank, gpus));
    if (std::find(stragglers.ranks.begin(), stragglers.ranks.end(), rank) != stragglers.ranks.end()) {
      at.fail(fmt::format("rank {} given twice", rank));
    }
    stragglers.ranks.push_back(rank);
  }
  stragglers.speed = in.number("speed", kMinSpeed, true, kMaxSpeed);
  in.reject_unknown();
  return stragglers;
}

}  // namespace

Variability read_variability(JsonReader in, int gpus) {
  Variability variability;
  if (in.has("law")) {
    variability.law = in.text("law");
    const LawInfo& info =
        in.where().key("law").reporting([&]() -> const LawInfo& { return find_law(variability.law); });
    for (const ParamSpec& spec : info.params) {
      if (in.has(spec.name)) {
        variability.params.emplace(spec.name, in.number(spec.name, 0.0, spec.zero_allowed, spec.max_value));
      }
    }
  }
  if (in.has("per") && !in.has("law")) {  // red team: taken and changed nothing
    in.where().key("per").fail("says what a delay law's draws delay, and no law is given: give one (law), or remove per");
  }
  variability.per = in.one_of_two("per", "iteration", "layer") ? DelayUnit::layer : DelayUnit::iteration;
  if (in.has("seed")) variability.seed = static_cast<std::uint64_t>(in.integer("seed", 0, kMaxSeed));
  if (in.has("stragglers")) variability.stragglers = read_stragglers(in.object("stragglers"), gpus);
  in.reject_unknown();
  return variability;
}

int read_iterations(JsonReader& top) {
  return top.has("iterations") ? static_cast<int>(top.integer("iterations", 1, kMaxIterations)) : kDefaultIterations;
}

void check_unique_label(const ScheduleSpec& spec, const std::filesystem::path& folder,
                        std::unordered_set<std::string>& taken, const JsonWhere& where) {
  // Red team: "g.txt" and "/abs/g.txt" (or a link to it) ran one graph twice under two labels.
  const auto identity = [&](const std::string& file) {
    const FileIdentity id = FileIdentity::of(folder / file);
    return fmt::format("file {}:{}", id.device, id.inode);
  };
  ScheduleSpec run = spec;
  if (!run.selection_curve_file.empty()) run.selection_curve_file = identity(run.selection_curve_file);
  if (const BuilderInfo* builder = spec.builder()) {
    for (const ChoiceSpec& choice : builder->choices) {
      const auto given = run.choices.find(std::string(choice.name));
      if (given != run.choices.end() && choice.names_file(given->second)) given->second = identity(given->second);
    }
  }
  std::string key = run.label();
  if (taken.contains(key)) {
    where.fail(fmt::format("schedule '{}' given twice{}", spec.label(),
                           spec.params.empty() && spec.choices.empty() ? "" : " (entries, list values or file names that build the same run)"));
  }
  taken.insert(std::move(key));
}

}  // namespace mgsim
