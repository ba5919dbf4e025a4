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

/// std::llround(x) for 0 <= x < 2^63, halves up, without the C library
/// call: the integer part plus one if the fraction (exact: x - trunc(x)
/// needs no rounding) is at least a half.
inline SimTime round_nonnegative(double x) {
  const auto whole = static_cast<SimTime>(x);
  return whole + (x - static_cast<double>(whole) >= 0.5 ? 1 : 0);
}

/// `ns` in seconds, the double nearest the decimal (a quotient of two exact
/// doubles is rounded once; ns x 1e-9 wrote 18 ms as 0.018000000000000002).
inline double to_seconds(SimTime ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace mgsim
