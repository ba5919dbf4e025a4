#pragma once
// Replaying one training iteration of a plan on a cluster, two ways:
//
// - replay(): builds the iteration as a DAG for the discrete-event Engine. Each
//   GPU class (GPUs that compute alike) has a compute stream: forward, then
//   the backward of each layer from last to first, split where tensors become
//   ready. The communication channel runs the plan's messages one at a time,
//   in plan order; a message starts when its tensors exist on every class, the
//   previous message has finished and its own earliest start has come.
// - evaluate_closed_form(): the same timing from the recurrences of DOMAIN.md
//   section 1, used as the oracle in tests. For homogeneous GPUs both agree to
//   the nanosecond.

#include <cstdint>
#include <span>
#include <vector>

#include "mgsim/plan.hpp"
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
  std::int64_t events = 0;    ///< events the engine processed (0 for the closed form)
  std::vector<ComputeSpans> compute;  ///< per GPU class (the engine only)
};

/// What the schedules see: each tensor's ready time on every GPU (the latest
/// over the classes), the backward start and compute end, and the cost model.
CommProblem make_problem(std::span<const GpuClass> classes, const TensorLayout& layout, CommCost cost);

Replay replay(std::span<const GpuClass> classes, const TensorLayout& layout, const Plan& plan);

Replay evaluate_closed_form(const CommProblem& problem, const Plan& plan);

}  // namespace mgsim
