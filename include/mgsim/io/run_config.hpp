#pragma once
// The run config (docs/config.md): which trace, which GPU counts, which
// network and collective, which schedules. Parsed once, here, into typed
// values; the core never sees JSON or file paths.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "mgsim/cluster.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/iteration.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/variability.hpp"

namespace mgsim {

/// A schedule as the config names it, with the parameters the user gave:
/// a plan-based schedule, or a standalone iteration builder (nbsgd, dpsgd,
/// matcha) that takes text parameters and a graph too.
struct ScheduleSpec {
  std::string name;
  ParamValues params;
  ChoiceValues choices;        ///< a builder's text parameters (trigger, topology, barrier), as given
  std::optional<Graph> graph;  ///< read from the file `topology` names, resolved against the config
  SparseOptions sparse;              ///< per-layer densities, loaded selection curve
  std::string selection_curve_file;  ///< where `sparse.selection_curve` came from, for the label
  MessageUnit unit = MessageUnit::tensor;  ///< the config's `message_unit`
  /// "ddp" or "ddp(bucket_cap_mb=50)": unique within a run.
  std::string label() const;
  /// Builds the schedule (validated when the config was read). Throws
  /// ConfigError for a standalone builder, which has no plan.
  std::unique_ptr<Schedule> build() const;
  /// The standalone builder the name selects, or null for a plan-based schedule.
  const BuilderInfo* builder() const { return find_schedule_or_builder(name).builder; }
  BuilderParams builder_params() const { return {params, choices, graph}; }
};

struct RunConfig {
  std::filesystem::path trace;  ///< resolved against the config's folder
  std::vector<int> gpus;
  int gpus_per_node = 1;
  std::string collective = "ring";
  CollectiveSettings collective_settings;  ///< network, gpus per node, loaded curve points
  std::vector<ScheduleSpec> schedules;
  Overlap overlap;  ///< compute/communication interference; ideal (none) by default
  std::vector<SpeedShare> speed_classes;  ///< shares of slower (or faster) GPUs; none: all at the trace's speed
  MessageUnit message_unit = MessageUnit::tensor;  ///< also set in every ScheduleSpec
  Variability variability;  ///< random delays and stragglers; none by default
  int iterations = kDefaultIterations;  ///< iterations per run the statistics summarise
};

/// Largest GPU count accepted.
inline constexpr int kMaxGpus = 1 << 20;
/// Largest iteration count accepted (the per-iteration timings are kept).
inline constexpr int kMaxIterations = 1'000'000;
/// Largest seed accepted: 2^53, so that every seed is exact as a JSON number.
inline constexpr std::int64_t kMaxSeed = std::int64_t{1} << 53;

/// Reads and validates a run config, loading the curves it names. Throws
/// ConfigError (or CurveError for a bad curve file) naming file and key.
RunConfig load_run_config(const std::filesystem::path& file);

}  // namespace mgsim
