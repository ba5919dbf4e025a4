#pragma once
// Every rank's compute chain in one window, as the folded timings
// (RankEnvelope without interference, RankSweep with it) read it: the
// activities of one nominal engine stream (the trace at speed 1) at each
// rank's speed, kept once per distinct speed, and where the delay law's
// draws go. A rank's chain is the backward activities first, first + 1, ...
// (segments and selections, in chain order), then the next forward, layer
// by layer. The per-rank engine streams of the data-parallel builder cut the
// same layers at the same scaled times, so each activity ends when theirs do.

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
  std::size_t length() const { return unit_of.size(); }
  /// The delay a rank of `speed` draws for its forward, before the others
  /// (per-layer delays only; 0 otherwise): it lengthens the chain's first activity.
  SimTime forward_delay(Random& random, int speed) const {
    return per_layer ? law->draw(random, nominal[static_cast<std::size_t>(speed)][0]) : 0;
  }
  /// The delay of backward activity `k` (0 where it takes none), drawn in chain order.
  SimTime delay(Random& random, int speed, std::size_t k) const {
    const int unit = unit_of[k];
    return unit < 0 ? 0 : law->draw(random, nominal[static_cast<std::size_t>(speed)][static_cast<std::size_t>(unit)]);
  }

  const DelayLaw* law;
  bool per_layer;    ///< a delay per layer, and one for the forward drawn before the backward's
  ActivityId first;  ///< the nominal stream's first backward activity
  /// Per backward activity: the unit whose delay it takes, an index into a
  /// row of nominal, or -1.
  std::vector<int> unit_of;
  std::vector<std::vector<SimTime>> work;     ///< per distinct speed: each backward activity's work
  std::vector<std::vector<SimTime>> forward;  ///< per distinct speed: each forward layer's work
  /// Per distinct speed: the nominal time of the forward pass, of each layer
  /// (backward order), then of the whole compute.
  std::vector<std::vector<SimTime>> nominal;
  std::vector<int> speed_of_rank;  ///< index into work, forward and nominal
  int slowest = 0;                 ///< the distinct speed that is slowest
};

}  // namespace mgsim
