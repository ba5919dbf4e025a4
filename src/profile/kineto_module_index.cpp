#include "kineto_module_index.hpp"

#include <algorithm>

namespace mgsim::profile::kineto {

ModuleIndex::ModuleIndex(const std::vector<Span>& modules) {
  for (const Span& m : modules) threads_[m.thread].by_start.push_back(&m);
  for (auto& [thread, t] : threads_) {
    // One sweep with a stack of the modules that end later than every module
    // after them so far (ends strictly decreasing from the bottom): the top,
    // once those ending no later than module i are popped, is up[i].
    t.up.assign(t.by_start.size(), kNone);
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < t.by_start.size(); ++i) {
      while (!open.empty() && t.by_start[open.back()]->end_ns <= t.by_start[i]->end_ns) open.pop_back();
      if (!open.empty()) t.up[i] = open.back();
      open.push_back(i);
    }
  }
}

const Span* ModuleIndex::around(const Span& op) const {
  const auto found = threads_.find(op.thread);
  if (found == threads_.end()) return nullptr;
  const Thread& t = found->second;
  // The last module to start at or before the operator, then up: a module
  // skipped between i and up[i] ends no later than i, which ends before the
  // operator, so the first one reached that ends at or after the operator is
  // the latest-starting one that covers it.
  const auto after = std::upper_bound(t.by_start.begin(), t.by_start.end(), op.start_ns,
                                      [](std::int64_t start, const Span* m) { return start < m->start_ns; });
  std::size_t i = after == t.by_start.begin() ? kNone : static_cast<std::size_t>(after - t.by_start.begin()) - 1;
  while (i != kNone && t.by_start[i]->end_ns < op.end_ns) i = t.up[i];
  return i == kNone ? nullptr : t.by_start[i];
}

}  // namespace mgsim::profile::kineto
