#pragma once
// One simulated iteration end to end: a trace, a cost model, a schedule and a
// GPU count in; the predicted timing and the metrics users compare out.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "mgsim/limits.hpp"
#include "mgsim/cluster.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/trace.hpp"

namespace mgsim {

/// A trace prepared once for many runs.
struct Workload {
  explicit Workload(Trace trace_in);
  Trace trace;
  TensorLayout layout;
  ComputeProfile profile;
};

/// A workload placed on a cluster: each speed class's compute profile and
/// the problem every schedule sees. The one place that builds a CommProblem
/// from (workload, cluster, cost model).
struct Placement {
  Placement(const Workload& workload, const Cluster& cluster, const Collective& collective);
  std::vector<GpuClass> classes;
  CommProblem problem;
};

/// `profile` with every time scaled_time()d; speed 1 returns it unchanged.
ComputeProfile scaled_profile(const ComputeProfile& profile, double speed);

/// The outcome of one run; every metric derives from these integers.
struct RunMetrics {
  int gpus = 0;
  int batch_size = 0;
  SimTime iteration = 0;   ///< predicted iteration time on `gpus` GPUs
  SimTime compute = 0;     ///< forward + backward (+ selection), the slowest GPU
  SimTime single_gpu = 0;  ///< iteration time of one GPU of the trace's speed training alone, without communication
  /// The capacity that efficiency is measured against: how many GPUs of the
  /// trace's speed, each training alone, apply samples as fast as this run's
  /// GPUs each alone (alone_capacity). `gpus` when every GPU runs at speed 1;
  /// about the sum of the speeds where a GPU does all of an iteration's work;
  /// less where host time or the input pipeline, which a faster GPU does not
  /// speed up, takes part (red team: speedup 32 on one GPU of speed 0.001
  /// with iteration_overhead_s).
  double speed_sum = 0.0;
  SimTime comm_busy = 0;   ///< sum of message durations, each as long as it ran (slowed under overlap.comm_slowdown)
  SimTime selection = 0;   ///< top-k selection compute of the slowest GPU (sparse schedules), inside `compute`
  int messages = 0;
  std::int64_t bytes = 0;       ///< gradient bytes communicated per GPU (the dense equivalent)
  std::int64_t sent_bytes = 0;  ///< bytes each GPU contributes: `bytes` dense, values + indices sparse
  // Over many iterations (docs/variability.md); without variability they are
  // the nominal iteration's: `iteration` three times and its wait.
  SimTime mean_iteration = 0;  ///< mean iteration time, rounded to the nanosecond
  SimTime p50_iteration = 0;   ///< nearest-rank median
  SimTime p99_iteration = 0;   ///< nearest-rank 99th percentile
  SimTime wait = 0;            ///< mean time a GPU waits, its compute done, for the slowest one's
  // Samples per iteration (the effective batch) and the GPU time lost per
  // iteration, summed over GPUs (docs/decentralized.md). A synchronous run
  // applies gpus x batch samples every iteration and reports no idle or
  // wasted time (its waits are in exposed_comm_s and `wait`).
  double samples = 0.0;      ///< mean samples per iteration
  double samples_min = 0.0;  ///< fewest in one iteration
  double samples_max = 0.0;  ///< most in one iteration
  SimTime idle = 0;          ///< mean per iteration: GPUs neither computing nor communicating
  SimTime wasted = 0;        ///< mean per iteration: compute discarded (Non-blocking SGD, stop = abort)
  /// Model states on the GPU holding the most (parameters, gradients,
  /// optimizer state with fp32 master weights; no activations), at the run's
  /// optimizer and the schedule's ZeRO stage: model_memory.hpp.
  std::int64_t model_state_bytes = 0;

  double iteration_time_s() const { return to_seconds(iteration); }
  double compute_s() const { return to_seconds(compute); }
  double comm_s() const { return to_seconds(comm_busy); }
  double selection_s() const { return to_seconds(selection); }
  /// Communication not hidden behind compute: t_iter - t_f - sum t_b.
  double exposed_comm_s() const { return to_seconds(iteration - compute); }
  double idle_s() const { return to_seconds(idle); }
  double wasted_s() const { return to_seconds(wasted); }
  double throughput() const { return samples / iteration_time_s(); }
  /// Throughput over what the GPUs could apply, each alone at its speed:
  /// throughput / (speed_sum x batch / t_iter(1)). It counts the samples an
  /// iteration applied, so dropped (nbsgd) or uncomputed samples lower it;
  /// t_iter(1) / t_iter(P) when synchronous on GPUs of speed 1.
  double scaling_efficiency() const {
    return samples * static_cast<double>(single_gpu) /
           (speed_sum * batch_size * static_cast<double>(iteration));
  }
  /// P x scaling efficiency: how many of the cluster's average GPUs, each
  /// alone, would apply samples as fast; at most P.
  double speedup() const { return gpus * scaling_efficiency(); }
  /// Samples per iteration / mean iteration time: the samples per second over
  /// many iterations (P * batch / mean iteration time when synchronous).
  double mean_throughput() const { return samples / to_seconds(mean_iteration); }
};

/// One iteration on identical GPUs: the schedule's plan and the engine's timing of it.
/// What an iteration adds after its replayed window (evaluate(),
/// docs/config.md), in ns: the host time and optimizer step, the
/// coordination across GPUs (sync_overhead_s), and the wait for the input
/// pipeline, in that order.
struct IterationOverheads {
  SimTime step = 0;
  SimTime sync = 0;
  SimTime input_wait = 0;
};

struct Iteration {
  Plan plan;
  Replay replay;
  IterationOverheads overheads;  ///< none outside evaluate()
};

/// Plans and replays one iteration on `cluster` with the event engine.
Iteration replay_iteration(const Workload& workload, const Collective& collective, const Schedule& schedule,
                           const Cluster& cluster, Overlap overlap = {});

/// The metrics of `iteration`, replayed on `cluster` with `workload`: what
/// simulate() reports, for callers that keep the iteration (for a timeline).
RunMetrics measure(const Workload& workload, const Cluster& cluster, const Iteration& iteration);

/// What one GPU training alone adds to its compute in an iteration: the
/// whole model's optimizer step at the trace's speed (1/speed as long on a
/// GPU of another), host time (the same on any GPU), and the input
/// pipeline's floor under the whole iteration (0: none).
struct AloneCosts {
  SimTime optimizer = 0;
  SimTime host = 0;
  SimTime floor = 0;
};

/// Ranks whose compute and optimizer step run at relative speed `speed`.
struct RanksAt {
  double speed = 1.0;
  int ranks = 0;
};

/// An iteration of one GPU training alone at `speed`: its compute rounded as
/// a run of that speed rounds it (scaled_profile), then `costs`.
SimTime alone_time(const ComputeProfile& profile, const RanksAt& speed, const AloneCosts& costs);

/// RunMetrics::speed_sum of the ranks `ranks_at`: each counts alone_time at
/// speed 1 over alone_time at its own.
double alone_capacity(const ComputeProfile& profile, std::span<const RanksAt> ranks_at, const AloneCosts& costs);

/// The speed classes of `cluster` as alone_capacity takes them.
std::vector<RanksAt> class_speeds(const Cluster& cluster);

/// Whether the closed form (evaluate_closed_form) times a run exactly: one
/// speed class and no interference. The one statement of that condition.
inline bool closed_form_exact(std::size_t speed_classes, Overlap overlap) {
  return speed_classes == 1 && overlap.ideal();
}

/// The timing of `plan` on `placement` for its metrics: the closed form
/// (evaluate_closed_form), which the engine reproduces to the nanosecond,
/// where it applies (one speed class, no interference), else the engine.
/// Compute spans come only from the engine: a timeline uses replay_iteration().
Replay time_plan(const Placement& placement, const TensorLayout& layout, const Plan& plan, Overlap overlap = {});

/// One iteration on `cluster`, planned and timed by time_plan(), reduced to
/// the metrics users compare: what a sweep row and `simulate()` report.
RunMetrics simulate(const Workload& workload, const Collective& collective, const Schedule& schedule,
                    const Cluster& cluster, Overlap overlap = {});

/// simulate() on `gpus` identical GPUs.
RunMetrics simulate(const Workload& workload, const Collective& collective, const Schedule& schedule, int gpus,
                    Overlap overlap = {});

}  // namespace mgsim
