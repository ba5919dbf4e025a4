#pragma once
// The innermost "nn.Module: X" span around a forward operator of a Kineto
// trace, found in O(log M) plus the nesting depth per lookup instead of a
// scan of every module that starts before the operator. Private to
// kineto_import.

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "kineto_events.hpp"

namespace mgsim::profile::kineto {

/// The module spans of one trace, per thread, in start order. It points into
/// the vector it was built from, which must outlive it and not change.
class ModuleIndex {
 public:
  /// `modules` by start time (Events::modules).
  explicit ModuleIndex(const std::vector<Span>& modules);

  /// Of the modules on `op`'s thread that start at or before it and end at
  /// or after it, the one that starts last (of equal starts, the later in
  /// `modules`); nullptr when there is none. For well-nested modules that is
  /// the innermost one around `op`; for spans that overlap without nesting
  /// the same rule holds, so the answer is still a module that covers `op`.
  const Span* around(const Span& op) const;

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  struct Thread {
    std::vector<const Span*> by_start;
    /// Per module: the latest earlier one (in by_start) that ends later, or
    /// kNone. For well-nested modules, its parent (past parents that end
    /// with it).
    std::vector<std::size_t> up;
  };

  std::unordered_map<std::uint64_t, Thread> threads_;
};

}  // namespace mgsim::profile::kineto
