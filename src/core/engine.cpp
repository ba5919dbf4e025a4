#include "mgsim/engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "mgsim/rate_model.hpp"

namespace mgsim {
namespace {

/// Event order: time, then sequence. Sequences are unique, so the order is
/// total and any heap pops the same events in the same order.
bool earlier(const auto& a, const auto& b) { return a.time != b.time ? a.time < b.time : a.sequence < b.sequence; }

constexpr std::size_t kArity = 4;  // a 4-ary heap: half the depth of a binary one, children in one cache line

std::size_t at(int i) { return static_cast<std::size_t>(i); }

}  // namespace

ActivityId Engine::add(SimTime work, SimTime not_before, std::span<const ResourceId> resources) {
  if (work < 0) throw std::invalid_argument("engine: an activity's work must be >= 0");
  for (ResourceId r : resources) {
    if (r < 0 || r >= resource_count()) throw std::invalid_argument("engine: unknown resource");
  }
  work_.push_back(work);
  not_before_.push_back(not_before);
  start_.push_back(-1);
  finish_.push_back(-1);
  waiting_on_.push_back(0);
  in_degree_.push_back(0);
  event_of_.push_back(0);
  first_edge_.push_back(-1);
  last_edge_.push_back(-1);
  callback_of_.push_back(-1);
  if (resource_begin_.empty()) resource_begin_.push_back(0);
  resource_list_.insert(resource_list_.end(), resources.begin(), resources.end());
  resource_begin_.push_back(static_cast<int>(resource_list_.size()));
  return size() - 1;
}

ResourceId Engine::add_resource(int kind) {
  resource_kind_.push_back(kind);
  return resource_count() - 1;
}

std::span<const ResourceId> Engine::resources(ActivityId id) const {
  if (resource_begin_.empty()) return {};
  const auto begin = resource_list_.begin() + resource_begin_[at(id)];
  return {begin, resource_list_.begin() + resource_begin_[at(id) + 1]};
}

void Engine::depend(ActivityId later, ActivityId earlier) {
  if (waiting_on_[at(later)] < 0) throw std::logic_error("engine: a dependency added to a started activity");
  if (finished(earlier)) return;
  const int edge = static_cast<int>(edge_to_.size());
  edge_to_.push_back(later);
  edge_next_.push_back(-1);
  if (last_edge_[at(earlier)] < 0) {
    first_edge_[at(earlier)] = edge;
  } else {
    edge_next_[at(last_edge_[at(earlier)])] = edge;
  }
  last_edge_[at(earlier)] = edge;
  ++waiting_on_[at(later)];
  ++in_degree_[at(later)];
}

void Engine::on_finish(ActivityId id, FinishCallback callback) {
  callback_of_[at(id)] = static_cast<int>(callbacks_.size());
  callbacks_.push_back(std::move(callback));
}

void Engine::push(SimTime time, ActivityId activity) {
  if (activity >= 0) event_of_[at(activity)] = sequence_;
  const Event event{time, sequence_++, activity};
  std::size_t hole = heap_.size();
  heap_.push_back(event);
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!earlier(event, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = event;
}

Engine::Event Engine::pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  std::size_t hole = 0;
  for (std::size_t child; (child = hole * kArity + 1) < n;) {
    std::size_t best = child;
    for (std::size_t c = child + 1; c < std::min(child + kArity, n); ++c) {
      if (earlier(heap_[c], heap_[best])) best = c;
    }
    if (!earlier(heap_[best], last)) break;
    heap_[hole] = heap_[best];
    hole = best;
  }
  heap_[hole] = last;
  return top;
}

void Engine::ready(ActivityId id) {
  const auto i = at(id);
  waiting_on_[i] = -1;
  if (rate_model_ == nullptr) {
    start_[i] = std::max(now_, not_before_[i]);
    push(start_[i] + work_[i], id);
  } else if (not_before_[i] > now_) {
    push(not_before_[i], ~id);
  } else {
    activate(id);
  }
}

void Engine::activate(ActivityId id) {
  if (remaining_.size() < work_.size()) {
    remaining_.resize(work_.size());
    rate_.resize(work_.size());
    since_.resize(work_.size());
  }
  const auto i = at(id);
  start_[i] = now_;
  change_rates(id, true);
  remaining_[i] = static_cast<Work>(work_[i]) * kFullRate;
  rate_[i] = rate_model_->rate(*this, id);
  since_[i] = now_;
  schedule_finish(id);
}

void Engine::schedule_finish(ActivityId id) {
  const auto i = at(id);
  const Work remaining = remaining_[i];
  const Rate rate = rate_[i];
  // 64-bit division whenever the remaining work fits: 128-bit division is slow.
  const SimTime left = remaining <= kMaxFast ? (static_cast<SimTime>(remaining) + rate - 1) / rate
                                             : static_cast<SimTime>((remaining + rate - 1) / rate);
  push(now_ + left, id);
}

void Engine::change_rates(ActivityId cause, bool started) {
  changed_.clear();
  rate_model_->update(*this, cause, started, changed_);
  for (ActivityId id : changed_) {
    const auto i = at(id);
    if (id == cause || start_[i] < 0 || finished(id)) continue;
    const Rate rate = rate_model_->rate(*this, id);
    if (rate == rate_[i]) continue;
    const SimTime elapsed = now_ - since_[i];
    const Work done = elapsed <= kMaxFast / kFullRate ? Work{elapsed * rate_[i]} : static_cast<Work>(elapsed) * rate_[i];
    remaining_[i] = std::max<Work>(0, remaining_[i] - done);
    since_[i] = now_;
    rate_[i] = rate;
    schedule_finish(id);
  }
}

void Engine::complete(ActivityId id) {
  finish_[at(id)] = now_;
  ++finished_;
  if (rate_model_ != nullptr) change_rates(id, false);
  const ActivityId added_from = size();
  if (const int callback = callback_of_[at(id)]; callback >= 0) callbacks_[at(callback)](*this, id);
  for (int e = first_edge_[at(id)]; e >= 0; e = edge_next_[at(e)]) {
    const ActivityId next = edge_to_[at(e)];
    if (--waiting_on_[at(next)] == 0) ready(next);
  }
  for (ActivityId added = added_from; added < size(); ++added) {
    if (waiting_on_[at(added)] == 0) ready(added);
  }
}

std::int64_t Engine::run() {
  if (ran_) throw std::logic_error("engine: run() called twice");
  ran_ = true;
  for (ActivityId id = 0; id < size(); ++id) {
    if (waiting_on_[at(id)] == 0) ready(id);
  }
  while (!heap_.empty()) {
    const Event event = pop();
    now_ = event.time;
    if (event.activity < 0) {
      activate(~event.activity);
    } else if (event.sequence == event_of_[at(event.activity)]) {
      complete(event.activity);
    }
  }
  if (finished_ != size()) throw std::logic_error("engine: activity dependencies form a cycle");
  return finished_;
}

void Engine::set_work(ActivityId id, SimTime work) {
  if (work < 0) throw std::invalid_argument("engine: an activity's work must be >= 0");
  work_[at(id)] = work;
}

void Engine::rewind() {
  std::fill(start_.begin(), start_.end(), -1);
  std::fill(finish_.begin(), finish_.end(), -1);
  waiting_on_ = in_degree_;
  heap_.clear();
  now_ = 0;
  finished_ = 0;
  sequence_ = 0;
  ran_ = false;
}

void Engine::clear() {
  for (auto* v : {&work_, &not_before_, &start_, &finish_, &since_}) v->clear();
  for (auto* v : {&waiting_on_, &in_degree_, &first_edge_, &last_edge_, &edge_next_, &edge_to_, &resource_begin_, &resource_list_,
                  &resource_kind_, &callback_of_, &changed_}) {
    v->clear();
  }
  event_of_.clear();
  callbacks_.clear();
  remaining_.clear();
  rate_.clear();
  heap_.clear();
  now_ = 0;
  finished_ = 0;
  sequence_ = 0;
  ran_ = false;
}

}  // namespace mgsim
