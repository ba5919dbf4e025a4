#include "mgsim/zoo/synthetic.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/io/utf8.hpp"

namespace mgsim::zoo {

RooflineSettings RooflineSettings::defaults_for(const GpuSpec& gpu) {
  return {gpu.compute_efficiency, gpu.memory_efficiency, 2.0, 0.0, std::nullopt, 0.0};
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
  if (!std::isfinite(launch_s) || launch_s < 0 || launch_s > 1) {
    throw ConfigError(fmt::format("launch time must be in [0, 1] s, got {}", launch_s));
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
      {"launch_s", s.launch_s},
      {"method",
       "roofline per operator: max(FLOPs / (peak x compute_efficiency), bytes / (bandwidth x memory_efficiency)) "
       "+ op_overhead_s; backward = backward_factor x roofline + op_overhead_s; the host launches one operator "
       "pass every launch_s (forward in graph order, then backward layer by layer in reverse) and the GPU runs "
       "each no earlier than its launch; a layer's time is how far its passes move the GPU's finish; "
       "parameter-free operators join the gradient-producing layer before them (those before the first, its "
       "forward); see docs/models.md"},
      {"note", "synthetic timing, not a measurement: no kernel fusion, caches, launch gaps beyond op_overhead_s "
               "and launch_s, or data loading"},
  };
}

/// The forward and the layers' times of the launches with every roofline
/// time multiplied by `gpu_scale`: each pass starts at the later of its
/// launch and the previous pass's end, runs its roofline time plus the fixed
/// op_overhead_s, and adds to its layer how far it moves the end. Returns
/// forward + backward.
double time_launches(SyntheticTrace& t, double gpu_scale) {
  t.trace.forward_time_s = 0.0;
  for (Layer& layer : t.trace.layers) layer.forward_time_s = layer.backward_time_s = 0.0;
  double host = 0.0;
  double end = 0.0;
  for (const Launch& l : t.launches) {
    host += t.launch_s;
    const double finish = std::max(end, host) + l.gpu_s * gpu_scale + t.op_overhead_s;
    Layer& layer = t.trace.layers[l.layer];
    (l.backward ? layer.backward_time_s : layer.forward_time_s) += finish - end;
    if (!l.backward) t.trace.forward_time_s += finish - end;
    end = finish;
  }
  return end;
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
  out.launch_s = s.launch_s;
  out.op_overhead_s = s.op_overhead_s;
  RooflineSettings roofline_only = s;  // each pass's roofline time; the queue adds the overhead
  roofline_only.op_overhead_s = 0.0;
  const std::vector<GradientLayer> layers = gradient_layers(graph);
  std::vector<std::size_t> layer_of(graph.op_count(), 0);  // operators before the first layer run in its forward
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Operator& owner = graph.op(layers[i].owner);
    Layer out_layer{owner.name, {}, precision_bytes(precision), 0.0, {}};
    for (const ParamTensor& p : owner.params) out_layer.params.push_back(element_count(p.shape));
    out.trace.layers.push_back(std::move(out_layer));
    for (OpId v : layers[i].ops) layer_of[v] = i;
  }
  for (OpId v = 0; v < graph.op_count(); ++v) {
    if (!is_free(graph.op(v).kind)) out.launches.push_back({forward_seconds(graph.op(v), gpu, precision, roofline_only), layer_of[v], false});
  }
  for (std::size_t i = layers.size(); i-- > 0;) {
    for (auto v = layers[i].ops.rbegin(); v != layers[i].ops.rend(); ++v) {
      if (!is_free(graph.op(*v).kind)) out.launches.push_back({backward_seconds(graph.op(*v), gpu, precision, roofline_only), i, true});
    }
  }
  time_launches(out, 1.0);
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
  if (is_blank(m.measured_by)) {
    throw ConfigError("a measured figure needs its source (who measured it, where)");
  }
  const double iteration = given(m.step_time_s) ? m.step_time_s : batch / m.throughput_samples_per_s;
  if (!(iteration <= kMaxStepSeconds)) {
    if (given(m.step_time_s)) {
      throw ConfigError(fmt::format("a measured step time of {:g} s: expected at most {:g} s", iteration,
                                    kMaxStepSeconds));
    }
    throw ConfigError(fmt::format("a measured throughput of {:g} samples/s makes an iteration of {:g} s at batch {}: "
                                  "expected at most {:g} s",
                                  m.throughput_samples_per_s, iteration, batch, kMaxStepSeconds));
  }
  return iteration;
}

/// The roofline optimizer step of the trace, seconds (0 without one).
double optimizer_s(const SyntheticTrace& t) {
  return t.optimizer_step ? trace_optimizer_step_s(t.trace, *t.optimizer_step, 0, 1) : 0.0;
}

/// The smallest x in [0, inf) with f(x) >= target, f continuous and
/// increasing, f(0) < target; relative precision 1e-12.
template <class F>
double solve_increasing(F f, double target) {
  double hi = 1.0;
  while (f(hi) < target) {
    hi *= 2;
    if (hi > 1e30) throw ConfigError(fmt::format("no finite value reaches {} s", target));
  }
  double lo = 0.0;
  while (hi - lo > 1e-12 * hi) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < target ? lo : hi) = mid;
  }
  return hi;
}

/// The roofline time factor that makes the trace's iteration (queue +
/// optimizer step) last `target` seconds at its per-pass terms; the trace is
/// left timed at it. Throws ConfigError where the per-pass terms alone take
/// `target`.
double scale_for(SyntheticTrace& t, double target) {
  const double step = optimizer_s(t);
  if (step + time_launches(t, 1.0) <= 0) throw ConfigError("the roofline trace takes no time: there is nothing to scale");
  const double floor = time_launches(t, 0.0);
  if (floor >= target) {
    throw ConfigError(fmt::format("the measured iteration of {:g} s at batch {} is not longer than the fixed costs of "
                                  "its {} operator passes ({:g} s: launches every {:g} us, {:g} us of overhead each): "
                                  "lower them",
                                  target, t.trace.batch_size, t.launches.size(), floor, t.launch_s * 1e6,
                                  t.op_overhead_s * 1e6));
  }
  const double factor = floor == 0 ? target / (time_launches(t, 1.0) + step)  // no per-pass terms: linear
                                   : solve_increasing([&](double x) { return time_launches(t, x) + x * step; }, target);
  time_launches(t, factor);
  t.gpu_scale = factor;
  return factor;
}

/// Records the figure the trace was scaled to; refuses a scale no GPU explains.
void record_measured(SyntheticTrace& t, const MeasuredCompute& m, double target, double roofline, double factor) {
  const std::string_view option = m.throughput_samples_per_s > 0 ? "--throughput" : "--step-time";
  if (!(factor >= 1 / kMaxMeasuredScale && factor <= kMaxMeasuredScale)) {
    throw ConfigError(fmt::format("{}: the measured iteration of {:g} s at batch {} puts the roofline's {:g} s at "
                                  "{:g} times its time: expected {:g} to {:g} times (a figure of another batch, model "
                                  "or unit?)",
                                  option, target, t.trace.batch_size, roofline, factor, 1 / kMaxMeasuredScale,
                                  kMaxMeasuredScale));
  }
  if (t.optimizer_step && !(t.trace.optimizer_bytes_per_s / factor <= kMaxMemoryBytesPerS)) {
    throw ConfigError(fmt::format("{}: the measured iteration of {:g} s at batch {} is {:g} times faster than the "
                                  "roofline's {:g} s, which would stream the optimizer step at {:g} bytes/s: expected "
                                  "at most {:g} (a figure of another batch, model or unit?)",
                                  option, target, t.trace.batch_size, 1 / factor, roofline,
                                  t.trace.optimizer_bytes_per_s / factor, kMaxMemoryBytesPerS));
  }
  t.trace.optimizer_bytes_per_s /= factor;
  nlohmann::ordered_json figure;
  if (m.throughput_samples_per_s > 0) figure["throughput_samples_per_s"] = m.throughput_samples_per_s;
  if (m.step_time_s > 0) figure["step_time_s"] = m.step_time_s;
  figure["measured_by"] = m.measured_by;
  figure["iteration_s"] = target;
  figure["roofline_iteration_s"] = roofline;
  figure["scale_factor"] = factor;
  const bool per_pass = t.launch_s > 0 || t.op_overhead_s > 0;
  figure["method"] = fmt::format(
      "every operator pass's roofline time multiplied by scale_factor{}, so that forward + backward{} on one GPU "
      "equals the measured iteration (batch / throughput, or the step time){}",
      t.optimizer_step ? " and optimizer_bytes_per_s divided by it" : "", t.optimizer_step ? " + the optimizer step" : "",
      per_pass ? fmt::format("; launch_s ({:g} s) and op_overhead_s ({:g} s) per pass as they are", t.launch_s,
                             t.op_overhead_s)
               : "; the per-layer split stays the roofline's");
  t.provenance["measured_compute"] = std::move(figure);
}

/// The per-pass term a fit solves for.
double& term_of(SyntheticTrace& t, PerPass term) { return term == PerPass::launch ? t.launch_s : t.op_overhead_s; }

}  // namespace

void scale_to_measured(SyntheticTrace& t, const MeasuredCompute& m) {
  const double target = measured_iteration_s(m, t.trace.batch_size);
  const double roofline = time_launches(t, 1.0) + optimizer_s(t);
  record_measured(t, m, target, roofline, scale_for(t, target));
}

void fit_per_pass_and_scale(SyntheticTrace& t, const MeasuredCompute& m, const SyntheticTrace& small_trace,
                            double small_iteration_s, PerPass term) {
  const double target = measured_iteration_s(m, t.trace.batch_size);
  if (!std::isfinite(small_iteration_s) || small_iteration_s <= 0) {
    throw ConfigError(fmt::format("a measured step time must be a positive finite number, got {}", small_iteration_s));
  }
  if (small_iteration_s >= target) {
    throw ConfigError(fmt::format("the iteration at batch {} ({:g} s) must be shorter than at batch {} ({:g} s)",
                                  small_trace.trace.batch_size, small_iteration_s, t.trace.batch_size, target));
  }
  const char* name = term == PerPass::launch ? "launch_s" : "op_overhead_s";
  const double roofline = time_launches(t, 1.0) + optimizer_s(t);
  SyntheticTrace small = small_trace;
  const double small_step = optimizer_s(small);
  // miss(x): the smaller batch's iteration minus its figure, with the term x
  // and the scale that gives the larger batch its figure at x. It need not
  // be monotone (a larger term lowers the scale, and with it the optimizer
  // step), so the root is bracketed on a grid up to the largest term the
  // larger batch allows, then bisected.
  const auto miss = [&](double x) {
    term_of(t, term) = x;
    term_of(small, term) = x;
    const double factor = scale_for(t, target);
    return time_launches(small, factor) + factor * small_step - small_iteration_s;
  };
  const auto floor_of = [&](double x) {
    term_of(t, term) = x;
    return time_launches(t, 0.0);
  };
  const double largest = solve_increasing(floor_of, target) * (1 - 1e-9);
  const double at_zero = miss(0.0);
  double lo = 0.0, hi = -1.0;
  constexpr int kGrid = 256;
  for (int i = 1; i <= kGrid && at_zero != 0; ++i) {
    const double x = largest * i / kGrid;
    if ((miss(x) > 0) != (at_zero > 0)) {
      hi = x;
      break;
    }
    lo = x;
  }
  if (at_zero != 0 && hi < 0) {
    throw ConfigError(fmt::format(
        "no {} gives both figures: the iteration of {:g} s at batch {} is not longer than its time scaled from batch "
        "{} without it ({:g} s), nor with any {} up to the {:g} s the larger batch allows",
        name, small_iteration_s, small.trace.batch_size, t.trace.batch_size, at_zero + small_iteration_s, name,
        largest));
  }
  const bool rising = at_zero < 0;
  while (hi > 0 && hi - lo > 1e-12 * hi) {
    const double mid = 0.5 * (lo + hi);
    ((miss(mid) < 0) == rising ? lo : hi) = mid;
  }
  const double value = hi > 0 ? hi : 0.0;
  if (value > 1.0) {
    throw ConfigError(fmt::format("the fitted {} ({:g} s) is past 1 s a pass: the figures are not of one model on one "
                                  "GPU, or not of per-pass costs",
                                  name, value));
  }
  term_of(t, term) = value;
  const double factor = scale_for(t, target);
  record_measured(t, m, target, roofline, factor);
  t.provenance[name] = value;
  t.provenance["per_pass_fit"] = {
      {"term", name},
      {"value_s", value},
      {"batch", small.trace.batch_size},
      {"iteration_s", small_iteration_s},
      {"method", fmt::format("{} and scale_factor solved together so that the measured iterations at both batches "
                             "hold", name)}};
}

void scale_like(SyntheticTrace& t, const SyntheticTrace& measured) {
  t.launch_s = measured.launch_s;
  t.op_overhead_s = measured.op_overhead_s;
  t.gpu_scale = measured.gpu_scale;
  time_launches(t, t.gpu_scale);
  t.trace.optimizer_bytes_per_s /= t.gpu_scale;
  t.provenance["launch_s"] = t.launch_s;
  t.provenance["op_overhead_s"] = t.op_overhead_s;
  for (const char* key : {"measured_compute", "per_pass_fit"}) {
    if (measured.provenance.contains(key)) t.provenance[key] = measured.provenance[key];
  }
  t.provenance["measured_compute"]["batch"] = measured.trace.batch_size;
}

}  // namespace mgsim::zoo
