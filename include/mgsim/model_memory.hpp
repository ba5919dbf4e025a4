#pragma once
// Memory of the model states on one GPU of data-parallel training:
// parameters, gradients and optimizer state (fp32 master weights included),
// with the model states sharded over the N_d data-parallel ranks by ZeRO's
// stages (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training
// Trillion Parameter Models", SC'20, section 5 and figure 1; PyTorch FSDP's
// full shard is stage 3). Activations and temporary buffers (the parameters
// a stage-3 rank gathers for the layer it computes) are not model states and
// are not counted here. Plain functions of element counts: the planner
// (`mgsim plan`) and a run's report use the same ones. Formulas:
// docs/plan.md ("Memory per GPU").

#include <cstdint>
#include <span>
#include <string_view>

#include "mgsim/trace.hpp"

namespace mgsim {

/// Optimizer whose state is kept per parameter element.
enum class Optimizer { sgd, momentum, adam };

/// Throws ConfigError listing the valid names.
Optimizer parse_optimizer(std::string_view name);
std::string_view optimizer_name(Optimizer optimizer);

/// Largest ZeRO stage: 0 plain data parallelism, 1 optimizer state sharded,
/// 2 gradients too, 3 parameters too.
inline constexpr int kMaxZeroStage = 3;

struct ModelStateSettings {
  /// Bytes per element of the parameters and gradients the GPU computes with.
  /// Below 4 (fp16, bf16: mixed precision) the optimizer keeps an fp32 master copy.
  int element_bytes = 2;
  Optimizer optimizer = Optimizer::adam;
  int zero_stage = 0;     ///< 0 .. kMaxZeroStage
  int data_parallel = 1;  ///< N_d: the ranks that hold replicas, over which a stage shards
};

/// Bytes on one GPU, by kind of model state.
struct ModelStateBytes {
  std::int64_t parameters = 0;
  std::int64_t gradients = 0;
  std::int64_t optimizer = 0;  ///< optimizer state, fp32 master weights included
  std::int64_t total() const { return parameters + gradients + optimizer; }
  bool operator==(const ModelStateBytes&) const = default;
};

/// ZeRO's K: bytes of optimizer state per parameter element, every state in
/// fp32: 4 per copy (SGD none, momentum 1, Adam 2) and 4 for the master copy
/// when element_bytes is below 4. Mixed-precision Adam: 12.
int optimizer_bytes_per_element(const ModelStateSettings& settings);

/// Elements that rank `rank` of `ranks` holds of a tensor of `elements`
/// sharded across them: floor(elements / ranks), and one more on the ranks
/// below elements mod ranks; rank 0 holds the most, ceil(elements / ranks)
/// (what every rank allocates where the tensor is padded to a multiple of
/// the ranks, as FSDP and DeepSpeed do).
std::int64_t shard_elements(std::int64_t elements, int ranks, int rank);

/// The model states on the GPU holding the most, rank 0, of parameter
/// tensors of `tensors` elements each, every tensor sharded on its own (as
/// DeepSpeed's stage 3 partitions each parameter; one flat buffer is one
/// tensor). Throws ConfigError for an element size outside 1..8 bytes, a
/// stage outside 0..3, fewer than one rank or a negative count.
ModelStateBytes model_states(std::span<const std::int64_t> tensors, const ModelStateSettings& settings);

/// The model states per GPU of a data-parallel run of `trace` on `gpus`
/// GPUs: every tensor of every layer, at the layer's element size, sharded
/// over all GPUs by `zero_stage` (the stage a schedule implements; 0 for
/// plain data parallelism).
ModelStateBytes trace_model_states(const Trace& trace, Optimizer optimizer, int zero_stage, int gpus);

/// Bytes one fused optimizer step reads and writes per parameter element of
/// `element_bytes`: the gradient once; the parameter read and written, in
/// fp32 as a master copy plus the narrow copy written back when
/// element_bytes is below 4; each fp32 state copy read and written. SGD 12,
/// momentum 20, Adam 28 in fp32; Adam 28 in fp16 (2 + 16 + 8 + 2).
int optimizer_step_bytes_per_element(int element_bytes, Optimizer optimizer);

/// Bytes the optimizer step of rank 0 of `ranks` reads and writes for
/// parameter tensors of `tensors` elements of `element_bytes` each: every
/// element without ZeRO, its shard of each tensor from stage 1 on (each rank
/// updates the optimizer state it holds; rank 0's shard is the largest).
double optimizer_step_bytes(std::span<const std::int64_t> tensors, int element_bytes, Optimizer optimizer,
                            int zero_stage, int ranks);

/// optimizer_step_bytes over every layer of `trace` in a data-parallel run
/// on `gpus` GPUs.
double trace_optimizer_step_bytes(const Trace& trace, Optimizer optimizer, int zero_stage, int gpus);

/// Seconds of that step at the trace's optimizer_bytes_per_s (a GPU of the
/// trace's speed); 0 where the trace gives no bandwidth.
double trace_optimizer_step_s(const Trace& trace, Optimizer optimizer, int zero_stage, int gpus);

}  // namespace mgsim
