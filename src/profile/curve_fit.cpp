#include "mgsim/profile/curve_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "least_squares.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/error.hpp"

namespace mgsim::profile {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::vector<Row2> line_rows(std::span<const SizeSample> samples) {
  std::vector<Row2> rows;
  for (const SizeSample& s : samples) rows.push_back({1.0, s.bytes, s.seconds});
  return rows;
}

/// Errors of a + b M over samples.
void measure(LineFit& fit, std::span<const SizeSample> samples) {
  double sum = 0.0;
  fit.max_rel_error = 0.0;
  for (const SizeSample& s : samples) {
    const double e = std::abs((fit.a_s + fit.b_s_per_byte * s.bytes) / s.seconds - 1.0);
    sum += e * e;
    fit.max_rel_error = std::max(fit.max_rel_error, e);
  }
  fit.rms_rel_error = samples.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(samples.size()));
}

/// Most sizes one fit takes: its exact split is cubic in them (3,000 took 35 s, red team); a message-size
/// sweep of nccl-tests or OSU has about 30.
constexpr std::size_t kMaxFitSizes = 1024;

void validate(const std::vector<SizeSample>& samples) {
  if (samples.size() < 2) throw CurveError(fmt::format("a fit needs at least 2 sizes, got {}", samples.size()));
  if (samples.size() > kMaxFitSizes) {
    throw CurveError(fmt::format("a fit takes at most {} sizes (its time grows with their cube), got {}", kMaxFitSizes,
                                 samples.size()));
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!(samples[i].seconds > 0) || !(samples[i].bytes >= 0)) {
      throw CurveError(fmt::format("size {} has latency {}: expected > 0", samples[i].bytes, samples[i].seconds));
    }
    if (i > 0 && samples[i].bytes == samples[i - 1].bytes) {
      throw CurveError(fmt::format("size {} is given twice", samples[i].bytes));
    }
  }
}

/// Splits of the sorted samples into ranges, by an exact dynamic program
/// over the split points: the fewest ranges that each fit their points within
/// a tolerance, and among those the least total squared relative error.
class Segmenter {
 public:
  Segmenter(const std::vector<SizeSample>& samples, int min_points)
      : n_(samples.size()), min_(static_cast<std::size_t>(std::max(1, min_points))), cost_(n_ * n_, kInfinity) {
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t j = i + min_ - 1; j < n_; ++j) {
        const std::span<const SizeSample> part(samples.data() + i, j - i + 1);
        cost_[i * n_ + j] = solve_relative(line_rows(part), false).cost;
      }
    }
  }

  /// [first, last] of each range, or nothing when more than `max_ranges` are needed.
  std::optional<std::vector<std::pair<std::size_t, std::size_t>>> fewest_within(double tolerance,
                                                                                int max_ranges) const {
    struct Best {
      int ranges = std::numeric_limits<int>::max();
      double cost = kInfinity;
      std::size_t first = 0;
    };
    std::vector<Best> best(n_);
    for (std::size_t j = 0; j < n_; ++j) {
      for (std::size_t i = 0; i <= j; ++i) {
        const double c = cost_[i * n_ + j];
        if (c == kInfinity || std::sqrt(c / static_cast<double>(j - i + 1)) > tolerance) continue;
        const Best before = i == 0 ? Best{0, 0.0, 0} : best[i - 1];
        if (before.ranges == std::numeric_limits<int>::max()) continue;
        const Best candidate{before.ranges + 1, before.cost + c, i};
        if (candidate.ranges < best[j].ranges ||
            (candidate.ranges == best[j].ranges && candidate.cost < best[j].cost)) {
          best[j] = candidate;
        }
      }
    }
    if (best[n_ - 1].ranges > max_ranges) return std::nullopt;
    std::vector<std::pair<std::size_t, std::size_t>> parts;
    for (std::size_t last = n_ - 1;;) {
      const std::size_t first = best[last].first;
      parts.emplace_back(first, last);
      if (first == 0) break;
      last = first - 1;
    }
    std::reverse(parts.begin(), parts.end());
    return parts;
  }

 private:
  std::size_t n_, min_;
  std::vector<double> cost_;
};

}  // namespace

LineFit fit_line(std::span<const SizeSample> samples) {
  const Solution2 s = solve_relative(line_rows(samples), false);
  LineFit fit{s.c1, s.c2, 0, 0};
  measure(fit, samples);
  return fit;
}

PiecewiseFit fit_piecewise(std::vector<SizeSample> samples, const PiecewiseOptions& options) {
  std::sort(samples.begin(), samples.end(), [](const SizeSample& a, const SizeSample& b) { return a.bytes < b.bytes; });
  validate(samples);
  const std::size_t n = samples.size();
  const int min_points = std::clamp(options.min_points, 2, static_cast<int>(n));
  const int most = std::max(1, std::min(options.max_ranges, static_cast<int>(n) / min_points));
  const Segmenter segmenter(samples, min_points);
  double tolerance = std::max(options.tolerance, 1e-6);
  std::optional<std::vector<std::pair<std::size_t, std::size_t>>> split;
  while (!(split = segmenter.fewest_within(tolerance, most))) tolerance *= 2;
  PiecewiseFit fit;
  fit.samples = samples;
  fit.tolerance = tolerance;
  double sum = 0.0;
  for (const auto& [first, last] : *split) {
    const std::span<const SizeSample> part(samples.data() + first, last - first + 1);
    SizeRange range{first, last, samples[first].bytes, samples[last].bytes, fit_line(part)};
    sum += range.fit.rms_rel_error * range.fit.rms_rel_error * static_cast<double>(part.size());
    fit.max_rel_error = std::max(fit.max_rel_error, range.fit.max_rel_error);
    fit.ranges.push_back(range);
  }
  fit.rms_rel_error = std::sqrt(sum / static_cast<double>(n));
  return fit;
}

double evaluate(const PiecewiseFit& fit, double bytes) {
  const SizeRange* range = &fit.ranges.front();
  for (const SizeRange& r : fit.ranges) {
    if (r.from_bytes <= bytes) range = &r;
  }
  return range->fit.a_s + range->fit.b_s_per_byte * bytes;
}

AlphaBetaFit fit_alpha_beta(std::span<const CurvePoint> points, AlphaBetaModel model) {
  if (points.empty()) throw CurveError("an alpha-beta fit needs at least one point");
  std::vector<Row2> rows;
  for (const CurvePoint& p : points) {
    const double gpus = p.gpus, bytes = static_cast<double>(p.bytes);
    if (model == AlphaBetaModel::ring) {
      rows.push_back({2 * (gpus - 1), 2 * (gpus - 1) / gpus * bytes, p.seconds});
    } else {
      const double depth = ceil_log2(p.gpus);
      rows.push_back({2 * depth, 2 * depth * bytes, p.seconds});
    }
  }
  const Solution2 s = solve_relative(rows, true);
  AlphaBetaFit fit{s.c1, s.c2, 0, 0};
  double sum = 0.0;
  for (const Row2& r : rows) {
    const double e = std::abs((s.c1 * r.x1 + s.c2 * r.x2) / r.y - 1.0);
    sum += e * e;
    fit.max_rel_error = std::max(fit.max_rel_error, e);
  }
  fit.rms_rel_error = std::sqrt(sum / static_cast<double>(rows.size()));
  return fit;
}

}  // namespace mgsim::profile
