#include "mgsim/io/work_estimate.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim {

double estimate_run_events(const RunConfig& config, const Workload& workload) {
  const double per_draw_iteration =
      config.variability.per == DelayUnit::layer ? workload.layout.layer_count() + 1.0 : 1.0;
  double per_rank = 0;  // steps per rank and iteration, summed over the schedules
  for (const ScheduleSpec& spec : config.schedules) {
    if (spec.builder() != nullptr) {
      per_rank += kBuilderSteps;
    } else if (!config.variability.none()) {
      per_rank += per_draw_iteration;
    }
  }
  double ranks = 0;
  for (const int gpus : config.gpus) ranks += gpus;
  const double layers = workload.layout.layer_count();
  const auto omgs = std::count_if(config.schedules.begin(), config.schedules.end(),
                                  [](const ScheduleSpec& spec) { return spec.name == "omgs"; });
  const double planning = static_cast<double>(omgs * config.gpus.size()) * layers * layers * layers * kOmgsStepsPerCube;
  return ranks * config.iterations * per_rank + planning;
}

void check_run_work(const RunConfig& config, const Workload& workload, double max_events) {
  const double events = estimate_run_events(config, workload);
  if (events <= max_events) return;
  throw ConfigError(fmt::format("the run takes about {:.2g} steps (up to {} GPUs x {} iterations rank by rank, "
                                "omgs plans of {} layers), past --max-work {:.2g} (about {:.0f} s at 10 M steps/s or more): give "
                                "--max-work {:.2g} to run it anyway, or fewer iterations, GPUs or layers",
                                events, *std::max_element(config.gpus.begin(), config.gpus.end()), config.iterations,
                                workload.layout.layer_count(), max_events, max_events / 1e7, events));
}

}  // namespace mgsim
