#include "mgsim/interpolation.hpp"

#include <algorithm>

namespace mgsim {

double interpolate(std::span<const InterpolationPoint> points, double x) {
  if (x <= points.front().x) return points.front().y;
  if (x >= points.back().x) return points.back().y;
  const auto upper = std::upper_bound(points.begin(), points.end(), x,
                                      [](double v, const InterpolationPoint& p) { return v < p.x; });
  const InterpolationPoint& hi = *upper;
  const InterpolationPoint& lo = *(upper - 1);
  return lo.y + (x - lo.x) / (hi.x - lo.x) * (hi.y - lo.y);
}

}  // namespace mgsim
