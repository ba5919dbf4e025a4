#include "mgsim/simulation.hpp"

#include <numeric>

namespace mgsim {

Workload::Workload(Trace trace_in)
    : trace(std::move(trace_in)), layout(make_layout(trace)), profile(make_profile(trace)) {}

Iteration replay_iteration(const Workload& workload, const Collective& collective, const Schedule& schedule, int gpus) {
  const GpuClass classes[] = {{gpus, workload.profile}};
  const CommProblem problem = make_problem(classes, workload.layout, CommCost(collective, gpus));
  Iteration iteration{schedule.plan(problem), {}};
  iteration.replay = replay(classes, workload.layout, iteration.plan);
  return iteration;
}

RunMetrics simulate(const Workload& workload, const Collective& collective, const Schedule& schedule, int gpus) {
  const auto [plan, timing] = replay_iteration(workload, collective, schedule, gpus);

  RunMetrics metrics;
  metrics.gpus = gpus;
  metrics.batch_size = workload.trace.batch_size;
  metrics.iteration = timing.iteration_end;
  metrics.compute = timing.compute_end;
  metrics.single_gpu = workload.profile.compute_time();
  metrics.messages = static_cast<int>(plan.size());
  for (const Message& message : plan) {
    metrics.comm_busy += message.duration;
    metrics.selection += message.selection;
    metrics.bytes += message.bytes;
    metrics.sent_bytes += message.sent_bytes;
  }
  return metrics;
}

}  // namespace mgsim
