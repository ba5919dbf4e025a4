#include "mgsim/trace.hpp"

#include <algorithm>
#include <numeric>

namespace mgsim {

SimTime ComputeProfile::compute_time() const {
  return std::accumulate(backward.begin(), backward.end(), forward);
}

bool has_layer_forward(const Trace& trace) {
  return std::any_of(trace.layers.begin(), trace.layers.end(), [](const Layer& l) { return l.forward_time_s > 0; });
}

std::vector<SimTime> spread_forward(SimTime forward, const std::vector<SimTime>& backward) {
  __extension__ using Wide = __int128;  // forward x a sum of backward times may pass int64
  const SimTime total = std::accumulate(backward.begin(), backward.end(), SimTime{0});
  const auto count = static_cast<SimTime>(backward.size());
  std::vector<SimTime> parts;
  SimTime before = 0, given = 0;  // backward (or layers) so far, forward given so far
  for (const SimTime b : backward) {
    before += total > 0 ? b : 1;
    const Wide whole = total > 0 ? total : count;
    const auto upto = static_cast<SimTime>((Wide{forward} * before + whole / 2) / whole);
    parts.push_back(upto - given);
    given = upto;
  }
  return parts;
}

ComputeProfile make_profile(const Trace& trace) {
  ComputeProfile profile;
  profile.tensor_begin.push_back(0);
  for (const Layer& layer : trace.layers) {
    const SimTime backward = to_ns(layer.backward_time_s);
    profile.backward.push_back(backward);
    const std::size_t first = profile.ready_offsets.size();
    profile.ready_offsets.resize(first + layer.params.size(), backward);
    for (std::size_t k = 0; k < layer.grad_ready_s.size(); ++k) {
      profile.ready_offsets[first + k] = to_ns(layer.grad_ready_s[k]);
    }
    profile.tensor_begin.push_back(static_cast<int>(profile.ready_offsets.size()));
  }
  if (has_layer_forward(trace)) {
    for (const Layer& layer : trace.layers) profile.forward_layers.push_back(to_ns(layer.forward_time_s));
  } else {
    profile.forward_layers = spread_forward(to_ns(trace.forward_time_s), profile.backward);
  }
  profile.forward = std::accumulate(profile.forward_layers.begin(), profile.forward_layers.end(), SimTime{0});
  return profile;
}

TensorLayout make_layout(const Trace& trace) {
  TensorLayout layout;
  layout.layer_begin.push_back(0);
  for (const Layer& layer : trace.layers) layout.layer_name.push_back(layer.name);
  for (int l = static_cast<int>(trace.layers.size()) - 1; l >= 0; --l) {
    const Layer& layer = trace.layers[static_cast<std::size_t>(l)];
    // A layer's tensors in the order their gradients are ready (grad_ready_s), ties last parameter first
    // (red team: a tensor ready at 2 ms waited behind its layer's other, ready at 10 ms).
    std::vector<int> order(layer.params.size());
    std::iota(order.rbegin(), order.rend(), 0);
    const auto ready = [&](int k) {
      const auto at = static_cast<std::size_t>(k);
      return at < layer.grad_ready_s.size() ? layer.grad_ready_s[at] : layer.backward_time_s;
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ready(a) < ready(b); });
    for (const int k : order) {
      layout.elements.push_back(layer.params[static_cast<std::size_t>(k)]);
      layout.bytes.push_back(layout.elements.back() * layer.dtype_bytes);
      layout.layer.push_back(l);
      layout.index_in_layer.push_back(k);
    }
    layout.layer_begin.push_back(layout.tensor_count());
  }
  return layout;
}

double backward_time_s(const Trace& trace) {
  double backward = 0.0;
  for (const Layer& layer : trace.layers) backward += layer.backward_time_s;
  return backward;
}

double compute_time_s(const Trace& trace) {
  double total = trace.forward_time_s;
  for (const Layer& layer : trace.layers) total += layer.backward_time_s;
  return total;
}

void scale_compute(Trace& trace, double factor) {
  trace.optimizer_bytes_per_s /= factor;
  trace.forward_time_s *= factor;
  for (Layer& layer : trace.layers) {
    layer.forward_time_s *= factor;
    layer.backward_time_s *= factor;
    for (double& ready : layer.grad_ready_s) ready *= factor;
  }
}

std::int64_t total_gradient_bytes(const Trace& trace) {
  std::int64_t total = 0;
  for (const Layer& layer : trace.layers) {
    for (std::int64_t elements : layer.params) total += elements * layer.dtype_bytes;
  }
  return total;
}

}  // namespace mgsim
