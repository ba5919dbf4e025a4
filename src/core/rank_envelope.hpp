#pragma once
// The exact shortcut for one compute stream per rank when nothing couples
// the streams (no rate model): a rank's compute is a chain that never waits,
// so its activities end at the prefix sums of their works, and a message
// waits for the latest of those ends over the ranks. RankEnvelope replays
// every rank's chain (its speed, its delays) outside the engine and sets the
// works of one stream so that each of its activities ends when the last
// rank's does; the engine then times the messages exactly as it would with
// one stream per rank, at the cost of one (docs/variability.md). The next
// forward, gated by the messages, is the slowest rank's.

#include <span>
#include <vector>

#include "mgsim/cluster.hpp"
#include "mgsim/engine.hpp"
#include "mgsim/random.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/variability.hpp"
#include "rank_chains.hpp"

namespace mgsim {

class RankEnvelope {
 public:
  /// `stream`: the engine's one compute stream, built from the trace's nominal
  /// profile (speed 1, no delay); `law` may be null (no random delays).
  RankEnvelope(const Engine& engine, const ReplayDag::Stream& stream, const Cluster& cluster,
               const Variability& variability, const DelayLaw* law);
  /// Draws every rank's delays, rank by rank in the documented order, and
  /// sets the stream's works and its backward's earliest start: each rank's
  /// backward starts where its forward of the previous window ended, after
  /// `gates` (ReplayDag::gates of that window; empty: the first window,
  /// each rank's forward from `start`). Returns the mean over ranks of the wait from a rank's end of
  /// compute (backward and forward) to the slowest rank's, rounded.
  SimTime apply(Engine& engine, Random& random, SimTime start, std::span<const SimTime> gates);
  /// The slowest rank's forward.
  SimTime slowest_forward() const { return chains_.nominal[static_cast<std::size_t>(chains_.slowest)][0]; }

 private:
  /// Per distinct speed: where its forward ends after `gates` (none if empty).
  std::vector<SimTime> forward_ends(std::span<const SimTime> gates) const;

  RankChains chains_;
  std::vector<ActivityId> forward_ids_;  ///< the stream's forward, per layer
  std::vector<SimTime> end_;             ///< per backward activity: the latest end over the ranks so far
  std::vector<SimTime> draws_;           ///< one rank's delays (RankChains::draw)
};

}  // namespace mgsim
