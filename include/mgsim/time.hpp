#pragma once
// Simulated time. Every duration and instant inside the engine, the planners
// and the closed-form evaluator is an integer count of nanoseconds, so runs are
// bit-reproducible and the engine can be checked against the closed form
// exactly. Seconds (double) exist only at the edges: input files and reports.

#include <cmath>
#include <cstdint>

namespace mgsim {

/// Nanoseconds since the start of the simulated iteration (or a duration).
using SimTime = std::int64_t;

/// Rounds seconds to the nearest nanosecond. Callers validate finiteness first.
inline SimTime to_ns(double seconds) { return std::llround(seconds * 1e9); }

inline double to_seconds(SimTime ns) { return static_cast<double>(ns) * 1e-9; }

}  // namespace mgsim
