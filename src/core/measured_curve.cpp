#include "measured_curve.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgsim/counted.hpp"
#include "mgsim/error.hpp"
#include "mgsim/interpolation.hpp"

namespace mgsim {
namespace {

/// A measured all-reduce: x is the size in bytes, y the seconds.
using Sample = InterpolationPoint;

/// How the curve grows beyond its last size: the least-squares slope of the
/// sizes at or above half the largest, the window widened to the two largest
/// sizes where that half holds the largest alone (a curve of message sizes
/// seen in training, whose largest is far from the one below). Where no
/// positive slope comes out (one size in all, or a falling tail) the largest
/// size's seconds per byte: never flat, a larger message never costs less.
double tail_slope(const std::vector<Sample>& samples) {
  const Sample& last = samples.back();
  double from = last.x / 2;
  if (samples.size() >= 2) from = std::min(from, samples[samples.size() - 2].x);
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Sample& s : samples) {
    if (s.x < from) continue;
    n += 1;
    sx += s.x;
    sy += s.y;
    sxx += s.x * s.x;
    sxy += s.x * s.y;
  }
  const double denominator = n * sxx - sx * sx;
  if (n >= 2 && denominator > 0 && n * sxy - sx * sy > 0) return (n * sxy - sx * sy) / denominator;
  return last.y / last.x;
}

/// Piecewise-linear interpolation between measured sizes; below the smallest
/// size the smallest size's latency, above the largest a straight line from
/// the largest size's mean with the slope of `tail_slope`. One table per operation.
class Table {
 public:
  /// `what`: "" for all-reduce, "all-gather " for the other table (in messages).
  Table(const std::vector<CurvePoint>& points, std::string what) : what_(std::move(what)) {
    for (const CurvePoint& point : points) {
      samples_[point.gpus].push_back({static_cast<double>(point.bytes), point.seconds});
    }
    for (auto& [gpus, samples] : samples_) {
      std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.x < b.x; });
      slopes_[gpus] = tail_slope(samples);
    }
  }

  double seconds(double bytes, int gpus, const std::string& source) const {
    const auto found = samples_.find(gpus);
    if (found == samples_.end()) throw_missing(gpus, source);
    const std::vector<Sample>& samples = found->second;
    if (bytes >= samples.back().x) return samples.back().y + (bytes - samples.back().x) * slopes_.at(gpus);
    return interpolate(samples, bytes);
  }

 private:
  [[noreturn]] void throw_missing(int gpus, const std::string& source) const {
    std::vector<int> known;
    for (const auto& entry : samples_) known.push_back(entry.first);
    if (known.empty()) {
      throw ConfigError(fmt::format("{}: no measured {}curve among \"curves\"", source, what_));
    }
    throw CurveError(fmt::format("{}: measured {}curve has no data for {} (it has {}); it is never "
                                 "extrapolated to other GPU counts",
                                 source, what_, counted(gpus, "GPU"), fmt::join(known, ", ")));
  }

  std::string what_;
  std::map<int, std::vector<Sample>> samples_;
  std::map<int, double> slopes_;
};

class MeasuredCurve : public Collective {
 public:
  explicit MeasuredCurve(const CollectiveSettings& settings)
      : source_(settings.curve_source),
        allreduce_(settings.curve, ""),
        allgather_(settings.allgather_curve, "all-gather ") {}

  double allreduce_seconds(double bytes, int gpus) const override { return allreduce_.seconds(bytes, gpus, source_); }
  double allgather_seconds(double bytes_per_rank, int gpus) const override {
    return allgather_.seconds(bytes_per_rank, gpus, source_);
  }

 private:
  std::string source_;
  Table allreduce_, allgather_;
};

}  // namespace

std::unique_ptr<Collective> make_measured(const CollectiveSettings& settings) {
  if (settings.curve.empty() && settings.allgather_curve.empty()) {
    throw ConfigError("collective 'measured' needs measured points: give \"curves\" in the config");
  }
  return std::make_unique<MeasuredCurve>(settings);
}

}  // namespace mgsim
