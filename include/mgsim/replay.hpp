#pragma once
// Replaying one training iteration of a plan on a cluster, two ways:
//
// - ReplayDag / replay(): builds the iteration as a DAG for the discrete-event Engine. Each
//   GPU class (GPUs that compute alike) has a compute stream: the backward of
//   each layer from last to first, split where tensors become ready, then the
//   next iteration's forward, layer by layer in forward order, each layer's
//   forward waiting for the messages that carry its gradients (its parameters
//   are updated). The communication channel runs the plan's messages one at a
//   time, in plan order; a message starts when its tensors exist on every
//   class (a parameter all-gather waits for no gradient), the previous
//   message has finished and its own earliest start has come. A parameter
//   all-gather for a backward (ZeRO-3, FSDP) gates its layers' backward.
// - evaluate_closed_form(): the same timing from the recurrences of docs/domain.md
//   sections 1 and 1b, used as the oracle in tests. For homogeneous GPUs both
//   agree to the nanosecond.
//
// The iteration is the steady-state window from one backward start to the
// next: every message gates some layer's compute, so the channel is empty
// when the window ends and consecutive windows are alike. Classes start their
// backward together; for classes that differ by a speed factor the slowest
// one's forward ends last, so the window is exact.

#include <cstdint>
#include <span>
#include <vector>

#include "mgsim/engine.hpp"
#include "mgsim/plan.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/trace.hpp"

namespace mgsim {

/// `count` GPUs with the same compute profile.
struct GpuClass {
  int count = 1;
  ComputeProfile compute;
};

/// When one GPU class computed what: each layer's backward, then the next
/// iteration's forward of each layer.
struct ComputeSpans {
  std::vector<SimTime> layer_start;  ///< per layer, backward order (u = 0 is the last layer)
  std::vector<SimTime> layer_end;
  std::vector<SimTime> selection_end;  ///< per layer: end of the top-k selection after it (= layer_end if none)
  std::vector<SimTime> forward_start;  ///< per layer, forward order
  std::vector<SimTime> forward_end;
};

/// When each message ran and when the iteration ended.
struct Replay {
  std::vector<SimTime> message_start;
  std::vector<SimTime> message_end;
  SimTime compute_end = 0;    ///< latest end of backward (and selection) over all GPUs
  /// What that latest backward waited for parameters between its layers
  /// (ZeRO-3, FSDP): communication, not compute, in the metrics.
  SimTime parameter_wait = 0;
  SimTime forward = 0;        ///< the next forward's compute on the slowest GPU
  SimTime iteration_end = 0;  ///< latest end of the next forward: the window's end
  SimTime wait = 0;           ///< mean over GPUs of compute_end minus their own end of compute (the engine only)
  std::int64_t events = 0;    ///< events the engine processed (0 for the closed form)
  std::vector<ComputeSpans> compute;  ///< per GPU class (the engine only)
};

/// What the schedules see: each tensor's ready time on every GPU (the latest
/// over the classes) from the backward start, the compute end, each layer's
/// forward (the slowest over the classes), and the cost model.
CommProblem make_problem(std::span<const GpuClass> classes, const TensorLayout& layout, CommCost cost);

/// One iteration's activities, added to an engine that may hold others;
/// after the engine has run, collect() reads the iteration's timing back.
/// Every activity starts at `start` at the earliest. Each class's compute
/// stream and the communication channel are engine resources; with an
/// interference model they are coupled, so compute and messages in flight
/// slow each other down.
class ReplayDag {
 public:
  ReplayDag(Engine& engine, std::span<const GpuClass> classes, const TensorLayout& layout, const Plan& plan,
            SimTime start = 0, InterferenceModel* interference = nullptr);
  /// Absolute times (the iteration's `start` included); `events` is left 0.
  Replay collect(const Engine& engine) const;
  /// Only collect()'s `compute_end`, `iteration_end` and `wait`: what
  /// many-iteration runs read, without the per-activity spans.
  struct Ends {
    SimTime compute_end = 0;
    SimTime parameter_wait = 0;  ///< Replay::parameter_wait
    SimTime forward = 0;  ///< the next forward's compute on the slowest GPU
    SimTime iteration_end = 0;
    /// Mean over GPUs (weighted by class size), rounded to the nanosecond, of
    /// the slowest one's compute minus its own: its backward's busy span (less
    /// what it waited for parameters between layers) plus its forward.
    SimTime wait = 0;
  };
  Ends ends(const Engine& engine) const;
  /// Rewinds the engine (which holds this DAG and nothing else) to replay the
  /// same iteration from `start`, each class's backward from its own
  /// `release` (one per class, >= 0; empty: every class from `start`).
  void restart(Engine& engine, SimTime start, std::span<const SimTime> release = {}) const;
  /// restart() without the rewind, before the engine has run: the window
  /// starts at `start` (the plan's times count from there), each class's
  /// backward at its own `release` (empty: at `start`).
  void release(Engine& engine, SimTime start, std::span<const SimTime> release) const;
  /// Per class: its forward's work.
  std::vector<SimTime> forward_works(const Engine& engine) const;
  /// After a run: per class, when its forward ended, where its next backward starts.
  std::vector<SimTime> forward_ends(const Engine& engine) const;
  /// After a run: per layer (forward order), the end of the last message
  /// that carries its gradients (0 for a layer no message carries).
  std::vector<SimTime> gates(const Engine& engine) const;

  /// One class's compute stream: per tensor the activity at whose end it is
  /// ready; per layer (backward order) its first and last backward activity
  /// and the selection after it (-1: none); the backward chain's last
  /// activity (its activities are layer_first[0] .. last, in chain order);
  /// per layer (forward order) the next iteration's forward.
  struct Stream {
    std::vector<ActivityId> produced_by;
    std::vector<ActivityId> layer_first;
    std::vector<ActivityId> layer_last;
    std::vector<ActivityId> selection;
    ActivityId last = 0;
    std::vector<ActivityId> forward;
  };
  /// Per class, in the order given.
  const std::vector<Stream>& streams() const { return streams_; }
  /// The plan's messages, in channel order.
  const std::vector<ActivityId>& messages() const { return messages_; }
  /// Per forward-order layer: the messages that carry its gradients.
  const std::vector<std::vector<ActivityId>>& carried_by() const { return carried_by_; }
  /// The activity of `stream` that `message` waits for: the last producer of
  /// its tensors, or the selection after its last layer.
  static ActivityId producer(const Stream& stream, const TensorLayout& layout, const Message& message);

 private:
  std::vector<Stream> streams_;
  std::vector<std::int64_t> class_size_;
  std::vector<ActivityId> messages_;
  std::vector<std::vector<ActivityId>> carried_by_;  ///< per forward-order layer: the messages carrying it
  std::vector<SimTime> message_not_before_;  ///< the plan's own, from the iteration's start
  std::vector<std::size_t> gated_layers_;    ///< backward-order layers whose backward waits for parameters
  /// What `stream`'s backward waited for parameters between its layers.
  SimTime gated_wait(const Engine& engine, const Stream& stream) const;
};

/// Replays one iteration from time 0 in an engine of its own.
Replay replay(std::span<const GpuClass> classes, const TensorLayout& layout, const Plan& plan, Overlap overlap = {});

Replay evaluate_closed_form(const CommProblem& problem, const Plan& plan);

}  // namespace mgsim
