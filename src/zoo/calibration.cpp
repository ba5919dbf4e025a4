#include "mgsim/zoo/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "mgsim/counted.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/relative_error.hpp"

namespace mgsim::zoo {
namespace {

/// One model layer's backward as a function of x = 1 / compute efficiency,
/// y = 1 / memory efficiency and c = overhead: sum_k max(a_k x, b_k y) + n c.
struct LayerCost {
  std::vector<double> a, b;
  double n = 0;
  double roofline(double x, double y) const {
    double t = 0;
    for (std::size_t k = 0; k < a.size(); ++k) t += std::max(a[k] * x, b[k] * y);
    return t;
  }
};

std::vector<LayerCost> layer_costs(const ModelGraph& graph, const GpuSpec& gpu, Precision precision, double factor,
                                   bool owner_only) {
  std::vector<LayerCost> costs;
  for (const GradientLayer& layer : gradient_layers(graph)) {
    LayerCost cost;
    for (OpId v : layer.ops) {
      if (owner_only && v != layer.owner) continue;
      const Operator& op = graph.op(v);
      if (op.kind == OpKind::input || op.kind == OpKind::view) continue;
      const RooflineBounds r = roofline_bounds(op, gpu, precision);
      cost.a.push_back(factor * r.compute_s);
      cost.b.push_back(factor * r.memory_s);
      cost.n += 1;
    }
    costs.push_back(std::move(cost));
  }
  return costs;
}

struct Fit {
  double log_c = 0, log_m = 0, overhead = 0, sse = std::numeric_limits<double>::infinity();
};

/// Sum of squared errors at one point; with `fit_overhead` the best overhead
/// for that point (linear least squares, clamped to [0, 1] s) is chosen.
Fit evaluate(const std::vector<const LayerCost*>& costs, const std::vector<double>& measured, double log_c, double log_m,
             bool fit_overhead, double fixed_overhead) {
  const double x = std::pow(10.0, -log_c), y = std::pow(10.0, -log_m);
  std::vector<double> roofline(costs.size());
  for (std::size_t i = 0; i < costs.size(); ++i) roofline[i] = costs[i]->roofline(x, y);
  double overhead = fixed_overhead;
  if (fit_overhead) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < costs.size(); ++i) {
      num += costs[i]->n * (measured[i] - roofline[i]);
      den += costs[i]->n * costs[i]->n;
    }
    overhead = den > 0 ? std::clamp(num / den, 0.0, 1.0) : 0.0;
  }
  double sse = 0;
  for (std::size_t i = 0; i < costs.size(); ++i) {
    const double e = roofline[i] + costs[i]->n * overhead - measured[i];
    sse += e * e;
  }
  return {log_c, log_m, overhead, sse};
}

/// Grid search over log10 efficiencies in [log10 kMinEfficiency, 0], then
/// four refinements around the best point.
Fit search(const std::vector<const LayerCost*>& costs, const std::vector<double>& measured, bool fit_overhead,
           double fixed_overhead) {
  const double lo = std::log10(kMinEfficiency), hi = std::log10(kMaxEfficiency);
  double step = (hi - lo) / 120;
  Fit best;
  double center_c = (lo + hi) / 2, center_m = center_c;
  int half = 60;
  for (int round = 0; round < 5; ++round) {
    for (int i = -half; i <= half; ++i) {
      for (int j = -half; j <= half; ++j) {
        const double lc = std::clamp(center_c + i * step, lo, hi), lm = std::clamp(center_m + j * step, lo, hi);
        const Fit f = evaluate(costs, measured, lc, lm, fit_overhead, fixed_overhead);
        if (f.sse < best.sse) best = f;
      }
    }
    center_c = best.log_c;
    center_m = best.log_m;
    step /= 8;
    half = 8;
  }
  return best;
}

double rms_relative(const std::vector<LayerComparison>& layers, double LayerComparison::*predicted) {
  double sum = 0;
  int n = 0;
  for (const LayerComparison& l : layers) {
    if (l.measured_s <= 0) continue;
    const double e = (l.*predicted - l.measured_s) / l.measured_s;
    sum += e * e;
    ++n;
  }
  return n > 0 ? std::sqrt(sum / n) : 0.0;
}

}  // namespace

LayerMatch match_layers(const Trace& measured, const ModelGraph& graph) {
  const std::vector<GradientLayer> layers = gradient_layers(graph);
  std::map<std::string, std::size_t> by_name;
  for (std::size_t j = 0; j < layers.size(); ++j) by_name.emplace(graph.op(layers[j].owner).name, j);
  LayerMatch match{{}, "name"};
  std::string unmatched;
  std::map<std::size_t, std::size_t> matched_by;  // model layer -> the trace layer that took it
  for (std::size_t i = 0; i < measured.layers.size(); ++i) {
    const Layer& layer = measured.layers[i];
    const auto found = by_name.find(layer.name);
    if (found == by_name.end()) {
      unmatched = layer.name;
      break;
    }
    // Red team: a name given twice was fitted as that layer twice; another tensor count, as the same layer.
    if (const auto [at, fresh] = matched_by.emplace(found->second, i); !fresh) {
      throw ConfigError(fmt::format("trace layers {} and {} are both named '{}': each model layer is measured once",
                                    at->second, i, printable(layer.name)));
    }
    const std::size_t tensors = graph.op(layers[found->second].owner).params.size();
    if (layer.params.size() != tensors) {
      throw ConfigError(fmt::format("trace layer {} ('{}') has {} tensors, model {}'s layer of that name has {}: "
                                    "not the same layer (choose the model it ran with --model)",
                                    i, printable(layer.name), layer.params.size(), graph.model(), tensors));
    }
    match.model_layer.push_back(found->second);
  }
  if (unmatched.empty()) return match;
  if (measured.layers.size() != layers.size()) {
    throw ConfigError(fmt::format(
        "trace model {} has {} layers, model {} has {} gradient-producing layers, and layer '{}' is not one of its "
        "names: choose the matching model (and --aux-heads) with --model (see mgsim zoo list)",
        measured.model, measured.layers.size(), graph.model(), layers.size(), unmatched));
  }
  match = {{}, "order"};
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::size_t tensors = graph.op(layers[i].owner).params.size();
    if (measured.layers[i].params.size() != tensors) {
      throw ConfigError(fmt::format("layer {} ('{}') has {} tensors, model {} layer '{}' has {}: matching by order fails",
                                    i, measured.layers[i].name, measured.layers[i].params.size(), graph.model(),
                                    graph.op(layers[i].owner).name, tensors));
    }
    match.model_layer.push_back(i);
  }
  return match;
}

CalibrationResult calibrate(const Trace& measured, const ModelGraph& graph, const GpuSpec& gpu, Precision precision,
                            const RooflineSettings& start, const CalibrationOptions& options) {
  start.check();
  if (start.backward_factor <= 0) {  // red team: fitted to 0.001 and 0.001, a roofline hundreds of times too slow
    throw ConfigError("--backward-factor 0 makes every layer's backward 0 whatever the efficiencies: nothing to fit");
  }
  // 2-byte gradients are computed in 16 bits (red team: fitted as fp32, every efficiency at its edge, no word why).
  const auto half = [](const Layer& layer) { return layer.dtype_bytes == 2; };
  if (precision_bytes(precision) == 4 && std::any_of(measured.layers.begin(), measured.layers.end(), half)) {
    throw ConfigError(fmt::format("its gradients are 2-byte (dtype_bytes), precision {} computes in 32 bits: give "
                                  "--precision bf16 or fp16",
                                  precision_name(precision)));
  }
  const auto timed = [](const Layer& layer) { return layer.backward_time_s > 0; };
  if (std::none_of(measured.layers.begin(), measured.layers.end(), timed)) {
    throw ConfigError(fmt::format("trace model {}: every layer's backward_time_s is 0: nothing to fit",
                                  printable(measured.model)));
  }
  const LayerMatch match = match_layers(measured, graph);
  const std::vector<LayerCost> costs = layer_costs(graph, gpu, precision, start.backward_factor, options.owner_only);
  std::vector<const LayerCost*> matched;
  std::vector<double> times;
  for (std::size_t i = 0; i < measured.layers.size(); ++i) {
    matched.push_back(&costs[match.model_layer[i]]);
    times.push_back(measured.layers[i].backward_time_s);
  }
  // Layers timed 0 (not measured) stay out of the fit as out of its error (red team: 87 of them pulled a fit
  // that matched the other 20 exactly to the efficiencies' edge).
  std::vector<const LayerCost*> fitted_costs;
  std::vector<double> fitted_times;
  for (std::size_t i = 0; i < matched.size(); ++i) {
    if (times[i] <= 0) continue;
    fitted_costs.push_back(matched[i]);
    fitted_times.push_back(times[i]);
  }
  const Fit fit = search(fitted_costs, fitted_times, options.fit_overhead, start.op_overhead_s);
  CalibrationResult r{graph.model(), std::string(gpu.name), precision, match.how, options.owner_only, start, start, {},
                      0, 0, 0, 0, 0, false};
  r.after.compute_efficiency = std::pow(10.0, fit.log_c);
  r.after.memory_efficiency = std::pow(10.0, fit.log_m);
  r.after.op_overhead_s = fit.overhead;
  for (std::size_t i = 0; i < matched.size(); ++i) {
    const LayerCost& c = *matched[i];
    const auto predict = [&](const RooflineSettings& s) {
      return c.roofline(1 / s.compute_efficiency, 1 / s.memory_efficiency) + c.n * s.op_overhead_s;
    };
    r.layers.push_back({measured.layers[i].name, times[i], predict(r.before), predict(r.after)});
    r.measured_total_s += times[i];
    r.before_total_s += r.layers.back().before_s;
    r.after_total_s += r.layers.back().after_s;
  }
  r.rms_relative_before = rms_relative(r.layers, &LayerComparison::before_s);
  r.rms_relative_after = rms_relative(r.layers, &LayerComparison::after_s);
  const auto at_edge = [](double e) { return e <= kMinEfficiency * 1.0001 || e >= kMaxEfficiency * 0.9999; };
  r.at_bound = at_edge(r.after.compute_efficiency) || at_edge(r.after.memory_efficiency);
  return r;
}

std::string format_calibration(const CalibrationResult& r) {
  const auto pct = [](double predicted, double measured) {
    return measured > 0 ? fmt::format("{:+.1f}%", 100 * relative_error(predicted, measured)) : std::string("n/a");
  };
  std::string out = fmt::format("calibration: model {}, gpu {}, precision {}, {} matched by {}, compared with {}\n\n",
                                printable(r.model), r.gpu, precision_name(r.precision),
                                counted(std::ssize(r.layers), "layer"), r.matched_by,
                                r.owner_only ? "the owning operator only" : "the owning operator and its followers");
  out += fmt::format("{:<8} {:>18} {:>17} {:>14} {:>16}\n", "", "compute_efficiency", "memory_efficiency",
                     "op_overhead_us", "backward_factor");
  for (const auto& [label, s] : {std::pair{"before", r.before}, std::pair{"after", r.after}}) {
    out += fmt::format("{:<8} {:>18.4f} {:>17.4f} {:>14.2f} {:>16.2f}\n", label, s.compute_efficiency,
                       s.memory_efficiency, s.op_overhead_s * 1e6, s.backward_factor);
  }
  // Names as a message shows them: escaped, at most 200 bytes (red team: a 10 MB name padded every row to 1.1 GB).
  std::vector<std::string> names;
  std::size_t width = 5;
  for (const LayerComparison& l : r.layers) width = std::max(width, names.emplace_back(printable(l.name)).size());
  out += fmt::format("\n{:<{}}  {:>13}  {:>11}  {:>8}  {:>11}  {:>8}\n", "layer", width, "measured (ms)", "before (ms)",
                     "error", "after (ms)", "error");
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const LayerComparison& l = r.layers[i];
    out += fmt::format("{:<{}}  {:>13.3f}  {:>11.3f}  {:>8}  {:>11.3f}  {:>8}\n", names[i], width, l.measured_s * 1e3,
                       l.before_s * 1e3, pct(l.before_s, l.measured_s), l.after_s * 1e3, pct(l.after_s, l.measured_s));
  }
  out += fmt::format("{:<{}}  {:>13.3f}  {:>11.3f}  {:>8}  {:>11.3f}  {:>8}\n", "total backward", width,
                     r.measured_total_s * 1e3, r.before_total_s * 1e3, pct(r.before_total_s, r.measured_total_s),
                     r.after_total_s * 1e3, pct(r.after_total_s, r.measured_total_s));
  out += fmt::format("\nper-layer RMS relative error: before {:.1f}%, after {:.1f}%\n", 100 * r.rms_relative_before,
                     100 * r.rms_relative_after);
  const auto untimed = std::count_if(r.layers.begin(), r.layers.end(), [](const LayerComparison& l) { return l.measured_s <= 0; });
  if (untimed > 0) {
    out += fmt::format("note: {} of 0 measured time left out of the fit and of its error (n/a)\n",
                       counted(untimed, "layer"));
  }
  if (r.at_bound) {
    out += fmt::format("note: a fitted efficiency sits at the edge of [{}, {}]; the roofline does not explain this trace well\n",
                       kMinEfficiency, kMaxEfficiency);
  }
  return out;
}

}  // namespace mgsim::zoo
