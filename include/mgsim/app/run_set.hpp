#pragma once
// `mgsim run`: every run of a scenario's grid evaluated once, keeping the
// nominal iterations, so that the report and the timeline come from the
// same iterations. Each row is what a sweep of the same scenario gives.

#include <functional>
#include <string>
#include <vector>

#include "mgsim/app/run_grid.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/timeline.hpp"

namespace mgsim {

/// One executed run: the row reports show and the iteration behind it.
struct RunOutcome {
  RunRow row;
  std::optional<Iteration> iteration;   ///< none for a standalone builder, which replays no plan
  std::vector<std::string> class_names;  ///< per speed class, parallel to iteration->replay.compute
};

/// A speed class as timelines name it: "GPU class 0 (64 GPUs)" on a
/// homogeneous cluster, "ranks 0-6 at speed 0.7 (7 GPUs)" otherwise.
std::string class_name(const Cluster& cluster, int speed_class);

/// `evaluation` of `point` (with its nominal iteration) as an outcome;
/// `labels` gives the row's model, schedule, collective and unit.
RunOutcome run_outcome(const RunPoint& point, Evaluation evaluation, RunRow labels);

/// What execute_runs keeps of each run besides its row.
enum class KeepIterations { no, yes };

/// Every run of `grid`, in its order, each evaluated once, with its iteration
/// (replayed by the engine, for a timeline) when `keep` says so, else timed
/// as `sweep` times it; `progress`, when given, is told how many runs are
/// done after each.
std::vector<RunOutcome> execute_runs(const RunGrid& grid, KeepIterations keep,
                                     const std::function<void(std::size_t done)>& progress = {});

/// The report rows of `outcomes`, in their order.
std::vector<RunRow> rows_of(const std::vector<RunOutcome>& outcomes);

/// The iterations of `outcomes` as timeline entries labelled "64 GPUs, mgwfbp"
/// (standalone builder runs, which replay no plan, are left out).
std::vector<IterationTrace> timeline_iterations(std::vector<RunOutcome> outcomes);

}  // namespace mgsim
