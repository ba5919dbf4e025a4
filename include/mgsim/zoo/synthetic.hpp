#pragma once
// Roofline-synthetic traces: what a model's iteration would take on a GPU if
// every operator ran at a fixed fraction of the GPU's peak FLOP/s or of its
// memory bandwidth, whichever binds. Per operator
//   forward  = max(FLOPs / (peak x compute_efficiency), bytes / (bandwidth x memory_efficiency)) + overhead
//   backward = backward_factor x roofline + overhead
// with the matrix peak of the precision for convolution, linear, matmul and
// LSTM operators and the fp32 vector peak for the others. Operator times are
// summed into the gradient-producing layers (gradient_layers in graph.hpp),
// which become the trace's layers in forward order; the simulator replays
// their backward in reverse. The result is a trace like a measured one, with
// provenance.kind "synthetic" and the settings it was made with.
//
// With a launch time (launch_s > 0) the host launches every operator pass,
// forward in graph order then backward layer by layer in reverse, one each
// launch_s, and the GPU runs each no earlier than its launch: a queue whose
// total is at least the operators' GPU time and at least the launches', the
// way an eager framework runs at small batches (docs/models.md).

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mgsim/model_memory.hpp"
#include "mgsim/trace.hpp"
#include "mgsim/zoo/gpus.hpp"
#include "mgsim/zoo/graph.hpp"

namespace mgsim::zoo {

struct RooflineSettings {
  double compute_efficiency = 0.6;  ///< fraction of the peak FLOP/s reached, in (0, 1]
  double memory_efficiency = 0.8;   ///< fraction of the peak bandwidth reached, in (0, 1]
  double backward_factor = 2.0;     ///< backward roofline time / forward roofline time
  double op_overhead_s = 0.0;       ///< fixed time added to each operator's forward and backward (launch latency)
  /// The optimizer whose step the trace times: the trace then carries the
  /// bandwidth the step streams the model states at (peak x
  /// memory_efficiency) and a run adds the step of its config's optimizer;
  /// none when the step is not the GPU's (a parameter server on the CPU).
  std::optional<Optimizer> optimizer_step;
  double launch_s = 0.0;  ///< host time to launch one operator pass; 0: the GPU never waits for the host

  /// The GPU entry's default efficiencies, backward factor 2, no overhead, no optimizer step.
  static RooflineSettings defaults_for(const GpuSpec& gpu);
  /// Throws ConfigError naming the first setting out of range.
  void check() const;
};

/// The bandwidth an optimizer step streams the model states at on `gpu`:
/// its peak bandwidth x the settings' memory efficiency (a trace's
/// optimizer_bytes_per_s, docs/models.md).
double optimizer_bytes_per_s(const GpuSpec& gpu, const RooflineSettings& settings);

/// Whether an operator kind runs at the precision's matrix peak (else the vector peak).
bool is_matrix_op(OpKind kind);

/// Forward roofline time of one operator at 100% efficiency: {compute seconds, memory seconds}.
struct RooflineBounds {
  double compute_s = 0.0;
  double memory_s = 0.0;
};
RooflineBounds roofline_bounds(const Operator& op, const GpuSpec& gpu, Precision precision);

/// Forward and backward time of one operator under the settings, seconds
/// (inputs and views take none).
double forward_seconds(const Operator& op, const GpuSpec& gpu, Precision precision, const RooflineSettings& settings);
double backward_seconds(const Operator& op, const GpuSpec& gpu, Precision precision, const RooflineSettings& settings);

/// One operator pass in launch order: its roofline seconds (without the
/// per-pass overhead) and the trace layer it belongs to.
struct Launch {
  double gpu_s = 0.0;
  std::size_t layer = 0;
  bool backward = false;
};

/// A trace and the provenance to write with it.
struct SyntheticTrace {
  Trace trace;
  nlohmann::ordered_json provenance;  ///< kind "synthetic", model, gpu, precision, settings, method
  std::optional<Optimizer> optimizer_step;  ///< the settings' optimizer_step
  std::vector<Launch> launches;  ///< every operator pass in launch order (parameter-free views launch nothing)
  double launch_s = 0.0;         ///< the settings' launch_s, or the fitted one
  double op_overhead_s = 0.0;    ///< the settings' op_overhead_s, or the fitted one: added to each pass, never scaled
  double gpu_scale = 1.0;        ///< every pass's roofline time is multiplied by this (scale_to_measured sets it)
};

/// The graph must be built with precision_bytes(precision) bytes per element.
SyntheticTrace synthesize_trace(const ModelGraph& graph, const GpuSpec& gpu, Precision precision,
                                const RooflineSettings& settings);

/// A measured one-GPU figure of the same model, batch and GPU: exactly one
/// of throughput (an iteration is batch / throughput seconds) and step time.
struct MeasuredCompute {
  double throughput_samples_per_s = 0;  ///< > 0, or 0 when step_time_s is given
  double step_time_s = 0;               ///< > 0, or 0 when throughput is given
  std::string measured_by;              ///< who measured it and where (paper table, repository file)
};

/// Multiplies every operator pass's roofline time, and divides the
/// optimizer step's bandwidth, by the factor that makes forward + backward
/// (through the launch queue, each pass with its fixed overhead) + the
/// optimizer step (of `optimizer_step`, when the trace times one) equal the
/// measured iteration, and records the figure, its source and the factor in
/// the provenance ("measured_compute"). Without per-pass terms that
/// multiplies the forward and every layer's backward by the factor. Throws
/// ConfigError on a figure that is not one positive finite number with a
/// non-empty source, or one no longer than the per-pass terms alone.
void scale_to_measured(SyntheticTrace& trace, const MeasuredCompute& measured);

/// The per-pass term a second measured figure fits: the host's launch time
/// (eager frameworks, the GPU waits for launches at small batches) or each
/// pass's fixed GPU overhead (CUDA graphs and compiled models, where small
/// kernels cost a fixed time each).
enum class PerPass { launch, overhead };

/// Fits that per-pass term as well: `small` is the same model at a smaller
/// batch and `small_iteration_s` its measured iteration. For each term
/// `trace`'s figure fixes the scale; the term is a root of the smaller
/// batch's miss at that scale, bracketed on a grid up to the largest term
/// `trace`'s figure allows and bisected (the miss need not be monotone: a
/// larger term lowers the scale and the optimizer step with it). `trace` is
/// left scaled, with the term and the second figure in its provenance
/// ("per_pass_fit"). Throws ConfigError where no term reproduces the smaller
/// batch's iteration, it is not shorter than the larger batch's, or the term
/// comes out past 1 s.
void fit_per_pass_and_scale(SyntheticTrace& trace, const MeasuredCompute& measured, const SyntheticTrace& small,
                            double small_iteration_s, PerPass term);

/// Times `trace` (the same model on the same GPU at another batch) with the
/// per-pass terms and GPU scale of `measured` (scaled by one of the two
/// functions above) and carries its provenance of the figures over, naming
/// the batch they were measured at.
void scale_like(SyntheticTrace& trace, const SyntheticTrace& measured);

}  // namespace mgsim::zoo
