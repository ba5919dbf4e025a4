#pragma once
// The synchronous data-parallel iteration builder: the schedule plans once,
// from the cluster's nominal timings; every iteration replays that plan with
// one communication channel and, without variability, one compute stream per
// speed class, coupled by the interference model when the overlap is not
// ideal. With variability every rank has its own compute timeline:
// persistent stragglers slow theirs, and before each iteration the delay
// law's draws lengthen each rank's forward pass (per iteration) or its
// forward pass and every layer's backward (per layer), in the order
// docs/variability.md fixes (a forward's delay lengthens the window's first
// activity, the last layer's backward). With interference every rank is a compute
// stream of the engine; without, the streams are independent chains and
// RankEnvelope folds them, exactly, into one (unless a backward waits for
// parameters: ZeRO-3, FSDP; then every rank is a stream). Either way a message waits for
// its tensors on every rank: a collective starts when its last participant
// is ready. Each iteration is the window from the backward to the next
// forward (docs/domain.md section 1); a stream's backward starts where its
// forward of the previous window ended (all together in the first).
// With interference the ranks are folded too (RankSweep): they share one
// compute rate, so the builder times the window outside the engine, exactly
// as one engine stream per rank would. `fold` false keeps one engine stream
// per rank whatever the overlap: the reference the folded timings are
// tested against.

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "mgsim/iteration.hpp"
#include "rank_envelope.hpp"
#include "rank_sweep.hpp"
#include "mgsim/variability.hpp"

namespace mgsim {

class DataParallelBuilder : public IterationBuilder {
 public:
  DataParallelBuilder(const BuildContext& context, bool fold);

  /// The first iteration builds the DAG; the next ones rewind it. Then every
  /// rank's delays are drawn and set.
  void build(Engine& engine, Random& random, SimTime start) override;
  IterationTiming collect(const Engine& engine) const override;

  const Plan& plan() const { return plan_; }

 private:
  /// What the DAG runs: the placement's classes, one class per rank, or
  /// (envelope) one class of the trace's nominal profile.
  std::vector<GpuClass> streams() const;
  /// With variability, one engine stream per rank: the `streams` reference,
  /// or a plan the folded paths cannot time (a backward that waits for
  /// parameters: the envelope needs chains that never wait; parameter
  /// all-gathers under interference: the sweep times gradient messages only).
  bool per_rank() const {
    return !variability_.none() &&
           (!fold_ || gates_backward(plan_) || (!overlap_.ideal() && gathers_parameters(plan_)));
  }
  /// With variability and interference, the ranks folded on one shared compute clock (RankSweep).
  bool swept() const { return !variability_.none() && !per_rank() && !overlap_.ideal(); }
  /// The first window with the ranks folded under interference: the
  /// engine holds one empty activity, so that a fresh engine marks a new run.
  void start_sweep(Engine& engine, Random& random, SimTime start);
  /// Keeps each stream's nominal unit times and base works (after the DAG is built).
  void record_nominal(const Engine& engine, std::span<const GpuClass> classes);
  void draw_delays(Engine& engine, Random& random) const;

  const Workload& workload_;
  const Cluster& cluster_;
  Placement placement_;
  Plan plan_;
  Overlap overlap_;
  InterferenceModel interference_;
  Variability variability_;
  bool fold_;
  std::unique_ptr<DelayLaw> law_;  ///< null: no random delays
  /// Per stream, (1 + layers) entries: the nominal time of the forward pass,
  /// then of each layer in backward order (a slow-down law's base).
  std::vector<SimTime> nominal_;
  /// Per stream, per layer in backward order: the work of the activity its delay lengthens.
  std::vector<SimTime> base_work_;
  std::vector<SimTime> compute_;  ///< per stream: nominal forward + backward
  std::optional<ReplayDag> dag_;
  std::optional<RankEnvelope> envelope_;  ///< with variability and no interference
  std::optional<RankSweep> sweep_;        ///< with variability and interference
  ReplayDag::Ends sweep_ends_;            ///< of the window the sweep timed
  SimTime envelope_wait_ = 0;
  SimTime start_ = 0;
};

}  // namespace mgsim
