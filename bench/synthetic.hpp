#pragma once
// Deterministic synthetic inputs for the benchmarks: a splitmix64 generator
// (fully specified, so every platform builds the same trace; std::
// distributions are not), a layered trace and the ring cost settings of the
// performance issue (docs/performance.md).

#include <cstdint>
#include <string>

#include "mgsim/collective.hpp"
#include "mgsim/trace.hpp"

namespace mgsim::bench {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Integer in [lo, hi].
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  /// Real in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

/// `layers` layers of two tensors each (weights, bias). Weights hold 1e3..4e6
/// fp32 elements, biases 16..4096; a layer's backward takes 20 us..2 ms, its
/// bias gradient is ready part-way through and its weights at the end.
inline Trace synthetic_trace(int layers, std::uint64_t seed = 42) {
  SplitMix64 rng(seed);
  Trace trace;
  trace.model = "synthetic-" + std::to_string(layers);
  trace.batch_size = 64;
  double backward_total = 0.0;
  for (int l = 0; l < layers; ++l) {
    Layer layer;
    layer.name = "layer" + std::to_string(l);
    layer.params = {rng.uniform(1'000, 4'000'000), rng.uniform(16, 4'096)};
    layer.dtype_bytes = 4;
    layer.backward_time_s = static_cast<double>(rng.uniform(20'000, 2'000'000)) * 1e-9;
    layer.grad_ready_s = {layer.backward_time_s, layer.backward_time_s * (0.1 + 0.8 * rng.unit())};
    backward_total += layer.backward_time_s;
    trace.layers.push_back(std::move(layer));
  }
  trace.forward_time_s = backward_total / 2;
  return trace;
}

/// Ring all-reduce constants of the issue (alpha 45.25 us, beta 1.24e-10 s/B,
/// gamma 2.5e-9 s/B) on a flat network.
inline CollectiveSettings ring_settings() {
  CollectiveSettings settings;
  settings.network.inter = Link{45.25e-6, 1.24e-10, 2.5e-9};
  settings.network.intra = settings.network.inter;
  settings.gpus_per_node = 1;
  return settings;
}

inline constexpr int kGpus = 64;

}  // namespace mgsim::bench
