#include "mgsim/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/schedule.hpp"

namespace mgsim {
namespace {

BuildContext context_of(const RunPoint& point, const Cluster& cluster) {
  return {point.workload, cluster,         point.collective, point.schedule, point.overlap, point.variability,
          point.network,  point.message_overhead_s};
}

/// The metrics of many iterations of a standalone builder: means over them.
RunMetrics measure_iterations(const Workload& workload, const Cluster& cluster, const SimulationResult& result) {
  RunMetrics metrics;
  metrics.gpus = cluster.size();
  metrics.batch_size = workload.trace.batch_size;  // speed_sum and single_gpu: with_overheads
  metrics.iteration = result.stats.mean;
  metrics.mean_iteration = result.stats.mean;
  metrics.p50_iteration = result.stats.p50;
  metrics.p99_iteration = result.stats.p99;
  metrics.wait = result.stats.wait;
  const auto n = static_cast<SimTime>(result.iterations.size());
  SimTime compute = 0, idle = 0, wasted = 0;
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

/// A point's metrics before the step overheads and the input pipeline, with
/// the iterations simulated for its statistics (none: each is the nominal one).
struct Timed {
  Evaluation evaluation;
  std::vector<IterationTiming> iterations;
};

Timed evaluate_builder(const RunPoint& point, const Cluster& cluster) {
  const auto builder = point.spec.builder()->make(context_of(point, cluster), point.spec.builder_params());
  SimulationResult result = simulate(*builder, point.variability.seed, point.iterations);
  return {{measure_iterations(point.workload, cluster, result), std::nullopt}, std::move(result.iterations)};
}

/// The point's iterations on the per-rank engine, for their statistics (with_overheads).
std::vector<IterationTiming> rank_iterations(const RunPoint& point, const Cluster& cluster) {
  const auto builder = find_builder("data-parallel").make(context_of(point, cluster), {});
  return simulate(*builder, point.variability.seed, point.iterations).iterations;
}

/// The speed of the slowest GPU: of the slowest class, or with `stragglers`
/// a persistent straggler's (red team: a straggler at half speed took the
/// step at full).
double slowest_speed(const RunPoint& point, bool stragglers) {
  const Cluster& cluster = point.cluster;
  double slowest = cluster.slowest_speed();
  if (!stragglers) return slowest;
  const Stragglers& slow = point.variability.stragglers;
  for (const int rank : slow.ranks) slowest = std::min(slowest, cluster.speed(cluster.class_of(rank)) * slow.speed);
  return slowest;
}

/// What every iteration adds to the engine's: the host time and optimizer
/// step (`step` in the nominal iteration, which has no persistent
/// stragglers; `ranks_step` in the iterations run per rank, where the
/// slowest may be one; overlapping nothing, in the compute), on more than one GPU
/// the coordination across them (`sync`, exposed communication, not
/// compute), and the input pipeline's floor: one node's samples take batch
/// x GPUs on the node / rate to load, prefetched while the GPUs train, so
/// no iteration is shorter (`floor`, 0: none; the wait counts in the
/// compute, as the host time does, so the exposed communication stays what
/// it was). The one GPU pays the whole model's step and loads its own batch.
struct StepOverheads {
  SimTime step = 0;
  SimTime ranks_step = 0;
  SimTime sync = 0;
  SimTime floor = 0;
  AloneCosts alone;  ///< of one GPU training alone: the whole model's step, loading its own batch

  /// An iteration of `engine` nanoseconds, with these and the step `with_step`.
  SimTime apply(SimTime engine, SimTime with_step) const { return std::max(engine + with_step + sync, floor); }
};

StepOverheads step_overheads(const RunPoint& point, int zero_stage) {
  const auto describe = [] { return std::string("iteration_overhead_s + the optimizer step"); };
  const auto describe_sync = [] { return std::string("sync_overhead_s"); };
  const auto describe_load = [] { return std::string("loading a node's batch at node_input_samples_per_s"); };
  const Cluster& cluster = point.cluster;
  const Trace& trace = point.workload.trace;
  // The step of the GPU updating the most elements (docs/schedules.md), on the slowest GPU.
  const double optimizer = trace_optimizer_step_s(trace, point.optimizer, zero_stage, cluster.size());
  StepOverheads overheads;
  overheads.step = step_ns(point.iteration_overhead_s + optimizer / slowest_speed(point, false), describe);
  overheads.ranks_step = step_ns(point.iteration_overhead_s + optimizer / slowest_speed(point, true), describe);
  overheads.alone.host = step_ns(point.iteration_overhead_s, describe);
  overheads.alone.optimizer = step_ns(trace_optimizer_step_s(trace, point.optimizer, 0, 1), describe);
  overheads.sync = cluster.size() > 1 ? step_ns(point.sync_overhead_s, describe_sync) : 0;
  if (point.node_input_samples_per_s > 0) {
    const double batch = trace.batch_size;
    const int on_node = std::min(cluster.gpus_per_node(), cluster.size());
    overheads.floor = step_ns(batch * on_node / point.node_input_samples_per_s, describe_load);
    overheads.alone.floor = step_ns(batch / point.node_input_samples_per_s, describe_load);
  }
  return overheads;
}

/// `timed` with `overheads` in every iteration: each simulated iteration
/// gets them before the statistics are taken (a floor does not commute with
/// a mean), the nominal one too. A standalone builder's iteration is its
/// mean, so it follows the mean. Efficiency is then measured against the
/// cluster's GPUs each training alone with these overheads: a builder's
/// stragglers, which its iterations run at their speed, at that speed.
Evaluation with_overheads(Timed timed, const StepOverheads& overheads, bool builder, const RunPoint& point) {
  RunMetrics& m = timed.evaluation.metrics;
  const SimTime before = m.iteration;
  if (timed.iterations.empty()) {
    m.iteration = m.mean_iteration = m.p50_iteration = m.p99_iteration = overheads.apply(m.iteration, overheads.step);
  } else {
    SimTime start = 0;
    for (IterationTiming& timing : timed.iterations) {
      const SimTime duration = overheads.apply(timing.duration(), overheads.ranks_step);
      timing.start = start;
      timing.end = start += duration;
    }
    const IterationStats stats = iteration_stats(timed.iterations);
    m.mean_iteration = stats.mean;
    m.p50_iteration = stats.p50;
    m.p99_iteration = stats.p99;
    m.wait = stats.wait;
    m.iteration = builder ? stats.mean : overheads.apply(m.iteration, overheads.step);
  }
  const SimTime step = builder ? overheads.ranks_step : overheads.step;  // a builder's iteration is its rounds' mean
  const SimTime input_wait = m.iteration - before - step - overheads.sync;
  m.compute += step + input_wait;
  // The nominal iteration (never a builder's) is the engine's window, `before`.
  if (auto& nominal = timed.evaluation.iteration) nominal->overheads = {overheads.step, overheads.sync, input_wait};
  const Cluster& cluster = point.cluster;
  std::vector<RanksAt> ranks_at = class_speeds(cluster);
  if (builder) {  // red team: stragglers at speed 1000 counted at 1 made a builder's efficiency 2.99
    for (const int rank : point.variability.stragglers.ranks) {
      const int c = cluster.class_of(rank);
      --ranks_at[static_cast<std::size_t>(c)].ranks;
      ranks_at.push_back({cluster.speed(c) * point.variability.stragglers.speed, 1});  // its step too (red team)
    }
  }
  m.single_gpu = alone_time(point.workload.profile, {}, overheads.alone);
  m.speed_sum = alone_capacity(point.workload.profile, ranks_at, overheads.alone);
  return std::move(timed.evaluation);
}

}  // namespace

std::string_view to_string(Timing timing) {
  switch (timing) {
    case Timing::engine_classes:
      return "engine-classes";
    case Timing::engine_ranks:
      return "engine-ranks";
    case Timing::closed_form:
      break;
  }
  return "closed-form";
}

Timing choose_timing(const RunPoint& point) {
  if (point.spec.builder() || !point.variability.none()) return Timing::engine_ranks;
  const auto classes = static_cast<std::size_t>(point.cluster.class_count());
  return closed_form_exact(classes, point.overlap) ? Timing::closed_form : Timing::engine_classes;
}

double rank_layer_steps(int ranks) {
  const double doublings = std::log2(static_cast<double>(ranks));
  return std::max(1.0, doublings * doublings / 36);
}

double estimate_steps(const RunPoint& point) {
  const TensorLayout& layout = point.workload.layout;
  const double layers = static_cast<double>(layout.layer_count());
  const double planning =  // a builder draws its rounds per rank, below
      point.schedule ? point.schedule->plan_steps(layout.layer_count(), layout, point.collective.allreduce_affine(point.cluster.size()))
                     : layers;
  double per_rank = 0.0;  // steps per rank and iteration
  if (point.spec.builder()) {
    per_rank = kBuilderSteps;
  } else if (!point.variability.none()) {
    // Each rank is a stream of the engine where the folded paths cannot time
    // the plan (DataParallelBuilder::per_rank): ZeRO-3 and FSDP gate every
    // backward layer, and under interference every sharded schedule gathers parameters.
    const ScheduleInfo& info = find_schedule(point.spec.name);
    const bool streams = info.zero_stage == 3 || (info.sharded && !point.overlap.ideal());
    per_rank = streams ? rank_layer_steps(point.cluster.size()) * (layers + 1)
                       : point.variability.per == DelayUnit::layer ? layers + 1 : 1;
  }
  double graph = 0.0;  // a graph file's edge colouring (a Misra-Gries step up to degree + 1 an edge), then its exchanges
  if (const std::optional<Graph>& file = point.spec.graph) {
    const auto edges = static_cast<double>(file->edges().size());
    graph = edges * (file->max_degree() + 1) + edges * point.iterations;  // red team: 183 s at an estimated 4e3
  }
  // Under variability every iteration replays the plan, its compute and its messages, once folded and once
  // more a rank (red team: 10^6 iterations of 4 GPUs ran 58 s at an estimated 3.2e7 steps).
  const double replay = point.variability.none() || !point.schedule
                            ? 0.0
                            : point.iterations * (layers + 1 + point.schedule->replay_steps(layout));
  const int classes = point.cluster.class_count();
  const double class_streams = classes > 1 ? kClassLayerSteps * classes * (layers + 1) : 0.0;
  return kStepsPerRun + planning + graph + replay + class_streams +
         static_cast<double>(point.cluster.size()) * point.iterations * per_rank;
}

Evaluation evaluate(const RunPoint& point, bool keep_iteration) {
  return evaluate_with(point, choose_timing(point), keep_iteration);
}

namespace {

Timed evaluate_without_overheads(const RunPoint& point, Timing timing, bool keep_iteration) {
  const Cluster& cluster = point.cluster;
  if (point.spec.builder()) {
    if (timing != Timing::engine_ranks) {
      throw ConfigError(fmt::format("'{}' is a standalone builder: only the per-rank engine times it", point.spec.name));
    }
    return evaluate_builder(point, cluster);
  }
  const Placement placement(point.workload, cluster, point.collective);
  Iteration iteration{point.schedule->plan(placement.problem), {}, {}};
  if (timing == Timing::closed_form) {
    if (!closed_form_exact(placement.classes.size(), point.overlap)) {
      throw ConfigError("the closed form applies to one speed class without interference only");
    }
    if (!keep_iteration) iteration.replay = evaluate_closed_form(placement.problem, iteration.plan);
  }
  if (timing != Timing::closed_form || keep_iteration) {
    iteration.replay = replay(placement.classes, point.workload.layout, iteration.plan, point.overlap);
  }
  Timed timed{{measure(point.workload, cluster, iteration), std::nullopt}, {}};
  if (timing == Timing::engine_ranks) timed.iterations = rank_iterations(point, cluster);
  if (keep_iteration) timed.evaluation.iteration = std::move(iteration);
  return timed;
}

}  // namespace

Evaluation evaluate_with(const RunPoint& point, Timing timing, bool keep_iteration) {
  const int stage = point.spec.builder() ? 0 : find_schedule(point.spec.name).zero_stage;
  Evaluation evaluation = with_overheads(evaluate_without_overheads(point, timing, keep_iteration),
                                         step_overheads(point, stage), point.spec.builder() != nullptr, point);
  if (evaluation.metrics.iteration <= 0 || evaluation.metrics.single_gpu <= 0) {  // a throughput would be infinite
    throw ConfigError("an iteration takes under a nanosecond, the simulator's unit of time: the trace's compute at "
                      "its speed is too small to time (give its times in seconds, or a slower speed)");
  }
  evaluation.metrics.model_state_bytes =
      trace_model_states(point.workload.trace, point.optimizer, stage, point.cluster.size()).total();
  return evaluation;
}

}  // namespace mgsim
