#pragma once
// Rate models: how fast each running activity of the engine progresses, given
// what else is running. The engine asks a model only at events: when an
// activity starts or finishes, the model names the other running activities
// whose rate may have changed, and the engine re-reads their rates, books
// the progress made at the old rate and moves their finish events. Rates are
// piecewise constant between events, so the integration is exact.
//
// InterferenceModel is the first model: compute and communication that run
// at the same time on one GPU slow each other down (docs/fidelity.md).

#include <vector>

#include "mgsim/engine.hpp"

namespace mgsim {

/// The kinds of resource the shipped models distinguish.
enum ResourceKind : int { kComputeResource = 0, kCommResource = 1 };

class RateModel {
 public:
  virtual ~RateModel() = default;
  /// `id` has just started (`active`) or finished. Appends to `changed` the
  /// running activities whose rate may now differ (duplicates allowed).
  virtual void update(const Engine& engine, ActivityId id, bool active, std::vector<ActivityId>& changed) = 0;
  /// The rate of running activity `id` now, in (0, kFullRate].
  virtual Rate rate(const Engine& engine, ActivityId id) const = 0;
};

/// The settings of compute/communication interference: while a message is in
/// flight on a GPU, its compute progresses at 1 / (1 + compute_slowdown) of
/// full speed; while compute runs, a message progresses at
/// 1 / (1 + comm_slowdown). Both 0: no interference.
struct Overlap {
  double compute_slowdown = 0.0;
  double comm_slowdown = 0.0;
  bool ideal() const { return compute_slowdown == 0.0 && comm_slowdown == 0.0; }
};

/// A rate as the engine counts it: kFullRate / (1 + slowdown), rounded, at least 1.
Rate slowed_rate(double slowdown);

/// Interference between coupled resources: a compute resource and the
/// communication resources of the same GPU (or GPU class). An activity on a
/// compute resource is slowed while any coupled communication resource is
/// busy, and the reverse; an activity on several resources is slowed when any
/// of them is.
class InterferenceModel : public RateModel {
 public:
  explicit InterferenceModel(Overlap overlap);
  /// Declares that `compute` and `comm` belong to the same GPU.
  void couple(ResourceId compute, ResourceId comm);
  /// Forgets the couplings and the running activities (for engine.clear()).
  void clear();

  void update(const Engine& engine, ActivityId id, bool active, std::vector<ActivityId>& changed) override;
  Rate rate(const Engine& engine, ActivityId id) const override;

 private:
  void grow(ResourceId r);

  Rate compute_rate_;
  Rate comm_rate_;
  std::vector<std::vector<ResourceId>> coupled_;  ///< per resource
  std::vector<std::vector<ActivityId>> running_;  ///< per resource
  std::vector<int> busy_partners_;                ///< per resource: coupled resources now busy
};

}  // namespace mgsim
