#pragma once
// The discrete-event engine: a DAG of activities on an integer-nanosecond
// clock. An activity starts once every activity it depends on has finished
// and its own earliest start has come, and it finishes `duration` later. The
// engine pops finish events from a binary heap keyed by (time, sequence), so
// equal times resolve in insertion order and runs are bit-reproducible. It
// knows nothing of GPUs or collectives; replay.hpp builds the DAG of an
// iteration.

#include <cstdint>
#include <vector>

#include "mgsim/time.hpp"

namespace mgsim {

using ActivityId = int;

class Engine {
 public:
  /// Adds an activity; it may start at `not_before` at the earliest.
  ActivityId add(SimTime duration, SimTime not_before = 0);
  /// `later` starts only after `earlier` has finished.
  void depend(ActivityId later, ActivityId earlier);
  /// Runs every activity to completion, once; returns the number of events
  /// processed. Throws std::logic_error if the dependencies form a cycle or
  /// the engine has already run.
  std::int64_t run();

  SimTime start(ActivityId id) const { return start_[static_cast<std::size_t>(id)]; }
  SimTime finish(ActivityId id) const { return finish_[static_cast<std::size_t>(id)]; }
  int size() const { return static_cast<int>(duration_.size()); }

 private:
  /// A finish event; 16 bytes, so that the heap stays compact.
  struct Event {
    SimTime time;
    std::uint32_t sequence;
    ActivityId activity;
  };

  void begin(ActivityId id, SimTime now);
  void push(Event event);
  Event pop();

  // Activities as parallel arrays: the loop touches waiting_on_ most.
  std::vector<SimTime> duration_;
  std::vector<SimTime> not_before_;
  std::vector<SimTime> start_;
  std::vector<SimTime> finish_;
  std::vector<int> waiting_on_;
  std::vector<std::pair<ActivityId, ActivityId>> edges_;  // (earlier, later)
  std::vector<int> edge_begin_;                           // CSR over earlier, built by run()
  std::vector<ActivityId> dependents_;
  std::vector<Event> heap_;
  std::uint32_t sequence_ = 0;
  bool ran_ = false;
};

}  // namespace mgsim
