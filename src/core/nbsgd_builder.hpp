#pragma once
// Non-blocking SGD (He and Dube, docs/decentralized.md): each rank's batch is
// split into m mini-batches computed one after another; a trigger (the first
// rank to finish all m, the k-th, or a deadline) ends the round; every rank
// stops at its next mini-batch boundary (or, with stop = abort, at once,
// discarding the mini-batch in progress), and the accumulated gradients are
// averaged by one all-reduce of the whole model with the run's collective.
// With a delay law, every mini-batch of every rank gets one delay, drawn rank
// by rank, mini-batch by mini-batch, each round.

#include <memory>
#include <vector>

#include "mgsim/iteration.hpp"

namespace mgsim {

enum class NbsgdTrigger { kth, deadline };  ///< "first" is the k-th with k = 1
enum class NbsgdStop { boundary, abort };

struct NbsgdSettings {
  int minibatches = 4;
  NbsgdTrigger trigger = NbsgdTrigger::kth;
  int k = 1;
  SimTime deadline = 0;  ///< from the round's start (trigger deadline only)
  NbsgdStop stop = NbsgdStop::boundary;
};

class NbsgdBuilder : public IterationBuilder {
 public:
  NbsgdBuilder(const BuildContext& context, NbsgdSettings settings);
  void build(Engine& engine, Random& random, SimTime start) override;
  IterationTiming collect(const Engine& engine) const override;

 private:
  /// When the round ends its compute, from each rank's finish of all m.
  SimTime trigger_time(SimTime start) const;

  NbsgdSettings settings_;
  double samples_per_minibatch_;
  std::vector<SimTime> compute_time_;    ///< per rank, nominal: its m mini-batches together
  std::unique_ptr<DelayLaw> law_;        ///< null: no random delays
  SimTime allreduce_;
  SimTime start_ = 0;
  std::vector<SimTime> ends_;    ///< per rank, per mini-batch: when it ends (rank-major)
  std::vector<ActivityId> compute_;
  ActivityId exchange_ = 0;
  int kept_ = 0;  ///< mini-batches whose gradients the round applies, over all ranks
  SimTime wasted_ = 0;
};

}  // namespace mgsim
