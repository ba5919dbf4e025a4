#pragma once
// Executing runs: the one path from (workload, cost model, schedule, GPU
// count) to a report row. `mgsim run` executes every (GPU count, schedule)
// of a run config once, each schedule built once, and makes both its report
// and its timeline from those same iterations. A sweep needs no timeline: its
// rows come from simulate() (simulation.hpp), which times a plan by the
// closed form where that is exact.

#include <functional>
#include <memory>
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

/// Plans and replays one run on `cluster`, once, and measures it.
/// `collective_name` and `schedule_label` only label the row.
RunOutcome execute_run(const Workload& workload, const std::string& collective_name, const Collective& collective,
                       const std::string& schedule_label, const Schedule& schedule, const Cluster& cluster,
                       Overlap overlap = {});

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

/// The iterations of `outcomes` as timeline entries labelled "64 GPUs, mgwfbp".
std::vector<IterationTrace> timeline_iterations(std::vector<RunOutcome> outcomes);

}  // namespace mgsim
