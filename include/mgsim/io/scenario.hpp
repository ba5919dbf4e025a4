#pragma once
// The scenario (docs/config.md): what is simulated, read from one config
// file by one reader. Every key is an axis or a setting: the trace, the GPU
// counts, the GPUs per node, the collective and the network may each be one
// value or a list, schedule parameters may be lists of values, and the grid
// is the product of the lists. `mgsim run` takes a scenario whose trace,
// node size, collective and network have one value each; `mgsim sweep` takes
// any grid; both read it here, so a key one accepts the other accepts too.
// Traces are named here and loaded where the grid is built (app/run_grid.hpp).

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "mgsim/cluster.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/model_memory.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/schedule_spec.hpp"
#include "mgsim/variability.hpp"

namespace mgsim {

struct JsonWhere;

/// A network of the grid with the label its rows carry.
struct NamedNetwork {
  std::string label;  ///< the entry's "name", or "net<i>" (0-based) without one
  Network network;
};

struct Scenario {
  std::filesystem::path file;  ///< the config itself, for messages and relative paths
  std::string at;              ///< where in `file` the config sits: "" (a run config), "config" (a validation case)
  /// Trace paths as written (row labels) and resolved against the config's folder.
  std::vector<std::string> trace_labels;
  std::vector<std::filesystem::path> traces;
  std::vector<int> gpus;                 ///< default_gpus() when the config names none
  /// Who gave `gpus` in place of the config's key, for messages: "" (the
  /// config), "--gpus 3" (a command's option), "gpus" (a measurement row's).
  std::string gpus_origin;
  std::vector<int> gpus_per_node{1};
  /// Every collective with every combination of its parameters, labels unique.
  std::vector<CollectiveSpec> collectives{{"ring", {}}};
  std::vector<NamedNetwork> networks;    ///< empty only when every collective is `measured`
  /// Measured all-reduce and all-gather points (`curves`), for `measured`.
  std::vector<CurvePoint> curve;
  std::vector<CurvePoint> allgather_curve;
  std::string curve_source;
  std::vector<ScheduleSpec> schedules;   ///< every parameter combination, labels unique
  MessageUnit message_unit = MessageUnit::tensor;  ///< also set in every ScheduleSpec
  Overlap overlap;                       ///< compute/communication interference; none by default
  std::vector<SpeedShare> speed_classes; ///< shares of slower (or faster) GPUs; none: all at the trace's speed
  double message_overhead_s = 0.0;       ///< fixed seconds added to every message
  double iteration_overhead_s = 0.0;     ///< host seconds added to every iteration, overlapping nothing
  double node_input_samples_per_s = 0.0;  ///< samples one node's input pipeline delivers a second; 0: never binds
  double sync_overhead_s = 0.0;          ///< seconds added to every iteration on more than one GPU, overlapping nothing
  Optimizer optimizer = Optimizer::adam; ///< whose state the memory per GPU counts (docs/config.md)
  Variability variability;               ///< random delays and stragglers; none by default
  int iterations = kDefaultIterations;   ///< iterations per run the statistics summarise
  /// Every file the scenario read besides the config (curves, selection
  /// curves, graphs), then the traces: with the config, what its results depend on.
  std::vector<std::filesystem::path> inputs;
  std::string canonical;  ///< the config document in canonical form (keys sorted, numbers exact)

  /// A key of the config, for messages: `key` in `file` at `at`.
  JsonWhere where(std::string_view key) const;
  /// What a cost model of the grid is built from: `network` (ignored by
  /// `measured`), node size, curves, message overhead and the collective's parameters.
  CollectiveSettings collective_settings(const CollectiveSpec& collective, const Network& network, int per_node) const;
};

/// GPU counts of a scenario that names none: 4, 8, ..., 2048.
std::vector<int> default_gpus();

/// Reads and validates a scenario, loading the curves, selection curves and
/// graphs it names (traces are loaded by the grid). Throws ConfigError (or
/// CurveError) naming the file and the key.
Scenario load_scenario(const std::filesystem::path& file);

/// A scenario already parsed from `file`, found there at the dotted path
/// `at` (a validation case's "config"; empty: the whole file), which its
/// errors name before the key.
Scenario read_scenario(const nlohmann::json& document, const std::filesystem::path& file, std::string_view at = "");

/// Fails naming the first key of trace, gpus_per_node, collective and
/// network that holds more than one value: `command` runs one of each.
void require_one_of_each(const Scenario& scenario, std::string_view command);

}  // namespace mgsim
