#pragma once
// Executing runs: the one path from (workload, cost model, schedule, GPU
// count) to a report row. `mgsim run` executes every (GPU count, schedule)
// of a run config once, each schedule built once, and makes both its report
// and its timeline from those same iterations. A sweep needs no timeline: its
// rows come from simulate() (simulation.hpp), which times a plan by the
// closed form where that is exact.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mgsim/io/report.hpp"
#include "mgsim/io/run_config.hpp"
#include "mgsim/io/timeline.hpp"
#include "mgsim/simulation.hpp"

namespace mgsim {

/// One executed run: the row reports show and the iteration behind it.
struct RunOutcome {
  RunRow row;
  Iteration iteration;
  std::vector<std::string> class_names;  ///< per speed class, parallel to iteration.replay.compute
};

/// Plans and replays one run on `cluster`, once, and measures it; with
/// variability, also simulates `iterations` iterations from a random source
/// seeded by its seed (every run of a config draws the same numbers) and
/// reports their statistics. `collective_name` and `schedule_label` only
/// label the row; the iteration kept (for a timeline) is the nominal one.
RunOutcome execute_run(const Workload& workload, const std::string& collective_name, const Collective& collective,
                       const std::string& schedule_label, const Schedule& schedule, const Cluster& cluster,
                       Overlap overlap = {}, const Variability& variability = {},
                       int iterations = kDefaultIterations);

/// With variability, simulates `iterations` iterations of the data-parallel
/// builder seeded by its seed and puts their statistics into `metrics`
/// (which keep the nominal figures otherwise).
void add_iteration_stats(RunMetrics& metrics, const Workload& workload, const Collective& collective,
                         const Schedule& schedule, const Cluster& cluster, Overlap overlap,
                         const Variability& variability, int iterations);

/// Simulates `iterations` iterations of the standalone builder `spec` names
/// (nbsgd, dpsgd, matcha) on `cluster`, seeded by the variability's seed,
/// and reports their means; the outcome has no replayed iteration (and so no
/// timeline). `network` is the run's, none for a measured collective.
RunOutcome execute_builder_run(const Workload& workload, const std::string& collective_name,
                               const Collective& collective, const ScheduleSpec& spec, const Cluster& cluster,
                               std::optional<Network> network, const Variability& variability = {},
                               int iterations = kDefaultIterations);

/// The metrics of many iterations of a standalone builder.
RunMetrics measure_iterations(const Workload& workload, int gpus, const SimulationResult& result);

/// A speed class as timelines name it: "GPU class 0 (64 GPUs)" on a
/// homogeneous cluster, "ranks 0-6 at speed 0.7 (7 GPUs)" otherwise.
std::string class_name(const Cluster& cluster, int speed_class);

/// How a run set turns a config's schedule into a Schedule (tests count the calls).
using ScheduleFactory = std::function<std::unique_ptr<Schedule>(const ScheduleSpec& spec)>;

/// Every (GPU count, schedule) of `config` on `workload`, GPU counts outer
/// (the report's order): the cost model and each schedule built once, each
/// run executed once.
std::vector<RunOutcome> execute_run_config(const RunConfig& config, const Workload& workload,
                                           const ScheduleFactory& build_schedule = &ScheduleSpec::build);

/// The report rows of `outcomes`, in their order.
std::vector<RunRow> rows_of(const std::vector<RunOutcome>& outcomes);

/// The iterations of `outcomes` as timeline entries labelled "64 GPUs, mgwfbp"
/// (standalone builder runs, which replay no plan, are left out).
std::vector<IterationTrace> timeline_iterations(std::vector<RunOutcome> outcomes);

}  // namespace mgsim
