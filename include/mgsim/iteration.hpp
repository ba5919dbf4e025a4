#pragma once
// Iteration builders and the many-iteration simulation loop.
//
// An IterationBuilder turns (workload, cluster, cost model, schedule) into
// the activities of one training iteration in an Engine, and reads the
// iteration's timing back after the engine has run. simulate() runs many
// iterations, one engine run each, in one engine that builders clear or
// rewind (so memory grows with ranks x layers, not with iterations), hands every builder the
// one seeded random source, and summarises the iteration times. Builders
// come from one table, like schedules and collectives. Besides the
// synchronous data-parallel replay, the table holds Non-blocking SGD and the
// decentralized D-PSGD and MATCHA (docs/decentralized.md), which a config
// names in place of a plan-based schedule (find_schedule_or_builder).

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mgsim/cluster.hpp"
#include "mgsim/engine.hpp"
#include "mgsim/random.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/simulation.hpp"
#include "mgsim/topology.hpp"
#include "mgsim/variability.hpp"

namespace mgsim {

/// When one iteration ran, in absolute simulated time.
struct IterationTiming {
  SimTime start = 0;
  SimTime end = 0;          ///< the last rank's end: the next iteration starts here
  SimTime compute_end = 0;  ///< the slowest rank's end of compute
  /// Mean over ranks of the time from a rank's own end of compute to
  /// compute_end: how long ranks that finished wait for the slowest.
  SimTime wait = 0;
  double samples = 0.0;     ///< samples whose gradients the iteration applied, over all ranks
  SimTime idle = 0;         ///< summed over ranks: time neither computing nor communicating, waiting
  SimTime wasted = 0;       ///< summed over ranks: compute done and discarded
  SimTime duration() const { return end - start; }
};

/// Everything a builder may be built from.
struct BuildContext {
  const Workload& workload;
  const Cluster& cluster;
  const Collective& collective;
  /// What the data-parallel builder plans; nullptr for the builders that
  /// make their own exchanges (nbsgd, dpsgd, matcha).
  const Schedule* schedule;
  Overlap overlap;
  Variability variability = {};  ///< none: every iteration is the nominal one
  /// The run's links, for point-to-point exchanges (alpha + beta x bytes);
  /// none with a measured collective.
  std::optional<Network> network = std::nullopt;
  /// Seconds added to every point-to-point exchange (the collective adds its own).
  double message_overhead_s = 0.0;
};

class IterationBuilder {
 public:
  virtual ~IterationBuilder() = default;
  /// Prepares one iteration, starting at `start`, in `engine`: the engine the
  /// previous iteration ran in (empty for the first). A builder clear()s it
  /// and adds anew, or rewind()s it and adjusts what differs.
  virtual void build(Engine& engine, Random& random, SimTime start) = 0;
  /// The timing of the iteration just built, after the engine has run.
  virtual IterationTiming collect(const Engine& engine) const = 0;
};

/// A text parameter of a builder: one of `choices`, or, where `file_allowed`,
/// any other text, which names a file the io layer reads (a graph).
struct ChoiceSpec {
  std::string_view name;
  std::string_view default_value;
  std::span<const std::string_view> choices;
  std::string_view description;
  bool file_allowed = false;

  /// Whether `value` names a file: it may and is none of the choices.
  bool names_file(std::string_view value) const {
    return file_allowed && std::find(choices.begin(), choices.end(), value) == choices.end();
  }
};

/// Text parameter values a user gave, by name; absent ones take their default.
using ChoiceValues = std::map<std::string, std::string, std::less<>>;

/// What a user gave a builder: numbers, texts, and the graph a topology file held.
struct BuilderParams {
  ParamValues numbers;
  ChoiceValues choices;
  std::optional<Graph> graph;  ///< read from the file `topology` names, when it names one
};

struct BuilderInfo {
  std::string_view name;
  std::string_view description;
  std::span<const ParamSpec> params;
  std::span<const ChoiceSpec> choices;
  /// Named in a config's `schedules` in place of a plan-based schedule;
  /// data-parallel is not: it runs the plan-based schedules.
  bool standalone;
  std::unique_ptr<IterationBuilder> (*make)(const BuildContext& context, const BuilderParams& given);
  bool needs_network = false;  ///< prices point-to-point exchanges with BuildContext::network
};

/// Every iteration builder, in the order `mgsim list` shows them.
std::span<const BuilderInfo> builder_registry();

/// Looks a builder up by name; throws ConfigError listing the valid names.
const BuilderInfo& find_builder(std::string_view name);

/// What a config's schedule name selects: a plan-based schedule (run by
/// data-parallel) or a standalone builder; exactly one is set.
struct ScheduleChoice {
  const ScheduleInfo* schedule = nullptr;
  const BuilderInfo* builder = nullptr;
};

/// The one lookup of a config's schedule name; throws ConfigError listing
/// every valid name, schedules and standalone builders.
ScheduleChoice find_schedule_or_builder(std::string_view name);

/// Checks `given` against `info` on `gpus` ranks: parameter names and ranges,
/// choices, and what depends on the GPU count (k of nbsgd, a graph's rank
/// count). Throws ConfigError naming the builder and the parameter.
void check_builder_params(const BuilderInfo& info, const BuilderParams& given, int gpus);

/// The given choice of the text parameter `name` of `specs`, or its default;
/// an empty view when `specs` has no such parameter.
std::string_view choice_value(const ChoiceValues& given, std::span<const ChoiceSpec> specs, std::string_view name);

/// Summary statistics of many iterations (nearest-rank percentiles).
struct IterationStats {
  int iterations = 0;
  SimTime total = 0;  ///< end of the last iteration
  SimTime mean = 0;   ///< rounded to the nanosecond
  SimTime p50 = 0;
  SimTime p99 = 0;
  SimTime min = 0;
  SimTime max = 0;
  SimTime wait = 0;  ///< mean over iterations of IterationTiming::wait, rounded
};

struct SimulationResult {
  std::vector<IterationTiming> iterations;
  IterationStats stats;
};

/// Runs `iterations` >= 1 iterations of `builder` back to back, each from
/// the previous one's end, with one random source seeded by `seed`.
SimulationResult simulate(IterationBuilder& builder, std::uint64_t seed, int iterations);

/// The statistics of a list of iteration durations.
IterationStats iteration_stats(std::span<const IterationTiming> iterations);

}  // namespace mgsim
