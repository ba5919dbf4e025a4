#pragma once
// Pareto frontiers of (time, memory per device) points, as the frontier
// search keeps them in its tables. A point is kept when no other point is at
// least as fast and at most as large. Each point carries an origin: a leaf
// (one operator took one strategy) or the sum of two earlier points, so the
// strategy behind any point can be read back. A FrontierArena owns the
// origins; frontiers are plain vectors that refer into it.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "mgsim/time.hpp"

namespace mgsim::plan {

/// No origin: a point that chose nothing (an edge with nothing to re-layout yet).
inline constexpr std::int32_t kNoOrigin = -1;

struct FrontierPoint {
  SimTime time = 0;
  std::int64_t memory = 0;
  std::int32_t origin = kNoOrigin;
};

/// Fastest first, memory strictly decreasing.
using Frontier = std::vector<FrontierPoint>;

class FrontierArena {
 public:
  /// `bound`: most points a frontier keeps (evenly spaced ones survive,
  /// the fastest and the smallest always); points above `memory_limit` are
  /// dropped; past `max_candidates` points offered in all (`offered_before`
  /// by earlier searches of one budget), take() throws ConfigError: the
  /// search's work, its time grows with them.
  explicit FrontierArena(std::size_t bound, std::int64_t memory_limit = std::numeric_limits<std::int64_t>::max(),
                         double max_candidates = std::numeric_limits<double>::infinity(), double offered_before = 0.0);

  /// A one-point frontier: operator `op` under strategy index `strategy`.
  Frontier leaf(SimTime time, std::int64_t memory, std::size_t op, std::size_t strategy);

  /// Offers every point of `a` as a candidate of the next frontier.
  void offer(const Frontier& a);
  /// Offers every pairwise sum of `a` and `b` (the Minkowski sum).
  void offer_sum(const Frontier& a, const Frontier& b);
  /// The Pareto frontier of the candidates offered since the last call, within the bound.
  Frontier take();

  /// The strategy index per operator recorded under a point's origin (entries it does not reach are left as they are).
  void read_back(std::int32_t origin, std::vector<std::size_t>& assignment) const;

  std::size_t bound() const { return bound_; }
  /// How many frontiers were cut down to the bound (0: no point was lost to it).
  std::size_t thinned() const { return thinned_; }
  std::size_t origins() const { return origins_.size(); }
  /// Points offered so far (sums and copies, `offered_before` included), the search's work.
  double offered() const { return offered_; }

 private:
  struct Origin {
    std::int32_t left = kNoOrigin, right = kNoOrigin;  ///< summed points, or leaf when both are kNoOrigin
    std::int32_t op = 0, strategy = 0;
  };
  struct Candidate {
    SimTime time;
    std::int64_t memory;
    std::int32_t left, right;
  };

  std::int32_t join(std::int32_t left, std::int32_t right);

  std::size_t bound_;
  std::int64_t memory_limit_;
  double max_candidates_;
  double offered_ = 0.0;
  std::size_t thinned_ = 0;
  std::vector<Origin> origins_;
  std::vector<Candidate> candidates_;
};

}  // namespace mgsim::plan
