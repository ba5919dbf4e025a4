#pragma once
// Decentralized gossip rounds (docs/decentralized.md): every round each rank
// computes its batch, then exchanges its model with its neighbours, one
// matching of the graph after another. D-PSGD uses every matching every
// round; MATCHA activates each matching with probability `budget`, one draw
// per matching per round from the one Random (a seed every rank shares).
// An exchange is one point-to-point transfer each way at once, alpha + beta
// x model bytes on the link joining the two ranks (intra-node or inter-node),
// and a rank does one exchange at a time. On a network with a shared fabric,
// an exchange between nodes lasts at least the bytes of its matching's
// exchanges between nodes (the model both ways each) at the fabric's rate,
// as if they ran together. With a barrier every rank starts a
// round when the last one has ended the previous; without, each starts as
// soon as its own exchanges have ended. With a delay law, each rank's compute
// gets one delay per round, drawn rank by rank before MATCHA's activations.
// Nothing in a round shares a rate or waits for more than two ranks, so the
// builder times it directly, as the engine would time the DAG of compute
// and exchanges: a rank's compute ends its work after it starts, and an
// exchange starts when both ranks' previous activities have ended (the
// engine holds one empty activity, so that a fresh engine marks a new run).
// Memory is a few numbers per rank.

#include <memory>
#include <vector>

#include "mgsim/iteration.hpp"

namespace mgsim {

struct GossipSettings {
  double budget = 1.0;  ///< probability that a matching is active in a round; 1: D-PSGD
  bool barrier = false;
};

class GossipBuilder : public IterationBuilder {
 public:
  GossipBuilder(const BuildContext& context, const Graph& graph, GossipSettings settings);
  void build(Engine& engine, Random& random, SimTime start) override;
  IterationTiming collect(const Engine& engine) const override;

  const std::vector<std::vector<Edge>>& matchings() const { return matchings_; }

 private:
  GossipSettings settings_;
  double samples_;
  std::vector<SimTime> compute_time_;  ///< per rank, nominal
  std::unique_ptr<DelayLaw> law_;      ///< null: no random delays
  std::vector<std::vector<Edge>> matchings_;
  std::vector<std::vector<SimTime>> exchange_time_;  ///< per matching, per edge
  SimTime start_ = 0;
  std::vector<SimTime> ready_;  ///< per rank: when this round's compute starts
  std::vector<SimTime> work_;   ///< per rank: this round's compute, its delay included
  std::vector<SimTime> end_;    ///< per rank: when its last activity of the round ends
  std::vector<SimTime> busy_;   ///< per rank: exchange time in the round
};

}  // namespace mgsim
