#include "mgsim/app/run_set.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "mgsim/iteration.hpp"
#include "mgsim/simulation.hpp"

namespace mgsim {

std::string class_name(const Cluster& cluster, int speed_class) {
  const int gpus = cluster.class_size(speed_class);
  if (cluster.homogeneous()) return fmt::format("GPU class {} ({} GPUs)", speed_class, gpus);
  std::string ranks;
  for (int r = 0; r < cluster.size(); ++r) {
    if (cluster.class_of(r) != speed_class || (r > 0 && cluster.class_of(r - 1) == speed_class)) continue;
    int last = r;
    while (last + 1 < cluster.size() && cluster.class_of(last + 1) == speed_class) ++last;
    ranks += fmt::format("{}{}", ranks.empty() ? "" : ",", last == r ? fmt::format("{}", r) : fmt::format("{}-{}", r, last));
  }
  return fmt::format("{} {} at speed {} ({} GPUs)", gpus == 1 ? "rank" : "ranks", ranks, cluster.speed(speed_class), gpus);
}

RunOutcome execute_run(const Workload& workload, const std::string& collective_name, const Collective& collective,
                       const std::string& schedule_label, const Schedule& schedule, const Cluster& cluster,
                       Overlap overlap, const Variability& variability, int iterations) {
  RunOutcome outcome{{workload.trace.model, schedule_label, collective_name, {}},
                     replay_iteration(workload, collective, schedule, cluster, overlap),
                     {}};
  outcome.row.metrics = measure(workload, cluster.size(), outcome.iteration);
  add_iteration_stats(outcome.row.metrics, workload, collective, schedule, cluster, overlap, variability, iterations);
  for (int c = 0; c < cluster.class_count(); ++c) outcome.class_names.push_back(class_name(cluster, c));
  return outcome;
}

void add_iteration_stats(RunMetrics& metrics, const Workload& workload, const Collective& collective,
                         const Schedule& schedule, const Cluster& cluster, Overlap overlap,
                         const Variability& variability, int iterations) {
  if (variability.none()) return;
  const auto builder =
      find_builder("data-parallel").make({workload, cluster, collective, &schedule, overlap, variability}, {});
  const IterationStats stats = simulate(*builder, variability.seed, iterations).stats;
  metrics.mean_iteration = stats.mean;
  metrics.p50_iteration = stats.p50;
  metrics.p99_iteration = stats.p99;
  metrics.wait = stats.wait;
}

RunMetrics measure_iterations(const Workload& workload, int gpus, const SimulationResult& result) {
  RunMetrics metrics;
  metrics.gpus = gpus;
  metrics.batch_size = workload.trace.batch_size;
  metrics.single_gpu = workload.profile.compute_time();
  metrics.iteration = result.stats.mean;
  metrics.mean_iteration = result.stats.mean;
  metrics.p50_iteration = result.stats.p50;
  metrics.p99_iteration = result.stats.p99;
  metrics.wait = result.stats.wait;
  const auto n = static_cast<SimTime>(result.iterations.size());
  SimTime compute = 0;
  SimTime idle = 0;
  SimTime wasted = 0;
  double samples = 0.0;
  metrics.samples_min = result.iterations.front().samples;
  metrics.samples_max = result.iterations.front().samples;
  for (const IterationTiming& timing : result.iterations) {
    compute += timing.compute_end - timing.start;
    idle += timing.idle;
    wasted += timing.wasted;
    samples += timing.samples;
    metrics.samples_min = std::min(metrics.samples_min, timing.samples);
    metrics.samples_max = std::max(metrics.samples_max, timing.samples);
  }
  metrics.compute = (compute + n / 2) / n;
  metrics.idle = (idle + n / 2) / n;
  metrics.wasted = (wasted + n / 2) / n;
  metrics.samples = samples / static_cast<double>(n);
  return metrics;
}

RunOutcome execute_builder_run(const Workload& workload, const std::string& collective_name,
                               const Collective& collective, const ScheduleSpec& spec, const Cluster& cluster,
                               std::optional<Network> network, const Variability& variability, int iterations) {
  const BuildContext context{workload, cluster, collective, nullptr, {}, variability, network};
  const auto builder = spec.builder()->make(context, spec.builder_params());
  const SimulationResult result = simulate(*builder, variability.seed, iterations);
  return {{workload.trace.model, spec.label(), collective_name, measure_iterations(workload, cluster.size(), result),
           spec.unit},
          {},
          {}};
}

std::vector<RunOutcome> execute_run_config(const RunConfig& config, const Workload& workload,
                                           const ScheduleFactory& build_schedule) {
  const auto collective = find_collective(config.collective).make(config.collective_settings);
  std::vector<std::unique_ptr<Schedule>> schedules;
  for (const ScheduleSpec& spec : config.schedules) schedules.push_back(spec.builder() ? nullptr : build_schedule(spec));
  std::vector<RunOutcome> outcomes;
  const std::optional<Network> network =
      config.collective_settings.curve.empty() ? std::optional(config.collective_settings.network) : std::nullopt;
  for (int gpus : config.gpus) {
    for (std::size_t s = 0; s < schedules.size(); ++s) {
      if (config.schedules[s].builder()) {
        outcomes.push_back(execute_builder_run(workload, config.collective, *collective, config.schedules[s],
                                               Cluster::with_shares(gpus, config.gpus_per_node, config.speed_classes),
                                               network, config.variability, config.iterations));
        continue;
      }
      outcomes.push_back(
          execute_run(workload, config.collective, *collective, config.schedules[s].label(), *schedules[s],
                      Cluster::with_shares(gpus, config.gpus_per_node, config.speed_classes), config.overlap,
                      config.variability, config.iterations));
      outcomes.back().row.unit = config.schedules[s].unit;
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
    if (outcome.class_names.empty()) continue;  // a standalone builder's: no plan replayed
    const RunMetrics& m = outcome.row.metrics;
    iterations.push_back({fmt::format("{} GPUs, {}", m.gpus, outcome.row.schedule), std::move(outcome.class_names),
                          std::move(outcome.iteration.plan), std::move(outcome.iteration.replay)});
  }
  return iterations;
}

}  // namespace mgsim
