#pragma once
// The signed relative error of a prediction: one definition for calibrate's
// residuals and held-out errors, validate's rows and the zoo's calibration.

namespace mgsim {

/// (predicted - measured) / measured; `measured` is positive.
inline double relative_error(double predicted, double measured) { return (predicted - measured) / measured; }

}  // namespace mgsim
