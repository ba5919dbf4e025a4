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
  std::vector<double> speeds;
  std::vector<int> rank_class;
  for (const SpeedShare& share : shares) {
    const auto left = static_cast<long long>(gpus) - static_cast<long long>(rank_class.size());
    const auto ranks = std::min(std::llround(share.fraction * gpus), left);
    if (ranks <= 0) continue;
    speeds.push_back(share.speed);
    rank_class.insert(rank_class.end(), static_cast<std::size_t>(ranks), static_cast<int>(speeds.size()) - 1);
  }
  if (rank_class.size() < static_cast<std::size_t>(gpus)) {
    speeds.push_back(1.0);
    rank_class.resize(static_cast<std::size_t>(gpus), static_cast<int>(speeds.size()) - 1);
  }
  return Cluster(std::move(speeds), std::move(rank_class), gpus_per_node);
}

}  // namespace mgsim
