#include "mgsim/replay.hpp"

#include <algorithm>
#include <stdexcept>

#include "mgsim/limits.hpp"

namespace mgsim {
namespace {

/// For every tensor (backward order), when it is ready, and for every layer
/// (backward order), when its backward ends; no selection compute included.
template <typename VisitTensor, typename VisitLayer>
void walk_backward(const ComputeProfile& compute, const TensorLayout& layout, VisitTensor tensor, VisitLayer layer) {
  SimTime layer_start = 0;
  for (int u = 0; u < layout.layer_count(); ++u) {
    const int l = layout.layer[static_cast<std::size_t>(layout.layer_begin[u])];
    for (int t = layout.layer_begin[u]; t < layout.layer_begin[u + 1]; ++t) {
      tensor(t, layer_start + compute.ready_offset(l, layout.index_in_layer[static_cast<std::size_t>(t)]));
    }
    layer_start += compute.backward[static_cast<std::size_t>(l)];
    layer(u, layer_start);
  }
}

/// Calls `visit(t, bytes)` for each tensor a message covers: a range of
/// whole tensors, or a part of one tensor.
template <typename Visit>
void for_each_covered(const TensorLayout& layout, const Message& message, Visit visit) {
  if (message.begin < 0 || message.end <= message.begin || message.end > layout.tensor_count()) {
    throw std::logic_error("plan: a message must hold a non-empty range of the tensors");
  }
  const auto first = static_cast<std::size_t>(message.begin);
  if (message.end - message.begin == 1 && message.bytes < layout.bytes[first]) {
    visit(first, message.bytes);  // a part of one tensor
    return;
  }
  for (auto t = first; t < static_cast<std::size_t>(message.end); ++t) visit(t, layout.bytes[t]);
}

bool reduces_gradients(const Message& message) { return message.kind != CollectiveKind::param_allgather; }

/// Checks the plan's coverage (plan.hpp): gradient messages reduce every
/// gradient byte once, in any order; parameter all-gathers for the next
/// forward gather every reduce-scattered byte once, each after its tensor's
/// gradient is reduced; one for a backward comes before every gradient
/// message of its layers or later ones in backward order (else that
/// backward would wait for itself).
void check_coverage(const TensorLayout& layout, const Plan& plan) {
  const auto n = static_cast<std::size_t>(layout.tensor_count());
  std::vector<std::int64_t> reduced(n, 0), scattered(n, 0), gathered(n, 0);
  int latest_reduced = -1;  // the latest backward-order layer a gradient message so far carries
  for (const Message& message : plan) {
    if (reduces_gradients(message)) {
      const bool scatter = message.kind == CollectiveKind::reduce_scatter;
      for_each_covered(layout, message, [&](std::size_t t, std::int64_t bytes) {
        reduced[t] += bytes;
        if (scatter) scattered[t] += bytes;
      });
      latest_reduced = std::max(latest_reduced, layout.backward_layer(message.end - 1));
    } else if (message.before_backward) {
      for_each_covered(layout, message, [](std::size_t, std::int64_t) {});
      if (message.begin < layout.layer_begin[1]) {
        throw std::logic_error("plan: the first layer of the backward keeps the parameters of the last forward "
                               "layer; no all-gather may gate it");
      }
      if (layout.backward_layer(message.begin) <= latest_reduced) {
        throw std::logic_error("plan: a parameter all-gather before a backward must come before every gradient "
                               "message of its layers and of the layers after them in backward order");
      }
    } else {
      for_each_covered(layout, message, [&](std::size_t t, std::int64_t bytes) {
        if (reduced[t] != layout.bytes[t]) {
          throw std::logic_error("plan: a parameter all-gather for the next forward must follow the reduction of "
                                 "its tensors' gradients");
        }
        gathered[t] += bytes;
      });
    }
  }
  if (reduced != layout.bytes) throw std::logic_error("plan: messages must cover every tensor's bytes once");
  if (gathered != scattered) {
    throw std::logic_error("plan: parameter all-gathers for the next forward must gather every reduce-scattered "
                           "byte once");
  }
}

/// Per backward-order layer, the selection compute that follows it on a GPU
/// of relative speed `speed` (a plan prices it at the trace's). Checks the
/// plan's invariants: messages cover every tensor once (check_coverage);
/// with selection compute they come in backward order and those with
/// selection end on a layer boundary.
std::vector<SimTime> selection_after_layers(const TensorLayout& layout, const Plan& plan, double speed) {
  check_coverage(layout, plan);
  std::vector<SimTime> after(static_cast<std::size_t>(layout.layer_count()), 0);
  if (std::none_of(plan.begin(), plan.end(), [](const Message& m) { return m.selection > 0; })) return after;
  int covered = 0;
  for (const Message& message : plan) {
    if (message.begin != covered) {
      throw std::logic_error("plan: messages with selection compute must come in backward order");
    }
    covered = message.end;
    if (message.selection == 0) continue;
    const int u = layout.backward_layer(message.end - 1);
    if (layout.layer_begin[u + 1] != message.end) {
      throw std::logic_error("plan: a message with selection compute must end on a layer boundary");
    }
    after[static_cast<std::size_t>(u)] += scaled_time(message.selection, speed);
  }
  return after;
}

using Stream = ReplayDag::Stream;

Stream add_compute_stream(Engine& engine, const ComputeProfile& compute, const TensorLayout& layout,
                          const std::vector<SimTime>& selection_after, SimTime start, ResourceId resource) {
  const ResourceId on[] = {resource};
  Stream stream;
  stream.produced_by.resize(static_cast<std::size_t>(layout.tensor_count()));
  bool first = true;
  const auto chain = [&](SimTime work) {
    const ActivityId id = engine.add(work, first ? start : 0, on);
    if (!first) engine.depend(id, stream.last);
    first = false;
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
    const SimTime selection = scaled_time(selection_after[static_cast<std::size_t>(u)], compute.speed);
    stream.selection.push_back(selection > 0 ? chain(selection) : -1);
  }
  return stream;
}

/// The next iteration's forward of `stream`, after its backward, each layer
/// after the messages that carry its gradients (`carried_by`, per forward-order layer).
void add_forward(Engine& engine, Stream& stream, const ComputeProfile& compute,
                 const std::vector<std::vector<ActivityId>>& carried_by, ResourceId resource) {
  const ResourceId on[] = {resource};
  ActivityId previous = stream.last;
  for (std::size_t l = 0; l < compute.forward_layers.size(); ++l) {
    const ActivityId id = engine.add(compute.forward_layers[l], 0, on);
    engine.depend(id, previous);
    for (const ActivityId message : carried_by[l]) engine.depend(id, message);
    stream.forward.push_back(id);
    previous = id;
  }
}

/// The work of `stream`'s forward, as a builder may have set it.
SimTime forward_work(const Engine& engine, const Stream& stream) {
  SimTime work = 0;
  for (const ActivityId id : stream.forward) work += engine.work(id);
  return work;
}

/// The time `stream`'s forward computed: each layer from its start to its
/// end, its work slowed where it overlapped communication
/// (overlap.compute_slowdown), the waits between layers left out.
SimTime forward_time(const Engine& engine, const Stream& stream) {
  SimTime time = 0;
  for (const ActivityId id : stream.forward) time += engine.finish(id) - engine.start(id);
  return time;
}

ComputeSpans spans_of(const Engine& engine, const Stream& stream) {
  ComputeSpans spans;
  for (ActivityId id : stream.layer_first) spans.layer_start.push_back(engine.start(id));
  for (ActivityId id : stream.layer_last) spans.layer_end.push_back(engine.finish(id));
  for (std::size_t u = 0; u < stream.selection.size(); ++u) {
    spans.selection_end.push_back(stream.selection[u] < 0 ? spans.layer_end[u] : engine.finish(stream.selection[u]));
  }
  for (ActivityId id : stream.forward) {
    spans.forward_start.push_back(engine.start(id));
    spans.forward_end.push_back(engine.finish(id));
  }
  return spans;
}

/// Per forward-order layer, the indices of the plan's messages that carry
/// some of its tensors and gate its next forward: all but the parameter
/// all-gathers for a backward.
std::vector<std::vector<int>> carriers(const TensorLayout& layout, const Plan& plan) {
  std::vector<std::vector<int>> by_layer(static_cast<std::size_t>(layout.layer_count()));
  for (std::size_t m = 0; m < plan.size(); ++m) {
    if (plan[m].before_backward) continue;
    const int first = layout.backward_layer(plan[m].begin), last = layout.backward_layer(plan[m].end - 1);
    for (int u = first; u <= last; ++u) {
      by_layer[static_cast<std::size_t>(layout.layer_count() - 1 - u)].push_back(static_cast<int>(m));
    }
  }
  return by_layer;
}

/// Per backward-order layer, the indices of the plan's parameter all-gathers
/// that gate its backward.
std::vector<std::vector<int>> backward_gates(const TensorLayout& layout, const Plan& plan) {
  std::vector<std::vector<int>> by_layer(static_cast<std::size_t>(layout.layer_count()));
  for (std::size_t m = 0; m < plan.size(); ++m) {
    if (!plan[m].before_backward) continue;
    const int first = layout.backward_layer(plan[m].begin), last = layout.backward_layer(plan[m].end - 1);
    for (int u = first; u <= last; ++u) by_layer[static_cast<std::size_t>(u)].push_back(static_cast<int>(m));
  }
  return by_layer;
}

}  // namespace

CommProblem make_problem(std::span<const GpuClass> classes, const TensorLayout& layout, CommCost cost) {
  const auto layers = static_cast<std::size_t>(layout.layer_count());
  CommProblem problem{.layout = &layout,
                      .ready = std::vector<SimTime>(static_cast<std::size_t>(layout.tensor_count()), 0),
                      .layer_end = std::vector<SimTime>(layers, 0),
                      .forward = std::vector<SimTime>(layers, 0),
                      .cost = cost};
  problem.compute_speed = classes.empty() ? 1.0 : classes.front().compute.speed;
  for (const GpuClass& gpu : classes) {
    problem.compute_speed = std::min(problem.compute_speed, gpu.compute.speed);
    problem.compute_end = std::max(problem.compute_end, gpu.compute.compute_time() - gpu.compute.forward);
    for (std::size_t l = 0; l < problem.forward.size(); ++l) {
      problem.forward[l] = std::max(problem.forward[l], gpu.compute.forward_layers[l]);
    }
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
  const std::vector<SimTime> selection_after = selection_after_layers(layout, plan, 1.0);  // each stream's at its speed
  const ResourceId channel = engine.add_resource(kCommResource);
  std::vector<ResourceId> computes;
  for (const GpuClass& gpu : classes) {
    computes.push_back(engine.add_resource(kComputeResource));
    if (interference != nullptr) interference->couple(computes.back(), channel);
    streams_.push_back(add_compute_stream(engine, gpu.compute, layout, selection_after, start, computes.back()));
    class_size_.push_back(gpu.count);
  }
  const ResourceId on[] = {channel};
  for (const Message& message : plan) {
    const ActivityId id = engine.add(message.duration, start + message.not_before, on);
    if (!messages_.empty()) engine.depend(id, messages_.back());
    if (reduces_gradients(message)) {  // a parameter all-gather waits for no gradient
      for (const Stream& stream : streams_) engine.depend(id, producer(stream, layout, message));
    }
    messages_.push_back(id);
    message_not_before_.push_back(message.not_before);
  }
  for (const std::vector<int>& indices : carriers(layout, plan)) {
    std::vector<ActivityId>& ids = carried_by_.emplace_back();
    for (const int m : indices) ids.push_back(messages_[static_cast<std::size_t>(m)]);
  }
  const std::vector<std::vector<int>> gates = backward_gates(layout, plan);
  for (std::size_t u = 0; u < gates.size(); ++u) {
    if (gates[u].empty()) continue;
    gated_layers_.push_back(u);
    for (const Stream& stream : streams_) {
      for (const int m : gates[u]) engine.depend(stream.layer_first[u], messages_[static_cast<std::size_t>(m)]);
    }
  }
  for (std::size_t c = 0; c < streams_.size(); ++c) {
    add_forward(engine, streams_[c], classes[c].compute, carried_by_, computes[c]);
  }
}

ActivityId ReplayDag::producer(const Stream& stream, const TensorLayout& layout, const Message& message) {
  // The stream is a chain, so the latest producer is the one added last; a
  // message with selection waits for the selection that follows it.
  if (message.selection > 0) return stream.selection[static_cast<std::size_t>(layout.backward_layer(message.end - 1))];
  const auto& produced = stream.produced_by;
  return *std::max_element(produced.begin() + message.begin, produced.begin() + message.end);
}

void ReplayDag::restart(Engine& engine, SimTime start, std::span<const SimTime> release) const {
  engine.rewind();
  this->release(engine, start, release);
}

void ReplayDag::release(Engine& engine, SimTime start, std::span<const SimTime> release) const {
  for (std::size_t c = 0; c < streams_.size(); ++c) {
    engine.set_not_before(streams_[c].layer_first.front(), release.empty() ? start : release[c]);
  }
  for (std::size_t m = 0; m < messages_.size(); ++m) engine.set_not_before(messages_[m], start + message_not_before_[m]);
}

std::vector<SimTime> ReplayDag::forward_works(const Engine& engine) const {
  std::vector<SimTime> works;
  for (const Stream& stream : streams_) works.push_back(forward_work(engine, stream));
  return works;
}

std::vector<SimTime> ReplayDag::forward_ends(const Engine& engine) const {
  std::vector<SimTime> ends;
  for (const Stream& stream : streams_) ends.push_back(engine.finish(stream.forward.back()));
  return ends;
}

std::vector<SimTime> ReplayDag::gates(const Engine& engine) const {
  std::vector<SimTime> gates;
  for (const std::vector<ActivityId>& messages : carried_by_) {
    SimTime gate = 0;
    for (const ActivityId id : messages) gate = std::max(gate, engine.finish(id));
    gates.push_back(gate);
  }
  return gates;
}

SimTime ReplayDag::gated_wait(const Engine& engine, const Stream& stream) const {
  SimTime waited = 0;
  for (const std::size_t u : gated_layers_) {  // never the first (check_coverage)
    const ActivityId previous = stream.selection[u - 1] >= 0 ? stream.selection[u - 1] : stream.layer_last[u - 1];
    waited += engine.start(stream.layer_first[u]) - engine.finish(previous);
  }
  return waited;
}

ReplayDag::Ends ReplayDag::ends(const Engine& engine) const {
  Ends ends;
  // Each class's compute: its backward (from its start) plus its forward,
  // both as slowed by overlapping communication, less what they waited for.
  std::vector<SimTime> compute;
  for (const Stream& stream : streams_) {
    const SimTime forward = forward_time(engine, stream);
    const SimTime waited = gated_wait(engine, stream);
    compute.push_back(engine.finish(stream.last) - engine.start(stream.layer_first.front()) - waited + forward);
    if (engine.finish(stream.last) > ends.compute_end || compute.size() == 1) ends.parameter_wait = waited;
    ends.compute_end = std::max(ends.compute_end, engine.finish(stream.last));
    ends.forward = std::max(ends.forward, forward);
    ends.iteration_end = std::max(ends.iteration_end, engine.finish(stream.forward.back()));
  }
  // Each GPU waits from its own end of compute to the slowest one's; the sum
  // over up to 2^20 GPUs may pass int64.
  const SimTime slowest = *std::max_element(compute.begin(), compute.end());
  std::int64_t gpus = 0;
  __extension__ __int128 waited = 0;
  for (std::size_t c = 0; c < streams_.size(); ++c) {
    gpus += class_size_[c];
    waited += class_size_[c] * (slowest - compute[c]);
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
  result.parameter_wait = timing.parameter_wait;
  result.forward = timing.forward;
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

namespace {

/// The backward of the closed form: each layer starts after the previous
/// one (and the selection after it) and after the parameter all-gathers
/// that gate it, `shift` later than in the problem's ungated chain. Layers
/// are settled in order, when a message first needs them: by the plan's
/// order (check_coverage) every gate of a layer has ended by then.
class GatedBackward {
 public:
  GatedBackward(const CommProblem& problem, const Plan& plan)
      : problem_(problem),
        selection_after_(selection_after_layers(*problem.layout, plan, problem.compute_speed)),
        gate_(selection_after_.size(), 0) {}
  /// When tensors [begin, end) are ready, with the selection after the last
  /// one's layer when `selection`.
  SimTime ready(int begin, int end, bool selection) {
    const TensorLayout& layout = *problem_.layout;
    const int last = layout.backward_layer(end - 1);
    settle(last);
    SimTime ready = 0;
    for (int t = begin; t < end; ++t) {
      const auto u = static_cast<std::size_t>(layout.backward_layer(t));
      ready = std::max(ready, problem_.ready[static_cast<std::size_t>(t)] + shift_[u]);
    }
    const auto u = static_cast<std::size_t>(last);
    return selection ? std::max(ready, problem_.layer_end[u] + shift_[u] + selection_after_[u]) : ready;
  }
  /// A parameter all-gather that ends at `end` gates layers [first, last].
  void gate(int first, int last, SimTime end) {
    for (auto u = static_cast<std::size_t>(first); u <= static_cast<std::size_t>(last); ++u) {
      gate_[u] = std::max(gate_[u], end);
    }
  }
  /// The end of the backward and of the selection after its last layer.
  SimTime end() {
    settle(static_cast<int>(gate_.size()) - 1);
    return problem_.layer_end.back() + shift_.back() + selection_after_.back();
  }
  /// What the backward waited for parameters: its delay less the selection.
  SimTime waited() {
    settle(static_cast<int>(gate_.size()) - 1);
    SimTime selection = 0;
    for (std::size_t u = 0; u + 1 < selection_after_.size(); ++u) selection += selection_after_[u];
    return shift_.back() - selection;
  }

 private:
  void settle(int through) {
    while (static_cast<int>(shift_.size()) <= through) {
      const std::size_t u = shift_.size();
      const SimTime start = u == 0 ? 0 : problem_.layer_end[u - 1];  // in the ungated chain
      const SimTime after = u == 0 ? 0 : shift_[u - 1] + selection_after_[u - 1];
      shift_.push_back(std::max(after, gate_[u] - start));
    }
  }

  const CommProblem& problem_;
  std::vector<SimTime> selection_after_;
  std::vector<SimTime> gate_;   ///< per layer: the latest end of its parameter all-gathers so far
  std::vector<SimTime> shift_;  ///< per settled layer: its start minus the ungated chain's
};

}  // namespace

Replay evaluate_closed_form(const CommProblem& problem, const Plan& plan) {
  Replay result;
  GatedBackward backward(problem, plan);
  SimTime channel_free = 0;
  for (const Message& message : plan) {
    const SimTime ready =
        reduces_gradients(message) ? backward.ready(message.begin, message.end, message.selection > 0) : 0;
    const SimTime start = std::max({channel_free, ready, message.not_before});
    channel_free = start + message.duration;
    result.message_start.push_back(start);
    result.message_end.push_back(channel_free);
    if (message.before_backward) {
      backward.gate(problem.layout->backward_layer(message.begin), problem.layout->backward_layer(message.end - 1),
                    channel_free);
    }
  }
  result.compute_end = backward.end();
  result.parameter_wait = backward.waited();
  // The next forward, each layer after the messages that carry its gradients.
  SimTime end = result.compute_end;
  const std::vector<std::vector<int>> carried_by = carriers(*problem.layout, plan);
  for (std::size_t l = 0; l < problem.forward.size(); ++l) {
    for (const int m : carried_by[l]) end = std::max(end, result.message_end[static_cast<std::size_t>(m)]);
    end += problem.forward[l];
    result.forward += problem.forward[l];
  }
  result.iteration_end = end;
  return result;
}

}  // namespace mgsim
