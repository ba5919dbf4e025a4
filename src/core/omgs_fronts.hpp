#pragma once
// The Pareto sets of the exact `omgs` search (class Omgs in
// sparse_schedules.cpp, whose comment gives the rules (1)-(5) and their
// proofs): a state after the first k layers, the candidates that one earlier
// set gives at boundary k (a run), the Pareto set of a boundary's runs, and
// the groups of layers the search and its bounds price.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "mgsim/time.hpp"
#include "sparse_costs.hpp"

namespace mgsim::omgs {

/// How long after the selections before it a group's exchange is ready: its
/// latest gradient and, with a selection, the end of its last layer plus
/// that selection.
inline SimTime exchange_lag(SimTime group_ready, SimTime layer_end, SimTime selection) {
  return selection > 0 ? std::max(group_ready, layer_end + selection) : group_ready;
}

/// A grouping of the first k layers: the selections so far (S) and when the
/// channel is free (E), and where it came from, for the walk back.
struct State {
  SimTime shift;         ///< selection compute so far
  SimTime channel_free;  ///< end of the last message so far
  int from_boundary;
  int from_state;
};

/// The state after appending the group [g, k) (ready, selection and exchange
/// given) to state i of boundary g, `from`.
inline State step(const State& from, SimTime group_ready, SimTime layer_end, SimTime selection, SimTime exchange,
                  int g, int i) {
  const SimTime ready = from.shift + exchange_lag(group_ready, layer_end, selection);
  return {from.shift + selection, std::max(from.channel_free, ready) + exchange, g, i};
}

/// A group [k, end) of layers as the search prices it.
struct PricedGroup {
  int end;  ///< one past its last layer
  const Group& group;
  SimTime selection;
  SimTime exchange;
  SimTime lag;  ///< exchange_lag
};

/// Calls visit(PricedGroup) for each group [k, h), h rising, that a plan
/// ending by `limit` may hold: its selection and exchange each within an
/// hour (SparseCosts::priced), its exchange within the limit (an exchange
/// never shrinks with more bytes), and the end of the backward plus its
/// selection and the floors of the other layers (`floor_before`: the least
/// selections before each boundary) too; past that, when `monotone` (a
/// group's selection never shrinks as it grows), no larger group either.
template <typename Visit>
void for_each_group(const CommProblem& problem, const SparseCosts& costs, std::span<const SimTime> ready,
                    std::span<const SimTime> floor_before, bool monotone, SimTime limit, int k, Visit&& visit) {
  const int n = problem.layer_count();
  const auto at = [](int i) { return static_cast<std::size_t>(i); };
  Group group;
  SimTime group_ready = 0;
  for (int h = k + 1; h <= n; ++h) {
    group = SparseCosts::merge(group, costs.layer(h - 1));
    group_ready = std::max(group_ready, ready[at(h - 1)]);
    const std::optional<SparseCosts::Priced> priced = costs.priced(group);
    if (!priced) {  // past an hour: so is every larger group when selections never shrink
      if (monotone) break;
      continue;
    }
    const SimTime selection = priced->selection;
    if (priced->exchange > limit) break;
    const SimTime outside = floor_before[at(k)] + floor_before[at(n)] - floor_before[at(h)];
    if (problem.compute_end + outside + selection > limit) {
      if (monotone) break;
      continue;
    }
    visit(PricedGroup{h, group, selection, priced->exchange,
                      exchange_lag(group_ready, problem.layer_end[at(h - 1)], selection)});
  }
}

/// Order of candidates: by (S, E), then as found (later group starts first).
inline bool before(const State& a, const State& b) {
  return std::tie(a.shift, a.channel_free, b.from_boundary, a.from_state) <
         std::tie(b.shift, b.channel_free, a.from_boundary, b.from_state);
}

/// The candidates of boundary k from the Pareto set of boundary g, extended by
/// the group [g, k): its states up to the first whose channel is free by the
/// time the group's exchange is ready (rule (5)). Before that state the
/// channel is the later, so the step moves each state by (selection,
/// exchange): along the run S rises and E falls.
class Run {
 public:
  Run(const std::vector<State>& set, int g, SimTime group_ready, SimTime layer_end, SimTime selection,
      SimTime exchange, SimTime lag);

  /// Drops the first candidates, whose E fails `channel_passes`, and the last,
  /// whose S fails `shift_passes` (both never pass again once they fail).
  template <typename ChannelPasses, typename ShiftPasses>
  void trim(const ChannelPasses& channel_passes, const ShiftPasses& shift_passes) {
    const auto set = from_->begin();
    begin_ = static_cast<std::size_t>(
        std::partition_point(set, set + static_cast<std::ptrdiff_t>(moved_),
                             [&](const State& s) { return !channel_passes(s.channel_free + exchange_); }) -
        set);
    end_ = static_cast<std::size_t>(
        std::partition_point(set, set + static_cast<std::ptrdiff_t>(end_),
                             [&](const State& s) { return shift_passes(s.shift + selection_); }) -
        set);
  }

  std::size_t begin() const { return begin_; }
  std::size_t end() const { return end_; }
  /// Candidate i, from state i of the set.
  State at(std::size_t i) const {
    return step((*from_)[i], group_ready_, layer_end_, selection_, exchange_, g_, static_cast<int>(i));
  }
  /// The first candidate from i on whose E is below `least`, or the state of (5).
  std::size_t first_below(std::size_t i, SimTime least) const;

 private:
  const std::vector<State>* from_;
  int g_;
  SimTime group_ready_, layer_end_, selection_, exchange_;
  std::size_t moved_;     ///< states before the one of (5)
  std::size_t begin_ = 0;
  std::size_t end_;       ///< moved_, plus the state of (5) if the set has one
};

/// A run's next candidate, in the heap of pareto().
struct Head {
  State state;
  std::size_t run;
};

/// Into `out`, the Pareto set of the runs' candidates: sorted by before(),
/// each with a lower E than all before it. `heads` is scratch.
void pareto(const std::vector<Run>& runs, std::vector<Head>& heads, std::vector<State>& out);

}  // namespace mgsim::omgs
