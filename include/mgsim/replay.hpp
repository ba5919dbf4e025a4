#pragma once
// Replaying one training iteration of a plan on a cluster, two ways:
//
// - ReplayDag / replay(): builds the iteration as a DAG for the discrete-event Engine. Each
//   GPU class (GPUs that compute alike) has a compute stream: forward, then
//   the backward of each layer from last to first, split where tensors become
//   ready. The communication channel runs the plan's messages one at a time,
//   in plan order; a message starts when its tensors exist on every class, the
//   previous message has finished and its own earliest start has come.
// - evaluate_closed_form(): the same timing from the recurrences of docs/domain.md
//   section 1, used as the oracle in tests. For homogeneous GPUs both agree to
//   the nanosecond.

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

/// When one GPU class computed what: forward, then each layer's backward.
struct ComputeSpans {
  SimTime forward_end = 0;
  std::vector<SimTime> layer_start;  ///< per layer, backward order (u = 0 is the last layer)
  std::vector<SimTime> layer_end;
  std::vector<SimTime> selection_end;  ///< per layer: end of the top-k selection after it (= layer_end if none)
};

/// When each message ran and when the iteration ended.
struct Replay {
  std::vector<SimTime> message_start;
  std::vector<SimTime> message_end;
  SimTime compute_end = 0;    ///< latest end of backward over all GPUs
  SimTime iteration_end = 0;  ///< latest of compute_end and the last message's end
  SimTime wait = 0;           ///< mean over GPUs of compute_end minus their own end of compute (the engine only)
  std::int64_t events = 0;    ///< events the engine processed (0 for the closed form)
  std::vector<ComputeSpans> compute;  ///< per GPU class (the engine only)
};

/// What the schedules see: each tensor's ready time on every GPU (the latest
/// over the classes), the backward start and compute end, and the cost model.
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
    SimTime iteration_end = 0;
    SimTime wait = 0;  ///< mean over GPUs (weighted by class size), rounded to the nanosecond
  };
  Ends ends(const Engine& engine) const;
  /// Rewinds the engine (which holds this DAG and nothing else) to replay the
  /// same iteration from `start`.
  void restart(Engine& engine, SimTime start) const;

  /// One class's compute stream: per tensor the activity at whose end it is
  /// ready; per layer (backward order) its first and last backward activity
  /// and the selection after it (-1: none).
  struct Stream {
    std::vector<ActivityId> produced_by;
    ActivityId forward = 0;
    std::vector<ActivityId> layer_first;
    std::vector<ActivityId> layer_last;
    std::vector<ActivityId> selection;
    ActivityId last = 0;
  };
  /// Per class, in the order given.
  const std::vector<Stream>& streams() const { return streams_; }

 private:
  std::vector<Stream> streams_;
  std::vector<std::int64_t> class_size_;
  std::vector<ActivityId> messages_;
  std::vector<SimTime> message_not_before_;  ///< the plan's own, from the iteration's start
};

/// Replays one iteration from time 0 in an engine of its own.
Replay replay(std::span<const GpuClass> classes, const TensorLayout& layout, const Plan& plan, Overlap overlap = {});

Replay evaluate_closed_form(const CommProblem& problem, const Plan& plan);

}  // namespace mgsim
