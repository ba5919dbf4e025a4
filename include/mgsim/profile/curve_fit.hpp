#pragma once
// Fitting measured all-reduce curves (docs/profiling.md, "mgsim fit").
//  - fit_piecewise: T(M) = a + b M per size range. For every number of
//    ranges an exact dynamic program finds the best split of the sorted
//    sizes; the fewest ranges that each fit their own points within a
//    tolerance (rms relative error) win, so protocol switches come out as
//    breakpoints without being told where they are.
//  - fit_alpha_beta: alpha and beta of the ring or binary-tree model
//    (docs/collectives.md, gamma = 0) jointly over every GPU count of a curve.
// All fits minimise squared relative error: latencies span orders of
// magnitude, and a 1 us error matters at 4 B but not at 1 GiB.

#include <cstddef>
#include <span>
#include <vector>

#include "mgsim/collective.hpp"

namespace mgsim::profile {

struct SizeSample {
  double bytes = 0.0;
  double seconds = 0.0;
};

/// T(M) = a + b M and how well it fits its points.
struct LineFit {
  double a_s = 0.0;
  double b_s_per_byte = 0.0;
  double rms_rel_error = 0.0;
  double max_rel_error = 0.0;
};

/// One size range of a piecewise fit: sorted samples [first, last].
struct SizeRange {
  std::size_t first = 0;
  std::size_t last = 0;
  double from_bytes = 0.0;
  double to_bytes = 0.0;
  LineFit fit;
};

struct PiecewiseOptions {
  int max_ranges = 6;       ///< most ranges; when they cannot meet the tolerance, it is doubled until they do
  int min_points = 3;       ///< fewest points in one range
  double tolerance = 0.05;  ///< rms relative error every range must meet; more ranges only while one misses
};

struct PiecewiseFit {
  std::vector<SizeSample> samples;  ///< sorted by size
  std::vector<SizeRange> ranges;    ///< in size order, covering every sample
  double tolerance = 0.0;           ///< the tolerance the ranges meet (options.tolerance, or relaxed)
  double rms_rel_error = 0.0;
  double max_rel_error = 0.0;
};

/// Weighted least squares of a + b M on relative error (a, b unconstrained).
LineFit fit_line(std::span<const SizeSample> samples);

/// Piecewise fit of one GPU count's samples (at least 2). Throws CurveError
/// on fewer samples, a size given twice or a non-positive latency.
PiecewiseFit fit_piecewise(std::vector<SizeSample> samples, const PiecewiseOptions& options = {});

/// Evaluates a piecewise fit: the range holding `bytes`, or the nearest one.
double evaluate(const PiecewiseFit& fit, double bytes);

enum class AlphaBetaModel { ring, tree };

struct AlphaBetaFit {
  double alpha_s = 0.0;          ///< >= 0
  double beta_s_per_byte = 0.0;  ///< >= 0
  double rms_rel_error = 0.0;
  double max_rel_error = 0.0;
};

/// Alpha and beta (gamma 0) of the ring or binary-tree all-reduce model,
/// one pair for every GPU count in `points`, both constrained to be >= 0.
AlphaBetaFit fit_alpha_beta(std::span<const CurvePoint> points, AlphaBetaModel model);

}  // namespace mgsim::profile
