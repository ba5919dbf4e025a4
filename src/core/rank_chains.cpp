#include "rank_chains.hpp"

#include <algorithm>

#include "mgsim/simulation.hpp"

namespace mgsim {
namespace {

/// Each rank's speed: its class's, times the stragglers' for a straggler.
std::vector<double> rank_speeds(const Cluster& cluster, const Stragglers& stragglers) {
  std::vector<double> speeds;
  for (int r = 0; r < cluster.size(); ++r) speeds.push_back(cluster.speed(cluster.class_of(r)));
  for (const int r : stragglers.ranks) speeds[static_cast<std::size_t>(r)] *= stragglers.speed;
  return speeds;
}

/// Per backward activity of `stream`: the unit whose delay it takes, an
/// index into a row of RankChains::nominal, or -1.
std::vector<int> units_of(const ReplayDag::Stream& stream, std::size_t length, bool delays, bool per_layer) {
  std::vector<int> unit_of(length, -1);
  const std::size_t layers = stream.layer_first.size();
  if (delays && !per_layer) unit_of[0] = static_cast<int>(layers) + 1;
  if (per_layer) {
    for (std::size_t u = 0; u < layers; ++u) {
      unit_of[static_cast<std::size_t>(stream.layer_first[u] - stream.layer_first.front())] = static_cast<int>(u) + 1;
    }
  }
  return unit_of;
}

}  // namespace

RankChains::RankChains(const Engine& engine, const ReplayDag::Stream& stream, const Cluster& cluster,
                       const Variability& variability, const DelayLaw* law)
    : law(law),
      per_layer(law != nullptr && variability.per == DelayUnit::layer),
      first(stream.layer_first.front()),
      slot(static_cast<std::size_t>(stream.last - first + 1), 0) {
  const std::size_t layers = stream.layer_first.size();
  const auto at = [this](ActivityId id) { return static_cast<std::size_t>(id - first); };
  const std::vector<int> unit_of = units_of(stream, length(), law != nullptr, per_layer);
  int delayed = 0;
  for (std::size_t k = 0; k < length(); ++k) slot[k] = unit_of[k] < 0 ? 0 : ++delayed;
  std::vector<double> speeds;
  for (const double speed : rank_speeds(cluster, variability.stragglers)) {
    const auto found = std::find(speeds.begin(), speeds.end(), speed);
    speed_of_rank.push_back(static_cast<int>(found - speeds.begin()));
    if (found != speeds.end()) continue;
    speeds.push_back(speed);
    // A segment of a layer ends at a cut (a tensor's ready offset or the
    // layer's end), which a rank of this speed reaches at scaled_time(cut).
    std::vector<SimTime>& times = work.emplace_back(length(), 0);
    std::vector<SimTime>& nominals = nominal.emplace_back();
    std::vector<SimTime>& forwards = forward.emplace_back();
    SimTime compute = 0;
    for (const ActivityId id : stream.forward) {
      forwards.push_back(scaled_time(engine.work(id), speed));
      compute += forwards.back();
    }
    nominals.push_back(compute);
    for (std::size_t u = 0; u < layers; ++u) {
      SimTime cut = 0;
      for (ActivityId id = stream.layer_first[u]; id <= stream.layer_last[u]; ++id) {
        const SimTime previous = cut;
        cut += engine.work(id);
        times[at(id)] = scaled_time(cut, speed) - scaled_time(previous, speed);
      }
      nominals.push_back(scaled_time(cut, speed));
      compute += nominals.back();
      if (stream.selection[u] >= 0) times[at(stream.selection[u])] = scaled_time(engine.work(stream.selection[u]), speed);
    }
    nominals.push_back(compute);
    if (law == nullptr) continue;
    std::vector<SimTime>& units = drawn.emplace_back();
    if (per_layer) units.push_back(nominals[0]);
    for (const int unit : unit_of) {
      if (unit >= 0) units.push_back(nominals[static_cast<std::size_t>(unit)]);
    }
  }
  slowest = static_cast<int>(std::min_element(speeds.begin(), speeds.end()) - speeds.begin());
}

}  // namespace mgsim
