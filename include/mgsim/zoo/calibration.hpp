#pragma once
// Calibration: fit the roofline efficiencies of a GPU entry (and optionally a
// fixed per-operator overhead) to a measured trace of the same model, by
// least squares on the per-layer backward times, and report the per-layer and
// total error before and after. Layers are matched by name when every
// measured name is a gradient-producing layer of the model, else by position
// when the counts (and each layer's tensor count) agree; element counts may
// differ (B-Caffe pads them to multiples of 64), so they are not compared.

#include <string>
#include <vector>

#include "mgsim/trace.hpp"
#include "mgsim/zoo/gpus.hpp"
#include "mgsim/zoo/graph.hpp"
#include "mgsim/zoo/synthetic.hpp"

namespace mgsim::zoo {

/// Search range of the fitted efficiencies.
inline constexpr double kMinEfficiency = 1e-3;
inline constexpr double kMaxEfficiency = 1.0;

struct LayerMatch {
  std::vector<std::size_t> model_layer;  ///< per measured layer: index into gradient_layers(graph)
  std::string how;                       ///< "name" or "order"
};

/// Throws ConfigError explaining why the trace and the model do not match.
LayerMatch match_layers(const Trace& measured, const ModelGraph& graph);

struct LayerComparison {
  std::string name;  ///< measured layer name
  double measured_s = 0, before_s = 0, after_s = 0;
};

struct CalibrationResult {
  std::string model;
  std::string gpu;
  Precision precision = Precision::fp32;
  std::string matched_by;
  bool owner_only = false;
  RooflineSettings before, after;
  std::vector<LayerComparison> layers;
  double measured_total_s = 0, before_total_s = 0, after_total_s = 0;
  /// Root mean square of (predicted - measured) / measured over layers with measured time > 0.
  double rms_relative_before = 0, rms_relative_after = 0;
  bool at_bound = false;  ///< a fitted efficiency sits at kMinEfficiency or kMaxEfficiency
};

struct CalibrationOptions {
  bool fit_overhead = false;  ///< also fit RooflineSettings::op_overhead_s (else keep the start value)
  /// Compare a measured layer with its owning operator alone, not with the
  /// parameter-free operators that follow it: for profilers that time only
  /// the learnable layer's own backward call (Caffe, B-Caffe).
  bool owner_only = false;
};

/// Fits compute and memory efficiency (and the overhead if asked) starting
/// from `start`, whose backward factor is kept.
CalibrationResult calibrate(const Trace& measured, const ModelGraph& graph, const GpuSpec& gpu, Precision precision,
                            const RooflineSettings& start, const CalibrationOptions& options);

/// A readable report: settings before and after, per-layer table, totals.
std::string format_calibration(const CalibrationResult& result);

}  // namespace mgsim::zoo
