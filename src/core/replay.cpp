#include "mgsim/replay.hpp"

#include <algorithm>
#include <stdexcept>


namespace mgsim {
namespace {

/// For every tensor (backward order), when it is ready, and for every layer
/// (backward order), when its backward ends; no selection compute included.
template <typename VisitTensor, typename VisitLayer>
void walk_backward(const ComputeProfile& compute, const TensorLayout& layout, VisitTensor tensor, VisitLayer layer) {
  SimTime layer_start = compute.forward;
  for (int u = 0; u < layout.layer_count(); ++u) {
    const int l = layout.layer[static_cast<std::size_t>(layout.layer_begin[u])];
    for (int t = layout.layer_begin[u]; t < layout.layer_begin[u + 1]; ++t) {
      tensor(t, layer_start + compute.ready_offset(l, layout.index_in_layer[static_cast<std::size_t>(t)]));
    }
    layer_start += compute.backward[static_cast<std::size_t>(l)];
    layer(u, layer_start);
  }
}

/// Per backward-order layer, the selection compute that follows it. Checks the
/// plan's invariants: messages cover the tensors once, in order, and those
/// with selection end on a layer boundary.
std::vector<SimTime> selection_after_layers(const TensorLayout& layout, const Plan& plan) {
  std::vector<SimTime> after(static_cast<std::size_t>(layout.layer_count()), 0);
  int covered = 0;
  for (const Message& message : plan) {
    if (message.begin != covered || message.end <= message.begin) {
      throw std::logic_error("plan: messages must cover the tensors once, in backward order");
    }
    covered = message.end;
    if (message.selection == 0) continue;
    const int u = layout.backward_layer(message.end - 1);
    if (layout.layer_begin[u + 1] != message.end) {
      throw std::logic_error("plan: a message with selection compute must end on a layer boundary");
    }
    after[static_cast<std::size_t>(u)] += message.selection;
  }
  if (covered != layout.tensor_count()) throw std::logic_error("plan: messages must cover every tensor");
  return after;
}

using Stream = ReplayDag::Stream;

Stream add_compute_stream(Engine& engine, const ComputeProfile& compute, const TensorLayout& layout,
                          const std::vector<SimTime>& selection_after, SimTime start, ResourceId resource) {
  const ResourceId on[] = {resource};
  Stream stream;
  stream.produced_by.resize(static_cast<std::size_t>(layout.tensor_count()));
  stream.forward = engine.add(compute.forward, start, on);
  stream.last = stream.forward;
  const auto chain = [&](SimTime work) {
    const ActivityId id = engine.add(work, 0, on);
    engine.depend(id, stream.last);
    stream.last = id;
    return id;
  };
  std::vector<SimTime> cuts;
  for (int u = 0; u < layout.layer_count(); ++u) {
    const int begin = layout.layer_begin[u];
    const int end = layout.layer_begin[u + 1];
    const int l = layout.layer[static_cast<std::size_t>(begin)];
    const auto offset = [&](int t) { return compute.ready_offset(l, layout.index_in_layer[static_cast<std::size_t>(t)]); };
    cuts.assign(1, compute.backward[static_cast<std::size_t>(l)]);
    for (int t = begin; t < end; ++t) cuts.push_back(offset(t));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    const ActivityId first_segment = engine.size();
    SimTime previous = 0;
    for (SimTime cut : cuts) {
      chain(cut - previous);
      previous = cut;
    }
    for (int t = begin; t < end; ++t) {
      const auto position = std::lower_bound(cuts.begin(), cuts.end(), offset(t)) - cuts.begin();
      stream.produced_by[static_cast<std::size_t>(t)] = first_segment + static_cast<ActivityId>(position);
    }
    stream.layer_first.push_back(first_segment);
    stream.layer_last.push_back(stream.last);
    const SimTime selection = selection_after[static_cast<std::size_t>(u)];
    stream.selection.push_back(selection > 0 ? chain(selection) : -1);
  }
  return stream;
}

ComputeSpans spans_of(const Engine& engine, const Stream& stream) {
  ComputeSpans spans;
  spans.forward_end = engine.finish(stream.forward);
  for (ActivityId id : stream.layer_first) spans.layer_start.push_back(engine.start(id));
  for (ActivityId id : stream.layer_last) spans.layer_end.push_back(engine.finish(id));
  for (std::size_t u = 0; u < stream.selection.size(); ++u) {
    spans.selection_end.push_back(stream.selection[u] < 0 ? spans.layer_end[u] : engine.finish(stream.selection[u]));
  }
  return spans;
}

}  // namespace

CommProblem make_problem(std::span<const GpuClass> classes, const TensorLayout& layout, CommCost cost) {
  CommProblem problem{&layout, std::vector<SimTime>(static_cast<std::size_t>(layout.tensor_count()), 0), 0, 0,
                      std::vector<SimTime>(static_cast<std::size_t>(layout.layer_count()), 0), cost};
  for (const GpuClass& gpu : classes) {
    problem.backward_start = std::max(problem.backward_start, gpu.compute.forward);
    problem.compute_end = std::max(problem.compute_end, gpu.compute.compute_time());
    walk_backward(
        gpu.compute, layout,
        [&](int t, SimTime ready) {
          SimTime& latest = problem.ready[static_cast<std::size_t>(t)];
          latest = std::max(latest, ready);
        },
        [&](int u, SimTime end) {
          SimTime& latest = problem.layer_end[static_cast<std::size_t>(u)];
          latest = std::max(latest, end);
        });
  }
  return problem;
}

ReplayDag::ReplayDag(Engine& engine, std::span<const GpuClass> classes, const TensorLayout& layout, const Plan& plan,
                     SimTime start, InterferenceModel* interference) {
  const std::vector<SimTime> selection_after = selection_after_layers(layout, plan);
  const ResourceId channel = engine.add_resource(kCommResource);
  for (const GpuClass& gpu : classes) {
    const ResourceId compute = engine.add_resource(kComputeResource);
    if (interference != nullptr) interference->couple(compute, channel);
    streams_.push_back(add_compute_stream(engine, gpu.compute, layout, selection_after, start, compute));
    class_size_.push_back(gpu.count);
  }
  const ResourceId on[] = {channel};
  for (const Message& message : plan) {
    const ActivityId id = engine.add(message.duration, start + message.not_before, on);
    if (!messages_.empty()) engine.depend(id, messages_.back());
    for (const Stream& stream : streams_) {
      // The stream is a chain, so the latest producer is the one added last;
      // a message with selection waits for the selection that follows it.
      const auto& produced = stream.produced_by;
      engine.depend(id, message.selection > 0
                            ? stream.selection[static_cast<std::size_t>(layout.backward_layer(message.end - 1))]
                            : *std::max_element(produced.begin() + message.begin, produced.begin() + message.end));
    }
    messages_.push_back(id);
    message_not_before_.push_back(message.not_before);
  }
}

void ReplayDag::restart(Engine& engine, SimTime start) const {
  engine.rewind();
  for (const Stream& stream : streams_) engine.set_not_before(stream.forward, start);
  for (std::size_t m = 0; m < messages_.size(); ++m) engine.set_not_before(messages_[m], start + message_not_before_[m]);
}

ReplayDag::Ends ReplayDag::ends(const Engine& engine) const {
  Ends ends;
  for (const Stream& stream : streams_) ends.compute_end = std::max(ends.compute_end, engine.finish(stream.last));
  ends.iteration_end = std::max(ends.compute_end, messages_.empty() ? 0 : engine.finish(messages_.back()));
  // Each GPU waits from its own end of compute to the slowest one's; the sum
  // over up to 2^20 GPUs may pass int64.
  std::int64_t gpus = 0;
  __extension__ __int128 waited = 0;
  for (std::size_t c = 0; c < streams_.size(); ++c) {
    gpus += class_size_[c];
    waited += class_size_[c] * (ends.compute_end - engine.finish(streams_[c].last));
  }
  ends.wait = gpus == 0 ? 0 : static_cast<SimTime>((waited + gpus / 2) / gpus);
  return ends;
}

Replay ReplayDag::collect(const Engine& engine) const {
  Replay result;
  for (const Stream& stream : streams_) result.compute.push_back(spans_of(engine, stream));
  for (ActivityId id : messages_) {
    result.message_start.push_back(engine.start(id));
    result.message_end.push_back(engine.finish(id));
  }
  const Ends timing = ends(engine);
  result.compute_end = timing.compute_end;
  result.iteration_end = timing.iteration_end;
  result.wait = timing.wait;
  return result;
}

Replay replay(std::span<const GpuClass> classes, const TensorLayout& layout, const Plan& plan, Overlap overlap) {
  Engine engine;
  InterferenceModel interference(overlap);
  if (!overlap.ideal()) engine.set_rate_model(&interference);
  const ReplayDag dag(engine, classes, layout, plan, 0, overlap.ideal() ? nullptr : &interference);
  const std::int64_t events = engine.run();
  Replay result = dag.collect(engine);
  result.events = events;
  return result;
}

Replay evaluate_closed_form(const CommProblem& problem, const Plan& plan) {
  Replay result;
  SimTime channel_free = 0;
  SimTime shift = 0;  // selection compute so far: it delays every later layer's backward
  for (const Message& message : plan) {
    SimTime ready = problem.ready_of(message.begin, message.end) + shift;
    if (message.selection > 0) {
      const auto u = static_cast<std::size_t>(problem.layout->backward_layer(message.end - 1));
      shift += message.selection;
      ready = std::max(ready, problem.layer_end[u] + shift);
    }
    const SimTime start = std::max({channel_free, ready, message.not_before});
    channel_free = start + message.duration;
    result.message_start.push_back(start);
    result.message_end.push_back(channel_free);
  }
  result.compute_end = problem.compute_end + shift;
  result.iteration_end = std::max(result.compute_end, channel_free);
  return result;
}

}  // namespace mgsim
