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

/// One class's compute stream in the engine: per tensor the activity at whose
/// end it is ready, and per layer (backward order) its first and last activity.
struct Stream {
  std::vector<ActivityId> produced_by;
  ActivityId forward = 0;
  std::vector<ActivityId> layer_first;
  std::vector<ActivityId> layer_last;
};

Stream add_compute_stream(Engine& engine, const ComputeProfile& compute, const TensorLayout& layout) {
  Stream stream;
  stream.produced_by.resize(static_cast<std::size_t>(layout.tensor_count()));
  stream.forward = engine.add(compute.forward);
  ActivityId last = stream.forward;
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
      stream.produced_by[static_cast<std::size_t>(t)] = segment[static_cast<std::size_t>(position)];
    }
    stream.layer_first.push_back(segment.front());
    stream.layer_last.push_back(segment.back());
  }
  return stream;
}

ComputeSpans spans_of(const Engine& engine, const Stream& stream) {
  ComputeSpans spans;
  spans.forward_end = engine.finish(stream.forward);
  for (ActivityId id : stream.layer_first) spans.layer_start.push_back(engine.start(id));
  for (ActivityId id : stream.layer_last) spans.layer_end.push_back(engine.finish(id));
  return spans;
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
  std::vector<Stream> streams;
  for (const GpuClass& gpu : classes) streams.push_back(add_compute_stream(engine, gpu.compute, layout));
  std::vector<ActivityId> messages;
  for (const Message& message : plan) {
    const ActivityId id = engine.add(message.duration, message.not_before);
    if (!messages.empty()) engine.depend(id, messages.back());
    for (const Stream& stream : streams) {
      // The stream is a chain, so the latest producer is the one added last.
      const auto& produced = stream.produced_by;
      engine.depend(id, *std::max_element(produced.begin() + message.begin, produced.begin() + message.end));
    }
    messages.push_back(id);
  }
  Replay result;
  result.events = engine.run();
  for (const Stream& stream : streams) {
    result.compute.push_back(spans_of(engine, stream));
    const ComputeSpans& spans = result.compute.back();
    result.compute_end = std::max(result.compute_end, spans.layer_end.empty() ? spans.forward_end : spans.layer_end.back());
  }
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
