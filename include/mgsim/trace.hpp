#pragma once
// A trace: what one GPU computes in a training iteration, as recorded by a
// profiler or synthesised from a model. Layers are in forward order (index 0 is
// the input side); backward runs from the last layer to the first. The trace
// is plain data: loading and validation live in io/trace_io.hpp, the integer
// view the simulator replays is ComputeProfile.

#include <cstdint>
#include <string>
#include <vector>

#include "mgsim/collective.hpp"
#include "mgsim/time.hpp"

namespace mgsim {

/// One gradient-producing layer.
struct Layer {
  std::string name;
  std::vector<std::int64_t> params;  ///< element count of each parameter tensor
  int dtype_bytes = 4;               ///< bytes per gradient element
  double backward_time_s = 0.0;
  /// Per tensor: seconds after this layer's backward starts at which its
  /// gradient exists. Empty means every tensor is ready when the layer ends.
  std::vector<double> grad_ready_s;
  /// Its forward (trace format version 2). 0 in every layer of a trace means
  /// the layers' forward times are unknown and the trace's forward_time_s is
  /// spread over them (spread_forward).
  double forward_time_s = 0.0;
};

struct Trace {
  std::string model;
  int batch_size = 1;
  /// The whole forward pass; the sum of the layers' forward times where they are known.
  double forward_time_s = 0.0;
  std::vector<Layer> layers;  ///< forward order
  /// Bytes per second at which the optimizer step reads and writes the model
  /// states (the GPU's effective memory bandwidth); 0 when the trace does not
  /// say, and the step then takes no time (docs/trace-format.md).
  double optimizer_bytes_per_s = 0.0;
  /// All-reduce durations observed inside the training loop, one per message
  /// (sizes may repeat); gpus 1 is the call on a single rank. Empty when the
  /// profiler did not record them. Used as a cost curve (load_curve), not by
  /// the replay.
  std::vector<CurvePoint> insitu_allreduce;
};

/// A trace in integer nanoseconds: the compute one GPU (class) performs.
/// Per-GPU speeds differ by giving each GPU class its own profile.
struct ComputeProfile {
  SimTime forward = 0;                  ///< the whole forward pass: the sum of forward_layers
  std::vector<SimTime> forward_layers;  ///< per layer, forward order
  std::vector<SimTime> backward;  ///< per layer, forward order
  /// Per tensor, layers in forward order: when it is ready, from its layer's
  /// backward start. Layer l's tensors are [tensor_begin[l], tensor_begin[l + 1]).
  /// Flat, so that copying a profile (one per speed class and run) costs a
  /// few allocations, not one per layer.
  std::vector<SimTime> ready_offsets;
  std::vector<int> tensor_begin;
  /// Its speed relative to the trace's (scaled_profile): work a plan prices
  /// at the trace's speed, a top-k selection, takes 1/speed as long here.
  double speed = 1.0;

  /// Tensor `index` of layer `layer` (forward order): its ready offset.
  SimTime ready_offset(int layer, int index) const {
    return ready_offsets[static_cast<std::size_t>(tensor_begin[static_cast<std::size_t>(layer)] + index)];
  }
  /// Forward plus every layer's backward: the iteration time on one GPU.
  SimTime compute_time() const;
};

/// Converts a (validated) trace to nanoseconds, rounding each time once.
/// Per-layer forward times are the layers' own, or spread_forward()'s.
ComputeProfile make_profile(const Trace& trace);

/// Whether the layers carry their own forward times (version 2).
bool has_layer_forward(const Trace& trace);

/// `forward` spread over layers in proportion to their backward times (evenly
/// when every backward is 0), rounded so that the parts sum to `forward`
/// exactly: what a trace without per-layer forward times replays.
std::vector<SimTime> spread_forward(SimTime forward, const std::vector<SimTime>& backward);

/// Where the gradient tensors of a trace sit when listed in backward order,
/// the order in which they become ready and are communicated: the reverse of
/// the forward-order list of all tensors (last layer's last tensor first).
struct TensorLayout {
  std::vector<std::int64_t> bytes;     ///< per tensor, backward order
  std::vector<std::int64_t> elements;  ///< per tensor, backward order
  std::vector<int> layer;           ///< forward index of the owning layer
  std::vector<int> index_in_layer;  ///< position in the layer's `params`
  /// Backward-order layer u (u = 0 is the last layer) holds tensors
  /// [layer_begin[u], layer_begin[u + 1]).
  std::vector<int> layer_begin;
  std::vector<std::string> layer_name;  ///< per layer, forward order

  int tensor_count() const { return static_cast<int>(bytes.size()); }
  int layer_count() const { return static_cast<int>(layer_begin.size()) - 1; }
  /// Backward-order index of the layer holding tensor t.
  int backward_layer(int t) const { return layer_count() - 1 - layer[static_cast<std::size_t>(t)]; }
};

TensorLayout make_layout(const Trace& trace);

/// The sum of the layers' backward times, in seconds.
double backward_time_s(const Trace& trace);

/// Forward plus every layer's backward: the trace's iteration on one GPU, in
/// seconds (ComputeProfile::compute_time before rounding).
double compute_time_s(const Trace& trace);

/// Multiplies the forward, every layer's forward and backward time and every
/// ready time by `factor` (> 0), and divides the optimizer step's bandwidth by
/// it: the same trace on a GPU that computes 1/factor times as fast.
void scale_compute(Trace& trace, double factor);

/// Total bytes of all gradients.
std::int64_t total_gradient_bytes(const Trace& trace);

}  // namespace mgsim
