#pragma once
// Piecewise-linear interpolation through measured points: the one rule every
// model built from measurements uses between its points (measured all-reduce
// curves, measured top-k selection curves). Beyond the first and the last
// point each model extrapolates in its own documented way; this helper holds
// the end values there.

#include <span>

namespace mgsim {

/// One measured point: `y` at `x`.
struct InterpolationPoint {
  double x = 0.0;
  double y = 0.0;
};

/// y at `x` on the polyline through `points` (at least one, sorted by x;
/// equal x allowed): linear between neighbours, the first point's y at or
/// below the first x, the last point's y at or above the last x.
double interpolate(std::span<const InterpolationPoint> points, double x);

}  // namespace mgsim
