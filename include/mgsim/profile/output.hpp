#pragma once
// Provenance helpers for what the profiler and the importers write (the
// writers themselves are io's: mgsim/io/trace_io.hpp).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mgsim/model_memory.hpp"
#include "mgsim/trace.hpp"

namespace mgsim::profile {

/// Today's date in UTC, "YYYY-MM-DD", for provenance.
std::string today_utc();

/// A measured optimizer step of `step_s` seconds as the trace's
/// optimizer_bytes_per_s: the bytes `optimizer`'s fused step streams over
/// every parameter, per second of the step, so that a run of the same
/// optimizer times the step as measured. Leaves the trace's rate unset (0)
/// and adds a warning when it falls outside the limits (docs/limits.md).
/// Returns the provenance entry ("optimizer_step"); `method` says how the
/// step was timed.
nlohmann::json set_optimizer_step(Trace& trace, Optimizer optimizer, double step_s, const std::string& method,
                                  std::vector<std::string>& warnings);

}  // namespace mgsim::profile
