#pragma once
// Two-parameter least squares on relative error, shared by the curve fits:
// minimise sum ((c1 x1 + c2 x2 - y) / y)^2, optionally with c1, c2 >= 0
// (exact for two unknowns: the optimum lies on one face of the orthant).

#include <vector>

namespace mgsim::profile {

struct Row2 {
  double x1 = 0.0;
  double x2 = 0.0;
  double y = 0.0;  ///< > 0
};

struct Solution2 {
  double c1 = 0.0;
  double c2 = 0.0;
  double cost = 0.0;  ///< sum of squared relative residuals
};

Solution2 solve_relative(const std::vector<Row2>& rows, bool non_negative);

}  // namespace mgsim::profile
