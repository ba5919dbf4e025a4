#pragma once
// `mgsim fit` beyond parsing and printing (docs/profiling.md): every fit of a
// measured curve as one JSON document, per GPU count a + b*M per size range
// with breakpoints found from the data and the bus bandwidth of each range,
// one line for all sizes, and for all-reduce curves the ring and tree
// alpha-beta models and over all GPU counts the ring, tree and `nccl`
// models; and the text report printed from it, with ready-to-paste
// "network" objects for the models that fit (rms error at most
// kPasteableRmsError) and a warning for the others.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mgsim/collective.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim {

struct CurveFitSettings {
  int max_ranges = 6;       ///< most size ranges per GPU count
  int min_points = 3;       ///< fewest sizes in one range
  double tolerance = 0.05;  ///< rms relative error each range must meet (more ranges only while one misses it)
  int gpus_per_node = 1;    ///< node size for the nccl model's calibration
};

/// A model fitted with a larger rms relative error is reported with a
/// warning, never as a config to paste.
inline constexpr double kPasteableRmsError = 0.25;

struct CurveFitReport {
  nlohmann::ordered_json result;    ///< what `mgsim fit --format json` prints
  std::vector<CurveSample> fitted;  ///< the piecewise fit at the measured sizes (`--curve-out`)
};

/// Fits the curve read from `source` (named in the result); throws CurveError.
CurveFitReport fit_curve(const std::string& source, const CurveFile& curve, const CurveFitSettings& settings);

/// The text report of a fit_curve() result.
std::string format_fit_text(const nlohmann::ordered_json& result);

/// Per GPU count both have: the in-situ observations of `trace_file` (their
/// total, and their a + b*M line) against what the micro-benchmark curve
/// `bench` prices the same messages at. Throws TraceError or CurveError.
nlohmann::ordered_json compare_insitu(const std::vector<CurvePoint>& bench, const std::filesystem::path& trace_file);

/// The text table of a compare_insitu() result.
std::string format_insitu_text(const nlohmann::ordered_json& comparison);

}  // namespace mgsim
