#include "mgsim/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace mgsim {

Cluster::Cluster(std::vector<double> speeds, std::vector<Run> runs, int size, int gpus_per_node)
    : speeds_(std::move(speeds)), runs_(std::move(runs)), size_(size), gpus_per_node_(gpus_per_node) {
  if (size_ < 1 || gpus_per_node_ < 1) throw std::invalid_argument("cluster: needs ranks and gpus_per_node >= 1");
  for (double speed : speeds_) {
    if (!(speed > 0.0) || !std::isfinite(speed)) throw std::invalid_argument("cluster: speeds must be finite and > 0");
  }
  class_size_.assign(speeds_.size(), 0);
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    const int c = runs_[i].speed_class;
    if (c < 0 || c >= class_count()) throw std::invalid_argument("cluster: a rank names an unknown speed class");
    class_size_[static_cast<std::size_t>(c)] += (i + 1 < runs_.size() ? runs_[i + 1].first : size_) - runs_[i].first;
  }
}

Cluster::Cluster(std::vector<double> speeds, std::vector<int> rank_class, int gpus_per_node)
    : Cluster(std::move(speeds),
              [&] {
                std::vector<Run> runs;
                for (std::size_t r = 0; r < rank_class.size(); ++r) {
                  if (runs.empty() || runs.back().speed_class != rank_class[r]) {
                    runs.push_back({static_cast<int>(r), rank_class[r]});
                  }
                }
                return runs;
              }(),
              static_cast<int>(rank_class.size()), gpus_per_node) {}

int Cluster::class_of(int rank) const {
  const auto after = std::upper_bound(runs_.begin(), runs_.end(), rank, [](int r, const Run& run) { return r < run.first; });
  return std::prev(after)->speed_class;
}

Cluster Cluster::homogeneous(int gpus, int gpus_per_node) { return Cluster({1.0}, {Run{0, 0}}, gpus, gpus_per_node); }

Cluster Cluster::with_shares(int gpus, int gpus_per_node, std::span<const SpeedShare> shares) {
  // Largest remainders (Hamilton): each share floor(fraction x gpus) ranks,
  // then one more each to the largest remainders, the earlier share first on
  // a tie, until the ranks add up to `gpus`; the rest of the cluster, 1 -
  // the fractions' sum, competes as one more share at speed 1.
  std::vector<SpeedShare> all(shares.begin(), shares.end());
  double declared = 0.0;
  for (const SpeedShare& share : shares) declared += share.fraction;
  all.push_back({std::max(0.0, 1.0 - declared), 1.0});
  std::vector<long long> ranks;
  std::vector<double> remainder;
  long long given = 0;
  for (const SpeedShare& share : all) {
    // To 1e-9 of a rank, so that shares equal as written tie (red team: the rest of two thirds, 1 - 2/3, is
    // 0.33333333333333337 and took the first third's extra rank); exact to a few ulps at 2^20 GPUs.
    const double exact = std::round(share.fraction * gpus * 1e9) / 1e9;
    ranks.push_back(static_cast<long long>(std::floor(exact)));
    remainder.push_back(exact - std::floor(exact));
    given += ranks.back();
  }
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t i = 0; given < gpus; ++i, ++given) ++ranks[order[i % order.size()]];
  std::vector<double> speeds;
  std::vector<Run> runs;
  long long placed = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const long long count = std::min(ranks[i], static_cast<long long>(gpus) - placed);
    if (count <= 0) continue;
    speeds.push_back(all[i].speed);
    runs.push_back({static_cast<int>(placed), static_cast<int>(speeds.size()) - 1});
    placed += count;
  }
  return Cluster(std::move(speeds), std::move(runs), gpus, gpus_per_node);
}

}  // namespace mgsim
