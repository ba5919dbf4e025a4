#include "mgsim/app/run_set.hpp"

#include <fmt/format.h>

#include "mgsim/counted.hpp"

namespace mgsim {

std::string class_name(const Cluster& cluster, int speed_class) {
  const int gpus = cluster.class_size(speed_class);
  if (cluster.homogeneous()) return fmt::format("GPU class {} ({})", speed_class, counted(gpus, "GPU"));
  std::string ranks;
  for (int r = 0; r < cluster.size(); ++r) {
    if (cluster.class_of(r) != speed_class || (r > 0 && cluster.class_of(r - 1) == speed_class)) continue;
    int last = r;
    while (last + 1 < cluster.size() && cluster.class_of(last + 1) == speed_class) ++last;
    ranks += fmt::format("{}{}", ranks.empty() ? "" : ",", last == r ? fmt::format("{}", r) : fmt::format("{}-{}", r, last));
  }
  return fmt::format("{} {} at speed {} ({})", gpus == 1 ? "rank" : "ranks", ranks, cluster.speed(speed_class), counted(gpus, "GPU"));
}

RunOutcome run_outcome(const RunPoint& point, Evaluation evaluation, RunRow labels) {
  RunOutcome outcome;
  outcome.row = std::move(labels);
  outcome.row.metrics = evaluation.metrics;
  outcome.iteration = std::move(evaluation.iteration);
  if (outcome.iteration) {
    const Cluster& cluster = point.cluster;
    for (int c = 0; c < cluster.class_count(); ++c) outcome.class_names.push_back(class_name(cluster, c));
  }
  return outcome;
}

std::vector<RunOutcome> execute_runs(const RunGrid& grid, KeepIterations keep,
                                     const std::function<void(std::size_t done)>& progress) {
  std::vector<RunOutcome> outcomes;
  for (std::size_t run = 0; run < grid.size(); ++run) {
    outcomes.push_back(
        run_outcome(grid.point(run), grid.evaluate(run, keep == KeepIterations::yes), grid.row(run, {})));
    if (progress) progress(run + 1);
  }
  return outcomes;
}

std::vector<RunRow> rows_of(const std::vector<RunOutcome>& outcomes) {
  std::vector<RunRow> rows;
  for (const RunOutcome& outcome : outcomes) rows.push_back(outcome.row);
  return rows;
}

std::vector<IterationTrace> timeline_iterations(std::vector<RunOutcome> outcomes) {
  std::vector<IterationTrace> iterations;
  for (RunOutcome& outcome : outcomes) {
    if (!outcome.iteration) continue;
    const RunMetrics& m = outcome.row.metrics;
    iterations.push_back({fmt::format("{}, {}", counted(m.gpus, "GPU"), outcome.row.schedule), std::move(outcome.class_names),
                          std::move(outcome.iteration->plan), std::move(outcome.iteration->replay),
                          outcome.iteration->overheads});
  }
  return iterations;
}

}  // namespace mgsim
