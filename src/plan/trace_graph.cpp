#include "mgsim/plan/trace_graph.hpp"

#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim::plan {

TraceGraph trace_graph(const Trace& trace, const std::string& source, int global_batch, int dtype_bytes,
                       std::int64_t activation_bytes) {
  const double backward = backward_time_s(trace);
  const double scale = static_cast<double>(global_batch) / trace.batch_size;
  zoo::OpGraph graph;
  std::vector<double> measured_s;
  const zoo::Shape activations{global_batch, activation_bytes / dtype_bytes};
  boost::add_vertex(zoo::Operator{"activations", zoo::OpKind::input, {}, activations, {}, {}, 0, 0, 0}, graph);
  measured_s.push_back(0.0);
  for (const Layer& layer : trace.layers) {
    if (layer.dtype_bytes != dtype_bytes) {
      throw ConfigError(fmt::format("{}: layer '{}' has {}-byte gradients, the plan's --precision {}-byte ones: give "
                                    "the --precision of the trace ({})", source, layer.name, layer.dtype_bytes,
                                    dtype_bytes, layer.dtype_bytes == 2   ? "fp16 or bf16"
                                                 : layer.dtype_bytes == 4 ? "fp32 or tf32"
                                                                          : "none of fp32, tf32, fp16, bf16"));
    }
    std::vector<zoo::ParamTensor> params;
    for (std::size_t t = 0; t < layer.params.size(); ++t) params.push_back({fmt::format("tensor{}", t), {layer.params[t]}});
    const zoo::Shape out{global_batch, 0};  // nothing stored: the activations are the input operator's
    const zoo::OpId v = boost::add_vertex(
        zoo::Operator{layer.name, zoo::OpKind::measured, {out}, out, std::move(params), {}, 0, 0, 0}, graph);
    boost::add_edge(v - 1, v, graph);
    const double forward = backward > 0 ? trace.forward_time_s * layer.backward_time_s / backward
                                        : trace.forward_time_s / static_cast<double>(trace.layers.size());
    measured_s.push_back((forward + layer.backward_time_s) * scale);
  }
  return {zoo::ModelGraph(trace.model, std::move(graph), global_batch, dtype_bytes), std::move(measured_s)};
}

}  // namespace mgsim::plan
