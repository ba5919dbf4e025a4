#include "mgsim/profile/layer_timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/median.hpp"

namespace mgsim::profile {
namespace {

struct Spread {
  double median = 0.0;
  double spread = 0.0;
};

Spread median_and_spread(std::vector<double> values) {
  if (values.empty()) return {};
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  const double spread = *high - *low;
  return {median(std::move(values)), spread};
}

/// A layer while the trace is built: its parameters and when it finished.
struct LayerGroup {
  std::string name;
  std::vector<std::size_t> params;  ///< indices into the parameter list, in their order
  double ready_end_ns = 0.0;
  std::optional<double> forward_end_ns;  ///< the latest forward end its parameters were marked with
};

std::vector<LayerGroup> group_layers(const std::vector<ParamInfo>& params, const TimingSummary& summary,
                                     std::vector<std::string>& unused) {
  std::vector<LayerGroup> groups;
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (summary.samples[i] == 0) {
      unused.push_back(params[i].name);
      continue;
    }
    const auto [slot, added] = by_name.try_emplace(params[i].layer, groups.size());
    if (added) groups.push_back({params[i].layer, {}, 0.0, std::nullopt});
    LayerGroup& group = groups[slot->second];
    group.params.push_back(i);
    group.ready_end_ns = std::max(group.ready_end_ns, summary.ready_ns[i]);
    if (i < summary.forward_samples.size() && summary.forward_samples[i] > 0) {
      group.forward_end_ns = std::max(group.forward_end_ns.value_or(0.0), summary.forward_done_ns[i]);
    }
  }
  // Forward order: the layer whose gradients finish last comes first; on a
  // tie, the layer registered later is later in forward order.
  std::stable_sort(groups.begin(), groups.end(), [](const LayerGroup& a, const LayerGroup& b) {
    if (a.ready_end_ns != b.ready_end_ns) return a.ready_end_ns > b.ready_end_ns;
    return a.params.front() < b.params.front();
  });
  return groups;
}

/// Per layer (forward order), its forward time in seconds when every layer's
/// forward end is known, else nothing: the gaps between successive ends
/// (each end at least the previous one), the last layer up to the whole
/// forward, so they sum to it.
std::optional<std::vector<double>> layer_forward_s(const std::vector<LayerGroup>& groups, double forward_ns) {
  std::vector<double> seconds;
  double previous = 0.0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (!groups[g].forward_end_ns) return std::nullopt;
    const double end = g + 1 == groups.size() ? forward_ns : std::clamp(*groups[g].forward_end_ns, previous, forward_ns);
    seconds.push_back((end - previous) * 1e-9);
    previous = end;
  }
  return seconds;
}

}  // namespace

TimingSummary summarize(const std::vector<IterationTiming>& iterations, int parameter_count) {
  TimingSummary summary;
  summary.iterations = static_cast<int>(iterations.size());
  std::vector<double> forward, backward;
  std::vector<std::vector<double>> ready(static_cast<std::size_t>(parameter_count));
  std::vector<std::vector<double>> forward_done(ready.size());
  for (const IterationTiming& it : iterations) {
    forward.push_back(static_cast<double>(it.forward_ns));
    backward.push_back(static_cast<double>(it.backward_ns));
    for (std::size_t p = 0; p < ready.size() && p < it.ready_ns.size(); ++p) {
      if (it.ready_ns[p]) ready[p].push_back(static_cast<double>(*it.ready_ns[p]));
    }
    for (std::size_t p = 0; p < ready.size() && p < it.forward_done_ns.size(); ++p) {
      if (it.forward_done_ns[p]) forward_done[p].push_back(static_cast<double>(*it.forward_done_ns[p]));
    }
  }
  const Spread f = median_and_spread(forward), b = median_and_spread(backward);
  summary.forward_ns = f.median;
  summary.forward_spread_ns = f.spread;
  summary.backward_ns = b.median;
  summary.backward_spread_ns = b.spread;
  for (std::vector<double>& values : ready) {
    summary.samples.push_back(static_cast<int>(values.size()));
    const Spread r = median_and_spread(std::move(values));
    summary.ready_ns.push_back(r.median);
    summary.ready_spread_ns.push_back(r.spread);
  }
  for (std::vector<double>& values : forward_done) {
    summary.forward_samples.push_back(static_cast<int>(values.size()));
    summary.forward_done_ns.push_back(median(std::move(values)));
  }
  return summary;
}

BuiltTrace build_trace(const std::vector<ParamInfo>& params, const TimingSummary& summary, const std::string& model,
                       int batch_size) {
  BuiltTrace built;
  const std::vector<LayerGroup> groups = group_layers(params, summary, built.unused_parameters);
  if (groups.empty()) throw TraceError("no parameter's gradient was ever marked ready: nothing to build a trace from");
  built.trace.model = model;
  built.trace.batch_size = batch_size;
  built.trace.forward_time_s = summary.forward_ns * 1e-9;
  // What the trace loader would refuse is refused here, not written (docs/limits.md).
  const auto check_step = [](double seconds, const std::string& what) {
    if (!(seconds <= kMaxStepSeconds)) {
      throw TraceError(fmt::format("{} lasts {:g} s: expected at most {:g} s (docs/limits.md)", what, seconds,
                                   kMaxStepSeconds));
    }
  };
  check_step(built.trace.forward_time_s, "the forward pass");
  const std::optional<std::vector<double>> forward = layer_forward_s(groups, summary.forward_ns);
  double max_spread = 0.0;
  int partial = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    // The layer's backward starts when the next layer (in forward order) ends.
    const double start = g + 1 < groups.size() ? groups[g + 1].ready_end_ns : 0.0;
    Layer layer;
    layer.name = groups[g].name;
    const double length = groups[g].ready_end_ns - start;
    layer.backward_time_s = length * 1e-9;
    if (forward) layer.forward_time_s = (*forward)[g];
    check_step(layer.backward_time_s, fmt::format("the backward of layer '{}'", layer.name));
    for (const std::size_t p : groups[g].params) {
      if (!layer.params.empty() && params[p].dtype_bytes != layer.dtype_bytes) {  // red team: the last one's was kept
        throw TraceError(fmt::format("layer '{}' has gradients of {} and {} bytes an element: a trace gives one type "
                                     "a layer (docs/trace-format.md); profile it in one precision",
                                     printable(layer.name), layer.dtype_bytes, params[p].dtype_bytes));
      }
      layer.params.push_back(params[p].elements);
      layer.dtype_bytes = params[p].dtype_bytes;
      double offset = summary.ready_ns[p] - start;
      if (offset < 0) {
        ++built.clamped_tensors;
        offset = 0;
      }
      layer.grad_ready_s.push_back(std::min(offset, length) * 1e-9);
      max_spread = std::max(max_spread, summary.ready_spread_ns[p] * 1e-9);
      if (summary.samples[p] < summary.iterations) ++partial;
    }
    built.trace.layers.push_back(std::move(layer));
  }
  built.stats = {
      {"iterations", summary.iterations},
      {"statistic", "median over the measured iterations; spreads are max - min"},
      {"forward_spread_s", summary.forward_spread_ns * 1e-9},
      {"layer_forward",
       forward ? "per layer: from the end of the previous layer's forward to the end of its own (forward markers), "
                 "the last layer to the end of the forward"
               : "not measured (a forward marker missing for some layer): one forward time for the trace"},
      {"backward_s", summary.backward_ns * 1e-9},
      {"backward_spread_s", summary.backward_spread_ns * 1e-9},
      {"max_ready_spread_s", max_spread},
      {"parameters_marked_in_some_iterations_only", partial},
      {"tensors_ready_before_their_layer_started", built.clamped_tensors},
      {"unused_parameters", built.unused_parameters},
  };
  return built;
}

}  // namespace mgsim::profile
