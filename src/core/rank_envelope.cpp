#include "rank_envelope.hpp"

#include <algorithm>

namespace mgsim {
namespace {

__extension__ using Wide = __int128;  // a sum over up to 2^20 ranks of times may pass int64

}  // namespace

RankEnvelope::RankEnvelope(const Engine& engine, const ReplayDag::Stream& stream, const Cluster& cluster,
                           const Variability& variability, const DelayLaw* law)
    : chains_(engine, stream, cluster, variability, law),
      forward_ids_(stream.forward),
      end_(chains_.length()),
      draws_(chains_.delayed() + 1, 0) {}

std::vector<SimTime> RankEnvelope::forward_ends(std::span<const SimTime> gates) const {
  std::vector<SimTime> ends;
  for (const std::vector<SimTime>& forward : chains_.forward) {
    if (gates.empty()) break;
    SimTime t = gates.front();
    for (std::size_t l = 0; l < forward.size(); ++l) t = std::max(t, gates[l]) + forward[l];
    ends.push_back(t);
  }
  return ends;
}

SimTime RankEnvelope::apply(Engine& engine, Random& random, SimTime start, std::span<const SimTime> gates) {
  // Each rank's backward starts where its forward of the previous window
  // ended: after the gates, at its speed (from `start` the first time).
  std::vector<SimTime> release = forward_ends(gates);
  if (gates.empty()) {
    for (const std::vector<SimTime>& nominal : chains_.nominal) release.push_back(start + nominal[0]);
  }
  const SimTime origin = *std::min_element(release.begin(), release.end());
  std::fill(end_.begin(), end_.end(), 0);
  Wide computes = 0;    // sum over ranks of their compute: backward, then forward
  SimTime slowest = 0;  // the longest
  for (const int s : chains_.speed_of_rank) {
    const std::vector<SimTime>& work = chains_.work[static_cast<std::size_t>(s)];
    const std::vector<SimTime>& nominal = chains_.nominal[static_cast<std::size_t>(s)];
    const SimTime offset = release[static_cast<std::size_t>(s)] - origin;
    if (chains_.law != nullptr) chains_.draw(random, s, draws_);
    SimTime t = offset;
    for (std::size_t k = 0; k < end_.size(); ++k) {
      t += work[k] + draws_[static_cast<std::size_t>(chains_.slot[k])];
      end_[k] = std::max(end_[k], t);
    }
    computes += t - offset + nominal[0];
    slowest = std::max(slowest, t - offset + nominal[0]);
  }
  engine.set_not_before(chains_.first, origin);
  SimTime previous = 0;
  for (std::size_t k = 0; k < end_.size(); ++k) {
    engine.set_work(chains_.first + static_cast<ActivityId>(k), end_[k] - previous);
    previous = end_[k];
  }
  // The messages gate every rank alike, after every rank's backward: the
  // slowest rank's forward ends last.
  const std::vector<SimTime>& forward = chains_.forward[static_cast<std::size_t>(chains_.slowest)];
  for (std::size_t l = 0; l < forward_ids_.size(); ++l) engine.set_work(forward_ids_[l], forward[l]);
  const auto ranks = static_cast<std::int64_t>(chains_.speed_of_rank.size());
  return static_cast<SimTime>((ranks * static_cast<Wide>(slowest) - computes + ranks / 2) / ranks);
}

}  // namespace mgsim
