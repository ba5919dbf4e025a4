#include "mgsim/zoo/synthetic.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim::zoo {

RooflineSettings RooflineSettings::defaults_for(const GpuSpec& gpu) {
  return {gpu.compute_efficiency, gpu.memory_efficiency, 2.0, 0.0, std::nullopt};
}

double optimizer_bytes_per_s(const GpuSpec& gpu, const RooflineSettings& settings) {
  return gpu.memory_gb_per_s * 1e9 * settings.memory_efficiency;
}

void RooflineSettings::check() const {
  const auto fraction = [](double v) { return std::isfinite(v) && v > 0 && v <= 1; };
  if (!fraction(compute_efficiency)) throw ConfigError(fmt::format("compute efficiency must be in (0, 1], got {}", compute_efficiency));
  if (!fraction(memory_efficiency)) throw ConfigError(fmt::format("memory efficiency must be in (0, 1], got {}", memory_efficiency));
  if (!std::isfinite(backward_factor) || backward_factor < 0 || backward_factor > 100) {
    throw ConfigError(fmt::format("backward factor must be in [0, 100], got {}", backward_factor));
  }
  if (!std::isfinite(op_overhead_s) || op_overhead_s < 0 || op_overhead_s > 1) {
    throw ConfigError(fmt::format("operator overhead must be in [0, 1] s, got {}", op_overhead_s));
  }
}

bool is_matrix_op(OpKind kind) {
  return kind == OpKind::conv2d || kind == OpKind::linear || kind == OpKind::matmul || kind == OpKind::lstm;
}

RooflineBounds roofline_bounds(const Operator& op, const GpuSpec& gpu, Precision precision) {
  const double peak = is_matrix_op(op.kind) ? gpu.peak_tflops(precision) : gpu.vector_tflops;
  return {static_cast<double>(op.flops) / (peak * 1e12),
          static_cast<double>(op.bytes_read + op.bytes_written) / (gpu.memory_gb_per_s * 1e9)};
}

namespace {

bool is_free(OpKind kind) { return kind == OpKind::input || kind == OpKind::view; }

double roofline_seconds(const Operator& op, const GpuSpec& gpu, Precision precision, const RooflineSettings& s) {
  const RooflineBounds r = roofline_bounds(op, gpu, precision);
  return std::max(r.compute_s / s.compute_efficiency, r.memory_s / s.memory_efficiency);
}

}  // namespace

double forward_seconds(const Operator& op, const GpuSpec& gpu, Precision precision, const RooflineSettings& s) {
  if (is_free(op.kind)) return 0.0;
  return roofline_seconds(op, gpu, precision, s) + s.op_overhead_s;
}

double backward_seconds(const Operator& op, const GpuSpec& gpu, Precision precision, const RooflineSettings& s) {
  if (is_free(op.kind)) return 0.0;
  return s.backward_factor * roofline_seconds(op, gpu, precision, s) + s.op_overhead_s;
}

namespace {

nlohmann::ordered_json provenance_of(const ModelGraph& graph, const GpuSpec& gpu, Precision precision,
                                     const RooflineSettings& s) {
  return {
      {"kind", "synthetic"},
      {"model", graph.model()},
      {"batch_size", graph.batch_size()},
      {"parameters", graph.param_count()},
      {"tensors", graph.tensor_count()},
      {"forward_gflops", static_cast<double>(graph.forward_flops()) * 1e-9},
      {"gpu", gpu.name},
      {"gpu_description", gpu.description},
      {"gpu_source", gpu.source},
      {"precision", precision_name(precision)},
      {"matrix_peak_tflops", gpu.peak_tflops(precision)},
      {"vector_peak_tflops", gpu.vector_tflops},
      {"memory_gb_per_s", gpu.memory_gb_per_s},
      {"compute_efficiency", s.compute_efficiency},
      {"memory_efficiency", s.memory_efficiency},
      {"backward_factor", s.backward_factor},
      {"op_overhead_s", s.op_overhead_s},
      {"method",
       "roofline per operator: max(FLOPs / (peak x compute_efficiency), bytes / (bandwidth x memory_efficiency)) "
       "+ op_overhead_s; backward = backward_factor x roofline + op_overhead_s; parameter-free operators join the "
       "gradient-producing layer before them (those before the first, its forward); see docs/models.md"},
      {"note", "synthetic timing, not a measurement: no kernel fusion, caches, launch gaps beyond op_overhead_s "
               "or data loading"},
  };
}

}  // namespace

SyntheticTrace synthesize_trace(const ModelGraph& graph, const GpuSpec& gpu, Precision precision,
                                const RooflineSettings& s) {
  s.check();
  if (graph.dtype_bytes() != precision_bytes(precision)) {
    throw ConfigError(fmt::format("model {} was built with {} bytes per element, precision {} needs {}", graph.model(),
                                  graph.dtype_bytes(), precision_name(precision), precision_bytes(precision)));
  }
  SyntheticTrace out;
  out.trace.model = graph.model();
  out.trace.batch_size = graph.batch_size();
  for (OpId v = 0; v < graph.op_count(); ++v) out.trace.forward_time_s += forward_seconds(graph.op(v), gpu, precision, s);
  double in_layers = 0.0;  // forward of the operators some layer holds
  for (const GradientLayer& layer : gradient_layers(graph)) {
    const Operator& owner = graph.op(layer.owner);
    Layer out_layer{owner.name, {}, precision_bytes(precision), 0.0, {}};
    for (const ParamTensor& p : owner.params) out_layer.params.push_back(element_count(p.shape));
    for (OpId v : layer.ops) {
      out_layer.backward_time_s += backward_seconds(graph.op(v), gpu, precision, s);
      out_layer.forward_time_s += forward_seconds(graph.op(v), gpu, precision, s);
    }
    in_layers += out_layer.forward_time_s;
    out.trace.layers.push_back(std::move(out_layer));
  }
  // Operators before the first layer (inputs, reshapes) run in its forward.
  out.trace.layers.front().forward_time_s += std::max(0.0, out.trace.forward_time_s - in_layers);
  out.provenance = provenance_of(graph, gpu, precision, s);
  out.optimizer_step = s.optimizer_step;
  if (s.optimizer_step) {
    out.trace.optimizer_bytes_per_s = optimizer_bytes_per_s(gpu, s);
    out.provenance["optimizer_step"] = {
        {"optimizer", optimizer_name(*s.optimizer_step)},
        {"roofline_step_s", trace_optimizer_step_s(out.trace, *s.optimizer_step, 0, 1)},
        {"method", "a fused step streams each parameter element's gradient, parameter (fp32 master copy and the "
                   "narrow copy under mixed precision) and optimizer state through memory once: "
                   "optimizer_bytes_per_s = bandwidth x memory_efficiency; a run times the step of its config's "
                   "optimizer (docs/models.md)"}};
  }
  return out;
}

namespace {

/// Seconds of one measured iteration; throws ConfigError unless exactly one figure is given.
double measured_iteration_s(const MeasuredCompute& m, int batch) {
  const auto given = [](double v) { return v != 0; };
  if (given(m.throughput_samples_per_s) == given(m.step_time_s)) {
    throw ConfigError("give exactly one measured figure: a throughput (samples/s) or a step time (s)");
  }
  const double value = given(m.step_time_s) ? m.step_time_s : m.throughput_samples_per_s;
  if (!std::isfinite(value) || value <= 0) {
    throw ConfigError(fmt::format("a measured {} must be a positive finite number, got {}",
                                  given(m.step_time_s) ? "step time" : "throughput", value));
  }
  if (m.measured_by.empty()) throw ConfigError("a measured figure needs its source (who measured it, where)");
  return given(m.step_time_s) ? m.step_time_s : batch / m.throughput_samples_per_s;
}

}  // namespace

void scale_to_measured(SyntheticTrace& t, const MeasuredCompute& m) {
  const double target = measured_iteration_s(m, t.trace.batch_size);
  double roofline = compute_time_s(t.trace);
  if (t.optimizer_step) roofline += trace_optimizer_step_s(t.trace, *t.optimizer_step, 0, 1);
  if (roofline <= 0) throw ConfigError("the roofline trace takes no time: there is nothing to scale");
  const double factor = target / roofline;
  scale_compute(t.trace, factor);
  nlohmann::ordered_json figure;
  if (m.throughput_samples_per_s > 0) figure["throughput_samples_per_s"] = m.throughput_samples_per_s;
  if (m.step_time_s > 0) figure["step_time_s"] = m.step_time_s;
  figure["measured_by"] = m.measured_by;
  figure["iteration_s"] = target;
  figure["roofline_iteration_s"] = roofline;
  figure["scale_factor"] = factor;
  figure["method"] = t.optimizer_step
                         ? "forward and every layer's backward multiplied by scale_factor, optimizer_bytes_per_s "
                           "divided by it, so that forward + backward + the optimizer step on one GPU equals the "
                           "measured iteration (batch / throughput, or the step time); the split stays the roofline's"
                         : "forward and every layer's backward multiplied by scale_factor so that forward + backward "
                           "on one GPU equals the measured iteration (batch / throughput, or the step time); the "
                           "per-layer split stays the roofline's";
  t.provenance["measured_compute"] = std::move(figure);
}

}  // namespace mgsim::zoo
