#pragma once
// A model as a DAG of operators (Boost.Graph), with the tensor shapes that
// flow along its edges. Each vertex is one operator of a forward pass: its
// kind, input and output shapes, the trainable tensors it owns, its forward
// FLOPs and the bytes it reads and writes, all for the whole batch. Vertices
// are numbered in execution order, which is a topological order: an edge
// always goes from a lower to a higher number. Graphs are built by
// GraphBuilder (graph_builder.hpp) and are plain values afterwards.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

namespace mgsim::zoo {

/// Dimensions of a tensor, outermost first (e.g. N, C, H, W).
using Shape = std::vector<std::int64_t>;

/// Product of the dimensions (1 for a scalar).
std::int64_t element_count(const Shape& shape);

/// "64x3x224x224".
std::string format_shape(const Shape& shape);

/// What an operator computes; the FLOP and byte rules of each kind are in
/// docs/models.md ("Operator costs") and graph_builder.hpp.
enum class OpKind {
  input,       ///< model input; no cost
  conv2d,      ///< 2-D convolution, optional bias
  linear,      ///< fully connected layer on the last dimension
  matmul,      ///< batched matrix product (attention scores and context)
  lstm,        ///< one LSTM layer over a whole sequence
  embedding,   ///< table lookup (gather of rows)
  batchnorm,   ///< batch normalisation, training mode
  layernorm,   ///< layer normalisation over the last dimension
  lrn,         ///< local response normalisation across channels (Caffe)
  activation,  ///< ReLU, GELU, tanh: one FLOP per element
  dropout,     ///< training-mode dropout
  add,         ///< element-wise sum of inputs (and of an owned tensor)
  concat,      ///< concatenation (a copy), optionally with an owned tensor
  maxpool,     ///< max pooling
  avgpool,     ///< average pooling, adaptive (global) included
  softmax,     ///< softmax over the last dimension, with its scale and mask
  view,        ///< reshape, split, transpose or slice without a copy; free
  measured,    ///< a layer of a measured trace: timed by the trace (plan::CostSettings), features whole
};

std::string_view op_kind_name(OpKind kind);

/// A trainable tensor owned by an operator.
struct ParamTensor {
  std::string name;  ///< e.g. "weight", "bias", "in_proj_weight"
  Shape shape;
};

/// One operator of the forward pass, costs for the whole batch.
struct Operator {
  std::string name;  ///< the framework's module name, unique in a graph
  OpKind kind = OpKind::input;
  std::vector<Shape> input_shapes;  ///< in the order of the inputs
  Shape output_shape;
  std::vector<ParamTensor> params;  ///< owned trainable tensors, framework order
  std::string tied_to;              ///< name of the operator whose weight this one reuses, if any
  std::int64_t flops = 0;           ///< forward FLOPs (a multiply-add counts 2)
  std::int64_t bytes_read = 0;      ///< inputs and parameters read
  std::int64_t bytes_written = 0;   ///< output written

  std::int64_t param_count() const;
};

using OpGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Operator>;
using OpId = std::size_t;

/// A model's operator graph with its build settings.
class ModelGraph {
 public:
  ModelGraph(std::string model, OpGraph graph, int batch_size, int dtype_bytes);

  const std::string& model() const { return model_; }
  int batch_size() const { return batch_size_; }
  int dtype_bytes() const { return dtype_bytes_; }
  const OpGraph& graph() const { return graph_; }

  std::size_t op_count() const { return boost::num_vertices(graph_); }
  const Operator& op(OpId id) const { return graph_[id]; }
  /// Producers of an operator's inputs, in input order.
  std::vector<OpId> inputs(OpId id) const;

  std::int64_t param_count() const;  ///< trainable elements
  int tensor_count() const;          ///< trainable tensors
  /// Element count of each trainable tensor, operators in forward order and
  /// each operator's tensors in framework order (a state_dict's order).
  std::vector<std::int64_t> tensor_sizes() const;
  std::int64_t forward_flops() const;

 private:
  std::string model_;
  OpGraph graph_;
  int batch_size_;
  int dtype_bytes_;
};

/// A gradient-producing layer: an operator that owns trainable tensors, and
/// the parameter-free operators after it (up to the next such operator) whose
/// backward runs just before its own.
struct GradientLayer {
  OpId owner;
  std::vector<OpId> ops;  ///< owner first, then the parameter-free followers
};

/// The gradient-producing layers in forward order. Parameter-free operators
/// that precede the first owner are attributed to it.
std::vector<GradientLayer> gradient_layers(const ModelGraph& graph);

}  // namespace mgsim::zoo
