#include "mgsim/app/run_set.hpp"

#include <fmt/format.h>

#include "mgsim/simulation.hpp"

namespace mgsim {

RunOutcome execute_run(const Workload& workload, const std::string& collective_name, const Collective& collective,
                       const std::string& schedule_label, const Schedule& schedule, int gpus, Overlap overlap) {
  RunOutcome outcome{{workload.trace.model, schedule_label, collective_name, {}},
                     replay_iteration(workload, collective, schedule, gpus, overlap)};
  outcome.row.metrics = measure(workload, gpus, outcome.iteration);
  return outcome;
}

std::vector<RunOutcome> execute_run_config(const RunConfig& config, const Workload& workload,
                                           const ScheduleFactory& build_schedule) {
  const auto collective = find_collective(config.collective).make(config.collective_settings);
  std::vector<std::unique_ptr<Schedule>> schedules;
  for (const ScheduleSpec& spec : config.schedules) schedules.push_back(build_schedule(spec));
  std::vector<RunOutcome> outcomes;
  for (int gpus : config.gpus) {
    for (std::size_t s = 0; s < schedules.size(); ++s) {
      outcomes.push_back(
          execute_run(workload, config.collective, *collective, config.schedules[s].label(), *schedules[s], gpus,
                      config.overlap));
    }
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
    const RunMetrics& m = outcome.row.metrics;
    iterations.push_back({fmt::format("{} GPUs, {}", m.gpus, outcome.row.schedule), {m.gpus},
                          std::move(outcome.iteration.plan), std::move(outcome.iteration.replay)});
  }
  return iterations;
}

}  // namespace mgsim
