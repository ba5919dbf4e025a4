#include "mgsim/rate_model.hpp"

#include <algorithm>
#include <cmath>

namespace mgsim {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

}  // namespace

Rate slowed_rate(double slowdown) {
  return std::max<Rate>(1, std::llround(static_cast<double>(kFullRate) / (1.0 + slowdown)));
}

InterferenceModel::InterferenceModel(Overlap overlap)
    : compute_rate_(slowed_rate(overlap.compute_slowdown)), comm_rate_(slowed_rate(overlap.comm_slowdown)) {}

void InterferenceModel::grow(ResourceId r) {
  if (at(r) < coupled_.size()) return;
  coupled_.resize(at(r) + 1);
  running_.resize(at(r) + 1);
  busy_partners_.resize(at(r) + 1, 0);
}

void InterferenceModel::couple(ResourceId compute, ResourceId comm) {
  grow(std::max(compute, comm));
  coupled_[at(compute)].push_back(comm);
  coupled_[at(comm)].push_back(compute);
}

void InterferenceModel::clear() {
  coupled_.clear();
  running_.clear();
  busy_partners_.clear();
}

void InterferenceModel::update(const Engine& engine, ActivityId id, bool active, std::vector<ActivityId>& changed) {
  for (ResourceId r : engine.resources(id)) {
    grow(r);
    auto& running = running_[at(r)];
    if (active) {
      running.push_back(id);
    } else {
      running.erase(std::find(running.begin(), running.end(), id));
    }
    // Only a resource turning busy or idle changes its partners' rates.
    if (running.size() != (active ? 1u : 0u)) continue;
    for (ResourceId partner : coupled_[at(r)]) {
      int& busy = busy_partners_[at(partner)];
      busy += active ? 1 : -1;
      if (busy == (active ? 1 : 0)) changed.insert(changed.end(), running_[at(partner)].begin(), running_[at(partner)].end());
    }
  }
}

Rate InterferenceModel::rate(const Engine& engine, ActivityId id) const {
  for (ResourceId r : engine.resources(id)) {
    if (at(r) < busy_partners_.size() && busy_partners_[at(r)] > 0) {
      return engine.resource_kind(r) == kComputeResource ? compute_rate_ : comm_rate_;
    }
  }
  return kFullRate;
}

}  // namespace mgsim
