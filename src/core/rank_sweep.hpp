#pragma once
// The exact shortcut for one compute stream per rank under interference
// (docs/variability.md): with one communication channel coupled to every
// rank, all ranks' compute runs at one rate at any instant (slowed while a
// message is in flight, full otherwise), and a message at one rate (slowed
// while any rank computes). So a virtual clock C(t), the integral of the
// compute rate, is shared by the ranks: an activity that starts at s with
// work w ends at the first nanosecond t with C(t) >= C(s) + w, which is
// exactly where the engine's rate bookkeeping ends it. RankSweep times a
// window message by message: the ranks' chains up to the message's
// producer (the latest end is when its tensors exist everywhere), then up
// to its start at full rate, then on through the message at the slowed
// rate; if every rank goes idle (waiting for a later message, or done)
// before the message would end at the slowed rate, it ends at full rate
// from there. Each rank's chain is walked once, without the engine's heap,
// and nothing is kept per rank but its place in its chain and its delays.

#include <vector>

#include "mgsim/random.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/replay.hpp"
#include "rank_chains.hpp"

namespace mgsim {

class RankSweep {
 public:
  /// `engine` holds `dag`, built with one stream of the trace's nominal
  /// profile; `plan` is the plan it replays. `law` may be null.
  RankSweep(const Engine& engine, const ReplayDag& dag, const TensorLayout& layout, const Plan& plan,
            const Cluster& cluster, const Variability& variability, const DelayLaw* law, Overlap overlap);

  /// Every rank's forward of the window before the first, from `start`;
  /// returns the first window's start, when the slowest one's ends.
  SimTime first_forward(SimTime start);
  /// Draws every rank's delays (rank by rank, in the order of the per-rank
  /// engine streams) and times the window that starts at `start`, each
  /// rank's backward where its forward of the previous window ended.
  ReplayDag::Ends run(Random& random, SimTime start);

 private:
  __extension__ using Work = __int128;  ///< virtual time: progress at full rate, in 1/kFullRate ns

  /// A stretch of time from `t0` at one compute rate; C(t0) = c0.
  struct Segment {
    SimTime t0;
    Work c0;
    Rate rate;
    Work at(SimTime t) const { return c0 + static_cast<Work>(t - t0) * rate; }
  };
  /// Where a rank is: its current activity (backward index, then length()
  /// + forward layer; done at the end), when it started or, waiting, when
  /// the previous one ended, and C then.
  struct Place {
    int next;
    SimTime since;
    Work c;
    Work target;  ///< C at which `next` ends, once it may start; -1 before
  };

  void draw(Random& random);
  SimTime work(std::size_t rank, int k) const;
  /// Starts `place.next` of `rank` (its target) unless it waits for a message.
  bool arm(std::size_t rank, Place& place) const;
  /// Walks `rank` through `segment` while its activities end by the time C
  /// reaches `limit` and its next activity is at most `last`; returns
  /// whether it is still computing then (false: waiting for a message or
  /// done, since `place.since`).
  bool walk(std::size_t rank, const Segment& segment, Work limit, int last);
  /// Times message `m`, the channel idle (compute at full rate) in `idle`
  /// since the previous one ended: returns its end, every rank walked to it.
  SimTime message(std::size_t m, const Segment& idle, SimTime window_start);

  RankChains chains_;
  Rate compute_rate_;
  Rate comm_rate_;
  std::vector<SimTime> duration_;    ///< per message, at full rate
  std::vector<SimTime> not_before_;  ///< per message, from the window's start
  std::vector<int> producer_;        ///< per message: the backward activity it waits for on every rank
  std::vector<int> gate_;            ///< per forward layer: the last message carrying it, or -1
  std::vector<SimTime> end_;         ///< per message, in this window
  std::vector<Work> c_end_;          ///< per message: C at its end
  std::size_t ended_ = 0;            ///< messages ended so far in this window
  std::size_t delays_per_rank_ = 0;  ///< RankChains::delayed() + 1
  std::vector<SimTime> delays_;      ///< per rank: its draws (RankChains::draw), read through RankChains::slot
  std::vector<Place> place_;         ///< per rank
  std::vector<SimTime> release_;     ///< per rank: where its backward starts
  std::vector<SimTime> backward_end_;  ///< per rank
  std::vector<SimTime> forward_time_;  ///< per rank: what its forward computed in this window, slowed where it overlapped a message
};

}  // namespace mgsim
