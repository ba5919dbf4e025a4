#include "mgsim/io/run_config.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgsim/io/config_parts.hpp"
#include "mgsim/io/json_reader.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim {
namespace {

std::vector<ScheduleSpec> read_schedules(JsonReader& top, const std::filesystem::path& folder,
                                         const std::vector<int>& gpus) {
  if (!top.has("schedules")) return default_schedules();
  std::vector<ScheduleSpec> schedules;
  std::unordered_set<std::string> labels;
  for (const auto& [element, at] : top.array("schedules")) {
    schedules.push_back(read_schedule(*element, at, folder));
    check_unique_label(schedules.back(), labels, at);
    check_builder_gpus(schedules.back(), gpus, at);
  }
  return schedules;
}

void read_collective(JsonReader& top, const std::filesystem::path& folder, RunConfig& config) {
  if (top.has("collective")) config.collective = top.text("collective");
  const JsonWhere at = top.where().key("collective");
  const CollectiveInfo* info = at.reporting([&] { return &find_collective(config.collective); });
  config.collective_settings.gpus_per_node = config.gpus_per_node;
  if (info->needs_curve) {
    std::string sources;
    for (const auto& [element, where] : top.array("curves")) {
      const std::filesystem::path curve = folder / read_text(*element, where);
      const CurveFile file = load_curve_file(curve);
      if (file.collective == CurveCollective::reducescatter) {
        where.fail(fmt::format("{} is a reduce-scatter curve: no schedule uses one; give all-reduce or all-gather "
                               "curves",
                               curve.string()));
      }
      auto& all = file.collective == CurveCollective::allgather ? config.collective_settings.allgather_curve
                                                                : config.collective_settings.curve;
      all.insert(all.end(), file.points.begin(), file.points.end());
      sources += fmt::format("{}{}", sources.empty() ? "" : ", ", curve.string());
    }
    config.collective_settings.curve_source = sources;
    if (top.has("network")) top.where().key("network").fail("not used by collective 'measured'; remove it");
    return;
  }
  if (top.has("curves")) top.where().key("curves").fail(fmt::format("only collective 'measured' uses curves, not '{}'", config.collective));
  config.collective_settings.network = read_network(top.object("network"));
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

/// Builds the cost model and asks it once at every GPU count, so that a model
/// that cannot answer (a node size that does not divide the count, a curve
/// without that count, nccl with a gamma) fails here, naming the file and key.
void check_collective(const RunConfig& config, const JsonWhere& top) {
  std::unique_ptr<Collective> model;
  try {
    model = find_collective(config.collective).make(config.collective_settings);
  } catch (const Error& error) {
    top.key(config.collective_settings.curve.empty() ? "network" : "curves").fail(error.what());
  }
  const JsonWhere gpus = top.key("gpus");
  for (std::size_t i = 0; i < config.gpus.size(); ++i) {
    try {
      CommCost(*model, config.gpus[i])(1);
    } catch (const Error& error) {
      gpus.index(i).fail(error.what());
    }
  }
}

}  // namespace

std::string ScheduleSpec::label() const {
  std::vector<std::string> parts;
  for (const auto& [key, value] : params) parts.push_back(fmt::format("{}={}", key, value));
  for (const auto& [key, value] : choices) parts.push_back(fmt::format("{}={}", key, value));
  for (const auto& [layer, density] : sparse.layer_density) parts.push_back(fmt::format("{}={}", layer, density));
  if (!selection_curve_file.empty()) {
    parts.push_back(fmt::format("selection_curve={}", std::filesystem::path(selection_curve_file).filename().string()));
  }
  return parts.empty() ? name : fmt::format("{}({})", name, fmt::join(parts, ","));
}

std::unique_ptr<Schedule> ScheduleSpec::build() const {
  if (builder()) {
    throw ConfigError(fmt::format("'{}' is an iteration builder, not a plan-based schedule: it has no plan", name));
  }
  return make_schedule(name, params, sparse, unit);
}

RunConfig load_run_config(const std::filesystem::path& file) {
  return read_run_config(parse_json_file(file, InputKind::config), file);
}

RunConfig read_run_config(const nlohmann::json& document, const std::filesystem::path& file) {
  JsonReader top(document, {file.string(), "", InputKind::config});
  const std::filesystem::path folder = file.parent_path();
  RunConfig config;
  if (top.has("description")) top.text("description");
  config.trace = folder / top.text("trace");
  for (const auto& [element, at] : top.array("gpus")) {
    config.gpus.push_back(static_cast<int>(read_integer(*element, at, 1, kMaxGpus)));
  }
  if (top.has("gpus_per_node")) config.gpus_per_node = static_cast<int>(top.integer("gpus_per_node", 1, kMaxGpus));
  read_collective(top, folder, config);
  if (top.has("overlap")) config.overlap = read_overlap(top.object("overlap"));
  if (top.has("speed_classes")) config.speed_classes = read_speed_classes(top);
  config.schedules = read_schedules(top, folder, config.gpus);
  for (std::size_t s = 0; s < config.schedules.size(); ++s) {
    const BuilderInfo* builder = config.schedules[s].builder();
    if (builder && builder->needs_network && !config.collective_settings.curve.empty()) {
      top.where().key("schedules").index(s).fail(fmt::format(
          "schedule '{}' prices exchanges with a network's alpha and beta; collective 'measured' has none",
          builder->name));
    }
  }
  config.message_unit = read_message_unit(top);
  for (ScheduleSpec& spec : config.schedules) spec.unit = config.message_unit;
  if (top.has("variability")) {
    config.variability = read_variability(top.object("variability"), *std::min_element(config.gpus.begin(), config.gpus.end()));
  }
  config.iterations = read_iterations(top);
  check_builder_delays(config.schedules, config.variability, top.where());
  top.reject_unknown();
  check_collective(config, top.where());
  return config;
}

}  // namespace mgsim
