#include "mgsim/run_metrics.hpp"

namespace mgsim {

RunMetrics measure(const Workload& workload, int gpus, const Iteration& iteration) {
  RunMetrics metrics;
  metrics.gpus = gpus;
  metrics.batch_size = workload.trace.batch_size;
  metrics.iteration = iteration.replay.iteration_end;
  metrics.compute = iteration.replay.compute_end;
  metrics.single_gpu = workload.profile.compute_time();
  metrics.messages = static_cast<int>(iteration.plan.size());
  for (const Message& message : iteration.plan) {
    metrics.comm_busy += message.duration;
    metrics.selection += message.selection;
    metrics.bytes += message.bytes;
    metrics.sent_bytes += message.sent_bytes;
  }
  return metrics;
}

}  // namespace mgsim
