#pragma once
// The sweep config (docs/sweeps.md): a run config in which the trace, the
// GPUs per node, the collective and the network may be lists and schedule
// parameters may be lists of values. The grid is the product of the lists.
// Parsed once, here, into typed values; loading the traces and building the
// cost models happens in sweep.hpp.

#include <filesystem>
#include <string>
#include <vector>

#include "mgsim/collective.hpp"
#include "mgsim/io/run_config.hpp"

namespace mgsim {

/// A network of the grid with the label its rows carry.
struct SweepNetwork {
  std::string label;  ///< the entry's "name", or "net<i>" (0-based) without one
  Network network;
};

struct SweepConfig {
  std::filesystem::path file;  ///< the config itself, for error messages
  /// Trace paths as written in the config (row labels) and resolved against its folder.
  std::vector<std::string> trace_labels;
  std::vector<std::filesystem::path> traces;
  std::vector<int> gpus;           ///< default kDefaultSweepGpus
  std::vector<int> gpus_per_node;  ///< default {1}
  std::vector<std::string> collectives;  ///< default {"ring"}
  std::vector<SweepNetwork> networks;    ///< empty only when every collective is `measured`
  std::vector<CurvePoint> curve;         ///< points of `curves`, for `measured`
  std::string curve_source;
  std::vector<ScheduleSpec> schedules;   ///< every parameter combination, labels unique
  Variability variability;               ///< the same for every row; none by default
  int iterations = kDefaultIterations;   ///< per row, as in a run config
};

/// GPU counts of a sweep that names none: 4, 8, ..., 2048.
std::vector<int> default_sweep_gpus();

/// Reads and validates a sweep config (names, ranges, duplicates, empty
/// lists), loading the curves it names. Traces are not loaded here. Throws
/// ConfigError (or CurveError) naming the file and the key.
SweepConfig load_sweep_config(const std::filesystem::path& file);

}  // namespace mgsim
