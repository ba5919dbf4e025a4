#pragma once
// The discrete-event engine: a DAG of activities on an integer-nanosecond
// clock. An activity carries an amount of work (nanoseconds at full speed) and
// runs on zero or more resources (a rank's compute stream, a communication
// channel, a link). It starts once every activity it depends on has finished
// and its own earliest start has come. How fast it progresses is decided by a
// rate model (rate_model.hpp) from what else is active; rates are piecewise
// constant, recomputed only at events, and integrated exactly in integer
// arithmetic. Without a rate model every activity runs at full speed and
// finishes `work` after it starts.
//
// Events sit in an indexed 4-ary heap keyed by (time, sequence), so equal
// times resolve in insertion order and runs are bit-reproducible. An activity
// has at most one finish event in the heap: a rate change moves it in place.
// An on-finish callback may add activities and dependencies while the engine
// runs (partners chosen during the run, trigger policies). The engine knows nothing
// of GPUs or collectives: iteration builders (iteration.hpp) make the DAG.

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "mgsim/time.hpp"

namespace mgsim {

using ActivityId = int;
using ResourceId = int;

/// Progress per nanosecond, in units of 1/kFullRate of full speed.
using Rate = std::int64_t;
inline constexpr Rate kFullRate = Rate{1} << 16;

class Engine;
class RateModel;

/// Called when an activity finishes; may add activities and dependencies.
using FinishCallback = std::function<void(Engine&, ActivityId)>;

class Engine {
 public:
  /// Adds an activity of `work` nanoseconds at full speed on `resources`; it
  /// may start at `not_before` at the earliest. Throws std::invalid_argument
  /// for negative work or unknown resources.
  ActivityId add(SimTime work, SimTime not_before = 0, std::span<const ResourceId> resources = {});
  /// Adds a resource activities can run on; `kind` is the rate model's label.
  ResourceId add_resource(int kind = 0);
  /// `later` starts only after `earlier` has finished (no wait if it has).
  /// Throws std::logic_error if `later` has already started.
  void depend(ActivityId later, ActivityId earlier);
  /// Calls `callback` when `id` finishes, before its dependents start.
  void on_finish(ActivityId id, FinishCallback callback);
  /// Rates come from `model` (not owned; it must outlive run()). None: full speed.
  void set_rate_model(RateModel* model) { rate_model_ = model; }

  /// Runs every activity to completion, once; returns the number of events
  /// processed (starts delayed by a rate model and rate changes not counted).
  /// Throws std::logic_error if the dependencies form a cycle or the engine
  /// has already run.
  std::int64_t run();
  /// Forgets every activity, resource and callback but keeps the memory, so
  /// that one engine replays many iterations without reallocating.
  void clear();
  /// Keeps the activities, dependencies, resources and callbacks (those added
  /// during the last run included, but not dependencies on activities that
  /// had already finished when they were added) and forgets the run, so that the same DAG
  /// runs again, after set_work() / set_not_before() where it should differ.
  void rewind();
  void set_work(ActivityId id, SimTime work);
  void set_not_before(ActivityId id, SimTime not_before) { node(id).not_before = not_before; }

  SimTime now() const { return now_; }
  SimTime start(ActivityId id) const { return node(id).start; }
  SimTime finish(ActivityId id) const { return node(id).finish; }
  SimTime work(ActivityId id) const { return node(id).work; }
  bool finished(ActivityId id) const { return node(id).finish >= 0; }
  int size() const { return static_cast<int>(nodes_.size()); }
  int resource_count() const { return static_cast<int>(resource_kind_.size()); }
  int resource_kind(ResourceId r) const { return resource_kind_[static_cast<std::size_t>(r)]; }
  std::span<const ResourceId> resources(ActivityId id) const;

 private:
  __extension__ using Work = __int128;  // remaining work in units of 1/kFullRate ns: no overflow
  static constexpr SimTime kMaxFast = SimTime{1} << 62;  ///< below this, 64-bit arithmetic is exact

  /// What the event loop touches of an activity, in one 48-byte record.
  struct Node {
    SimTime work = 0;
    SimTime not_before = 0;
    SimTime start = -1;
    SimTime finish = -1;
    int waiting_on = 0;   ///< unfinished dependencies; -1 once ready
    int first_edge = -1;  ///< dependents as linked lists, in insertion order
    int callback = -1;    ///< index into callbacks_, or -1
    int heap_slot = -1;   ///< where its finish event sits in heap_, or -1
  };

  /// A dependency: `to` waits; `next` is the edge after it in the list of
  /// the same activity's dependents, or -1.
  struct Edge {
    ActivityId to;
    int next;
  };

  /// How far a running activity is, under a rate model: it has `remaining`
  /// work left as of `since`, and progresses at `rate` from then on. Only
  /// running activities hold one (slots are reused), so the bookkeeping stays
  /// as small as the set of running activities.
  struct Progress {
    Work remaining;
    SimTime since;
    Rate rate;
  };

  /// A start or finish event; 16 bytes, so that the heap stays compact.
  struct Event {
    SimTime time;
    std::uint32_t sequence;
    ActivityId activity;  ///< >= 0: finish of it; < 0: start of ~activity
  };

  Node& node(ActivityId id) { return nodes_[static_cast<std::size_t>(id)]; }
  const Node& node(ActivityId id) const { return nodes_[static_cast<std::size_t>(id)]; }
  void ready(ActivityId id);
  void activate(ActivityId id);
  void complete(ActivityId id);
  void schedule_finish(ActivityId id, const Progress& progress);
  void change_rates(ActivityId cause, bool started);
  /// Queues `activity`'s event at `time`; a finish event already queued moves.
  void push(SimTime time, ActivityId activity);
  /// Removes the root's event, handled, that no new event has replaced.
  void pop_root();
  /// Fetches the record of the first dependent of the event `next` (the
  /// one handled next).
  void prefetch_dependent(const Event& next);
  /// Fetches both cache lines an activity's record may span.
  void prefetch_node(ActivityId id);
  /// Queues `edge` (an activity made ready: its first edge, or -1) in look_.
  void look_ahead(int edge);
  void place(std::size_t slot, const Event& event);
  void sift_up(std::size_t slot, const Event& event);
  void sift_down(std::size_t slot, const Event& event);

  std::vector<Node> nodes_;
  std::vector<int> in_degree_;  ///< dependencies as added: what rewind() waits on again
  std::vector<int> last_edge_;
  std::vector<Edge> edges_;
  std::vector<int> resource_begin_;  ///< activity i runs on resource_list_[begin[i], begin[i+1])
  std::vector<ResourceId> resource_list_;
  std::vector<int> resource_kind_;
  std::vector<FinishCallback> callbacks_;
  // Only with a rate model: progress of the running activities.
  std::vector<Progress> progress_;
  std::vector<int> free_progress_;  ///< slots of progress_ no activity holds
  std::vector<int> progress_of_;    ///< per activity: its slot in progress_ while it runs, else -1
  std::vector<ActivityId> changed_;
  std::vector<Event> heap_;
  /// Edges of activities made ready, in a ring: each is prefetched when it
  /// enters, and when kLookBehind more have entered (it has arrived by then)
  /// the record of its dependent is prefetched and the next edge of the same
  /// activity enters. So the records an activity touches when it finishes
  /// are in cache by then, on a DAG far larger than the cache.
  static constexpr std::size_t kLookBehind = 16;
  static constexpr std::size_t kLookCapacity = 64;
  std::array<int, kLookCapacity> look_{};
  std::size_t look_head_ = 0;
  std::size_t look_tail_ = 0;
  RateModel* rate_model_ = nullptr;
  SimTime now_ = 0;
  std::int64_t finished_ = 0;
  std::uint32_t sequence_ = 0;
  bool ran_ = false;
  bool root_handled_ = false;  ///< the root's event is handled: a new event may take its place
};

}  // namespace mgsim
