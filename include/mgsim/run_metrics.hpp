#pragma once
// Measuring a replayed iteration: the metrics users compare (RunMetrics),
// from the plan and the engine's timing of it. simulate() reports exactly
// these; callers that keep the iteration (for a timeline) measure it here
// instead of simulating twice.

#include "mgsim/simulation.hpp"

namespace mgsim {

/// The metrics of `iteration`, replayed on `gpus` identical GPUs of `workload`.
RunMetrics measure(const Workload& workload, int gpus, const Iteration& iteration);

}  // namespace mgsim
