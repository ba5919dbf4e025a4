#include "omgs_completions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mgsim {
namespace {

constexpr double kUnreachable = std::numeric_limits<double>::infinity();

std::size_t index_of(int i) { return static_cast<std::size_t>(i); }

}  // namespace

struct OmgsCompletions::Inputs {
  const CommProblem& problem;
  const SparseCosts& costs;
  std::span<const SimTime> ready;
  std::span<const SimTime> floor_before;
  bool monotone;
  SimTime limit;

  /// omgs::for_each_group of boundary k, within the limit.
  template <typename Visit>
  void for_each_group(int k, Visit&& visit) const {
    omgs::for_each_group(problem, costs, ready, floor_before, monotone, limit, k, visit);
  }
  double end_limit() const { return static_cast<double>(limit); }
};

std::optional<OmgsCompletions> OmgsCompletions::build(const CommProblem& problem, const SparseCosts& costs,
                                                      std::span<const SimTime> ready,
                                                      std::span<const SimTime> floor_before, bool monotone,
                                                      SimTime limit, std::size_t max_cells) {
  const Inputs in{problem, costs, ready, floor_before, monotone, limit};
  OmgsCompletions table;
  table.fit_line(in);
  const std::vector<int> most = table.most_groups(in);
  std::size_t cells = 0;
  for (const int r : most) cells += static_cast<std::size_t>(r + 1);
  if (cells > max_cells) return std::nullopt;
  table.fill(in, most);
  return table;
}

void OmgsCompletions::fit_line(const Inputs& in) {
  const int n = in.problem.layer_count();
  kept_after_.assign(index_of(n) + 1, 0.0);
  for (int u = n - 1; u >= 0; --u) kept_after_[index_of(u)] = kept_after_[index_of(u) + 1] + in.costs.kept(in.costs.layer(u));
  // The slope c per kept element between one kept element and all of them
  // (both exchanges the search prices anyway; 0 where all of them take more
  // than an hour), then the most A that keeps
  // A + c w at or under every group's exchange, less 1 ns for sums taken in
  // another order.
  Group whole;
  for (int u = 0; u < n; ++u) whole = SparseCosts::merge(whole, in.costs.layer(u));
  const auto all = static_cast<std::int64_t>(in.costs.kept(whole));
  const std::optional<SimTime> whole_exchange = in.problem.cost.allgather_within_limit(in.costs.sent_bytes(whole));
  per_kept_ = all > 1 && whole_exchange
                  ? std::max(0.0, static_cast<double>(*whole_exchange - in.costs.exchange_of_kept(1)) /
                                      static_cast<double>(all - 1))
                  : 0.0;
  double least_per_kept = kUnreachable;  // the least exchange per kept element of any group
  const auto least_startup = [&] {
    double least = kUnreachable;
    for (int k = 0; k < n; ++k) {
      in.for_each_group(k, [&](const omgs::PricedGroup& group) {
        const double kept = in.costs.kept(group.group);
        least = std::min(least, static_cast<double>(group.exchange) - per_kept_ * kept);
        if (kept > 0) least_per_kept = std::min(least_per_kept, static_cast<double>(group.exchange) / kept);
      });
    }
    return least;
  };
  startup_ = least_startup();
  if (startup_ < 0) {
    // An exchange convex in the kept elements (a shared fabric's floor: the
    // larger of two lines) lies under its chord: the line then takes the
    // least slope that no group's exchange falls under, so that A >= 0.
    per_kept_ = least_per_kept * (1 - 1e-9);
    startup_ = least_startup();
  }
  startup_ = startup_ == kUnreachable ? 0.0 : std::max(0.0, startup_ - 1.0);
}

std::vector<int> OmgsCompletions::most_groups(const Inputs& in) const {
  const int n = in.problem.layer_count();
  std::vector<int> most(index_of(n) + 1);
  for (int k = 0; k <= n; ++k) {
    const double room = in.end_limit() - per_kept_ * kept_after_[index_of(k)];
    int r = room < 0 ? -1 : n - k;
    if (startup_ > 0 && room >= 0) r = static_cast<int>(std::min<double>(r, std::floor(room / startup_)));
    most[index_of(k)] = r;
  }
  return most;
}

void OmgsCompletions::fill(const Inputs& in, const std::vector<int>& most) {
  const int n = in.problem.layer_count();
  std::vector<std::vector<double>> least(index_of(n) + 1);              // a(k, r)
  std::vector<std::pair<int, int>> finite(index_of(n) + 1, {0, -1});  // the r of least[k] that are finite: [first, last]
  if (most[index_of(n)] >= 0) {
    least[index_of(n)] = {static_cast<double>(in.problem.compute_end)};
    finite[index_of(n)] = {0, 0};
  }
  for (int k = n - 1; k >= 0; --k) {
    std::vector<double>& here = least[index_of(k)];
    here.assign(index_of(std::max(0, most[index_of(k)] + 1)), kUnreachable);
    const double before = static_cast<double>(in.floor_before[index_of(k)]);
    in.for_each_group(k, [&](const omgs::PricedGroup& group) {
      const int h = group.end;
      const double lag = static_cast<double>(group.lag);
      // r groups from k: r - 1 finite ones from h, and the first group's
      // exchange ready within the limit (before + lag + B(k, r) <= limit).
      const double room = in.end_limit() - before - lag - per_kept_ * kept_after_[index_of(k)];
      if (room < 0) return;
      int top = std::min(static_cast<int>(here.size()) - 1, finite[index_of(h)].second + 1);
      if (startup_ > 0) top = static_cast<int>(std::min<double>(top, std::floor(room / startup_)));
      const std::vector<double>& next = least[index_of(h)];
      for (int r = std::max(1, finite[index_of(h)].first + 1); r <= top; ++r) {
        here[index_of(r)] =
            std::min(here[index_of(r)], std::max(lag + channel(k, r), static_cast<double>(group.selection) + next[index_of(r - 1)]));
      }
    });
    for (int r = 0; r < static_cast<int>(here.size()); ++r) {
      if (before + here[index_of(r)] > in.end_limit()) {
        here[index_of(r)] = kUnreachable;  // no state reaches k with fewer selections than the floors
        continue;
      }
      if (finite[index_of(k)].second < finite[index_of(k)].first) finite[index_of(k)].first = r;
      finite[index_of(k)].second = r;
    }
  }
  stairs_.resize(index_of(n) + 1);
  for (int k = 0; k <= n; ++k) {
    auto& stairs = stairs_[index_of(k)];
    for (int r = 0; r < static_cast<int>(least[index_of(k)].size()); ++r) {
      const double a = least[index_of(k)][index_of(r)];
      if (a < (stairs.empty() ? kUnreachable : stairs.back().second)) stairs.emplace_back(channel(k, r), a);
    }
  }
}

double OmgsCompletions::channel(int k, int r) const { return r * startup_ + per_kept_ * kept_after_[index_of(k)]; }

double OmgsCompletions::at_least(int k, SimTime shift, SimTime channel_free) const {
  const auto& stairs = stairs_[index_of(k)];
  const double s = static_cast<double>(shift);
  const double e = static_cast<double>(channel_free);
  // Along the stairs B - a rises: the first future whose channel term
  // dominates, and the one before it, whose selection term does.
  const auto it = std::partition_point(stairs.begin(), stairs.end(),
                                       [&](const std::pair<double, double>& f) { return e + f.first < s + f.second; });
  double end = kUnreachable;
  if (it != stairs.end()) end = e + it->first;
  if (it != stairs.begin()) end = std::min(end, s + std::prev(it)->second);
  return end;
}

}  // namespace mgsim
