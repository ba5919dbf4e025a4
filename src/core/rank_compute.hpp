#pragma once
// Each rank's compute of one iteration, as the builders that follow ranks one
// by one (Non-blocking SGD, gossip) start from: forward plus backward of the
// trace at its speed class, rounded once per class as scaled_profile does.

#include <vector>

#include "mgsim/cluster.hpp"
#include "mgsim/simulation.hpp"

namespace mgsim {

inline std::vector<SimTime> rank_compute_times(const Workload& workload, const Cluster& cluster) {
  std::vector<SimTime> per_class;
  for (int c = 0; c < cluster.class_count(); ++c) {
    per_class.push_back(scaled_profile(workload.profile, cluster.speed(c)).compute_time());
  }
  std::vector<SimTime> per_rank;
  per_rank.reserve(static_cast<std::size_t>(cluster.size()));
  for (int r = 0; r < cluster.size(); ++r) per_rank.push_back(per_class[static_cast<std::size_t>(cluster.class_of(r))]);
  return per_rank;
}

}  // namespace mgsim
