#include "mgsim/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "mgsim/rate_model.hpp"

namespace mgsim {
namespace {

/// Event order: time, then sequence. Sequences are unique, so the order is
/// total and any heap pops the same events in the same order. It is read as
/// one unsigned 128-bit number (event times are >= 0), so that picking the
/// earliest of a node's children compiles to conditional moves instead of
/// branches the predictor cannot learn.
__extension__ using Key = unsigned __int128;
Key key_of(const auto& e) { return (static_cast<Key>(static_cast<std::uint64_t>(e.time)) << 32) | e.sequence; }
bool earlier(const auto& a, const auto& b) { return key_of(a) < key_of(b); }

constexpr std::size_t kArity = 4;  // a 4-ary heap: half the depth of a binary one, children in one cache line

std::size_t at(int i) { return static_cast<std::size_t>(i); }

}  // namespace

ActivityId Engine::add(SimTime work, SimTime not_before, std::span<const ResourceId> resources) {
  if (work < 0) throw std::invalid_argument("engine: an activity's work must be >= 0");
  for (ResourceId r : resources) {
    if (r < 0 || r >= resource_count()) throw std::invalid_argument("engine: unknown resource");
  }
  nodes_.push_back({.work = work, .not_before = not_before});
  in_degree_.push_back(0);
  last_edge_.push_back(-1);
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
  if (node(later).waiting_on < 0) throw std::logic_error("engine: a dependency added to a started activity");
  if (finished(earlier)) return;
  const int edge = static_cast<int>(edges_.size());
  edges_.push_back({later, -1});
  if (last_edge_[at(earlier)] < 0) {
    node(earlier).first_edge = edge;
  } else {
    edges_[at(last_edge_[at(earlier)])].next = edge;
  }
  last_edge_[at(earlier)] = edge;
  ++node(later).waiting_on;
  ++in_degree_[at(later)];
}

void Engine::on_finish(ActivityId id, FinishCallback callback) {
  node(id).callback = static_cast<int>(callbacks_.size());
  callbacks_.push_back(std::move(callback));
}

void Engine::place(std::size_t slot, const Event& event) {
  heap_[slot] = event;
  if (event.activity >= 0) node(event.activity).heap_slot = static_cast<int>(slot);
}

void Engine::sift_up(std::size_t slot, const Event& event) {
  while (slot > 0) {
    const std::size_t parent = (slot - 1) / kArity;
    if (!earlier(event, heap_[parent])) break;
    place(slot, heap_[parent]);
    slot = parent;
  }
  place(slot, event);
}

void Engine::sift_down(std::size_t slot, const Event& event) {
  const std::size_t n = heap_.size();
  const Key key = key_of(event);
  for (std::size_t child; (child = slot * kArity + 1) < n;) {
    std::size_t best = child;
    Key best_key = key_of(heap_[child]);
    for (std::size_t c = child + 1; c < std::min(child + kArity, n); ++c) {
      const Key k = key_of(heap_[c]);
      const bool less = k < best_key;
      best = less ? c : best;
      best_key = less ? k : best_key;
    }
    if (!(best_key < key)) break;
    place(slot, heap_[best]);
    slot = best;
  }
  place(slot, event);
}

void Engine::push(SimTime time, ActivityId activity) {
  const Event event{time, sequence_++, activity};
  const int queued = activity >= 0 ? node(activity).heap_slot : -1;
  if (queued < 0 && root_handled_) {
    root_handled_ = false;
    sift_down(0, event);  // one sift instead of a pop's and a push's
  } else if (queued < 0) {
    heap_.push_back(event);
    sift_up(heap_.size() - 1, event);
  } else if (earlier(event, heap_[at(queued)])) {
    sift_up(at(queued), event);
  } else {
    sift_down(at(queued), event);
  }
}

void Engine::pop_root() {
  const Event last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0, last);
}

void Engine::prefetch_dependent(const Event& next) {
  if (next.activity < 0) return;
  if (const int edge = node(next.activity).first_edge; edge >= 0) prefetch_node(edges_[at(edge)].to);
}

void Engine::prefetch_node(ActivityId id) {
  // A 48-byte record spans two cache lines for half the activities.
  const char* record = reinterpret_cast<const char*>(&node(id));
  __builtin_prefetch(record);
  __builtin_prefetch(record + sizeof(Node) - 1);
}

void Engine::look_ahead(int edge) {
  const auto queue = [this](int e) {
    if (e < 0 || look_tail_ - look_head_ == kLookCapacity) return;
    __builtin_prefetch(&edges_[at(e)]);
    look_[look_tail_++ % kLookCapacity] = e;
  };
  queue(edge);
  // Two at a time, so that activities with two dependents do not fill the ring.
  for (int k = 0; k < 2 && look_tail_ - look_head_ > kLookBehind; ++k) {
    const Edge& arrived = edges_[at(look_[look_head_++ % kLookCapacity])];
    prefetch_node(arrived.to);
    queue(arrived.next);
  }
}

void Engine::ready(ActivityId id) {
  Node& n = node(id);
  n.waiting_on = -1;
  look_ahead(n.first_edge);
  if (rate_model_ == nullptr) {
    n.start = std::max(now_, n.not_before);
    push(n.start + n.work, id);
  } else if (n.not_before > now_) {
    push(n.not_before, ~id);
  } else {
    activate(id);
  }
}

void Engine::activate(ActivityId id) {
  Node& n = node(id);
  n.start = now_;
  change_rates(id, true);
  if (free_progress_.empty()) {
    free_progress_.push_back(static_cast<int>(progress_.size()));
    progress_.emplace_back();
  }
  if (progress_of_.size() < nodes_.size()) progress_of_.resize(nodes_.size(), -1);
  const int slot = free_progress_.back();
  free_progress_.pop_back();
  progress_of_[at(id)] = slot;
  progress_[at(slot)] = {static_cast<Work>(n.work) * kFullRate, now_, rate_model_->rate(*this, id)};
  schedule_finish(id, progress_[at(slot)]);
}

void Engine::schedule_finish(ActivityId id, const Progress& progress) {
  const Work remaining = progress.remaining;
  const Rate rate = progress.rate;
  // 64-bit division whenever the remaining work fits: 128-bit division is slow.
  const SimTime left = remaining <= kMaxFast ? (static_cast<SimTime>(remaining) + rate - 1) / rate
                                             : static_cast<SimTime>((remaining + rate - 1) / rate);
  push(now_ + left, id);
}

void Engine::change_rates(ActivityId cause, bool started) {
  changed_.clear();
  rate_model_->update(*this, cause, started, changed_);
  for (ActivityId id : changed_) {
    const int slot = at(id) < progress_of_.size() ? progress_of_[at(id)] : -1;
    if (id == cause || slot < 0) continue;  // not running, or its rate is set by activate()
    Progress& p = progress_[at(slot)];
    const Rate rate = rate_model_->rate(*this, id);
    if (rate == p.rate) continue;
    const SimTime elapsed = now_ - p.since;
    const Work done = elapsed <= kMaxFast / kFullRate ? Work{elapsed * p.rate} : static_cast<Work>(elapsed) * p.rate;
    p.remaining = std::max<Work>(0, p.remaining - done);
    p.since = now_;
    p.rate = rate;
    schedule_finish(id, p);
  }
}

void Engine::complete(ActivityId id) {
  node(id).finish = now_;
  ++finished_;
  if (rate_model_ != nullptr) {
    free_progress_.push_back(std::exchange(progress_of_[at(id)], -1));
    change_rates(id, false);
  }
  const ActivityId added_from = size();
  if (const int callback = node(id).callback; callback >= 0) callbacks_[at(callback)](*this, id);
  for (int e = node(id).first_edge; e >= 0; e = edges_[at(e)].next) {
    const ActivityId next = edges_[at(e)].to;
    if (--node(next).waiting_on == 0) ready(next);
  }
  for (ActivityId added = added_from; added < size(); ++added) {
    if (node(added).waiting_on == 0) ready(added);
  }
}

std::int64_t Engine::run() {
  if (ran_) throw std::logic_error("engine: run() called twice");
  ran_ = true;
  for (ActivityId id = 0; id < size(); ++id) {
    if (node(id).waiting_on == 0) ready(id);
  }
  while (!heap_.empty()) {
    // The earliest event stays at the root while it is handled: no other
    // event can pass it (any event queued meanwhile comes later), and the
    // first new one takes its place.
    const Event event = heap_.front();
    now_ = event.time;
    root_handled_ = true;
    if (event.activity < 0) {
      activate(~event.activity);
    } else {
      node(event.activity).heap_slot = -1;
      complete(event.activity);
    }
    if (std::exchange(root_handled_, false)) pop_root();
    if (!heap_.empty()) prefetch_dependent(heap_.front());
  }
  if (finished_ != size()) throw std::logic_error("engine: activity dependencies form a cycle");
  return finished_;
}

void Engine::set_work(ActivityId id, SimTime work) {
  if (work < 0) throw std::invalid_argument("engine: an activity's work must be >= 0");
  node(id).work = work;
}

void Engine::rewind() {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    Node& n = nodes_[i];
    n.start = -1;
    n.finish = -1;
    n.waiting_on = in_degree_[i];
    n.heap_slot = -1;
  }
  std::fill(progress_of_.begin(), progress_of_.end(), -1);
  heap_.clear();
  progress_.clear();
  free_progress_.clear();
  now_ = 0;
  finished_ = 0;
  sequence_ = 0;
  ran_ = false;
}

void Engine::clear() {
  nodes_.clear();
  for (auto* v : {&in_degree_, &last_edge_, &resource_begin_, &resource_list_, &resource_kind_, &changed_,
                  &free_progress_, &progress_of_}) {
    v->clear();
  }
  edges_.clear();
  look_head_ = look_tail_ = 0;  // it named edges just cleared
  callbacks_.clear();
  progress_.clear();
  heap_.clear();
  now_ = 0;
  finished_ = 0;
  sequence_ = 0;
  ran_ = false;
}

}  // namespace mgsim
