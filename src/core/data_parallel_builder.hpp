#pragma once
// The synchronous data-parallel iteration builder: the schedule plans once,
// from the cluster's nominal timings; every iteration replays that plan with
// one compute stream per speed class and one communication channel, coupled
// by the interference model when the overlap is not ideal.

#include <optional>

#include "mgsim/iteration.hpp"

namespace mgsim {

class DataParallelBuilder : public IterationBuilder {
 public:
  explicit DataParallelBuilder(const BuildContext& context)
      : workload_(context.workload),
        placement_(context.workload, context.cluster, context.collective),
        plan_(context.schedule.plan(placement_.problem)),
        overlap_(context.overlap),
        samples_(static_cast<double>(context.cluster.size()) * context.workload.trace.batch_size),
        interference_(context.overlap) {}

  /// The first iteration builds the DAG; the next ones rewind it.
  void build(Engine& engine, Random&, SimTime start) override {
    start_ = start;
    if (dag_ && engine.size() > 0) {
      dag_->restart(engine, start);
      return;
    }
    InterferenceModel* model = overlap_.ideal() ? nullptr : &interference_;
    interference_.clear();
    engine.set_rate_model(model);
    dag_.emplace(engine, placement_.classes, workload_.layout, plan_, start, model);
  }

  IterationTiming collect(const Engine& engine) const override {
    const ReplayDag::Ends ends = dag_->ends(engine);
    IterationTiming timing{start_, ends.iteration_end, ends.compute_end};
    timing.samples = samples_;
    return timing;
  }

  const Plan& plan() const { return plan_; }

 private:
  const Workload& workload_;
  Placement placement_;
  Plan plan_;
  Overlap overlap_;
  double samples_;
  InterferenceModel interference_;
  std::optional<ReplayDag> dag_;
  SimTime start_ = 0;
};

}  // namespace mgsim
