#pragma once
// Calibrating the `nccl` collective (mgsim/nccl_model.hpp) to a measured
// curve: the bus bandwidth and the extra per-hop latency that fit the
// measured all-reduce times best on relative error (what `mgsim fit` prints
// as the "nccl" network). Method: docs/profiling.md.

#include <span>

#include "mgsim/collective.hpp"
#include "mgsim/nccl_model.hpp"

namespace mgsim::profile {

struct NcclCalibration {
  double beta_s_per_byte = 0.0;   ///< 1 / bus bandwidth, used for both levels
  double extra_latency_us = 0.0;  ///< added per hop, both levels (>= 0)
  double rms_rel_error = 0.0;
  double max_rel_error = 0.0;
};

/// Fits the bus bandwidth and the extra per-hop latency of `base` (its
/// tables and gpus_per_node kept) to measured points, on relative error.
/// Throws CurveError on an empty curve.
NcclCalibration calibrate_nccl(std::span<const CurvePoint> points, const NcclParams& base);

}  // namespace mgsim::profile
