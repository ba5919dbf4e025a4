#pragma once
// Every rank's compute chain in one window, as the folded timings
// (RankEnvelope without interference, RankSweep with it) read it: the
// activities of one nominal engine stream (the trace at speed 1) at each
// rank's speed, kept once per distinct speed, and where the delay law's
// draws go. A rank's chain is the backward activities first, first + 1, ...
// (segments and selections, in chain order), then the next forward, layer
// by layer. The per-rank engine streams of the data-parallel builder cut the
// same layers at the same scaled times, so each activity ends when theirs do.

#include <span>
#include <vector>

#include "mgsim/cluster.hpp"
#include "mgsim/engine.hpp"
#include "mgsim/random.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/variability.hpp"

namespace mgsim {

struct RankChains {
  /// `stream`: the engine's nominal stream; `law` may be null (no random delays).
  RankChains(const Engine& engine, const ReplayDag::Stream& stream, const Cluster& cluster,
             const Variability& variability, const DelayLaw* law);

  /// Backward activities per chain.
  std::size_t length() const { return slot.size(); }
  /// Activities that take a delay: 0 without a law, else 1 per iteration or one per layer.
  std::size_t delayed() const { return drawn.empty() ? 0 : drawn.front().size() - (per_layer ? 1 : 0); }
  /// Draws the delays of a rank of `speed` (a law is given), in the
  /// documented order, into `draws` (delayed() + 1 long): backward activity
  /// k's delay is draws[slot[k]], the forward's added to the first
  /// activity's; draws[0] is 0, the slot of the activities that take none.
  void draw(Random& random, int speed, std::span<SimTime> draws) const {
    const std::vector<SimTime>& units = drawn[static_cast<std::size_t>(speed)];
    law->draw_all(random, units, draws.subspan(per_layer ? 0 : 1, units.size()));
    if (per_layer) draws[1] += draws[0];
    draws[0] = 0;
  }

  const DelayLaw* law;
  bool per_layer;    ///< a delay per layer, and one for the forward drawn before the backward's
  ActivityId first;  ///< the nominal stream's first backward activity
  /// Per backward activity: where draw() puts its delay; 0 if it takes none,
  /// else 1, 2, ... in chain order.
  std::vector<int> slot;
  std::vector<std::vector<SimTime>> work;     ///< per distinct speed: each backward activity's work
  std::vector<std::vector<SimTime>> forward;  ///< per distinct speed: each forward layer's work
  /// Per distinct speed: the nominal time of the forward pass, of each layer
  /// (backward order), then of the whole compute.
  std::vector<std::vector<SimTime>> nominal;
  /// Per distinct speed (none without a law): the nominal time of each unit
  /// that takes a delay, in draw order (the forward's first when per layer).
  std::vector<std::vector<SimTime>> drawn;
  std::vector<int> speed_of_rank;  ///< index into work, forward, nominal and drawn
  int slowest = 0;                 ///< the distinct speed that is slowest
};

}  // namespace mgsim
