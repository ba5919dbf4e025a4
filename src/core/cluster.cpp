#include "mgsim/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mgsim {

Cluster::Cluster(std::vector<double> speeds, std::vector<int> rank_class, int gpus_per_node)
    : speeds_(std::move(speeds)), rank_class_(std::move(rank_class)), gpus_per_node_(gpus_per_node) {
  if (rank_class_.empty() || gpus_per_node_ < 1) throw std::invalid_argument("cluster: needs ranks and gpus_per_node >= 1");
  class_size_.assign(speeds_.size(), 0);
  for (int c : rank_class_) {
    if (c < 0 || c >= class_count()) throw std::invalid_argument("cluster: a rank names an unknown speed class");
    ++class_size_[static_cast<std::size_t>(c)];
  }
  for (double speed : speeds_) {
    if (!(speed > 0.0) || !std::isfinite(speed)) throw std::invalid_argument("cluster: speeds must be finite and > 0");
  }
}

Cluster Cluster::homogeneous(int gpus, int gpus_per_node) {
  return Cluster({1.0}, std::vector<int>(static_cast<std::size_t>(gpus), 0), gpus_per_node);
}

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
    const double exact = share.fraction * gpus;
    ranks.push_back(static_cast<long long>(std::floor(exact)));
    remainder.push_back(exact - std::floor(exact));
    given += ranks.back();
  }
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t i = 0; given < gpus; ++i, ++given) ++ranks[order[i % order.size()]];
  std::vector<double> speeds;
  std::vector<int> rank_class;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const long long count = std::min(ranks[i], static_cast<long long>(gpus) - static_cast<long long>(rank_class.size()));
    if (count <= 0) continue;
    speeds.push_back(all[i].speed);
    rank_class.insert(rank_class.end(), static_cast<std::size_t>(count), static_cast<int>(speeds.size()) - 1);
  }
  return Cluster(std::move(speeds), std::move(rank_class), gpus_per_node);
}

}  // namespace mgsim
