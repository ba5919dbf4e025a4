#pragma once
// Trace and curve files (docs/trace-format.md): the loaders, which validate
// every key and throw TraceError / CurveError naming the file and the key,
// and the one writer of each format, whose text the loader reads back
// exactly. Every producer (the profiler, the importers, `mgsim fit`, the
// model zoo) writes through these.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mgsim/collective.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/trace.hpp"

namespace mgsim {

/// Largest element count accepted for one tensor, and most layers per trace:
/// beyond these a file is more likely corrupt than real.
inline constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 36;
inline constexpr std::int64_t kMaxLayers = 1'000'000;
inline constexpr std::int64_t kMaxTraceBytes = std::int64_t{1} << 50;
/// Largest message in a curve file: a whole tensor of the largest element type.
inline constexpr std::int64_t kMaxMessageBytes = kMaxTensorElements * 16;

Trace load_trace(const std::filesystem::path& file);
/// The trace whose file text is `text`, checked as load_trace checks a file named `source`.
Trace parse_trace(std::string text, const std::string& source);

/// A curve file's operation and points.
struct CurveFile {
  CurveCollective collective = CurveCollective::allreduce;
  std::vector<CurvePoint> points;
  nlohmann::json provenance;  ///< the curve file's, as written (null for a trace's in-situ observations)
};

/// The in-situ all-reduce observations of `trace` (read from `file`) as a
/// curve: the mean of each (gpus, bytes), sizes ascending; refused (naming
/// the file) where the trace has none.
std::vector<CurvePoint> insitu_curve(const Trace& trace, const std::filesystem::path& file);

/// Points of a curve file of any collective, in file order; or, for a trace
/// file, its in-situ all-reduce observations as a curve: the mean of each
/// (gpus, bytes), sizes ascending.
CurveFile load_curve_file(const std::filesystem::path& file);

/// load_curve_file for an all-reduce curve; another collective is refused
/// (CurveError naming the file and its collective).
std::vector<CurvePoint> load_curve(const std::filesystem::path& file);

/// Points of a top-k selection-time curve file, in file order.
std::vector<SelectionPoint> load_selection_curve(const std::filesystem::path& file);

/// A trace file, grad_ready_s and insitu_allreduce included, with `provenance` (an object with
/// "kind", kept in its key order) saying where the numbers came from.
/// Throws OutputError when provenance has no "kind", and the reader's error
/// (naming `what` and the key; by default "the file to write", with the file
/// the provenance says it came from) when load_trace would refuse the text:
/// no writer makes a trace that mgsim cannot read back.
std::string format_trace_json(const Trace& trace, const nlohmann::ordered_json& provenance, std::string what = {});

/// One measured collective latency with its spread over repetitions.
struct CurveSample {
  int gpus = 0;
  std::int64_t bytes = 0;
  double seconds = 0.0;
  std::optional<double> spread_s;  ///< e.g. max - min of the repetitions
};

/// A curve file of `collective`, points sorted by (gpus, bytes).
/// Throws OutputError when provenance has no "kind", and the reader's error
/// when load_curve_file would refuse the text.
std::string format_curve_json(std::vector<CurveSample> points, const nlohmann::ordered_json& provenance,
                              CurveCollective collective = CurveCollective::allreduce);

}  // namespace mgsim
