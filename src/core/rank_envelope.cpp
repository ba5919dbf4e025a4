#include "rank_envelope.hpp"

#include <algorithm>

#include "mgsim/simulation.hpp"

namespace mgsim {
namespace {

__extension__ using Wide = __int128;  // a sum over up to 2^20 ranks of times may pass int64

/// Each rank's speed: its class's, times the stragglers' for a straggler.
std::vector<double> rank_speeds(const Cluster& cluster, const Stragglers& stragglers) {
  std::vector<double> speeds;
  for (int r = 0; r < cluster.size(); ++r) speeds.push_back(cluster.speed(cluster.class_of(r)));
  for (const int r : stragglers.ranks) speeds[static_cast<std::size_t>(r)] *= stragglers.speed;
  return speeds;
}

}  // namespace

RankEnvelope::RankEnvelope(const Engine& engine, const ReplayDag::Stream& stream, const Cluster& cluster,
                           const Variability& variability, const DelayLaw* law)
    : law_(law),
      per_layer_(law != nullptr && variability.per == DelayUnit::layer),
      first_(stream.layer_first.front()),
      forward_ids_(stream.forward),
      end_(static_cast<std::size_t>(stream.last - first_ + 1)) {
  const std::size_t layers = stream.layer_first.size();
  const auto at = [this](ActivityId id) { return static_cast<std::size_t>(id - first_); };
  unit_of_.assign(end_.size(), -1);
  if (law_ != nullptr && !per_layer_) unit_of_[0] = static_cast<int>(layers) + 1;
  if (per_layer_) {
    for (std::size_t u = 0; u < layers; ++u) unit_of_[at(stream.layer_first[u])] = static_cast<int>(u) + 1;
  }
  const std::vector<double> ranks = rank_speeds(cluster, variability.stragglers);
  std::vector<double> speeds;
  for (const double speed : ranks) {
    const auto found = std::find(speeds.begin(), speeds.end(), speed);
    speed_of_rank_.push_back(static_cast<int>(found - speeds.begin()));
    if (found != speeds.end()) continue;
    speeds.push_back(speed);
    // A segment of a layer ends at a cut (a tensor's ready offset or the
    // layer's end), which a rank of this speed reaches at scaled_time(cut).
    std::vector<SimTime>& work = work_.emplace_back(end_.size(), 0);
    std::vector<SimTime>& nominal = nominal_.emplace_back();
    SimTime compute = 0;
    std::vector<SimTime>& forward = forward_work_.emplace_back();
    for (const ActivityId id : stream.forward) {
      forward.push_back(scaled_time(engine.work(id), speed));
      compute += forward.back();
    }
    nominal.push_back(compute);
    for (std::size_t u = 0; u < layers; ++u) {
      SimTime cut = 0;
      for (ActivityId id = stream.layer_first[u]; id <= stream.layer_last[u]; ++id) {
        const SimTime previous = cut;
        cut += engine.work(id);
        work[at(id)] = scaled_time(cut, speed) - scaled_time(previous, speed);
      }
      nominal.push_back(scaled_time(cut, speed));
      compute += nominal.back();
      if (stream.selection[u] >= 0) work[at(stream.selection[u])] = engine.work(stream.selection[u]);
    }
    nominal.push_back(compute);
  }
  slowest_ = static_cast<int>(std::min_element(speeds.begin(), speeds.end()) - speeds.begin());
}

std::vector<SimTime> RankEnvelope::forward_ends(std::span<const SimTime> gates) const {
  std::vector<SimTime> ends;
  for (const std::vector<SimTime>& forward : forward_work_) {
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
    for (const std::vector<SimTime>& nominal : nominal_) release.push_back(start + nominal[0]);
  }
  const SimTime origin = *std::min_element(release.begin(), release.end());
  std::fill(end_.begin(), end_.end(), 0);
  Wide computes = 0;    // sum over ranks of their compute: backward, then forward
  SimTime slowest = 0;  // the longest
  for (const int s : speed_of_rank_) {
    const std::vector<SimTime>& work = work_[static_cast<std::size_t>(s)];
    const std::vector<SimTime>& nominal = nominal_[static_cast<std::size_t>(s)];
    const SimTime offset = release[static_cast<std::size_t>(s)] - origin;
    SimTime t = offset + (per_layer_ ? law_->draw(random, nominal[0]) : 0);  // the forward's delay, before the backward
    for (std::size_t k = 0; k < end_.size(); ++k) {
      t += work[k];
      if (unit_of_[k] >= 0) t += law_->draw(random, nominal[static_cast<std::size_t>(unit_of_[k])]);
      end_[k] = std::max(end_[k], t);
    }
    computes += t - offset + nominal[0];
    slowest = std::max(slowest, t - offset + nominal[0]);
  }
  engine.set_not_before(first_, origin);
  SimTime previous = 0;
  for (std::size_t k = 0; k < end_.size(); ++k) {
    engine.set_work(first_ + static_cast<ActivityId>(k), end_[k] - previous);
    previous = end_[k];
  }
  // The messages gate every rank alike, after every rank's backward: the
  // slowest rank's forward ends last.
  const std::vector<SimTime>& forward = forward_work_[static_cast<std::size_t>(slowest_)];
  for (std::size_t l = 0; l < forward_ids_.size(); ++l) engine.set_work(forward_ids_[l], forward[l]);
  const auto ranks = static_cast<std::int64_t>(speed_of_rank_.size());
  return static_cast<SimTime>((ranks * static_cast<Wide>(slowest) - computes + ranks / 2) / ranks);
}

}  // namespace mgsim
