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
  return ranks * config.iterations * per_rank;
}

void check_run_work(const RunConfig& config, const Workload& workload, double max_events) {
  const double events = estimate_run_events(config, workload);
  if (events <= max_events) return;
  throw ConfigError(fmt::format("the run simulates about {:.2g} rank-iteration steps (up to {} GPUs x {} iterations, "
                                "rank by rank), past --max-work {:.2g} (about {:.0f} s at 10 M steps/s or more): give "
                                "--max-work {:.2g} to run it anyway, or fewer iterations or GPUs",
                                events, *std::max_element(config.gpus.begin(), config.gpus.end()), config.iterations,
                                max_events, max_events / 1e7, events));
}

}  // namespace mgsim
