#include "mgsim/plan/frontier.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim::plan {

FrontierArena::FrontierArena(std::size_t bound, std::int64_t memory_limit, double max_candidates, double offered_before)
    : bound_(std::max<std::size_t>(bound, 2)),
      memory_limit_(memory_limit),
      max_candidates_(max_candidates),
      offered_(offered_before) {}

Frontier FrontierArena::leaf(SimTime time, std::int64_t memory, std::size_t op, std::size_t strategy) {
  if (memory > memory_limit_) return {};
  origins_.push_back({kNoOrigin, kNoOrigin, static_cast<std::int32_t>(op), static_cast<std::int32_t>(strategy)});
  return {{time, memory, static_cast<std::int32_t>(origins_.size() - 1)}};
}

void FrontierArena::offer(const Frontier& a) {
  offered_ += static_cast<double>(a.size());
  for (const FrontierPoint& p : a) candidates_.push_back({p.time, p.memory, p.origin, kNoOrigin});
}

void FrontierArena::offer_sum(const Frontier& a, const Frontier& b) {
  offered_ += static_cast<double>(a.size()) * static_cast<double>(b.size());
  for (const FrontierPoint& p : a) {
    for (const FrontierPoint& q : b) {
      const std::int64_t memory = p.memory + q.memory;
      if (memory <= memory_limit_) candidates_.push_back({p.time + q.time, memory, p.origin, q.origin});
    }
  }
}

std::int32_t FrontierArena::join(std::int32_t left, std::int32_t right) {
  if (right == kNoOrigin) return left;
  if (left == kNoOrigin) return right;
  if (origins_.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw ConfigError("plan search: too many frontier points; lower the frontier bound");
  }
  origins_.push_back({left, right, 0, 0});
  return static_cast<std::int32_t>(origins_.size() - 1);
}

Frontier FrontierArena::take() {
  if (offered_ > max_candidates_) {
    throw ConfigError(fmt::format("the search offered more than {:g} candidate plans (--max-work; {:.2g} to {:.2g} s "
                                  "at 12 to 25 M a second): plan fewer GPUs, with a lower --frontier-bound (or "
                                  "without --allow-replication, where given), or give a larger --max-work",
                                  max_candidates_, max_candidates_ / 2.5e7, max_candidates_ / 1.2e7));
  }
  std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& x, const Candidate& y) {
    return x.time != y.time ? x.time < y.time : x.memory < y.memory;
  });
  std::vector<const Candidate*> kept;
  for (const Candidate& c : candidates_) {
    if (kept.empty() || c.memory < kept.back()->memory) kept.push_back(&c);
  }
  if (kept.size() > bound_) {
    ++thinned_;
    std::vector<const Candidate*> spaced;
    for (std::size_t i = 0; i < bound_; ++i) spaced.push_back(kept[i * (kept.size() - 1) / (bound_ - 1)]);
    kept = std::move(spaced);
  }
  Frontier out;
  out.reserve(kept.size());
  for (const Candidate* c : kept) out.push_back({c->time, c->memory, join(c->left, c->right)});
  candidates_.clear();
  return out;
}

void FrontierArena::read_back(std::int32_t origin, std::vector<std::size_t>& assignment) const {
  std::vector<std::int32_t> stack{origin};
  while (!stack.empty()) {
    const std::int32_t id = stack.back();
    stack.pop_back();
    if (id == kNoOrigin) continue;
    const Origin& o = origins_[static_cast<std::size_t>(id)];
    if (o.left == kNoOrigin && o.right == kNoOrigin) {
      assignment[static_cast<std::size_t>(o.op)] = static_cast<std::size_t>(o.strategy);
    } else {
      stack.push_back(o.left);
      stack.push_back(o.right);
    }
  }
}

}  // namespace mgsim::plan
