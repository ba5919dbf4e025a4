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

/// Most message sizes a measured curve holds for one GPU count, in a curve
/// file or a log imported (a real sweep has a few dozen; 2,000,000 rows took
/// 21 s and 1.9 GB to import).
inline constexpr std::size_t kMaxCurveSizes = std::size_t{1} << 16;

/// Largest GPU count accepted.
inline constexpr int kMaxGpus = 1 << 20;
/// Most values one axis of a scenario's grid holds (its traces, GPU counts,
/// node sizes, collectives, networks or schedules, with the entries their
/// parameter lists expand to), and most runs the grid holds: 2^22 rows, a
/// sweep's CSV of about 1.5 GB. --max-work bounds the time they take.
inline constexpr std::size_t kMaxAxisValues = std::size_t{1} << 16;
inline constexpr std::size_t kMaxRuns = std::size_t{1} << 22;
/// Deepest nesting of arrays and objects a JSON input may have: past any
/// file mgsim reads, well inside what copying a value (a recursion) may take.
inline constexpr std::size_t kMaxJsonDepth = 512;
/// Most values a JSON input holds at once (every array and object and what
/// they hold; the elements of a streamed array, a trace's layers or a Kineto
/// trace's events, one at a time): about 1 GB of memory at nlohmann's 16 to
/// 64 bytes a value (red team: a 400 MB provenance of zeros took 20 GB and
/// aborted). A 1,000,000-layer trace holds a few.
inline constexpr std::size_t kMaxJsonValues = std::size_t{1} << 24;
/// Most entries the plan search's tables start with (a frontier per pair of
/// strategies of every edge; about 100 bytes each as they grow): about 3.4 GB
/// (red team: 300,000 layers on 65536 GPUs with --allow-replication asked
/// 8 GB and more, and failed with std::bad_alloc).
inline constexpr double kMaxPlanTableEntries = double{1 << 25};
/// Largest iteration count accepted (the per-iteration timings are kept).
inline constexpr int kMaxIterations = 1'000'000;
/// Largest seed accepted: 2^53, so that every seed is exact as a JSON number.
inline constexpr std::int64_t kMaxSeed = std::int64_t{1} << 53;
/// Largest fixed overhead per message accepted, in seconds.
inline constexpr double kMaxMessageOverhead = 1.0;
/// Slowest per-byte rate accepted (a link's beta, a reduction's gamma, a
/// server's summation): a kilobyte per second.
inline constexpr double kMaxSecondsPerByte = 1e-3;
/// Largest host overhead per iteration accepted (optimizer step, data
/// loading, Python), in seconds: one step's worth (kMaxStepSeconds).
inline constexpr double kMaxIterationOverhead = kMaxStepSeconds;
/// Farthest a measured one-GPU figure may put a roofline trace from its own
/// time (`zoo trace --throughput` / `--step-time`): a million times faster
/// or slower is a figure of another batch, model or unit, not a GPU.
inline constexpr double kMaxMeasuredScale = 1e6;
/// Fastest input pipeline accepted (samples one node reads, decodes and
/// augments per second); 0 stands for one that never binds.
inline constexpr double kMaxInputSamplesPerS = 1e12;
/// A trace's optimizer_bytes_per_s, the memory bandwidth its optimizer step
/// streams the model states at: a kilobyte per second (1 / kMaxSecondsPerByte)
/// to a petabyte per second.
inline constexpr double kMinMemoryBytesPerS = 1.0 / kMaxSecondsPerByte;
inline constexpr double kMaxMemoryBytesPerS = 1e15;

/// Measured values (calibrate, validate): times in [1 ns, a year],
/// throughputs in [1e-9, 1e12] samples per second. A relative error to a
/// value of 1e-300 or 1e300 would print as inf or 5e302 %.
inline constexpr double kMinMeasuredSeconds = 1e-9;
inline constexpr double kMinMeasuredRate = 1e-9;
inline constexpr double kMaxMeasuredRate = 1e12;

/// Largest overlap slowdown (compute_slowdown, comm_slowdown): an activity
/// runs at kFullRate / (1 + slowdown), a rate of 2^16 steps, so a slowdown
/// past about 65535 would be silently cut there; 1000 keeps it within 2%.
inline constexpr double kMaxSlowdown = 1000.0;

/// `curve_scale`, the factor on every time of the measured curves, lies in
/// [kMinCurveScale, kMaxCurveScale]: a curve at most a thousand times off;
/// each scaled time must still be a step (<= kMaxStepSeconds).
inline constexpr double kMinCurveScale = 1e-3;
inline constexpr double kMaxCurveScale = 1000.0;

/// Relative speeds (speed_classes, stragglers) lie in [kMinSpeed,
/// kMaxSpeed]: a GPU at most a thousand times slower or faster than the one
/// traced. A slower one would stretch a traced time past what SimTime holds
/// (a time / 1e-14 overflows) and is no longer a data-parallel peer.
inline constexpr double kMinSpeed = 1e-3;
inline constexpr double kMaxSpeed = 1000.0;

/// Bytes per gradient element a trace may give: up to fp64's 8, which the
/// model-state sums take (red team: traces took 16, which every run refused).
inline constexpr int kMaxDtypeBytes = 8;

/// Longest name or other short text a file gives (a model, a layer, a
/// schedule, a source id, a file name): 4 KiB, a path's most on Linux (red
/// team: a 10 MB model name made `run -f csv` write 100 MB). Descriptions and
/// a source's citation: kMaxProseBytes.
inline constexpr std::size_t kMaxNameBytes = 4096;
inline constexpr std::size_t kMaxProseBytes = 65536;

/// `time` run at relative `speed`: time / speed, rounded. Throws ConfigError
/// naming both when the result is past the longest compute of an iteration
/// (kMaxComputeSeconds) or `speed` is not a positive finite number.
SimTime scaled_ns(SimTime time, double speed);

/// `time` divided by `speed`, rounded to the nanosecond; speed 1 returns it unchanged.
inline SimTime scaled_time(SimTime time, double speed) { return speed == 1.0 ? time : scaled_ns(time, speed); }

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
