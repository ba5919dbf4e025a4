#include "mgsim/io/timeline.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "mgsim/io/json_text.hpp"
#include <nlohmann/json.hpp>

namespace mgsim {
namespace {

using nlohmann::json;

constexpr int kComputeTrack = 1;
constexpr int kMessageTrack = 1;
constexpr int kExposedTrack = 2;
constexpr int kHostTrack = 3;

double to_us(SimTime ns) { return static_cast<double>(ns) / 1e3; }

/// The document's text, its "traceEvents" written an event at a time (each
/// event's few keys are built, then laid out): the events of 85,000 layers
/// held as one JSON value took 4.3 GB for a 528 MB file (red team). Laid out
/// as json_text lays out the whole document, whose keys sort traceEvents last.
class Events {
 public:
  explicit Events(const json& other_keys) : text_(json_text(other_keys, 1)) {
    text_.erase(text_.size() - 2);  // the object's closing "\n}", reopened for the events
    text_ += ",\n \"traceEvents\": [";
  }
  void push_back(const json& event) {
    text_ += empty_ ? "\n  " : ",\n  ";
    empty_ = false;
    append_json_text(text_, event, 1, 2);
  }
  std::string finish() && {
    text_ += empty_ ? "]\n}\n" : "\n ]\n}\n";
    return std::move(text_);
  }

 private:
  std::string text_;
  bool empty_ = true;
};

json metadata(std::string_view what, int pid, int tid, json args) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

json slice(std::string name, std::string_view category, int pid, int tid, SimTime start, SimTime end, json args) {
  return {{"name", std::move(name)}, {"cat", category}, {"ph", "X"},      {"pid", pid},
          {"tid", tid},              {"ts", to_us(start)}, {"dur", to_us(end - start)}, {"args", std::move(args)}};
}

/// Names a process, keeps processes in pid order and names its tracks.
void add_process(Events& events, int pid, const std::string& name, const std::vector<std::string>& tracks) {
  events.push_back(metadata("process_name", pid, 0, {{"name", name}}));
  events.push_back(metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
  for (std::size_t t = 0; t < tracks.size(); ++t) {
    events.push_back(metadata("thread_name", pid, static_cast<int>(t) + 1, {{"name", tracks[t]}}));
  }
}

void add_compute(Events& events, int pid, const Workload& workload, const ComputeSpans& spans) {
  const TensorLayout& layout = workload.layout;
  for (std::size_t u = 0; u < spans.layer_start.size(); ++u) {
    const int layer = layout.layer[static_cast<std::size_t>(layout.layer_begin[u])];
    events.push_back(slice(workload.trace.layers[static_cast<std::size_t>(layer)].name, "backward", pid,
                           kComputeTrack, spans.layer_start[u], spans.layer_end[u],
                           {{"layer", layer}, {"backward_order", u}}));
    if (spans.selection_end[u] > spans.layer_end[u]) {
      events.push_back(slice("top-k selection", "selection", pid, kComputeTrack, spans.layer_end[u],
                             spans.selection_end[u], {{"after_layer", layer}}));
    }
  }
  for (std::size_t l = 0; l < spans.forward_start.size(); ++l) {
    events.push_back(slice(workload.trace.layers[l].name, "forward", pid, kComputeTrack, spans.forward_start[l],
                           spans.forward_end[l], {{"layer", l}, {"iteration", "next"}}));
  }
}

/// Where the forward that ends the window last waits for communication:
/// from the end of every backward to its first layer, and between its layers.
void add_exposed(Events& events, int pid, const Replay& replay) {
  const auto last = std::max_element(replay.compute.begin(), replay.compute.end(), [](const auto& a, const auto& b) {
    return a.forward_end.back() < b.forward_end.back();
  });
  SimTime cursor = replay.compute_end;
  for (std::size_t l = 0; l < last->forward_start.size(); ++l) {
    if (last->forward_start[l] > cursor) {
      events.push_back(slice("exposed communication", "exposed", pid, kExposedTrack, cursor, last->forward_start[l],
                             {{"exposed_us", to_us(last->forward_start[l] - cursor)}, {"before_forward_of", l}}));
    }
    cursor = std::max(cursor, last->forward_end[l]);
  }
}

/// Where the backward that ends last waited for parameters between its
/// layers (ZeRO-3, FSDP): exposed communication too.
void add_parameter_waits(Events& events, int pid, const Replay& replay) {
  const auto last = std::max_element(replay.compute.begin(), replay.compute.end(), [](const auto& a, const auto& b) {
    return a.selection_end.back() < b.selection_end.back();
  });
  for (std::size_t u = 1; u < last->layer_start.size(); ++u) {
    const SimTime from = last->selection_end[u - 1], to = last->layer_start[u];
    if (to <= from) continue;
    events.push_back(slice("exposed communication", "exposed", pid, kExposedTrack, from, to,
                           {{"exposed_us", to_us(to - from)}, {"before_backward_order", u}}));
  }
}

/// The layers (forward indices) whose tensors a message carries, in backward order.
std::vector<int> layers_of(const TensorLayout& layout, const Message& message) {
  std::vector<int> layers;
  for (int t = message.begin; t < message.end; ++t) {
    const int layer = layout.layer[static_cast<std::size_t>(t)];
    if (layers.empty() || layers.back() != layer) layers.push_back(layer);
  }
  return layers;
}

std::string message_name(const std::vector<std::string>& names) {
  if (names.size() <= 3) return fmt::format("{}", fmt::join(names, ", "));
  return fmt::format("{} .. {} ({} layers)", names.front(), names.back(), names.size());
}

void add_communication(Events& events, int pid, const Workload& workload, const IterationTrace& iteration) {
  const Replay& replay = iteration.replay;
  for (std::size_t m = 0; m < iteration.plan.size(); ++m) {
    const Message& message = iteration.plan[m];
    std::vector<std::string> names;
    for (int layer : layers_of(workload.layout, message)) {
      names.push_back(workload.trace.layers[static_cast<std::size_t>(layer)].name);
    }
    json args = {{"bytes", message.bytes}, {"sent_bytes", message.sent_bytes}, {"tensors", message.end - message.begin},
                 {"message", m},         {"layers", names}};
    if (message.kind == CollectiveKind::param_allgather) {
      args["before"] = message.before_backward ? "backward" : "forward";
    }
    const std::string_view kind = collective_kind_name(message.kind);
    events.push_back(slice(message_name(names), kind, pid, kMessageTrack, replay.message_start[m],
                           replay.message_end[m], std::move(args)));
  }
  add_parameter_waits(events, pid, replay);
  add_exposed(events, pid, replay);
  // After the window, as the metrics add them: host time and optimizer step,
  // coordination (exposed communication), the wait for the input.
  const IterationOverheads& after = iteration.overheads;
  SimTime cursor = replay.iteration_end;
  const auto add_after = [&](SimTime length, std::string name, std::string_view category, int track) {
    if (length <= 0) return;
    events.push_back(slice(std::move(name), category, pid, track, cursor, cursor + length, json::object()));
    cursor += length;
  };
  add_after(after.step, "host time and optimizer step", "host", kHostTrack);
  add_after(after.sync, "coordination (sync_overhead_s)", "exposed", kExposedTrack);
  add_after(after.input_wait, "waiting for the input pipeline", "input", kHostTrack);
  events.push_back({{"name", "iteration end"}, {"cat", "iteration"}, {"ph", "i"}, {"s", "p"}, {"pid", pid},
                    {"tid", kExposedTrack}, {"ts", to_us(cursor)}});
}

}  // namespace

std::string format_timeline(const Workload& workload, std::span<const IterationTrace> iterations) {
  json other_keys = {{"displayTimeUnit", "ms"}, {"otherData", {{"generator", "mgsim"}, {"model", workload.trace.model}}}};
  stamp_report(other_keys["otherData"]);
  Events events(other_keys);
  int pid = 0;
  for (const IterationTrace& iteration : iterations) {
    for (std::size_t c = 0; c < iteration.replay.compute.size(); ++c) {
      add_process(events, ++pid, fmt::format("{}: {}", iteration.label, iteration.class_names[c]),
                  {"compute"});
      add_compute(events, pid, workload, iteration.replay.compute[c]);
    }
    std::vector<std::string> tracks{"collectives", "exposed communication"};
    if (iteration.overheads.step + iteration.overheads.input_wait > 0) tracks.emplace_back("host and input");
    add_process(events, ++pid, fmt::format("{}: communication", iteration.label), tracks);
    add_communication(events, pid, workload, iteration);
  }
  return std::move(events).finish();
}

}  // namespace mgsim
