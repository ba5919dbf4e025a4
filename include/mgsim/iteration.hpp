#pragma once
// Iteration builders and the many-iteration simulation loop.
//
// An IterationBuilder turns (workload, cluster, cost model, schedule) into
// the activities of one training iteration in an Engine, and reads the
// iteration's timing back after the engine has run. simulate() runs many
// iterations, one engine run each, in one engine that builders clear or
// rewind (so memory grows with ranks x layers, not with iterations), hands every builder the
// one seeded random source, and summarises the iteration times and waits. Builders
// come from one table, like schedules and collectives; new ones (stragglers,
// Non-blocking SGD, gossip) are added there.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "mgsim/cluster.hpp"
#include "mgsim/engine.hpp"
#include "mgsim/random.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/simulation.hpp"
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
  SimTime duration() const { return end - start; }
};

/// Everything a builder may be built from.
struct BuildContext {
  const Workload& workload;
  const Cluster& cluster;
  const Collective& collective;
  const Schedule& schedule;
  Overlap overlap;
  Variability variability = {};  ///< none: every iteration is the nominal one
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

struct BuilderInfo {
  std::string_view name;
  std::string_view description;
  std::span<const ParamSpec> params;
  std::unique_ptr<IterationBuilder> (*make)(const BuildContext& context, const ParamValues& given);
};

/// Every iteration builder, in the order `mgsim list` shows them.
std::span<const BuilderInfo> builder_registry();

/// Looks a builder up by name; throws ConfigError listing the valid names.
const BuilderInfo& find_builder(std::string_view name);

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
