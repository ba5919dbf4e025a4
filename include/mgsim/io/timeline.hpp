#pragma once
// Timelines: simulated iterations in the Chrome trace event format, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open. Each iteration gets
// one process per GPU class, whose compute track holds the forward pass and
// one slice per layer's backward, and one communication process with a slice
// per all-reduce (named by the layers it carries, bytes in args) and a track
// marking the exposed communication: from the end of compute to the end of
// the iteration; what the iteration adds after the replayed window (host
// time and optimizer step, input wait; coordination on the exposed track)
// follows it. Times are microseconds (ts, dur), converted from the
// simulator's nanoseconds. Format reference: docs/sweeps.md#timelines.

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "mgsim/plan.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/simulation.hpp"

namespace mgsim {

/// One simulated iteration with its plan and when everything ran.
struct IterationTrace {
  std::string label;              ///< e.g. "64 GPUs, mgwfbp": names its processes
  std::vector<std::string> class_names;  ///< per speed class, parallel to replay.compute
  Plan plan;
  Replay replay;
  IterationOverheads overheads;  ///< after the replayed window
};

/// The iterations as one Chrome trace JSON document. Processes (pid) are
/// numbered from 1 in order: each iteration's GPU classes, then its
/// communication.
std::string format_timeline(const Workload& workload, std::span<const IterationTrace> iterations);

}  // namespace mgsim
