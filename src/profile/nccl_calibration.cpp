// Calibrating the `nccl` model on a measured curve: the bus bandwidth (as
// beta = 1 / bandwidth) and an extra latency per hop, both levels alike, are
// chosen to minimise the squared relative error. The model is a minimum over
// (algorithm, protocol), so the cost is only piecewise smooth: a coarse grid
// (beta over 10 MB/s .. 10 TB/s, extra latency 0 .. 3 ms) finds the basin and
// a compass search refines it, its steps doubled after a move and halved
// after none. Deterministic.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "mgsim/error.hpp"
#include "mgsim/profile/nccl_calibration.hpp"

namespace mgsim::profile {
namespace {

struct Candidate {
  double log_beta = 0.0;  ///< log10 of seconds per byte
  double extra_us = 0.0;  ///< >= 0
  double cost = std::numeric_limits<double>::infinity();
};

NcclParams with(const NcclParams& base, double log_beta, double extra_us) {
  NcclParams p = base;
  p.intra_beta_s_per_byte = p.inter_beta_s_per_byte = std::pow(10.0, log_beta);
  p.intra_extra_latency_us = p.inter_extra_latency_us = extra_us;
  return p;
}

double cost_of(std::span<const CurvePoint> points, const NcclParams& base, double log_beta, double extra_us) {
  const NcclModel model(with(base, log_beta, extra_us));
  double cost = 0.0;
  for (const CurvePoint& point : points) {
    const double e = model.allreduce_seconds(static_cast<double>(point.bytes), point.gpus) / point.seconds - 1.0;
    cost += e * e;
  }
  return cost;
}

/// The grid only finds the basin: it prices at most this many of the points,
/// evenly spread (a curve of several GPU counts x hundreds of sizes priced
/// 2,867 times took 0.4 s, 5 s under ASan); the refinement prices them all.
constexpr std::size_t kGridPoints = 128;

Candidate grid_search(std::span<const CurvePoint> all, const NcclParams& base) {
  std::vector<CurvePoint> points;
  const std::size_t stride = (all.size() + kGridPoints - 1) / kGridPoints;
  for (std::size_t i = 0; i < all.size(); i += stride) points.push_back(all[i]);
  Candidate best;
  for (int i = 0; i <= 60; ++i) {
    const double log_beta = -13.0 + 0.1 * i;
    for (int j = -1; j <= 45; ++j) {
      const double extra = j < 0 ? 0.0 : std::pow(10.0, -1.0 + 0.1 * j);
      const double cost = cost_of(points, base, log_beta, extra);
      if (cost < best.cost) best = {log_beta, extra, cost};
    }
  }
  return best;
}

/// The refinement stays within 1 PB/s .. 10 B/s and an hour of latency per hop.
constexpr double kLeastLogBeta = -15.0;
constexpr double kMostLogBeta = -1.0;
constexpr double kMostExtraUs = 3.6e9;

Candidate refine(std::span<const CurvePoint> points, const NcclParams& base, Candidate at) {
  double step_beta = 0.05;
  double step_extra = std::max(0.05, at.extra_us * 0.1);
  while (step_beta > 1e-9 || step_extra > 1e-7) {
    bool moved = false;
    const double tries[4][2] = {{step_beta, 0}, {-step_beta, 0}, {0, step_extra}, {0, -step_extra}};
    for (const auto& t : tries) {
      const double log_beta = std::clamp(at.log_beta + t[0], kLeastLogBeta, kMostLogBeta);
      const double extra = std::clamp(at.extra_us + t[1], 0.0, kMostExtraUs);
      const double cost = cost_of(points, base, log_beta, extra);
      if (cost < at.cost) {
        at = {log_beta, extra, cost};
        moved = true;
      }
    }
    // A move doubles the steps (a basin far off the grid, such as seconds of
    // latency, is reached in a few dozen moves, not millions); none halves them.
    const double factor = moved ? 2.0 : 0.5;
    step_beta *= factor;
    step_extra *= factor;
  }
  return at;
}

}  // namespace

NcclCalibration calibrate_nccl(std::span<const CurvePoint> points, const NcclParams& base) {
  if (points.empty()) throw CurveError("calibrating the nccl model needs at least one measured point");
  Candidate start = grid_search(points, base);
  start.cost = cost_of(points, base, start.log_beta, start.extra_us);  // the grid's was over some of the points
  const Candidate best = refine(points, base, start);
  const NcclModel model(with(base, best.log_beta, best.extra_us));
  NcclCalibration result{std::pow(10.0, best.log_beta), best.extra_us, 0, 0};
  double sum = 0.0;
  for (const CurvePoint& point : points) {
    const double e =
        std::abs(model.allreduce_seconds(static_cast<double>(point.bytes), point.gpus) / point.seconds - 1);
    sum += e * e;
    result.max_rel_error = std::max(result.max_rel_error, e);
  }
  result.rms_rel_error = std::sqrt(sum / static_cast<double>(points.size()));
  return result;
}

}  // namespace mgsim::profile
