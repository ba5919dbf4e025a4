#pragma once
// Upper bounds on the physical values mgsim accepts, chosen so that every
// time it derives stays an exact integer count of nanoseconds (SimTime,
// int64: at most 9.2e18 ns, 292 years). The loaders refuse an input past a
// bound with a message naming the file and the key; step_ns refuses a
// derived duration past it. docs/limits.md lists every bound and why it
// holds.
//
// The budget: an iteration is at most its compute (<= kMaxComputeSeconds,
// 3.2e16 ns) plus, per message, one collective and one top-k selection
// (each <= kMaxStepSeconds, 3.6e12 ns), with at most kMaxTensors messages:
// 3.2e16 + 2 * 2^20 * 3.6e12 = 7.6e18 ns < 9.2e18 ns.

#include <cstdint>
#include <string>
#include <string_view>

#include "mgsim/time.hpp"

namespace mgsim {

/// Longest single step: the forward pass, one layer's backward, one
/// collective (all-reduce or all-gather), one top-k selection, one measured
/// point. No message is longer than an hour.
inline constexpr double kMaxStepSeconds = 3600.0;

/// Longest compute of one iteration (forward + every backward): a year.
inline constexpr double kMaxComputeSeconds = 365.0 * 24 * 3600;

/// Most gradient tensors in a trace (and so messages in a plan): 2^20.
inline constexpr std::int64_t kMaxTensors = std::int64_t{1} << 20;

/// Largest GPU count accepted.
inline constexpr int kMaxGpus = 1 << 20;
/// Largest iteration count accepted (the per-iteration timings are kept).
inline constexpr int kMaxIterations = 1'000'000;
/// Largest seed accepted: 2^53, so that every seed is exact as a JSON number.
inline constexpr std::int64_t kMaxSeed = std::int64_t{1} << 53;
/// Largest fixed overhead per message accepted, in seconds.
inline constexpr double kMaxMessageOverhead = 1.0;

/// Throws ConfigError: step `what` takes `seconds`, past kMaxStepSeconds (or not a number).
[[noreturn]] void refuse_step(double seconds, std::string_view what);

/// `seconds` of one step in nanoseconds. Throws ConfigError naming the step
/// (`describe()`, only called then) unless it is in [0, kMaxStepSeconds].
template <typename Describe>
SimTime step_ns(double seconds, Describe describe) {
  if (!(seconds >= 0 && seconds <= kMaxStepSeconds)) refuse_step(seconds, describe());
  return to_ns(seconds);
}

}  // namespace mgsim
