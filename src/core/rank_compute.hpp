#pragma once
// Each rank's compute of one iteration, as the builders that follow ranks one
// by one (Non-blocking SGD, gossip) start from: forward plus backward of the
// trace at its speed class, times the stragglers' speed for a persistent
// straggler (as the data-parallel builder does), rounded once per profile.

#include <algorithm>
#include <map>
#include <vector>

#include "mgsim/cluster.hpp"
#include "mgsim/simulation.hpp"
#include "mgsim/variability.hpp"

namespace mgsim {

inline std::vector<SimTime> rank_compute_times(const Workload& workload, const Cluster& cluster,
                                               const Stragglers& stragglers) {
  std::vector<SimTime> per_rank;
  per_rank.reserve(static_cast<std::size_t>(cluster.size()));
  std::map<double, SimTime> known;  // per distinct speed, its compute: each profile is scaled once
  for (int r = 0; r < cluster.size(); ++r) {
    const bool slow = std::find(stragglers.ranks.begin(), stragglers.ranks.end(), r) != stragglers.ranks.end();
    const double speed = cluster.speed(cluster.class_of(r)) * (slow ? stragglers.speed : 1.0);
    auto found = known.find(speed);
    if (found == known.end()) found = known.emplace(speed, scaled_profile(workload.profile, speed).compute_time()).first;
    per_rank.push_back(found->second);
  }
  return per_rank;
}

}  // namespace mgsim
