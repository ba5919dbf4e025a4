#include "mgsim/simulation.hpp"

#include <algorithm>
#include <cmath>

#include "mgsim/limits.hpp"

namespace mgsim {

Workload::Workload(Trace trace_in)
    : trace(std::move(trace_in)), layout(make_layout(trace)), profile(make_profile(trace)) {}

ComputeProfile scaled_profile(const ComputeProfile& profile, double speed) {
  if (speed == 1.0) return profile;
  const auto scale = [speed](SimTime t) { return scaled_time(t, speed); };
  ComputeProfile scaled = profile;
  scaled.speed = profile.speed * speed;
  scaled.forward = 0;
  for (SimTime& t : scaled.forward_layers) scaled.forward += t = scale(t);
  for (SimTime& t : scaled.backward) t = scale(t);
  for (SimTime& t : scaled.ready_offsets) t = scale(t);
  return scaled;
}

namespace {

std::vector<GpuClass> classes_of(const Workload& workload, const Cluster& cluster) {
  std::vector<GpuClass> classes;
  for (int c = 0; c < cluster.class_count(); ++c) {
    classes.push_back({cluster.class_size(c), scaled_profile(workload.profile, cluster.speed(c))});
  }
  return classes;
}

}  // namespace

Placement::Placement(const Workload& workload, const Cluster& cluster, const Collective& collective)
    : classes(classes_of(workload, cluster)),
      problem(make_problem(classes, workload.layout, CommCost(collective, cluster.size()))) {}

Iteration replay_iteration(const Workload& workload, const Collective& collective, const Schedule& schedule,
                           const Cluster& cluster, Overlap overlap) {
  const Placement placement(workload, cluster, collective);
  Iteration iteration{schedule.plan(placement.problem), {}, {}};
  iteration.replay = replay(placement.classes, workload.layout, iteration.plan, overlap);
  return iteration;
}

SimTime alone_time(const ComputeProfile& profile, const RanksAt& speed, const AloneCosts& costs) {
  const SimTime compute =  // speed 1: the profile as it is, not a copy (every run asks, once or twice)
      speed.speed == 1.0 ? profile.compute_time() : scaled_profile(profile, speed.speed).compute_time();
  const SimTime gpu = compute + scaled_time(costs.optimizer, speed.speed);
  return std::max(gpu + costs.host, costs.floor);
}

double alone_capacity(const ComputeProfile& profile, std::span<const RanksAt> ranks_at, const AloneCosts& costs) {
  // Red team: the sum of the speeds counted host time as sped up (speedup 32 on one GPU of speed 0.001) and
  // compute as unrounded (efficiency 1.4 on one GPU of speed 1000 whose 1.4 ns layers ran 1 ns).
  const auto reference = static_cast<double>(alone_time(profile, {}, costs));
  double capacity = 0.0;
  for (const RanksAt& at : ranks_at) {
    if (at.ranks > 0) capacity += at.ranks * reference / static_cast<double>(alone_time(profile, at, costs));
  }
  return capacity;
}

std::vector<RanksAt> class_speeds(const Cluster& cluster) {
  std::vector<RanksAt> speeds;
  for (int c = 0; c < cluster.class_count(); ++c) speeds.push_back({cluster.speed(c), cluster.class_size(c)});
  return speeds;
}

RunMetrics measure(const Workload& workload, const Cluster& cluster, const Iteration& iteration) {
  const Plan& plan = iteration.plan;
  const Replay& timing = iteration.replay;
  const int gpus = cluster.size();
  RunMetrics metrics;
  metrics.gpus = gpus;
  metrics.speed_sum = alone_capacity(workload.profile, class_speeds(cluster), {});
  metrics.batch_size = workload.trace.batch_size;
  metrics.iteration = timing.iteration_end;
  metrics.compute = timing.compute_end - timing.parameter_wait + timing.forward;
  metrics.single_gpu = workload.profile.compute_time();
  metrics.samples = static_cast<double>(gpus) * workload.trace.batch_size;
  metrics.samples_min = metrics.samples;
  metrics.samples_max = metrics.samples;
  metrics.mean_iteration = metrics.p50_iteration = metrics.p99_iteration = timing.iteration_end;
  metrics.wait = timing.wait;
  metrics.messages = static_cast<int>(plan.size());
  const double slowest = cluster.slowest_speed();
  // Each message as long as it ran: slowed beside compute under overlap.comm_slowdown.
  for (std::size_t m = 0; m < plan.size(); ++m) {
    const Message& message = plan[m];
    metrics.comm_busy += timing.message_end[m] - timing.message_start[m];
    metrics.selection += scaled_time(message.selection, slowest);  // on the slowest GPU, as it ran
    if (message.kind != CollectiveKind::param_allgather) metrics.bytes += message.bytes;
    metrics.sent_bytes += message.sent_bytes;
  }
  return metrics;
}

Replay time_plan(const Placement& placement, const TensorLayout& layout, const Plan& plan, Overlap overlap) {
  if (closed_form_exact(placement.classes.size(), overlap)) return evaluate_closed_form(placement.problem, plan);
  return replay(placement.classes, layout, plan, overlap);
}

RunMetrics simulate(const Workload& workload, const Collective& collective, const Schedule& schedule,
                    const Cluster& cluster, Overlap overlap) {
  const Placement placement(workload, cluster, collective);
  Iteration iteration{schedule.plan(placement.problem), {}, {}};
  iteration.replay = time_plan(placement, workload.layout, iteration.plan, overlap);
  return measure(workload, cluster, iteration);
}

RunMetrics simulate(const Workload& workload, const Collective& collective, const Schedule& schedule, int gpus,
                    Overlap overlap) {
  return simulate(workload, collective, schedule, Cluster::homogeneous(gpus), overlap);
}

}  // namespace mgsim
