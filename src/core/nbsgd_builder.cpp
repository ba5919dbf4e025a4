#include "nbsgd_builder.hpp"

#include <algorithm>

#include "rank_compute.hpp"

namespace mgsim {

NbsgdBuilder::NbsgdBuilder(const BuildContext& context, NbsgdSettings settings)
    : settings_(settings),
      samples_per_minibatch_(static_cast<double>(context.workload.trace.batch_size) / settings.minibatches),
      allreduce_(CommCost(context.collective, context.cluster.size())(total_gradient_bytes(context.workload.trace))) {
  compute_time_ = rank_compute_times(context.workload, context.cluster, context.variability.stragglers);
  if (!context.variability.law.empty()) law_ = make_law(context.variability.law, context.variability.params);
}

SimTime NbsgdBuilder::trigger_time(SimTime start) const {
  const auto m = static_cast<std::size_t>(settings_.minibatches);
  std::vector<SimTime> finish;
  for (std::size_t r = 0; r < compute_time_.size(); ++r) finish.push_back(ends_[r * m + m - 1]);
  if (settings_.trigger == NbsgdTrigger::deadline) {
    return std::min(start + settings_.deadline, *std::max_element(finish.begin(), finish.end()));
  }
  const auto kth = finish.begin() + (settings_.k - 1);
  std::nth_element(finish.begin(), kth, finish.end());
  return *kth;
}

void NbsgdBuilder::build(Engine& engine, Random& random, SimTime start) {
  engine.clear();
  start_ = start;
  const auto m = static_cast<std::size_t>(settings_.minibatches);
  ends_.clear();
  for (const SimTime compute : compute_time_) {
    // Mini-batch j ends at (j + 1) / m of the compute, rounded once, so that the m add up to it (red team:
    // m rounded shares made 1 GPU's efficiency 1.0000000625).
    SimTime t = start, before = 0;
    for (std::size_t j = 1; j <= m; ++j) {
      const auto upto = static_cast<SimTime>((__extension__ static_cast<__int128>(compute) * j + m / 2) / m);
      const SimTime minibatch = upto - before;
      before = upto;
      ends_.push_back(t += minibatch + (law_ ? law_->draw(random, minibatch) : 0));
    }
  }
  const SimTime trigger = trigger_time(start);
  compute_.clear();
  kept_ = 0;
  wasted_ = 0;
  for (std::size_t r = 0; r < compute_time_.size(); ++r) {
    const auto first = ends_.begin() + static_cast<std::ptrdiff_t>(r * m);
    const auto done = static_cast<std::size_t>(std::upper_bound(first, first + static_cast<std::ptrdiff_t>(m), trigger) - first);
    // A mini-batch ending exactly at the trigger is finished, and none is in progress (red team: boundary ran one
    // more, 8 ms where 6 is right by hand).
    const bool between = done > 0 && first[static_cast<std::ptrdiff_t>(done) - 1] == trigger;
    SimTime stop = 0;
    if (done == m || between) {
      kept_ += static_cast<int>(done);
      stop = first[static_cast<std::ptrdiff_t>(done) - 1];
    } else if (settings_.stop == NbsgdStop::boundary) {
      kept_ += static_cast<int>(done) + 1;
      stop = first[static_cast<std::ptrdiff_t>(done)];
    } else {
      kept_ += static_cast<int>(done);
      stop = trigger;
      wasted_ += trigger - (done == 0 ? start : first[static_cast<std::ptrdiff_t>(done) - 1]);
    }
    compute_.push_back(engine.add(stop - start, start));
  }
  exchange_ = engine.add(allreduce_);
  for (ActivityId compute : compute_) engine.depend(exchange_, compute);
}

IterationTiming NbsgdBuilder::collect(const Engine& engine) const {
  IterationTiming timing{start_, engine.finish(exchange_), engine.start(exchange_)};
  timing.samples = kept_ * samples_per_minibatch_;
  for (ActivityId compute : compute_) timing.idle += engine.start(exchange_) - engine.finish(compute);
  timing.wasted = wasted_;
  timing.wait = timing.idle / static_cast<SimTime>(compute_.size());
  return timing;
}

}  // namespace mgsim
