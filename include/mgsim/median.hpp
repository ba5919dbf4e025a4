#pragma once
// The median of measured or predicted values: one definition for the
// profiler's repetitions, calibrate's held-out errors and validate's tables.

#include <vector>

namespace mgsim {

/// Median of the values (the mean of the two middle ones for an even count; 0 for none).
double median(std::vector<double> values);

}  // namespace mgsim
