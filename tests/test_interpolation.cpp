// The one piecewise-linear interpolation, on points small enough to check by
// hand: (0, 1), (2, 5), (4, 5), (8, 1).

#include <catch2/catch.hpp>

#include <vector>

#include "mgsim/interpolation.hpp"

using namespace mgsim;

namespace {

const std::vector<InterpolationPoint> kPoints{{0, 1}, {2, 5}, {4, 5}, {8, 1}};

}  // namespace

TEST_CASE("interpolation is linear between neighbouring points") {
  // 1 + (1 - 0) / (2 - 0) * (5 - 1) = 3; on the flat piece 5; 5 + (6 - 4) / 4 * (1 - 5) = 3.
  CHECK(interpolate(kPoints, 1.0) == 3.0);
  CHECK(interpolate(kPoints, 3.0) == 5.0);
  CHECK(interpolate(kPoints, 6.0) == 3.0);
  // 5 + (7 - 4) / 4 * (1 - 5) = 2
  CHECK(interpolate(kPoints, 7.0) == 2.0);
}

TEST_CASE("interpolation passes through every point") {
  for (const InterpolationPoint& p : kPoints) CHECK(interpolate(kPoints, p.x) == p.y);
}

TEST_CASE("interpolation holds the end values beyond the points") {
  CHECK(interpolate(kPoints, -10.0) == 1.0);
  CHECK(interpolate(kPoints, 100.0) == 1.0);
  const std::vector<InterpolationPoint> one{{3, 7}};
  CHECK(interpolate(one, 0.0) == 7.0);
  CHECK(interpolate(one, 3.0) == 7.0);
  CHECK(interpolate(one, 9.0) == 7.0);
}

TEST_CASE("interpolation at a repeated x takes the later point's side") {
  // A step at x = 2: (0, 0), (2, 0), (2, 4), (4, 8). Just after 2 the line
  // from (2, 4) to (4, 8): 4 + (3 - 2) / 2 * 4 = 6; before it 0.
  const std::vector<InterpolationPoint> step{{0, 0}, {2, 0}, {2, 4}, {4, 8}};
  CHECK(interpolate(step, 1.0) == 0.0);
  CHECK(interpolate(step, 3.0) == 6.0);
}
