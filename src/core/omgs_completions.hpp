#pragma once
// Bound (6) of the exact OMGS search (sparse_schedules.cpp): the best
// completion of a state, exact but for the exchanges, which are replaced by
// an affine lower bound in the number of groups and the elements they keep.

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "mgsim/plan.hpp"
#include "omgs_fronts.hpp"
#include "sparse_costs.hpp"

namespace mgsim {

/// From boundary k (the first k layers in groups), whatever groups follow a
/// state with selections S and the channel free at E, the iteration ends at
/// max(S + a, E + b): b is the sum of their exchanges, a the latest of the
/// end of the backward after all their selections and, for each group, the
/// time its exchange is ready (after the selections before it) plus the
/// exchanges from it on. With every exchange x bounded below by A + c w (w
/// the group's kept elements, A and c one line for all groups), a future of
/// r groups has b >= B(k, r) = r A + c W(k), W(k) the kept elements after
/// boundary k, so its a only depends on the groups' ends and r:
///
///   a(k, r) = least over the first group [k, h) of
///             max(lag(k, h) + B(k, r), selection(k, h) + a(h, r - 1)),
///   a(n, 0) = the end of the backward,
///
/// and no plan through the state ends before min over r of
/// max(S + a(k, r), E + B(k, r)). For an affine all-gather the line misses
/// each exchange by the rounding of its kept elements alone (a few ns at
/// 10 GbE), so the bound is within microseconds of the best completion.
class OmgsCompletions {
 public:
  /// The table for the layers of `costs` (their `ready` times; `floor_before`
  /// bounds the selections before each boundary from below; `monotone`: a
  /// group's selection never shrinks as it grows), keeping only the futures
  /// of plans that could end by `limit`; none when it would take more than
  /// `max_cells` cells.
  static std::optional<OmgsCompletions> build(const CommProblem& problem, const SparseCosts& costs,
                                              std::span<const SimTime> ready, std::span<const SimTime> floor_before,
                                              bool monotone, SimTime limit, std::size_t max_cells);

  /// No plan through a state at boundary k with selections `shift` and the
  /// channel free at `channel_free` ends earlier; infinite when none ends by
  /// the limit.
  double at_least(int k, SimTime shift, SimTime channel_free) const;

 private:
  struct Inputs;  ///< what the table is built from

  OmgsCompletions() = default;
  /// A and c, and W(k) for every boundary.
  void fit_line(const Inputs& in);
  /// The most groups after each boundary in a plan ending by the limit
  /// (B(k, r) within it), -1 where none fits.
  std::vector<int> most_groups(const Inputs& in) const;
  /// a(k, r) for every boundary, then the stairs.
  void fill(const Inputs& in, const std::vector<int>& most);
  /// B(k, r).
  double channel(int k, int r) const;

  double startup_ = 0.0;            ///< A, ns
  double per_kept_ = 0.0;           ///< c, ns per kept element
  std::vector<double> kept_after_;  ///< W(k)
  /// Per boundary, the (B, a) of each group count r, r rising, less those
  /// with no lower a than a smaller r (B rises with r): a falls along it.
  std::vector<std::vector<std::pair<double, double>>> stairs_;
};

}  // namespace mgsim
