#include "mgsim/replay.hpp"

#include <algorithm>

#include "mgsim/engine.hpp"

namespace mgsim {
namespace {

/// For every tensor (backward order), when it is ready relative to the start
/// of its layer's backward, and when each layer's backward starts.
template <typename Visit>
void walk_backward(const ComputeProfile& compute, const TensorLayout& layout, Visit visit) {
  SimTime layer_start = compute.forward;
  for (int u = 0; u < layout.layer_count(); ++u) {
    for (int t = layout.layer_begin[u]; t < layout.layer_begin[u + 1]; ++t) {
      const auto l = static_cast<std::size_t>(layout.layer[t]);
      visit(t, layer_start + compute.ready_offset[l][static_cast<std::size_t>(layout.index_in_layer[t])]);
    }
    layer_start += compute.backward[static_cast<std::size_t>(layout.layer[layout.layer_begin[u]])];
  }
}

/// Adds one class's compute stream to the engine; returns, per tensor, the
/// activity at whose end the tensor is ready, and sets `last` to the stream's
/// final activity.
std::vector<ActivityId> add_compute_stream(Engine& engine, const ComputeProfile& compute, const TensorLayout& layout,
                                           ActivityId& last) {
  std::vector<ActivityId> produced_by(static_cast<std::size_t>(layout.tensor_count()));
  last = engine.add(compute.forward);
  for (int u = 0; u < layout.layer_count(); ++u) {
    const int begin = layout.layer_begin[u];
    const int end = layout.layer_begin[u + 1];
    const auto l = static_cast<std::size_t>(layout.layer[begin]);
    std::vector<SimTime> cuts{compute.backward[l]};
    for (int t = begin; t < end; ++t) cuts.push_back(compute.ready_offset[l][static_cast<std::size_t>(layout.index_in_layer[t])]);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::vector<ActivityId> segment;
    SimTime previous = 0;
    for (SimTime cut : cuts) {
      const ActivityId id = engine.add(cut - previous);
      engine.depend(id, last);
      segment.push_back(id);
      last = id;
      previous = cut;
    }
    for (int t = begin; t < end; ++t) {
      const SimTime offset = compute.ready_offset[l][static_cast<std::size_t>(layout.index_in_layer[t])];
      const auto position = std::lower_bound(cuts.begin(), cuts.end(), offset) - cuts.begin();
      produced_by[static_cast<std::size_t>(t)] = segment[static_cast<std::size_t>(position)];
    }
  }
  return produced_by;
}

}  // namespace

CommProblem make_problem(std::span<const GpuClass> classes, const TensorLayout& layout, CommCost cost) {
  CommProblem problem{&layout, std::vector<SimTime>(static_cast<std::size_t>(layout.tensor_count()), 0), 0, 0, cost};
  for (const GpuClass& gpu : classes) {
    problem.backward_start = std::max(problem.backward_start, gpu.compute.forward);
    problem.compute_end = std::max(problem.compute_end, gpu.compute.compute_time());
    walk_backward(gpu.compute, layout, [&](int t, SimTime ready) {
      problem.ready[static_cast<std::size_t>(t)] = std::max(problem.ready[static_cast<std::size_t>(t)], ready);
    });
  }
  return problem;
}

Replay replay(std::span<const GpuClass> classes, const TensorLayout& layout, const Plan& plan) {
  Engine engine;
  std::vector<std::vector<ActivityId>> produced_by;
  std::vector<ActivityId> stream_end;
  for (const GpuClass& gpu : classes) {
    ActivityId last = 0;
    produced_by.push_back(add_compute_stream(engine, gpu.compute, layout, last));
    stream_end.push_back(last);
  }
  std::vector<ActivityId> messages;
  for (const Message& message : plan) {
    const ActivityId id = engine.add(message.duration, message.not_before);
    if (!messages.empty()) engine.depend(id, messages.back());
    for (const std::vector<ActivityId>& produced : produced_by) {
      // The stream is a chain, so the latest producer is the one added last.
      engine.depend(id, *std::max_element(produced.begin() + message.begin, produced.begin() + message.end));
    }
    messages.push_back(id);
  }
  Replay result;
  result.events = engine.run();
  for (ActivityId end : stream_end) result.compute_end = std::max(result.compute_end, engine.finish(end));
  for (ActivityId id : messages) {
    result.message_start.push_back(engine.start(id));
    result.message_end.push_back(engine.finish(id));
  }
  result.iteration_end = std::max(result.compute_end, messages.empty() ? 0 : result.message_end.back());
  return result;
}

Replay evaluate_closed_form(const CommProblem& problem, const Plan& plan) {
  Replay result;
  result.compute_end = problem.compute_end;
  SimTime channel_free = 0;
  for (const Message& message : plan) {
    const SimTime start = std::max({channel_free, problem.ready_of(message.begin, message.end), message.not_before});
    channel_free = start + message.duration;
    result.message_start.push_back(start);
    result.message_end.push_back(channel_free);
  }
  result.iteration_end = std::max(result.compute_end, channel_free);
  return result;
}

}  // namespace mgsim
