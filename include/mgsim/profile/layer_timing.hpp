#pragma once
// From per-iteration gradient-ready times to a trace (docs/trace-format.md).
// summarize() takes the median over the measured iterations and keeps the
// spread; build_trace() groups parameters into layers, orders the layers as
// their gradients became ready (backward order, reversed to forward order)
// and turns the gaps between successive ready times into per-layer backward
// times. Shared by `mgsim profile layers` and the Kineto importer.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mgsim/profile/records.hpp"
#include "mgsim/trace.hpp"

namespace mgsim::profile {

/// One trainable parameter, in the framework's parameter order.
struct ParamInfo {
  std::string name;   ///< e.g. "layer1.0.conv1.weight"
  std::string layer;  ///< the owning layer (module), e.g. "layer1.0.conv1"
  std::int64_t elements = 0;
  int dtype_bytes = 4;  ///< bytes per gradient element
};

/// Medians (and max - min spreads) over the measured iterations, in ns
/// (a median of an even count may end in .5).
struct TimingSummary {
  int iterations = 0;
  double forward_ns = 0.0;
  double forward_spread_ns = 0.0;
  double backward_ns = 0.0;  ///< median of each iteration's last ready time
  double backward_spread_ns = 0.0;
  std::vector<double> ready_ns;         ///< per parameter; meaningful only where samples > 0
  std::vector<double> ready_spread_ns;  ///< per parameter
  std::vector<int> samples;             ///< per parameter: iterations that marked it
  /// Per parameter: when its layer's forward ended, from the forward's start;
  /// meaningful only where forward_samples > 0.
  std::vector<double> forward_done_ns;
  std::vector<int> forward_samples;  ///< per parameter: iterations that marked its layer's forward
};


TimingSummary summarize(const std::vector<IterationTiming>& iterations, int parameter_count);

struct BuiltTrace {
  Trace trace;
  std::vector<std::string> unused_parameters;  ///< never marked in any iteration: left out of the trace
  int clamped_tensors = 0;  ///< tensors ready before their layer's backward started (offset set to 0)
  nlohmann::json stats;     ///< iterations, spreads, notes: goes into the trace's provenance
};

/// Builds the trace. Layers hold their parameters in the order given;
/// a layer is ordered by its last ready time (ties: the layer whose first
/// parameter comes later in `params` is later in forward order). When every
/// layer's forward was marked, the trace has per-layer forward times
/// (version 2): layer l's forward ends at the latest forward end of its
/// parameters (at least the previous layer's), the first starts with the
/// forward and the last takes what remains of the measured forward, so they
/// sum to it. Throws TraceError when no parameter was ever marked.
BuiltTrace build_trace(const std::vector<ParamInfo>& params, const TimingSummary& summary, const std::string& model,
                       int batch_size);

}  // namespace mgsim::profile
