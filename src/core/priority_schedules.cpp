// Priority schedules: P3 and ByteScheduler (docs/schedules.md, "Priority and
// partitioning"). Each gradient tensor is cut into chunks of at most
// `partition` elements; the chunks go out one at a time, most urgent first:
// the layer the next forward needs first (forward index 0) before the rest,
// and within a layer in tensor order. A chunk already on the wire finishes
// (no chunk is cut short); the next is chosen among those ready when a credit
// window of `credit` elements in flight has room: with no credit the choice
// is made when the channel is free, the P3 rule; with more, it is made
// earlier and cannot be revisited, as ByteScheduler's engine queue. The plan
// is that choice replayed on the nominal timings: its order is fixed, so the
// engine and the closed form time it alike.

#include <algorithm>
#include <deque>
#include <queue>
#include <vector>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "schedules.hpp"

namespace mgsim {
namespace {

struct Chunk {
  int tensor = 0;               ///< backward order
  std::int64_t elements = 0;
  std::int64_t bytes = 0;
  SimTime ready = 0;
  std::int64_t priority = 0;    ///< lower goes first
};

/// The chunks of at most `partition` elements that `layout`'s tensors cut
/// into. Throws ConfigError past kMaxTensors chunks, naming `owner`'s `parameter`.
std::int64_t chunk_count(const TensorLayout& layout, std::int64_t partition, std::string_view owner,
                         std::string_view parameter) {
  std::int64_t count = 0;
  for (const std::int64_t elements : layout.elements) count += (elements + partition - 1) / partition;
  if (count > kMaxTensors) {
    throw ConfigError(fmt::format("schedule '{}': {} = {} cuts the gradients into {} chunks; expected at most {} "
                                  "(raise {})",
                                  owner, parameter, partition, count, kMaxTensors, parameter));
  }
  return count;
}

/// Every tensor cut into chunks of at most `partition` elements (the last
/// one shorter), with the rank of the urgency of each: forward order of
/// layers, then tensors in their layer, then chunks in their tensor. Throws
/// ConfigError past kMaxTensors chunks (chunk_count).
std::vector<Chunk> chunks_of(const CommProblem& problem, std::int64_t partition, std::string_view owner,
                             std::string_view parameter) {
  const TensorLayout& layout = *problem.layout;
  const std::int64_t count = chunk_count(layout, partition, owner, parameter);
  std::vector<Chunk> chunks;
  chunks.reserve(static_cast<std::size_t>(count));
  // Walking tensors from the last in backward order (the first layer's first
  // tensor) gives the urgency order directly.
  for (int t = problem.tensor_count() - 1; t >= 0; --t) {
    const auto at = static_cast<std::size_t>(t);
    const std::int64_t elements = layout.elements[at];
    const std::int64_t element_bytes = layout.bytes[at] / elements;
    for (std::int64_t done = 0; done < elements; done += partition) {
      const std::int64_t part = std::min(partition, elements - done);
      chunks.push_back({t, part, part * element_bytes, problem.ready[at], static_cast<std::int64_t>(chunks.size())});
    }
  }
  return chunks;
}

class Priority : public Schedule {
 public:
  Priority(std::string_view name, std::string_view parameter, std::int64_t partition, std::int64_t credit)
      : name_(name), parameter_(parameter), partition_(partition), credit_(credit) {}

  Plan plan(const CommProblem& problem) const override {
    const std::vector<Chunk> chunks = chunks_of(problem, partition_, name_, parameter_);
    std::vector<int> by_ready(chunks.size());
    for (std::size_t i = 0; i < by_ready.size(); ++i) by_ready[i] = static_cast<int>(i);
    std::stable_sort(by_ready.begin(), by_ready.end(),
                     [&](int a, int b) { return chunks[static_cast<std::size_t>(a)].ready < chunks[static_cast<std::size_t>(b)].ready; });
    // Ready chunks, most urgent (lowest priority number) on top.
    std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>> waiting;
    struct InFlight {
      SimTime end;
      std::int64_t elements;
    };
    std::deque<InFlight> in_flight;  // chosen and not finished, in channel order
    std::int64_t flying = 0;         // their elements
    std::size_t next_ready = 0;
    SimTime decided = 0, channel_free = 0;
    Plan plan;
    plan.reserve(chunks.size());
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      // The window has room once the chunks in flight hold fewer than
      // `credit` elements (none, without credit): the choice waits until then.
      while (!in_flight.empty() && (flying >= credit_ || in_flight.front().end <= decided)) {
        decided = std::max(decided, in_flight.front().end);
        flying -= in_flight.front().elements;
        in_flight.pop_front();
      }
      const auto admit = [&](SimTime t) {
        while (next_ready < by_ready.size() && chunks[static_cast<std::size_t>(by_ready[next_ready])].ready <= t) {
          waiting.push(by_ready[next_ready++]);
        }
      };
      admit(decided);
      if (waiting.empty()) {
        decided = chunks[static_cast<std::size_t>(by_ready[next_ready])].ready;
        admit(decided);
      }
      const Chunk& chunk = chunks[static_cast<std::size_t>(waiting.top())];
      waiting.pop();
      Message message = chunk_message(problem, chunk);
      channel_free = std::max(channel_free, chunk.ready) + message.duration;
      in_flight.push_back({channel_free, chunk.elements});
      flying += chunk.elements;
      plan.push_back(message);
    }
    return plan;
  }
  /// A few steps a chunk, its choice by priority and its message (measured: the 31,000 slices of GPT-2 XL under
  /// P3 plan and replay in 8.4 ms, 2.7 steps each at 10 M steps/s). Refuses a partition past kMaxTensors chunks
  /// as plan() does, so that a sweep refuses it before writing a row (red team: a partial file was left).
  double plan_steps(int, const TensorLayout& layout, bool) const override {
    return kStepsPerChunk * static_cast<double>(chunk_count(layout, partition_, name_, parameter_));
  }
  double replay_steps(const TensorLayout& layout) const override {
    return static_cast<double>(chunk_count(layout, partition_, name_, parameter_));
  }

 private:
  static constexpr double kStepsPerChunk = 3;
  static Message chunk_message(const CommProblem& problem, const Chunk& chunk) {
    Message message;
    message.begin = chunk.tensor;
    message.end = chunk.tensor + 1;
    message.bytes = chunk.bytes;
    message.sent_bytes = chunk.bytes;
    message.duration = problem.cost(chunk.bytes);
    return message;
  }

  std::string_view name_;
  std::string_view parameter_;  ///< the one that sets the partition
  std::int64_t partition_;
  std::int64_t credit_;
};

}  // namespace

std::unique_ptr<Schedule> make_p3(const ParamValues& given, const SparseOptions&) {
  return std::make_unique<Priority>("p3", "slice_params", whole_param("p3", given, "slice_params"), 0);
}

std::unique_ptr<Schedule> make_bytescheduler(const ParamValues& given, const SparseOptions&) {
  return std::make_unique<Priority>("bytescheduler", "partition_params",
                                    whole_param("bytescheduler", given, "partition_params"),
                                    whole_param("bytescheduler", given, "credit_params"));
}

}  // namespace mgsim
