// Sparsified schedules (DOMAIN.md section 3): each message keeps the top-k
// of its gradients (k = density x elements), found by a selection that runs
// on every GPU's compute stream after the message's last layer, and is
// exchanged as an all-gather of k values and k indices per GPU. Layers are in
// backward order here (u = 0 is the last layer).

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "schedules.hpp"

namespace mgsim {
namespace {

struct SparseSettings {
  double density;
  double selection_s;
  std::int64_t value_bytes;
  std::int64_t index_bytes;
  std::map<std::string, double, std::less<>> layer_density;
  std::vector<SelectionPoint> selection_curve;  ///< sorted by elements
};

/// A group of consecutive layers being considered as one message.
struct Group {
  std::int64_t elements = 0;
  double weighted = 0.0;  ///< sum of density x elements over its layers (per-layer densities only)
};

/// The costs of sparsifying groups of layers, at one problem's GPU count.
class SparseCosts {
 public:
  SparseCosts(const CommProblem& problem, const SparseSettings& settings) : problem_(problem), settings_(settings) {
    const TensorLayout& layout = *problem.layout;
    for (const auto& entry : settings.layer_density) {
      if (std::find(layout.layer_name.begin(), layout.layer_name.end(), entry.first) == layout.layer_name.end()) {
        throw ConfigError(fmt::format("layer_density: the trace has no layer '{}'", entry.first));
      }
    }
    for (int u = 0; u < problem.layer_count(); ++u) {
      const std::int64_t elements = problem.elements_of(problem.layer_begin(u), problem.layer_begin(u + 1));
      const auto found = settings.layer_density.find(layout.layer_name[static_cast<std::size_t>(layout.layer[problem.layer_begin(u)])]);
      const double density = found == settings.layer_density.end() ? settings.density : found->second;
      layers_.push_back({elements, density * static_cast<double>(elements)});
    }
  }

  /// Layer u alone.
  const Group& layer(int u) const { return layers_[static_cast<std::size_t>(u)]; }
  static Group merge(const Group& a, const Group& b) { return {a.elements + b.elements, a.weighted + b.weighted}; }

  /// t_s(d): s d log2(d), or the measured selection curve.
  SimTime selection(const Group& group) const {
    const double d = static_cast<double>(group.elements);
    return step_ns(selection_seconds(d), [&] { return fmt::format("a top-k selection from {} elements", group.elements); });
  }
  /// Bytes each GPU contributes: k values and k indices, k = floor(kept elements), at least 1.
  std::int64_t sent_bytes(const Group& group) const {
    const double kept = settings_.layer_density.empty() ? settings_.density * static_cast<double>(group.elements)
                                                        : group.weighted;
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(kept)) * (settings_.value_bytes + settings_.index_bytes);
  }
  SimTime exchange(const Group& group) const { return problem_.cost.allgather(sent_bytes(group)); }

  /// The message of backward-order layers [first, last).
  Message message(int first, int last) const {
    Group group;
    for (int u = first; u < last; ++u) group = merge(group, layer(u));
    Message m;
    m.begin = problem_.layer_begin(first);
    m.end = problem_.layer_begin(last);
    m.bytes = problem_.bytes_of(m.begin, m.end);
    m.sent_bytes = sent_bytes(group);
    m.duration = exchange(group);
    m.selection = selection(group);
    m.kind = CollectiveKind::allgather;
    return m;
  }

  Plan plan(const std::vector<int>& group_end) const {
    Plan plan;
    int first = 0;
    for (int last : group_end) {
      plan.push_back(message(first, last));
      first = last;
    }
    return plan;
  }

 private:
  /// Between measured sizes linear; below the first point proportional to d;
  /// above the last the d log2 d shape through the last point.
  double selection_seconds(double d) const {
    if (d <= 1) return 0.0;
    const auto& curve = settings_.selection_curve;
    if (curve.empty()) return settings_.selection_s * d * std::log2(d);
    const double first = static_cast<double>(curve.front().elements);
    const double last = static_cast<double>(curve.back().elements);
    if (d <= first) return curve.front().seconds * d / first;
    if (d >= last) return last > 1 ? curve.back().seconds * (d * std::log2(d)) / (last * std::log2(last)) : curve.back().seconds * d / last;
    const auto upper = std::upper_bound(curve.begin(), curve.end(), d, [](double x, const SelectionPoint& p) {
      return x < static_cast<double>(p.elements);
    });
    const SelectionPoint& hi = *upper;
    const SelectionPoint& lo = *(upper - 1);
    const double x0 = static_cast<double>(lo.elements), x1 = static_cast<double>(hi.elements);
    return lo.seconds + (d - x0) / (x1 - x0) * (hi.seconds - lo.seconds);
  }

  const CommProblem& problem_;
  const SparseSettings& settings_;
  std::vector<Group> layers_;
};

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

/// Exact OMGS: after the first k layers, a grouping leaves the compute stream
/// delayed by its selections so far (S) and the channel busy until E; both
/// only ever hurt when they grow, so each layer boundary keeps the Pareto set
/// of (S, E) over all groupings of the layers before it.
class Omgs : public SparseSchedule {
 public:
  using SparseSchedule::SparseSchedule;

  Plan plan(const CommProblem& problem) const override {
    const SparseCosts costs(problem, settings_);
    const int n = problem.layer_count();
    std::vector<std::vector<State>> front(static_cast<std::size_t>(n) + 1);
    front[0].push_back({0, 0, -1, -1});
    for (int k = 1; k <= n; ++k) {
      std::vector<State> candidates;
      Group group;
      SimTime group_ready = 0;
      for (int g = k - 1; g >= 0; --g) {
        group = SparseCosts::merge(group, costs.layer(g));
        group_ready = std::max(group_ready, problem.ready_of(problem.layer_begin(g), problem.layer_begin(g + 1)));
        const SimTime selection = costs.selection(group);
        const SimTime exchange = costs.exchange(group);
        const auto& from = front[static_cast<std::size_t>(g)];
        for (std::size_t i = 0; i < from.size(); ++i) {
          const SimTime shift = from[i].shift + selection;
          SimTime ready = group_ready + from[i].shift;
          if (selection > 0) ready = std::max(ready, problem.layer_end[static_cast<std::size_t>(k - 1)] + shift);
          candidates.push_back({shift, std::max(from[i].channel_free, ready) + exchange, g, static_cast<int>(i)});
        }
      }
      front[static_cast<std::size_t>(k)] = pareto(std::move(candidates));
    }
    return costs.plan(group_ends(front, problem.compute_end));
  }

 private:
  struct State {
    SimTime shift;         ///< selection compute so far
    SimTime channel_free;  ///< end of the last message so far
    int from_boundary;
    int from_state;
  };

  static std::vector<State> pareto(std::vector<State> states) {
    std::sort(states.begin(), states.end(), [](const State& a, const State& b) {
      return a.shift != b.shift ? a.shift < b.shift : a.channel_free < b.channel_free;
    });
    std::vector<State> kept;
    for (const State& s : states) {
      if (kept.empty() || s.channel_free < kept.back().channel_free) kept.push_back(s);
    }
    return kept;
  }

  /// Walks back from the final state with the earliest iteration end.
  static std::vector<int> group_ends(const std::vector<std::vector<State>>& front, SimTime compute_end) {
    const auto& last = front.back();
    const auto end_of = [&](const State& s) { return std::max(compute_end + s.shift, s.channel_free); };
    auto best = std::min_element(last.begin(), last.end(),
                                 [&](const State& a, const State& b) { return end_of(a) < end_of(b); });
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

/// The published OMGS greedy test: walking from the last layer to the second,
/// merge the next layer into the current group when the extra wait (its
/// backward, plus the extra top-k cost of the merged tensor, minus the slack
/// before the group's exchange would start) is less than the exchange time
/// saved.
class OmgsRule : public SparseSchedule {
 public:
  using SparseSchedule::SparseSchedule;

  Plan plan(const CommProblem& problem) const override {
    const SparseCosts costs(problem, settings_);
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
      const SimTime next_backward =
          problem.layer_end[static_cast<std::size_t>(u + 1)] - problem.layer_end[static_cast<std::size_t>(u)];
      const SimTime wait = next_backward + costs.selection(merged) - selection - costs.selection(next) -
                           (exchange_start - (selection_start + selection));
      const SimTime saved = costs.exchange(group) + costs.exchange(next) - costs.exchange(merged);
      if (wait < saved) {
        group = merged;
        continue;
      }
      group_end.push_back(u + 1);
      shift += selection;
      channel_free = exchange_start + costs.exchange(group);
      group = next;
    }
    group_end.push_back(n);
    return costs.plan(group_end);
  }
};

/// Builds sparse schedule T from the parameters of `name`'s table row.
template <typename T>
std::unique_ptr<Schedule> make_sparse(std::string_view name, const ParamValues& given, const SparseOptions& sparse) {
  const auto& specs = find_schedule(name).params;
  SparseSettings settings{param_value(given, specs[0]), param_value(given, specs[1]),
                          std::llround(param_value(given, specs[2])), std::llround(param_value(given, specs[3])),
                          sparse.layer_density, sparse.selection_curve};
  std::sort(settings.selection_curve.begin(), settings.selection_curve.end(),
            [](const SelectionPoint& a, const SelectionPoint& b) { return a.elements < b.elements; });
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
