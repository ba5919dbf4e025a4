#include "least_squares.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mgsim::profile {
namespace {

double cost_of(const std::vector<Row2>& rows, double c1, double c2) {
  double cost = 0.0;
  for (const Row2& r : rows) {
    const double e = (c1 * r.x1 + c2 * r.x2 - r.y) / r.y;
    cost += e * e;
  }
  return cost;
}

/// Weighted sums with each column scaled to unit size, so that bytes (1e9)
/// and counts (1) do not cost precision in the normal equations.
struct Sums {
  double s1 = 1.0, s2 = 1.0;                 ///< column scales
  double a = 0, b = 0, c = 0, d = 0, e = 0;  ///< sum w x1^2, w x1 x2, w x2^2, w x1 y, w x2 y (scaled)
};

Sums sums_of(const std::vector<Row2>& rows) {
  Sums s;
  double m1 = 0, m2 = 0;
  for (const Row2& r : rows) {
    m1 = std::max(m1, std::abs(r.x1));
    m2 = std::max(m2, std::abs(r.x2));
  }
  s.s1 = m1 > 0 ? m1 : 1.0;
  s.s2 = m2 > 0 ? m2 : 1.0;
  for (const Row2& r : rows) {
    const double w = 1.0 / (r.y * r.y);
    const double x1 = r.x1 / s.s1, x2 = r.x2 / s.s2;
    s.a += w * x1 * x1;
    s.b += w * x1 * x2;
    s.c += w * x2 * x2;
    s.d += w * x1 * r.y;
    s.e += w * x2 * r.y;
  }
  return s;
}

}  // namespace

Solution2 solve_relative(const std::vector<Row2>& rows, bool non_negative) {
  const Sums s = sums_of(rows);
  std::vector<Solution2> candidates;
  const double det = s.a * s.c - s.b * s.b;
  if (std::abs(det) > 1e-12 * std::max(1.0, s.a * s.c)) {
    candidates.push_back({(s.c * s.d - s.b * s.e) / det / s.s1, (s.a * s.e - s.b * s.d) / det / s.s2, 0});
  }
  if (s.a > 0) candidates.push_back({s.d / s.a / s.s1, 0.0, 0});  // x2 term dropped
  if (s.c > 0) candidates.push_back({0.0, s.e / s.c / s.s2, 0});  // x1 term dropped
  candidates.push_back({0.0, 0.0, 0});
  Solution2 best{0, 0, std::numeric_limits<double>::infinity()};
  for (Solution2& candidate : candidates) {
    if (non_negative && (candidate.c1 < 0 || candidate.c2 < 0)) continue;
    candidate.cost = cost_of(rows, candidate.c1, candidate.c2);
    if (candidate.cost < best.cost) best = candidate;
  }
  return best;
}

}  // namespace mgsim::profile
