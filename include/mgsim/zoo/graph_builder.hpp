#pragma once
// Builds a ModelGraph operator by operator, inferring each output shape and
// counting FLOPs and bytes with one rule per operator kind. The model files in
// src/zoo call it the way a framework's forward() runs, so vertex order is
// execution order. A shape that cannot be built (an image too small for the
// model, mismatched channels) throws ConfigError naming the model and the
// operator.
//
// Cost rules (N = batch; "elements" = output elements unless said otherwise;
// bytes = elements x dtype_bytes of every input and owned or tied parameter
// read, and of the output written):
//   conv2d     2 N Cout Ho Wo Cin Kh Kw  (+ N Cout Ho Wo with bias)
//   linear     2 R In Out (+ R Out with bias), R = rows of the input
//   matmul     2 B M K N
//   lstm       N T (8 H (In + H) + 21 H): two gate products, 3 adds of 4H,
//              4H activations, 5H for the cell and hidden updates
//   embedding  0 FLOPs; reads only the gathered rows
//   batchnorm, layernorm  8 per element (mean 1, variance 3, normalise 2, affine 2)
//   lrn        (2 size + 4) per element
//   activation 1 per element; dropout 2 per element (mask, scale)
//   add        (inputs - 1) per element; softmax 5 per element
//   maxpool, avgpool  Kh Kw per output element; adaptive pooling 1 per input element
//   concat     0 FLOPs, a copy; view and input: free (no FLOPs, no bytes)

#include <cstdint>
#include <string>
#include <vector>

#include "mgsim/zoo/graph.hpp"

namespace mgsim::zoo {

/// The output of an operator, as later operators consume it.
struct Tensor {
  OpId op = 0;
  Shape shape;
};

struct Conv2dSpec {
  std::int64_t out_channels = 0;
  int kernel_h = 1, kernel_w = 1;
  int stride = 1;
  int pad_h = 0, pad_w = 0;
  bool bias = true;
};

/// A square kernel with the same padding on both sides.
Conv2dSpec conv_spec(std::int64_t out_channels, int kernel, int stride = 1, int pad = 0, bool bias = true);

struct PoolSpec {
  int kernel = 1;
  int stride = 1;
  int pad = 0;
  bool ceil_mode = false;  ///< round the output size up (Caffe, torchvision GoogLeNet)
};

class GraphBuilder {
 public:
  GraphBuilder(std::string model, int batch_size, int dtype_bytes);

  int batch_size() const { return batch_size_; }

  Tensor input(const std::string& name, Shape shape);
  /// x: N x C x H x W.
  Tensor conv2d(const std::string& name, const Tensor& x, const Conv2dSpec& spec);
  Tensor linear(const std::string& name, const Tensor& x, std::int64_t out_features, bool bias = true);
  /// A linear layer whose weight belongs to operator `tied_to` (GPT-2's LM
  /// head): its FLOPs and weight reads count, the weight is not owned again.
  Tensor linear_tied(const std::string& name, const Tensor& x, std::int64_t out_features, const std::string& tied_to,
                     bool bias);
  /// a: B x M x K; b: B x K x N, or B x N x K when `transpose_b`.
  Tensor matmul(const std::string& name, const Tensor& a, const Tensor& b, bool transpose_b);
  /// x: N x T x In -> N x T x hidden; owns weight_ih_l<layer>, weight_hh_l<layer>, bias_ih_l<layer>, bias_hh_l<layer>.
  Tensor lstm(const std::string& name, const Tensor& x, std::int64_t hidden, int layer);
  /// ids: any shape -> ids x dim.
  Tensor embedding(const std::string& name, const Tensor& ids, std::int64_t rows, std::int64_t dim);
  Tensor batchnorm(const std::string& name, const Tensor& x);  ///< over dimension 1
  Tensor layernorm(const std::string& name, const Tensor& x);  ///< over the last dimension
  Tensor lrn(const std::string& name, const Tensor& x, int size);
  Tensor activation(const std::string& name, const Tensor& x);
  Tensor dropout(const std::string& name, const Tensor& x);
  Tensor add(const std::string& name, const std::vector<Tensor>& xs);
  /// x plus an owned tensor broadcast over the batch (a position embedding).
  Tensor add_param(const std::string& name, const Tensor& x, const std::string& param, Shape param_shape);
  Tensor concat(const std::string& name, const std::vector<Tensor>& xs, int axis);
  /// An owned 1 x 1 x D tensor prepended to x (N x S x D) along axis 1 (ViT's class token).
  Tensor prepend_token(const std::string& name, const Tensor& x, const std::string& param);
  Tensor maxpool(const std::string& name, const Tensor& x, const PoolSpec& spec);
  Tensor avgpool(const std::string& name, const Tensor& x, const PoolSpec& spec);
  /// Adaptive average pooling to out_h x out_w.
  Tensor adaptive_avgpool(const std::string& name, const Tensor& x, std::int64_t out_h, std::int64_t out_w);
  Tensor softmax(const std::string& name, const Tensor& x);
  /// A view with another shape; it may select fewer elements (a slice, a split), never more.
  Tensor view(const std::string& name, const Tensor& x, Shape shape);

  /// The finished graph; the builder is empty afterwards.
  ModelGraph finish();

 private:
  Tensor add_op(Operator op, const std::vector<Tensor>& inputs);
  Tensor pool(const std::string& name, OpKind kind, const Tensor& x, const PoolSpec& spec);
  [[noreturn]] void fail(const std::string& name, const std::string& message) const;
  std::int64_t bytes(std::int64_t elements) const { return elements * dtype_bytes_; }

  std::string model_;
  int batch_size_;
  int dtype_bytes_;
  OpGraph graph_;
};

}  // namespace mgsim::zoo
