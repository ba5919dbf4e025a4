#include "mgsim/engine.hpp"

#include <algorithm>
#include <stdexcept>

namespace mgsim {
namespace {

bool later_than(const auto& a, const auto& b) {
  return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
}

}  // namespace

ActivityId Engine::add(SimTime duration, SimTime not_before) {
  duration_.push_back(duration);
  not_before_.push_back(not_before);
  start_.push_back(-1);
  finish_.push_back(-1);
  waiting_on_.push_back(0);
  return size() - 1;
}

void Engine::depend(ActivityId later, ActivityId earlier) {
  edges_.emplace_back(earlier, later);
  ++waiting_on_[static_cast<std::size_t>(later)];
}

void Engine::push(Event event) {
  heap_.push_back(event);
  std::push_heap(heap_.begin(), heap_.end(), [](const Event& a, const Event& b) { return later_than(a, b); });
}

Engine::Event Engine::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), [](const Event& a, const Event& b) { return later_than(a, b); });
  const Event event = heap_.back();
  heap_.pop_back();
  return event;
}

void Engine::begin(ActivityId id, SimTime now) {
  const auto i = static_cast<std::size_t>(id);
  start_[i] = std::max(now, not_before_[i]);
  push({start_[i] + duration_[i], sequence_++, id});
}

std::int64_t Engine::run() {
  if (ran_) throw std::logic_error("engine: run() called twice");
  ran_ = true;
  // Dependents of each activity, in compressed rows, in insertion order.
  edge_begin_.assign(duration_.size() + 1, 0);
  for (const auto& [earlier, later] : edges_) ++edge_begin_[static_cast<std::size_t>(earlier) + 1];
  for (std::size_t i = 1; i < edge_begin_.size(); ++i) edge_begin_[i] += edge_begin_[i - 1];
  dependents_.resize(edges_.size());
  std::vector<int> fill(edge_begin_.begin(), edge_begin_.end() - 1);
  for (const auto& [earlier, later] : edges_) dependents_[static_cast<std::size_t>(fill[earlier]++)] = later;

  for (ActivityId id = 0; id < size(); ++id) {
    if (waiting_on_[static_cast<std::size_t>(id)] == 0) begin(id, 0);
  }
  std::int64_t events = 0;
  while (!heap_.empty()) {
    const Event event = pop();
    ++events;
    finish_[static_cast<std::size_t>(event.activity)] = event.time;
    for (int e = edge_begin_[event.activity]; e < edge_begin_[event.activity + 1]; ++e) {
      const ActivityId next = dependents_[static_cast<std::size_t>(e)];
      if (--waiting_on_[static_cast<std::size_t>(next)] == 0) begin(next, event.time);
    }
  }
  if (events != size()) throw std::logic_error("engine: activity dependencies form a cycle");
  return events;
}

}  // namespace mgsim
