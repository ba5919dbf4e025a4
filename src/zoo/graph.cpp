#include "mgsim/zoo/graph.hpp"

#include <utility>

#include <fmt/format.h>

namespace mgsim::zoo {

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::string format_shape(const Shape& shape) {
  std::string out;
  for (std::int64_t d : shape) out += fmt::format("{}{}", out.empty() ? "" : "x", d);
  return out.empty() ? "scalar" : out;
}

std::string_view op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::input: return "input";
    case OpKind::conv2d: return "conv2d";
    case OpKind::linear: return "linear";
    case OpKind::matmul: return "matmul";
    case OpKind::lstm: return "lstm";
    case OpKind::embedding: return "embedding";
    case OpKind::batchnorm: return "batchnorm";
    case OpKind::layernorm: return "layernorm";
    case OpKind::lrn: return "lrn";
    case OpKind::activation: return "activation";
    case OpKind::dropout: return "dropout";
    case OpKind::add: return "add";
    case OpKind::concat: return "concat";
    case OpKind::maxpool: return "maxpool";
    case OpKind::avgpool: return "avgpool";
    case OpKind::softmax: return "softmax";
    case OpKind::view: return "view";
    case OpKind::measured: return "measured";
  }
  return "?";
}

std::int64_t Operator::param_count() const {
  std::int64_t n = 0;
  for (const ParamTensor& p : params) n += element_count(p.shape);
  return n;
}

ModelGraph::ModelGraph(std::string model, OpGraph graph, int batch_size, int dtype_bytes)
    : model_(std::move(model)), graph_(std::move(graph)), batch_size_(batch_size), dtype_bytes_(dtype_bytes) {}

std::vector<OpId> ModelGraph::inputs(OpId id) const {
  std::vector<OpId> out;
  for (auto [e, end] = boost::in_edges(id, graph_); e != end; ++e) out.push_back(boost::source(*e, graph_));
  return out;
}

std::int64_t ModelGraph::param_count() const {
  std::int64_t n = 0;
  for (OpId v = 0; v < op_count(); ++v) n += graph_[v].param_count();
  return n;
}

int ModelGraph::tensor_count() const {
  std::size_t n = 0;
  for (OpId v = 0; v < op_count(); ++v) n += graph_[v].params.size();
  return static_cast<int>(n);
}

std::vector<std::int64_t> ModelGraph::tensor_sizes() const {
  std::vector<std::int64_t> sizes;
  for (OpId v = 0; v < op_count(); ++v) {
    for (const ParamTensor& p : graph_[v].params) sizes.push_back(element_count(p.shape));
  }
  return sizes;
}

std::int64_t ModelGraph::forward_flops() const {
  std::int64_t n = 0;
  for (OpId v = 0; v < op_count(); ++v) n += graph_[v].flops;
  return n;
}

std::vector<GradientLayer> gradient_layers(const ModelGraph& graph) {
  std::vector<GradientLayer> layers;
  std::vector<OpId> leading;  // parameter-free operators before the first owner
  for (OpId v = 0; v < graph.op_count(); ++v) {
    if (!graph.op(v).params.empty()) {
      layers.push_back({v, {v}});
      if (layers.size() == 1) layers.back().ops.insert(layers.back().ops.end(), leading.begin(), leading.end());
    } else if (layers.empty()) {
      leading.push_back(v);
    } else {
      layers.back().ops.push_back(v);
    }
  }
  return layers;
}

}  // namespace mgsim::zoo
