#include "mgsim/trace.hpp"

#include <numeric>

namespace mgsim {

SimTime ComputeProfile::compute_time() const {
  return std::accumulate(backward.begin(), backward.end(), forward);
}

ComputeProfile make_profile(const Trace& trace) {
  ComputeProfile profile;
  profile.forward = to_ns(trace.forward_time_s);
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
  return profile;
}

TensorLayout make_layout(const Trace& trace) {
  TensorLayout layout;
  layout.layer_begin.push_back(0);
  for (const Layer& layer : trace.layers) layout.layer_name.push_back(layer.name);
  for (int l = static_cast<int>(trace.layers.size()) - 1; l >= 0; --l) {
    const Layer& layer = trace.layers[static_cast<std::size_t>(l)];
    for (int k = static_cast<int>(layer.params.size()) - 1; k >= 0; --k) {
      layout.elements.push_back(layer.params[static_cast<std::size_t>(k)]);
      layout.bytes.push_back(layout.elements.back() * layer.dtype_bytes);
      layout.layer.push_back(l);
      layout.index_in_layer.push_back(k);
    }
    layout.layer_begin.push_back(layout.tensor_count());
  }
  return layout;
}

std::int64_t total_gradient_bytes(const Trace& trace) {
  std::int64_t total = 0;
  for (const Layer& layer : trace.layers) {
    for (std::int64_t elements : layer.params) total += elements * layer.dtype_bytes;
  }
  return total;
}

}  // namespace mgsim
