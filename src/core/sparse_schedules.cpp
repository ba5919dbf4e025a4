// Sparsified schedules (docs/domain.md section 3): each message keeps the top-k
// of its gradients (k = density x elements), found by a selection that runs
// on every GPU's compute stream after the message's last layer, and is
// exchanged as an all-gather of k values and k indices per GPU. Layers are in
// backward order here (u = 0 is the last layer).

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/interpolation.hpp"
#include "mgsim/limits.hpp"
#include "omgs_fronts.hpp"
#include "schedules.hpp"
#include "omgs_completions.hpp"
#include "sparse_costs.hpp"

namespace mgsim {
namespace {

/// What every sparse schedule holds: its settings.
class SparseSchedule : public Schedule {
 public:
  explicit SparseSchedule(SparseSettings settings) : settings_(std::move(settings)) {}

 protected:
  SparseSettings settings_;
};

class TopK : public SparseSchedule {
 public:
  using SparseSchedule::SparseSchedule;
  Plan plan(const CommProblem& problem) const override {
    return SparseCosts(problem, settings_).plan({problem.layer_count()});
  }
};

class Lags : public SparseSchedule {
 public:
  using SparseSchedule::SparseSchedule;
  Plan plan(const CommProblem& problem) const override {
    std::vector<int> group_end;
    for (int u = 1; u <= problem.layer_count(); ++u) group_end.push_back(u);
    return SparseCosts(problem, settings_).plan(group_end);
  }
};

/// The published OMGS greedy test: walking from the last layer to the second,
/// merge the next layer into the current group when the extra wait (its
/// backward, plus the extra top-k cost of the merged tensor, minus the slack
/// before the group's exchange would start) is less than the exchange time
/// saved. A merge whose selection or exchange would take more than an hour is
/// not made. Returns the group ends.
std::vector<int> omgs_rule_groups(const CommProblem& problem, const SparseCosts& costs) {
  const int n = problem.layer_count();
  std::vector<int> group_end;
  SimTime shift = 0;         // selections of the closed groups
  SimTime channel_free = 0;  // end of the closed groups' exchanges
  Group group = costs.layer(0);
  for (int u = 0; u + 1 < n; ++u) {
    const SimTime selection_start = problem.layer_end[static_cast<std::size_t>(u)] + shift;
    const SimTime selection = costs.selection(group);
    const SimTime exchange_start = std::max(channel_free, selection_start + selection);
    const Group& next = costs.layer(u + 1);
    const Group merged = SparseCosts::merge(group, next);
    const std::optional<SparseCosts::Priced> priced = costs.priced(merged);
    const SimTime next_backward =
        problem.layer_end[static_cast<std::size_t>(u + 1)] - problem.layer_end[static_cast<std::size_t>(u)];
    if (priced && next_backward + priced->selection - selection - costs.selection(next) -
                          (exchange_start - (selection_start + selection)) <
                      costs.exchange(group) + costs.exchange(next) - priced->exchange) {  // wait < saved
      group = merged;
      continue;
    }
    group_end.push_back(u + 1);
    shift += selection;
    channel_free = exchange_start + costs.exchange(group);
    group = next;
  }
  group_end.push_back(n);
  return group_end;
}

/// Exact OMGS: after the first k layers, a grouping leaves the compute stream
/// delayed by its selections so far (S) and the channel busy until E; both
/// only ever hurt when they grow, so each layer boundary keeps the Pareto set
/// of (S, E) over all groupings of the layers before it.
///
/// Whatever groups follow boundary k, the iteration then ends at
/// max(S + alpha, E + beta): beta is the sum of their exchanges, and
/// alpha - beta <= reach(k), the latest end or ready time of a layer after k
/// (or the end of the backward) plus the most selection time those layers can
/// add. With s d log2 d selection (superadditive; llround moves each group
/// under 1 ns) that is the selection of all of them as one group plus 1 ns a
/// layer; with a measured curve reach is not used. The prunings below only
/// drop states that end strictly later than some other plan whatever follows,
/// so the search finds the plan the plain Pareto search finds.
///  (1) U is the iteration end of a feasible plan (the best of the OMGS rule,
///      LAGS, TopK and pass (4)). Whatever groups follow a state at boundary
///      k, it ends no earlier than max(S + their selections + max(end of the
///      backward, min(end, ready) of the last layer + the last group's
///      exchange), E + their exchanges) (the last group is exchanged after
///      its selection), so for every lambda in [0, 1] no earlier than
///      lambda S + (1 - lambda) E + W_lambda(k), where W_lambda(k) is the
///      least of lambda (their selections + max(...)) + (1 - lambda) (their
///      exchanges) over the groupings of the layers after k: a shortest path,
///      found from the last boundary back for lambda = 0, 1/8, ..., 1. The
///      channel also cannot start the first group [k, g) before S + its lag
///      (its ready time, or the end of layer g-1 + its selection), so the
///      state ends no earlier than S + V(k), V(k) the most over lambda of the
///      least of lambda (selections + max(...)) + (1 - lambda) (lag of the
///      first group + exchanges). Only
///      groups that could be in a plan ending by U are taken (their exchange,
///      and compute_end + their selection + the floors of the other layers,
///      within U; floors: with s d log2 d selection, superadditive with
///      llround losing under 2 ns a layer, each layer adds at least
///      max(0, sel(u) - 2); with a measured curve 0). A state whose bound
///      exceeds U is not kept, nor is anything it would have dominated
///      (their bounds are no lower).
///  (2) When the selection time never decreases with a group's elements (s d
///      log2 d, or a non-decreasing curve), a last group [g, k) leaves
///      S >= floors before g + sel(g..k-1) and E >= max(ready of layer k-1,
///      end of layer k-1 + sel when sel > 0) + exch(g..k-1) (an exchange never
///      shrinks with more bytes); the bound (1) of that state only grows as g
///      falls: once it exceeds U, no earlier g is tried.
///  (3) In a Pareto set sorted by S, a state B followed by A (more S, less E)
///      with S_A + reach(k) < E_B ends later than A whatever follows: B's
///      channel stays the bottleneck. B is dropped.
///  (4) A first pass keeping one state per boundary (the least bound) finds a
///      feasible plan, usually close to the optimum; its end tightens U,
///      then (6) is built within it, and a second such pass with (6)
///      tightens U again for the exact pass.
///  (5) Along a Pareto set (S rising, E falling), E - S falls: past the first
///      state whose channel is free when the next group's exchange is ready,
///      the exchange waits for the selections, so S and E of the next state
///      both rise: those states are dominated and not extended.
///  (6) The best completion of a state with every exchange replaced by an
///      affine lower bound in the group count and kept elements
///      (OmgsCompletions, omgs_completions.hpp): a table over (boundary,
///      groups after it), within microseconds of the exact completion on an
///      affine all-gather, joins (1) as a lower bound. Not built past 2^22
///      cells (no bound from it then).
/// Among states with equal (S, E) the first found is kept whether or not
/// others were pruned.
///
/// The Pareto set of boundary k is the lower envelope of the sets front[g],
/// g < k, each moved by its group [g, k): up to the state of (5) a move by
/// (selection, exchange), so each is a staircase again (a Run,
/// omgs_fronts.hpp). omgs::pareto() merges them lazily and skips a dominated
/// stretch of a staircase by galloping search; the bound (1) is checked on the
/// envelope only: it never decreases with S or E, so a candidate it drops
/// could only have dominated candidates it drops too, and the states kept are
/// those of filtering every candidate first. Each run is first cut to the
/// candidates whose E alone and whose S alone pass (1) (E falls and S rises
/// along a run).
class Omgs : public SparseSchedule {
 public:
  using SparseSchedule::SparseSchedule;

  Plan plan(const CommProblem& problem) const override {
    const SparseCosts costs(problem, settings_);
    const int n = problem.layer_count();
    std::vector<SimTime> ready;  // per layer: its latest tensor
    for (int u = 0; u < n; ++u) ready.push_back(problem.ready_of(problem.layer_begin(u), problem.layer_begin(u + 1)));
    std::vector<int> per_layer(static_cast<std::size_t>(n));
    std::iota(per_layer.begin(), per_layer.end(), 1);
    costs.plan(per_layer);  // a layer alone past an hour: no plan runs, and pricing it says so
    SimTime bound = end_of(problem, costs, ready, per_layer).value();
    for (const std::vector<int>& heuristic : {omgs_rule_groups(problem, costs), std::vector<int>{n}}) {
      bound = std::min(bound, end_of(problem, costs, ready, heuristic).value_or(bound));
    }
    Bounds bounds = bounds_of(problem, costs, ready, bound);
    bound = greedy_end(problem, costs, ready, bounds, bound);
    if (lower_bound(bounds, 0, 0, 0) < static_cast<double>(bound)) {  // (6) only where (1) leaves a gap
      bounds.completions = OmgsCompletions::build(problem, costs, ready, bounds.floor_before, bounds.monotone,
                                                  bound + 1, kMaxCompletionCells);
      if (bounds.completions) bound = greedy_end(problem, costs, ready, bounds, bound);
    }
    const auto front = fronts(problem, costs, ready, bounds, bound, false);
    return costs.plan(group_ends(front, problem.compute_end));
  }
  /// About quadratic in the layers since its completion bound (docs/performance.md): 2,000 tiny layers 0.65 s,
  /// 1,000 below the balance 0.04-0.13 s, 10,000 at 2048 GPUs 6.7 s: one step a pair.
  /// Pairs of layers, and past 1,000 layers n^3 / 1,000: where selection and exchange balance, its Pareto sets
  /// grow with n (red team, 2 GPUs, 2026-11-29: 5,000 layers 8.3 s, 8,000 40 s, 10,000 64 s, 14,000 past 120 s;
  /// charged n^2 it accepted all four by default).
  double plan_steps(int units, const TensorLayout&, bool) const override {
    const double n = units;
    return n * n * std::max(1.0, n / 1000);
  }

 private:
  using State = omgs::State;
  using Run = omgs::Run;
  static constexpr SimTime kNever = std::numeric_limits<SimTime>::max() / 4;
  /// The most cells of bound (6)'s table (8 bytes each): 32 MiB.
  static constexpr std::size_t kMaxCompletionCells = std::size_t{1} << 22;
  /// The most states the exact pass keeps over all boundaries (24 bytes
  /// each, 1.5 GiB); past it the run is refused, not left to swap.
  static constexpr std::size_t kMaxStates = std::size_t{1} << 26;

  /// The weights lambda = i / kSteps, i = 0..kSteps, of bound (1): binary
  /// fractions, so that lambda x for integer nanoseconds x is exact in double.
  static constexpr int kSteps = 8;
  using Weighted = std::array<double, kSteps + 1>;

  /// What the prunings need besides U, per boundary k = 0..n.
  struct Bounds {
    std::vector<SimTime> floor_before;  ///< sum of the selection floors of the layers before k
    std::vector<Weighted> future;       ///< W_lambda(k) of (1), infinite when no grouping is within U
    std::vector<double> first_ready;    ///< V(k) of (1)
    std::vector<SimTime> reach;         ///< reach(k); kNever with a measured selection curve
    bool monotone;                      ///< selection never decreases with elements: (2) applies
    std::optional<OmgsCompletions> completions;  ///< bound (6), once built
  };

  /// The bound (1) of a state at boundary k with selections `shift` and the channel free at `channel_free`.
  static double lower_bound(const Bounds& bounds, int k, SimTime shift, SimTime channel_free) {
    const Weighted& future = bounds.future[static_cast<std::size_t>(k)];
    double end = std::max(shift_bound(bounds, k, shift), channel_bound(bounds, k, channel_free));
    for (int i = 1; i < kSteps; ++i) {
      const double lambda = static_cast<double>(i) / kSteps;
      end = std::max(end, lambda * static_cast<double>(shift) + (1 - lambda) * static_cast<double>(channel_free) +
                              future[static_cast<std::size_t>(i)]);
    }
    return bounds.completions ? std::max(end, bounds.completions->at_least(k, shift, channel_free)) : end;
  }
  /// The terms of (1) in S alone (lambda = 1, and V(k)) and in E alone (lambda = 0).
  static double shift_bound(const Bounds& bounds, int k, SimTime shift) {
    const auto at = static_cast<std::size_t>(k);
    return static_cast<double>(shift) + std::max(bounds.first_ready[at], bounds.future[at][kSteps]);
  }
  static double channel_bound(const Bounds& bounds, int k, SimTime channel_free) {
    return static_cast<double>(channel_free) + bounds.future[static_cast<std::size_t>(k)][0];
  }

  static SimTime end_of(const State& state, SimTime compute_end) {
    return std::max(compute_end + state.shift, state.channel_free);
  }

  Bounds bounds_of(const CommProblem& problem, const SparseCosts& costs, const std::vector<SimTime>& ready,
                   SimTime bound) const {
    const int n = problem.layer_count();
    const bool formula = settings_.selection_curve.empty();
    Bounds bounds{
        {0}, {}, {}, std::vector<SimTime>(static_cast<std::size_t>(n) + 1, kNever), selection_never_decreases(), std::nullopt};
    for (int u = 0; u < n; ++u) {
      const SimTime own = costs.selection(costs.layer(u));
      bounds.floor_before.push_back(bounds.floor_before.back() + (formula ? std::max<SimTime>(0, own - 2) : 0));
    }
    future_costs(problem, costs, ready, bound, bounds);
    if (formula) {
      Group after;
      SimTime latest = problem.compute_end;
      bounds.reach.back() = latest;
      for (int k = n - 1; k >= 0; --k) {
        after = SparseCosts::merge(after, costs.layer(k));
        latest = std::max({latest, problem.layer_end[static_cast<std::size_t>(k)], ready[static_cast<std::size_t>(k)]});
        // Selections past an hour leave the bound (3) unused here (kNever).
        const std::optional<SimTime> selection = costs.selection_within_limit(after);
        if (!selection) continue;
        const SimTime most = *selection;
        bounds.reach[static_cast<std::size_t>(k)] = latest + most + most / 1'000'000'000'000 + (n - k) + 2;
      }
    }
    return bounds;
  }

  /// W_lambda(k) and V(k) of (1) for every boundary, from the last back: a
  /// shortest path over the groups [k, g) that pass the test of (1).
  static void future_costs(const CommProblem& problem, const SparseCosts& costs, const std::vector<SimTime>& ready,
                           SimTime bound, Bounds& bounds) {
    const int n = problem.layer_count();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    Weighted none;
    none.fill(kInf);
    std::vector<Weighted>& future = bounds.future;
    future.assign(static_cast<std::size_t>(n) + 1, none);
    bounds.first_ready.assign(static_cast<std::size_t>(n) + 1, static_cast<double>(problem.compute_end));
    for (int i = 0; i <= kSteps; ++i) {
      future.back()[static_cast<std::size_t>(i)] =
          static_cast<double>(i) / kSteps * static_cast<double>(problem.compute_end);
    }
    const SimTime last_start = n > 0 ? std::min(problem.layer_end.back(), ready.back()) : 0;
    for (int k = n - 1; k >= 0; --k) {
      Weighted& least = future[static_cast<std::size_t>(k)];
      Weighted first = none;  // the same with the first group's ready time (1 - lambda) (V)
      omgs::for_each_group(problem, costs, ready, bounds.floor_before, bounds.monotone, bound, k,
                           [&](const omgs::PricedGroup& group) {
        const int g = group.end;
        // After the last group: its selection, then its exchange, or the end of the backward.
        const double tail =
            g == n ? static_cast<double>(std::max(problem.compute_end, last_start + group.exchange)) : 0;
        for (int i = 0; i <= kSteps; ++i) {
          const auto at = static_cast<std::size_t>(i);
          const double lambda = static_cast<double>(i) / kSteps;
          const double rest = g == n ? lambda * tail : future[static_cast<std::size_t>(g)][at];
          const double here = lambda * static_cast<double>(group.selection) +
                              (1 - lambda) * static_cast<double>(group.exchange) + rest;
          least[at] = std::min(least[at], here);
          first[at] = std::min(first[at], here + (1 - lambda) * static_cast<double>(group.lag));
        }
      });
      bounds.first_ready[static_cast<std::size_t>(k)] = *std::max_element(first.begin(), first.end());
    }
  }

  /// The end of the greedy pass (4)'s plan, or `bound` if that is earlier.
  static SimTime greedy_end(const CommProblem& problem, const SparseCosts& costs, const std::vector<SimTime>& ready,
                            const Bounds& bounds, SimTime bound) {
    const auto greedy = fronts(problem, costs, ready, bounds, bound, true);
    return greedy.back().empty() ? bound : std::min(bound, end_of(greedy.back().front(), problem.compute_end));
  }

  /// The set of states at every boundary: the Pareto set, or with `keep_one`
  /// only the state of least bound (ties: less S), a greedy pass (4).
  static std::vector<std::vector<State>> fronts(const CommProblem& problem, const SparseCosts& costs,
                                                const std::vector<SimTime>& ready, const Bounds& bounds, SimTime bound,
                                                bool keep_one) {
    const int n = problem.layer_count();
    std::vector<std::vector<State>> front(static_cast<std::size_t>(n) + 1);
    front[0].push_back({0, 0, -1, -1});
    const double limit = static_cast<double>(bound) + 1;  // room for double rounding of huge times
    std::vector<Run> runs;
    std::vector<omgs::Head> heads;
    std::vector<State> staircase;
    std::size_t held = 0;  // states kept at every boundary so far
    for (int k = 1; k <= n; ++k) {
      runs_into(problem, costs, ready, bounds, limit, front, k, runs);
      const auto bound_of = [&](const State& s) { return lower_bound(bounds, k, s.shift, s.channel_free); };
      auto& kept = front[static_cast<std::size_t>(k)];
      if (keep_one) {
        kept = least_bound(runs, bound_of, limit);
        continue;
      }
      omgs::pareto(runs, heads, staircase);
      const SimTime reach = bounds.reach[static_cast<std::size_t>(k)];
      for (const State& s : staircase) {
        if (bound_of(s) > limit) continue;  // (1)
        while (!kept.empty() && reach < kNever && s.shift + reach < kept.back().channel_free) kept.pop_back();  // (3)
        kept.push_back(s);
      }
      held += kept.size();
      if (held > kMaxStates) {
        throw ConfigError(fmt::format(
            "the exact omgs search holds more than {} states ({} MiB) at layer {} of {}: its Pareto sets grow where "
            "selection and exchange times balance; use omgs-rule (the published test) or fewer layers "
            "(message_unit layer, docs/sparse.md)",
            kMaxStates, kMaxStates * sizeof(State) >> 20, k, n));
      }
    }
    return front;
  }

  /// Into `runs`, the candidates of boundary k, one run per last group [g, k)
  /// (later g first) that (1) and (2) leave.
  static void runs_into(const CommProblem& problem, const SparseCosts& costs, const std::vector<SimTime>& ready,
                        const Bounds& bounds, double limit, const std::vector<std::vector<State>>& front, int k,
                        std::vector<Run>& runs) {
    runs.clear();
    const SimTime layer_end = problem.layer_end[static_cast<std::size_t>(k - 1)];
    Group group;
    SimTime group_ready = 0;
    for (int g = k - 1; g >= 0; --g) {
      group = SparseCosts::merge(group, costs.layer(g));
      group_ready = std::max(group_ready, ready[static_cast<std::size_t>(g)]);
      const auto& from = front[static_cast<std::size_t>(g)];
      if (from.empty()) continue;  // (2) fails at the next g if here
      const std::optional<SparseCosts::Priced> priced = costs.priced(group);
      if (!priced) continue;  // a step past an hour: no candidate
      const auto [selection, exchange] = *priced;
      const SimTime earliest =
          std::max(ready[static_cast<std::size_t>(k - 1)], selection > 0 ? layer_end + selection : 0);
      if (bounds.monotone && lower_bound(bounds, k, bounds.floor_before[static_cast<std::size_t>(g)] + selection,
                                         earliest + exchange) > limit) {
        break;  // (2)
      }
      // Exchange ready at S + lag.
      const SimTime lag = omgs::exchange_lag(group_ready, layer_end, selection);
      if (lower_bound(bounds, k, from.front().shift + selection,
                      std::max(from.back().channel_free, from.front().shift + lag) + exchange) > limit) {
        continue;  // (1) for the least S and E of the set
      }
      runs.emplace_back(from, g, group_ready, layer_end, selection, exchange, lag)
          .trim([&](SimTime channel_free) { return channel_bound(bounds, k, channel_free) <= limit; },
                [&](SimTime shift) { return shift_bound(bounds, k, shift) <= limit; });
    }
  }

  /// The candidate of least bound (ties: less S, then as found), if it is within `limit`.
  template <typename BoundOf>
  static std::vector<State> least_bound(const std::vector<Run>& runs, const BoundOf& bound_of, double limit) {
    std::vector<State> best;
    double best_bound = 0;
    for (const Run& run : runs) {
      for (std::size_t i = run.begin(); i < run.end(); ++i) {
        const State s = run.at(i);
        const double b = bound_of(s);
        if (best.empty() || std::pair(b, s.shift) < std::pair(best_bound, best.front().shift)) {
          best = {s};
          best_bound = b;
        }
      }
    }
    if (!best.empty() && best_bound > limit) best.clear();
    return best;
  }

  /// The iteration end of the groups ending at `group_end`, by the search's
  /// own step; nothing where a group takes a step past an hour.
  static std::optional<SimTime> end_of(const CommProblem& problem, const SparseCosts& costs,
                                       const std::vector<SimTime>& ready, const std::vector<int>& group_end) {
    State state{0, 0, -1, -1};
    int first = 0;
    for (int last : group_end) {
      Group group;
      SimTime group_ready = 0;
      for (int u = first; u < last; ++u) {
        group = SparseCosts::merge(group, costs.layer(u));
        group_ready = std::max(group_ready, ready[static_cast<std::size_t>(u)]);
      }
      const std::optional<SparseCosts::Priced> priced = costs.priced(group);
      if (!priced) return std::nullopt;
      state = omgs::step(state, group_ready, problem.layer_end[static_cast<std::size_t>(last - 1)], priced->selection,
                         priced->exchange, first, 0);
      first = last;
    }
    return end_of(state, problem.compute_end);
  }

  /// Whether the selection time never decreases with the elements selected
  /// from: always for s d log2 d; for a measured curve when its times do.
  bool selection_never_decreases() const {
    const auto& curve = settings_.selection_curve;
    return std::is_sorted(curve.begin(), curve.end(),
                          [](const InterpolationPoint& a, const InterpolationPoint& b) { return a.y < b.y; });
  }

  /// Walks back from the final state with the earliest iteration end.
  static std::vector<int> group_ends(const std::vector<std::vector<State>>& front, SimTime compute_end) {
    const auto& last = front.back();
    auto best = std::min_element(last.begin(), last.end(), [&](const State& a, const State& b) {
      return end_of(a, compute_end) < end_of(b, compute_end);
    });
    std::vector<int> ends;
    int boundary = static_cast<int>(front.size()) - 1;
    int index = static_cast<int>(best - last.begin());
    while (boundary > 0) {
      ends.push_back(boundary);
      const State& s = front[static_cast<std::size_t>(boundary)][static_cast<std::size_t>(index)];
      boundary = s.from_boundary;
      index = s.from_state;
    }
    std::reverse(ends.begin(), ends.end());
    return ends;
  }
};

class OmgsRule : public SparseSchedule {
 public:
  using SparseSchedule::SparseSchedule;
  Plan plan(const CommProblem& problem) const override {
    const SparseCosts costs(problem, settings_);
    return costs.plan(omgs_rule_groups(problem, costs));
  }
};

/// Builds sparse schedule T from the parameters of `name`'s table row.
template <typename T>
std::unique_ptr<Schedule> make_sparse(std::string_view name, const ParamValues& given, const SparseOptions& sparse) {
  const auto& specs = find_schedule(name).params;
  SparseSettings settings{param_value(given, specs, "density"),
                          param_value(given, specs, "selection_s"),
                          whole_param(name, given, "value_bytes"),
                          whole_param(name, given, "index_bytes"),
                          sparse.layer_density,
                          {}};
  for (const SelectionPoint& point : sparse.selection_curve) {
    settings.selection_curve.push_back({static_cast<double>(point.elements), point.seconds});
  }
  std::sort(settings.selection_curve.begin(), settings.selection_curve.end(),
            [](const InterpolationPoint& a, const InterpolationPoint& b) { return a.x < b.x; });
  return std::make_unique<T>(std::move(settings));
}

}  // namespace

std::unique_ptr<Schedule> make_topk(const ParamValues& given, const SparseOptions& sparse) {
  return make_sparse<TopK>("topk", given, sparse);
}
std::unique_ptr<Schedule> make_lags(const ParamValues& given, const SparseOptions& sparse) {
  return make_sparse<Lags>("lags", given, sparse);
}
std::unique_ptr<Schedule> make_omgs(const ParamValues& given, const SparseOptions& sparse) {
  return make_sparse<Omgs>("omgs", given, sparse);
}
std::unique_ptr<Schedule> make_omgs_rule(const ParamValues& given, const SparseOptions& sparse) {
  return make_sparse<OmgsRule>("omgs-rule", given, sparse);
}

}  // namespace mgsim
