#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <unordered_map>

#include "mgsim/error.hpp"
#include "mgsim/profile/records.hpp"

namespace mgsim::profile {
namespace {

/// A launching call and the GPU work it started.
struct Launch {
  const LaunchCall* call = nullptr;
  std::vector<const GpuActivity*> work;
};

/// The three boundary markers of one iteration, in CPU time.
struct Window {
  int iteration = 0;
  std::int64_t begin = 0;
  std::int64_t backward = 0;
  std::int64_t end = 0;
};

/// Launches that started GPU work, sorted by their CPU start; those of
/// collective kernels apart from the compute ones.
struct Launches {
  std::vector<Launch> compute;
  std::vector<Launch> collective;
};

Launches index_launches(const RecordSet& records, AttributionNotes& notes) {
  std::unordered_map<std::uint64_t, std::vector<const GpuActivity*>> work;
  for (const GpuActivity& activity : records.activities) work[activity.correlation].push_back(&activity);
  Launches launches;
  for (const LaunchCall& call : records.launches) {
    const auto found = work.find(call.correlation);
    if (found == work.end()) continue;
    // The GPU clock is converted to the CPU's: work cannot start before the call that launched it.
    for (const GpuActivity* a : found->second) {
      if (a->start_ns < call.start_ns) {
        throw TraceError(fmt::format("the GPU work of correlation {} starts at {} ns, before its launch at {} ns: "
                                     "a damaged trace or clocks that disagree",
                                     call.correlation, a->start_ns, call.start_ns));
      }
    }
    const bool collective = std::any_of(found->second.begin(), found->second.end(),
                                        [](const GpuActivity* a) { return a->collective; });
    (collective ? launches.collective : launches.compute).push_back({&call, std::move(found->second)});
    work.erase(found);
  }
  for (const auto& [correlation, orphans] : work) {
    notes.activities_without_launch += static_cast<int>(orphans.size());
    for (const GpuActivity* a : orphans) notes.activities_without_launch_ns += a->end_ns - a->start_ns;
  }
  for (std::vector<Launch>* list : {&launches.compute, &launches.collective}) {
    std::sort(list->begin(), list->end(), [](const Launch& a, const Launch& b) {
      if (a.call->start_ns != b.call->start_ns) return a.call->start_ns < b.call->start_ns;
      return a.call->correlation < b.call->correlation;
    });
  }
  return launches;
}

/// Iterations with all three boundary markers in order; others are counted.
std::vector<Window> find_windows(const std::vector<Marker>& markers, AttributionNotes& notes) {
  constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::min();
  std::map<int, std::array<std::int64_t, 3>> bounds;
  for (const Marker& marker : markers) {
    if (marker.kind != MarkerKind::iteration_begin && marker.kind != MarkerKind::backward_begin &&
        marker.kind != MarkerKind::iteration_end) {
      continue;
    }
    auto& b = bounds.try_emplace(marker.index, std::array<std::int64_t, 3>{kUnset, kUnset, kUnset}).first->second;
    b[static_cast<int>(marker.kind)] = marker.time_ns;
  }
  std::vector<Window> windows;
  for (const auto& [iteration, b] : bounds) {
    const bool complete = b[0] != kUnset && b[1] != kUnset && b[2] != kUnset && b[0] <= b[1] && b[1] <= b[2];
    if (complete) {
      windows.push_back({iteration, b[0], b[1], b[2]});
    } else {
      ++notes.incomplete_iterations;
    }
  }
  std::sort(windows.begin(), windows.end(), [](const Window& a, const Window& b) { return a.begin < b.begin; });
  return windows;
}

/// Launches whose CPU start lies in [from, to).
std::pair<std::size_t, std::size_t> launches_between(const std::vector<Launch>& launches, std::int64_t from,
                                                     std::int64_t to) {
  const auto start_before = [](const Launch& l, std::int64_t t) { return l.call->start_ns < t; };
  const auto first = std::lower_bound(launches.begin(), launches.end(), from, start_before);
  const auto last = std::lower_bound(first, launches.end(), to, start_before);
  return {static_cast<std::size_t>(first - launches.begin()), static_cast<std::size_t>(last - launches.begin())};
}

std::int64_t earliest_start(const std::vector<Launch>& launches, std::pair<std::size_t, std::size_t> range) {
  std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = range.first; i < range.second; ++i) {
    for (const GpuActivity* a : launches[i].work) earliest = std::min(earliest, a->start_ns);
  }
  return earliest;
}

/// The work of one launch that ends last.
const GpuActivity& last_ending(const Launch& launch) {
  return **std::max_element(launch.work.begin(), launch.work.end(),
                            [](const GpuActivity* a, const GpuActivity* b) { return a->end_ns < b->end_ns; });
}

/// The ready time of one gradient marker: among `candidates` (launches of the
/// marker's thread before it, in launch order), the stream of the last one,
/// and the latest end of their work on that stream. Nullopt without candidates.
std::optional<std::int64_t> ready_time(const std::vector<const Launch*>& candidates) {
  if (candidates.empty()) return std::nullopt;
  const std::uint32_t stream = last_ending(*candidates.back()).stream;
  const std::uint32_t device = last_ending(*candidates.back()).device;
  std::int64_t ready = std::numeric_limits<std::int64_t>::min();
  for (const Launch* launch : candidates) {
    for (const GpuActivity* a : launch->work) {
      if (a->stream == stream && a->device == device) ready = std::max(ready, a->end_ns);
    }
  }
  return ready;
}

/// The launches of one phase of an iteration (its forward or its backward),
/// per launching thread, in launch order, and when its GPU work started.
class Phase {
 public:
  Phase(const std::vector<Launch>& launches, std::pair<std::size_t, std::size_t> range)
      : start_(earliest_start(launches, range)) {
    for (std::size_t i = range.first; i < range.second; ++i) {
      by_thread_[launches[i].call->thread].push_back(&launches[i]);
      all_.push_back(&launches[i]);
    }
  }

  /// The earliest start of its GPU work (int64 max without work).
  std::int64_t start() const { return start_; }
  bool has_work() const { return !all_.empty(); }

  /// The GPU time of a CPU marker, from the phase's start: the latest end of
  /// the work its thread launched before it on the stream of the last such
  /// launch (ready_time). Nullopt when nothing was launched before it.
  std::optional<std::int64_t> time_of(const Marker& marker, AttributionNotes& notes) const {
    const auto thread = by_thread_.find(marker.thread);
    const std::vector<const Launch*>* pool = &all_;
    if (thread != by_thread_.end()) {
      pool = &thread->second;
    } else {
      ++notes.markers_any_thread;
    }
    const auto before = std::lower_bound(pool->begin(), pool->end(), marker.time_ns,
                                         [](const Launch* l, std::int64_t t) { return l->call->start_ns < t; });
    const std::optional<std::int64_t> at = ready_time({pool->begin(), before});
    if (!at) ++notes.markers_without_work;
    return at ? std::optional<std::int64_t>(std::max<std::int64_t>(0, *at - start_)) : std::nullopt;
  }

 private:
  std::int64_t start_;
  std::map<std::uint64_t, std::vector<const Launch*>> by_thread_;
  std::vector<const Launch*> all_;
};

class IterationAttributor {
 public:
  IterationAttributor(const std::vector<Launch>& launches, const Window& window, int parameter_count,
                      AttributionNotes& notes)
      : notes_(notes),
        forward_(launches, launches_between(launches, window.begin, window.backward)),
        backward_(launches, launches_between(launches, window.backward, window.end)) {
    timing_.iteration = window.iteration;
    timing_.ready_ns.assign(static_cast<std::size_t>(parameter_count), std::nullopt);
    timing_.forward_done_ns.assign(static_cast<std::size_t>(parameter_count), std::nullopt);
    if (backward_.has_work()) {
      timing_.forward_ns = forward_.has_work() ? std::max<std::int64_t>(0, backward_.start() - forward_.start()) : 0;
    }
  }

  bool has_backward_work() const { return backward_.has_work(); }

  /// A gradient marker: ready when the backward work launched before it ends
  /// (at the backward's start when none was).
  void mark(const Marker& marker) {
    auto& slot = timing_.ready_ns[static_cast<std::size_t>(marker.index)];
    if (slot) ++notes_.duplicate_markers;
    slot = backward_.time_of(marker, notes_).value_or(0);
  }

  /// A forward marker: the layer's forward ends when the forward work
  /// launched before it ends (unknown when none was).
  void mark_forward(const Marker& marker) {
    auto& slot = timing_.forward_done_ns[static_cast<std::size_t>(marker.index)];
    if (slot) ++notes_.duplicate_markers;
    slot = forward_.time_of(marker, notes_);
  }

  /// A comm marker: the first collective launch of its thread at or after
  /// it carries the message (DDP's comm hook launches it right away).
  void communicate(const Marker& marker, const std::vector<Launch>& collective) {
    const auto first = std::find_if(collective.begin(), collective.end(), [&](const Launch& l) {
      return l.call->thread == marker.thread && l.call->start_ns >= marker.time_ns;
    });
    if (first == collective.end()) {
      ++notes_.comm_markers_without_kernel;
      return;
    }
    std::int64_t start = std::numeric_limits<std::int64_t>::max(), end = std::numeric_limits<std::int64_t>::min();
    for (const GpuActivity* a : first->work) {
      start = std::min(start, a->start_ns);
      end = std::max(end, a->end_ns);
    }
    timing_.messages.push_back({marker.bytes, end - start});
  }

  IterationTiming finish() {
    for (const auto& ready : timing_.ready_ns) {
      if (ready) timing_.backward_ns = std::max(timing_.backward_ns, *ready);
    }
    return std::move(timing_);
  }

 private:
  AttributionNotes& notes_;
  IterationTiming timing_;
  Phase forward_;
  Phase backward_;
};

}  // namespace

std::vector<IterationTiming> attribute_iterations(const RecordSet& records, int parameter_count,
                                                  AttributionNotes& notes) {
  const Launches launches = index_launches(records, notes);
  const std::vector<Window> windows = find_windows(records.markers, notes);
  std::vector<IterationAttributor> attributors;
  attributors.reserve(windows.size());
  for (const Window& window : windows) attributors.emplace_back(launches.compute, window, parameter_count, notes);

  std::vector<const Marker*> marks;
  for (const Marker& marker : records.markers) {
    if (marker.kind == MarkerKind::grad_ready || marker.kind == MarkerKind::comm_launch ||
        marker.kind == MarkerKind::forward_done) {
      marks.push_back(&marker);
    }
  }
  std::stable_sort(marks.begin(), marks.end(),
                   [](const Marker* a, const Marker* b) { return a->time_ns < b->time_ns; });
  for (const Marker* mark : marks) {
    const bool forward = mark->kind == MarkerKind::forward_done;
    if (mark->kind != MarkerKind::comm_launch && (mark->index < 0 || mark->index >= parameter_count)) {
      ++notes.unknown_parameters;
      continue;
    }
    // Forward markers belong to a forward, the others to a backward.
    const auto window = std::find_if(windows.begin(), windows.end(), [&](const Window& w) {
      return forward ? w.begin <= mark->time_ns && mark->time_ns <= w.backward
                     : w.backward <= mark->time_ns && mark->time_ns <= w.end;
    });
    if (window == windows.end()) {
      ++notes.stray_markers;
      continue;
    }
    IterationAttributor& attributor = attributors[static_cast<std::size_t>(window - windows.begin())];
    if (forward) {
      attributor.mark_forward(*mark);
    } else if (mark->kind == MarkerKind::grad_ready) {
      attributor.mark(*mark);
    } else {
      attributor.communicate(*mark, launches.collective);
    }
  }

  std::vector<IterationTiming> timings;
  for (IterationAttributor& attributor : attributors) {
    if (!attributor.has_backward_work()) {
      ++notes.incomplete_iterations;
      continue;
    }
    timings.push_back(attributor.finish());
  }
  if (timings.empty()) {
    throw TraceError(
        fmt::format("no complete measured iteration in the records ({} with missing boundary markers or "
                    "no backward GPU work)",
                    notes.incomplete_iterations));
  }
  return timings;
}

}  // namespace mgsim::profile
