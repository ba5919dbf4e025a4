#include "rank_sweep.hpp"

#include <algorithm>
#include <limits>
#include <span>

namespace mgsim {
namespace {

__extension__ using Wide = __int128;
__extension__ using UnsignedWide = unsigned __int128;
constexpr int kWholeChain = std::numeric_limits<int>::max();
constexpr Wide kMaxFast = Wide{1} << 62;  ///< below this, 64-bit division is exact
constexpr Wide kNoLimit = static_cast<Wide>(~UnsignedWide{0} >> 1);  ///< the largest: no horizon

/// ceil(work / rate) for work >= 0, in 64 bits whenever that is exact (a
/// shift at full rate).
SimTime ceil_div(Wide work, Rate rate) {
  static_assert(kFullRate == Rate{1} << 16);
  if (work <= kMaxFast && rate == kFullRate) return (static_cast<SimTime>(work) + kFullRate - 1) >> 16;
  if (work <= kMaxFast) return (static_cast<SimTime>(work) + rate - 1) / rate;
  return static_cast<SimTime>((work + rate - 1) / rate);
}

}  // namespace

RankSweep::RankSweep(const Engine& engine, const ReplayDag& dag, const TensorLayout& layout, const Plan& plan,
                     const Cluster& cluster, const Variability& variability, const DelayLaw* law, Overlap overlap)
    : chains_(engine, dag.streams().front(), cluster, variability, law),
      compute_rate_(slowed_rate(overlap.compute_slowdown)),
      comm_rate_(slowed_rate(overlap.comm_slowdown)),
      end_(plan.size()),
      c_end_(plan.size()),
      place_(chains_.speed_of_rank.size()),
      release_(place_.size()),
      backward_end_(place_.size()),
      forward_time_(place_.size()) {
  const std::vector<ActivityId>& messages = dag.messages();
  for (const Message& message : plan) {
    duration_.push_back(message.duration);
    not_before_.push_back(message.not_before);
    producer_.push_back(ReplayDag::producer(dag.streams().front(), layout, message) - chains_.first);
  }
  for (const std::vector<ActivityId>& carriers : dag.carried_by()) {
    int last = -1;
    for (const ActivityId id : carriers) {
      last = std::max(last, static_cast<int>(std::find(messages.begin(), messages.end(), id) - messages.begin()));
    }
    gate_.push_back(last);
  }
  delays_per_rank_ = chains_.delayed() + 1;
  delays_.resize(place_.size() * delays_per_rank_);
}

SimTime RankSweep::first_forward(SimTime start) {
  SimTime slowest = 0;
  for (std::size_t r = 0; r < place_.size(); ++r) {
    const SimTime forward = chains_.nominal[static_cast<std::size_t>(chains_.speed_of_rank[r])][0];
    release_[r] = start + forward;
    slowest = std::max(slowest, forward);
  }
  return start + slowest;
}

void RankSweep::draw(Random& random) {
  if (chains_.law == nullptr) return;
  for (std::size_t r = 0; r < place_.size(); ++r) {
    chains_.draw(random, chains_.speed_of_rank[r], std::span(delays_).subspan(r * delays_per_rank_, delays_per_rank_));
  }
}

SimTime RankSweep::work(std::size_t rank, int k) const {
  const auto s = static_cast<std::size_t>(chains_.speed_of_rank[rank]);
  const auto backward = static_cast<int>(chains_.length());
  if (k >= backward) return chains_.forward[s][static_cast<std::size_t>(k - backward)];
  const auto slot = static_cast<std::size_t>(chains_.slot[static_cast<std::size_t>(k)]);
  return chains_.work[s][static_cast<std::size_t>(k)] + delays_[rank * delays_per_rank_ + slot];
}

bool RankSweep::arm(std::size_t rank, Place& place) const {
  const auto backward = static_cast<int>(chains_.length());
  if (place.next >= backward) {
    const int gate = gate_[static_cast<std::size_t>(place.next - backward)];
    if (gate >= static_cast<int>(ended_)) return false;  // waits for a message not yet ended
    if (gate >= 0 && end_[static_cast<std::size_t>(gate)] > place.since) {
      place.since = end_[static_cast<std::size_t>(gate)];
      place.c = c_end_[static_cast<std::size_t>(gate)];
    }
  }
  place.target = place.c + static_cast<Work>(work(rank, place.next)) * kFullRate;
  return true;
}

bool RankSweep::walk(std::size_t rank, const Segment& segment, Work limit, int last) {
  Place& place = place_[rank];
  const auto backward = static_cast<int>(chains_.length());
  const int total = backward + static_cast<int>(gate_.size());
  for (; place.next <= last && place.next < total; ++place.next) {
    if (place.target < 0 && !arm(rank, place)) return false;
    if (place.target > limit) return true;
    // The first nanosecond at which C reaches the target; it started in
    // this segment or, started earlier, had not ended by its start.
    const SimTime end = std::max(place.since, segment.t0 + ceil_div(place.target - segment.c0, segment.rate));
    if (end > place.since) place.c = segment.at(end);
    if (place.next >= backward) forward_time_[rank] += end - place.since;
    place.since = end;
    place.target = -1;
    if (place.next + 1 == backward) backward_end_[rank] = end;
  }
  return false;
}

SimTime RankSweep::message(std::size_t m, const Segment& idle, SimTime window_start) {
  // Its tensors exist on every rank when the last rank's producer ends; the
  // channel is idle until then, so the ranks compute at full rate.
  SimTime ready = idle.t0;
  const int producer = producer_[m];
  for (std::size_t r = 0; r < place_.size(); ++r) {
    if (place_[r].next > producer) continue;  // past it: ended by the previous message's end
    walk(r, idle, kNoLimit, producer);
    if (place_[r].next == producer + 1) ready = std::max(ready, place_[r].since);
  }
  const SimTime start = std::max(ready, window_start + not_before_[m]);
  const Segment busy{start, idle.at(start), compute_rate_};
  const Work need = static_cast<Work>(duration_[m]) * kFullRate;
  const SimTime slow_end = start + ceil_div(need, comm_rate_);
  // The message runs slowed while any rank computes: no rank starts
  // computing while it runs (ranks resume only at message ends), so it is
  // slowed until the last rank goes idle, at full rate after.
  bool computing = false;
  SimTime last_idle = start;
  const Work idle_limit = idle.at(start), busy_limit = busy.at(slow_end);
  for (std::size_t r = 0; r < place_.size(); ++r) {
    if (place_[r].target > busy_limit) {  // computing past the slowed end: nothing to walk
      computing = true;
      continue;
    }
    walk(r, idle, idle_limit, kWholeChain);
    if (walk(r, busy, busy_limit, kWholeChain)) {
      computing = true;
    } else {
      last_idle = std::max(last_idle, place_[r].since);
    }
  }
  SimTime end = slow_end;
  if (!computing && last_idle < slow_end) {
    end = last_idle + ceil_div(need - static_cast<Work>(last_idle - start) * comm_rate_, kFullRate);
  }
  end_[m] = end;
  c_end_[m] = busy.at(end);
  ended_ = m + 1;
  return end;
}

ReplayDag::Ends RankSweep::run(Random& random, SimTime start) {
  draw(random);
  // Every message waits for a backward activity of every rank, so it starts
  // after every rank's release: no rank starts computing during a message.
  const SimTime origin = *std::min_element(release_.begin(), release_.end());
  for (std::size_t r = 0; r < place_.size(); ++r) {
    place_[r] = {0, release_[r], static_cast<Work>(release_[r] - origin) * kFullRate, -1};
  }
  ended_ = 0;
  std::fill(forward_time_.begin(), forward_time_.end(), 0);
  Segment idle{origin, 0, kFullRate};
  for (std::size_t m = 0; m < duration_.size(); ++m) {
    const SimTime end = message(m, idle, start);
    idle = {end, c_end_[m], kFullRate};
  }
  ReplayDag::Ends ends;
  Wide computes = 0;  // the sum over ranks of their compute: backward, then forward
  SimTime slowest = 0;
  for (std::size_t r = 0; r < place_.size(); ++r) {
    walk(r, idle, kNoLimit, kWholeChain);
    const SimTime forward = forward_time_[r];
    const SimTime compute = backward_end_[r] - release_[r] + forward;
    computes += compute;
    slowest = std::max(slowest, compute);
    ends.compute_end = std::max(ends.compute_end, backward_end_[r]);
    ends.forward = std::max(ends.forward, forward);
    ends.iteration_end = std::max(ends.iteration_end, place_[r].since);
    release_[r] = place_[r].since;  // the next window's backward starts where this forward ended
  }
  const auto ranks = static_cast<std::int64_t>(place_.size());
  ends.wait = static_cast<SimTime>((ranks * static_cast<Wide>(slowest) - computes + ranks / 2) / ranks);
  return ends;
}

}  // namespace mgsim
