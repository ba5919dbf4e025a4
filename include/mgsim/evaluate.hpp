#pragma once
// The one evaluator: every command that predicts a number (run, sweep,
// advise, calibrate, validate) describes what it wants as a RunPoint, one
// fully resolved run, and calls evaluate(). How the point is timed is one
// named choice, made by choose_timing() from the point alone (as SimGrid's
// models name their FULL or LAZY update): the closed form, the engine per
// speed class, or the engine per rank over many iterations. The strategies
// agree wherever more than one applies; evaluate_with() forces one, for the
// differential tests that check it.

#include <optional>
#include <string_view>

#include "mgsim/cluster.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/iteration.hpp"
#include "mgsim/model_memory.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/schedule_spec.hpp"
#include "mgsim/simulation.hpp"
#include "mgsim/variability.hpp"

namespace mgsim {

/// One run, everything resolved: the caller owns what the references name.
struct RunPoint {
  const Workload& workload;
  /// Built for this point's network, node size, curves and message overhead.
  const Collective& collective;
  const ScheduleSpec& spec;
  const Schedule* schedule;  ///< `spec` built; null for a standalone builder
  /// The ranks: GPUs, nodes and speed classes (Cluster::with_shares of the scenario's).
  const Cluster& cluster;
  Overlap overlap;
  std::optional<Network> network;   ///< the links, for point-to-point exchanges; none for measured curves
  double message_overhead_s = 0.0;  ///< added to every point-to-point exchange
  /// Host time of every iteration on every GPU (optimizer step, data loading,
  /// Python), between the last gradient's reduction and the next forward:
  /// added to the iteration and to its compute, overlapping nothing.
  double iteration_overhead_s = 0.0;
  const Variability& variability;
  int iterations = kDefaultIterations;
  /// The optimizer whose state the model-state memory per GPU counts.
  Optimizer optimizer = Optimizer::adam;
  /// Samples one node's input pipeline (reading, decoding, augmenting)
  /// delivers a second, prefetching while the GPUs train: no iteration is
  /// shorter than its node's samples at that rate; 0: never binds.
  double node_input_samples_per_s = 0.0;
  /// Seconds every iteration on more than one GPU adds after its last
  /// reduction, overlapping nothing (the framework's per-step coordination
  /// across GPUs); none on one GPU.
  double sync_overhead_s = 0.0;
};

/// How a point is timed.
enum class Timing {
  closed_form,     ///< one speed class, no interference: the recurrences of docs/domain.md section 1
  engine_classes,  ///< speed classes or interference: the engine, one compute stream per class
  engine_ranks,    ///< variability or a standalone builder: the engine per rank, over many iterations
};

/// "closed-form", "engine-classes", "engine-ranks".
std::string_view to_string(Timing timing);

/// The cheapest strategy that is exact for `point`.
Timing choose_timing(const RunPoint& point);

/// A point's metrics and, when asked for, the nominal iteration behind them
/// (plan and per-class replay, for a timeline; none for a standalone builder).
struct Evaluation {
  RunMetrics metrics;
  std::optional<Iteration> iteration;
};

/// Steps a standalone builder (nbsgd, dpsgd, matcha) takes per rank and
/// iteration: ten times a random draw (measured on the 2-core CI machine: 15
/// to 50 M steps/s for the gossip and non-blocking builders, 27 M with variability).
inline constexpr double kBuilderSteps = 10;

/// Steps every run costs besides its layers and its simulation: building,
/// planning and reporting it, about 5 us for a small trace at 10 M steps/s.
inline constexpr double kStepsPerRun = 50;

/// Steps the nominal engine takes per speed class and layer where a run has
/// several classes, each a stream of the engine (red team: 40,000 classes
/// of a 1,000-layer trace ran 75.6 s and 10 GB at an estimated 1e3 steps;
/// 7.6e8 at 10 M steps/s is 19 a class and layer).
inline constexpr double kClassLayerSteps = 20;

/// Steps the per-rank engine takes per rank, layer and iteration where each
/// rank is a stream of its own (ZeRO-3 and FSDP under variability, every
/// sharded schedule under interference: DataParallelBuilder::per_rank):
/// log2(ranks)^2 / 36, at least 1, fitted to ResNet-50 under fsdp at 10 M
/// steps/s (red team, 2026-11-29: 1, 2, 3.7 and 10.6 at 64, 1024, 4096 and
/// 65536 ranks; charged 1, 65536 ranks over 10 iterations ran 78 s at an
/// estimated 7.1e7 steps).
double rank_layer_steps(int ranks);

/// About how many engine steps evaluate(point) takes, before running it:
/// kStepsPerRun plus the schedule's plan_steps (planning and timing its
/// messages: one a layer for most, layers^2 for `omgs` and for `optimal` off
/// a line, a few a chunk for `p3` and `bytescheduler`; one a layer for a
/// builder), plus ranks x iterations x (kBuilderSteps for a standalone
/// builder, or the random draws of a rank under variability, 1 or layers + 1,
/// or rank_layer_steps x (layers + 1) where each rank is a stream), plus kClassLayerSteps x classes x (layers + 1) where there
/// are several speed classes. A grid of millions of closed-form runs counts too.
double estimate_steps(const RunPoint& point);

/// Evaluates `point` with choose_timing(point).
Evaluation evaluate(const RunPoint& point, bool keep_iteration = false);

/// Evaluates `point` with `timing`. Throws ConfigError when the strategy does
/// not apply: the closed form with speed classes or interference, anything but
/// engine_ranks for a standalone builder. engine_ranks on a plan-based
/// schedule reports the nominal figures and, from a per-rank run of the
/// point's iterations, the mean, p50, p99 and wait.
Evaluation evaluate_with(const RunPoint& point, Timing timing, bool keep_iteration = false);

}  // namespace mgsim
