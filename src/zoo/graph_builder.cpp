#include "mgsim/zoo/graph_builder.hpp"

#include <utility>

#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim::zoo {
namespace {

std::int64_t total_elements(const std::vector<Tensor>& xs) {
  std::int64_t n = 0;
  for (const Tensor& x : xs) n += element_count(x.shape);
  return n;
}

/// Output size of a sliding window, PyTorch's rule (ceil mode drops a last
/// window that would start in the right padding).
std::int64_t window_out(std::int64_t in, int kernel, int stride, int pad, bool ceil_mode) {
  const std::int64_t span = in + 2 * pad - kernel;
  if (span < 0) return 0;
  std::int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace

Conv2dSpec conv_spec(std::int64_t out_channels, int kernel, int stride, int pad, bool bias) {
  return {out_channels, kernel, kernel, stride, pad, pad, bias};
}

GraphBuilder::GraphBuilder(std::string model, int batch_size, int dtype_bytes)
    : model_(std::move(model)), batch_size_(batch_size), dtype_bytes_(dtype_bytes) {}

void GraphBuilder::fail(const std::string& name, const std::string& message) const {
  throw ConfigError(fmt::format("model {}: operator {}: {}", model_, name, message));
}

Tensor GraphBuilder::add_op(Operator op, const std::vector<Tensor>& inputs) {
  for (const Tensor& x : inputs) op.input_shapes.push_back(x.shape);
  Shape shape = op.output_shape;
  const OpId id = boost::add_vertex(std::move(op), graph_);
  for (const Tensor& x : inputs) boost::add_edge(x.op, id, graph_);
  return {id, std::move(shape)};
}

Tensor GraphBuilder::input(const std::string& name, Shape shape) {
  Operator op{name, OpKind::input, {}, std::move(shape), {}, {}, 0, 0, 0};
  return add_op(std::move(op), {});
}

Tensor GraphBuilder::conv2d(const std::string& name, const Tensor& x, const Conv2dSpec& s) {
  if (x.shape.size() != 4) fail(name, fmt::format("expected an N x C x H x W input, got {}", format_shape(x.shape)));
  const std::int64_t n = x.shape[0], c = x.shape[1];
  const std::int64_t ho = window_out(x.shape[2], s.kernel_h, s.stride, s.pad_h, false);
  const std::int64_t wo = window_out(x.shape[3], s.kernel_w, s.stride, s.pad_w, false);
  if (ho <= 0 || wo <= 0) fail(name, fmt::format("input {} is too small for a {}x{} kernel", format_shape(x.shape), s.kernel_h, s.kernel_w));
  Operator op{name, OpKind::conv2d, {}, {n, s.out_channels, ho, wo}, {{"weight", {s.out_channels, c, s.kernel_h, s.kernel_w}}}, {}, 0, 0, 0};
  if (s.bias) op.params.push_back({"bias", {s.out_channels}});
  const std::int64_t out = element_count(op.output_shape);
  op.flops = 2 * out * c * s.kernel_h * s.kernel_w + (s.bias ? out : 0);
  op.bytes_read = bytes(element_count(x.shape) + op.param_count());
  op.bytes_written = bytes(out);
  return add_op(std::move(op), {x});
}

Tensor GraphBuilder::linear(const std::string& name, const Tensor& x, std::int64_t out_features, bool bias) {
  const std::int64_t in = x.shape.back();
  Shape shape = x.shape;
  shape.back() = out_features;
  Operator op{name, OpKind::linear, {}, shape, {{"weight", {out_features, in}}}, {}, 0, 0, 0};
  if (bias) op.params.push_back({"bias", {out_features}});
  const std::int64_t rows = element_count(x.shape) / in;
  op.flops = 2 * rows * in * out_features + (bias ? rows * out_features : 0);
  op.bytes_read = bytes(element_count(x.shape) + op.param_count());
  op.bytes_written = bytes(element_count(shape));
  return add_op(std::move(op), {x});
}

Tensor GraphBuilder::linear_tied(const std::string& name, const Tensor& x, std::int64_t out_features,
                                 const std::string& tied_to, bool bias) {
  const std::int64_t in = x.shape.back();
  Shape shape = x.shape;
  shape.back() = out_features;
  Operator op{name, OpKind::linear, {}, shape, {}, tied_to, 0, 0, 0};
  if (bias) op.params.push_back({"bias", {out_features}});
  const std::int64_t rows = element_count(x.shape) / in;
  op.flops = 2 * rows * in * out_features + (bias ? rows * out_features : 0);
  op.bytes_read = bytes(element_count(x.shape) + in * out_features + op.param_count());
  op.bytes_written = bytes(element_count(shape));
  return add_op(std::move(op), {x});
}

Tensor GraphBuilder::matmul(const std::string& name, const Tensor& a, const Tensor& b, bool transpose_b) {
  if (a.shape.size() != 3 || b.shape.size() != 3 || a.shape[0] != b.shape[0]) {
    fail(name, fmt::format("expected two B x M x K inputs, got {} and {}", format_shape(a.shape), format_shape(b.shape)));
  }
  const std::int64_t batch = a.shape[0], m = a.shape[1], k = a.shape[2];
  const std::int64_t kb = transpose_b ? b.shape[2] : b.shape[1], nb = transpose_b ? b.shape[1] : b.shape[2];
  if (kb != k) fail(name, fmt::format("inner dimensions differ: {} and {}", k, kb));
  Operator op{name, OpKind::matmul, {}, {batch, m, nb}, {}, {}, 2 * batch * m * k * nb, 0, 0};
  op.bytes_read = bytes(element_count(a.shape) + element_count(b.shape));
  op.bytes_written = bytes(batch * m * nb);
  return add_op(std::move(op), {a, b});
}

Tensor GraphBuilder::lstm(const std::string& name, const Tensor& x, std::int64_t hidden, int layer) {
  if (x.shape.size() != 3) fail(name, fmt::format("expected an N x T x In input, got {}", format_shape(x.shape)));
  const std::int64_t n = x.shape[0], t = x.shape[1], in = x.shape[2], h = hidden;
  const std::string l = fmt::format("_l{}", layer);
  Operator op{name, OpKind::lstm, {}, {n, t, h},
              {{"weight_ih" + l, {4 * h, in}}, {"weight_hh" + l, {4 * h, h}}, {"bias_ih" + l, {4 * h}}, {"bias_hh" + l, {4 * h}}},
              {}, n * t * (8 * h * (in + h) + 21 * h), 0, 0};
  op.bytes_read = bytes(element_count(x.shape) + op.param_count());
  op.bytes_written = bytes(n * t * h);
  return add_op(std::move(op), {x});
}

Tensor GraphBuilder::embedding(const std::string& name, const Tensor& ids, std::int64_t rows, std::int64_t dim) {
  Shape shape = ids.shape;
  shape.push_back(dim);
  const std::int64_t out = element_count(shape);
  Operator op{name, OpKind::embedding, {}, shape, {{"weight", {rows, dim}}}, {}, 0, bytes(out), bytes(out)};
  return add_op(std::move(op), {ids});
}

Tensor GraphBuilder::batchnorm(const std::string& name, const Tensor& x) {
  if (x.shape.size() < 2) fail(name, "expected a batch of channels");
  const std::int64_t c = x.shape[1], e = element_count(x.shape);
  Operator op{name, OpKind::batchnorm, {}, x.shape, {{"weight", {c}}, {"bias", {c}}}, {}, 8 * e, bytes(e + 2 * c), bytes(e)};
  return add_op(std::move(op), {x});
}

Tensor GraphBuilder::layernorm(const std::string& name, const Tensor& x) {
  const std::int64_t d = x.shape.back(), e = element_count(x.shape);
  Operator op{name, OpKind::layernorm, {}, x.shape, {{"weight", {d}}, {"bias", {d}}}, {}, 8 * e, bytes(e + 2 * d), bytes(e)};
  return add_op(std::move(op), {x});
}

Tensor GraphBuilder::lrn(const std::string& name, const Tensor& x, int size) {
  const std::int64_t e = element_count(x.shape);
  Operator op{name, OpKind::lrn, {}, x.shape, {}, {}, (2 * size + 4) * e, bytes(e), bytes(e)};
  return add_op(std::move(op), {x});
}

Tensor GraphBuilder::activation(const std::string& name, const Tensor& x) {
  const std::int64_t e = element_count(x.shape);
  return add_op({name, OpKind::activation, {}, x.shape, {}, {}, e, bytes(e), bytes(e)}, {x});
}

Tensor GraphBuilder::dropout(const std::string& name, const Tensor& x) {
  const std::int64_t e = element_count(x.shape);
  return add_op({name, OpKind::dropout, {}, x.shape, {}, {}, 2 * e, bytes(e), bytes(e)}, {x});
}

Tensor GraphBuilder::add(const std::string& name, const std::vector<Tensor>& xs) {
  for (const Tensor& x : xs) {
    if (x.shape != xs.front().shape) fail(name, fmt::format("cannot add {} and {}", format_shape(xs.front().shape), format_shape(x.shape)));
  }
  const std::int64_t e = element_count(xs.front().shape);
  const auto k = static_cast<std::int64_t>(xs.size());
  return add_op({name, OpKind::add, {}, xs.front().shape, {}, {}, (k - 1) * e, bytes(k * e), bytes(e)}, xs);
}

Tensor GraphBuilder::add_param(const std::string& name, const Tensor& x, const std::string& param, Shape param_shape) {
  const std::int64_t e = element_count(x.shape), p = element_count(param_shape);
  if (p == 0 || e % p != 0) fail(name, fmt::format("cannot broadcast {} over {}", format_shape(param_shape), format_shape(x.shape)));
  Operator op{name, OpKind::add, {}, x.shape, {{param, std::move(param_shape)}}, {}, e, bytes(e + p), bytes(e)};
  return add_op(std::move(op), {x});
}

Tensor GraphBuilder::concat(const std::string& name, const std::vector<Tensor>& xs, int axis) {
  Shape shape = xs.front().shape;
  const auto a = static_cast<std::size_t>(axis);
  shape[a] = 0;
  for (const Tensor& x : xs) {
    if (x.shape.size() != shape.size()) fail(name, "inputs differ in rank");
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (d != a && x.shape[d] != xs.front().shape[d]) {
        fail(name, fmt::format("cannot concatenate {} and {} on axis {}", format_shape(xs.front().shape), format_shape(x.shape), axis));
      }
    }
    shape[a] += x.shape[a];
  }
  const std::int64_t e = element_count(shape);
  return add_op({name, OpKind::concat, {}, shape, {}, {}, 0, bytes(total_elements(xs)), bytes(e)}, xs);
}

Tensor GraphBuilder::prepend_token(const std::string& name, const Tensor& x, const std::string& param) {
  if (x.shape.size() != 3) fail(name, fmt::format("expected an N x S x D input, got {}", format_shape(x.shape)));
  const std::int64_t n = x.shape[0], s = x.shape[1], d = x.shape[2];
  Operator op{name, OpKind::concat, {}, {n, s + 1, d}, {{param, {1, 1, d}}}, {}, 0, bytes(n * s * d + d), bytes(n * (s + 1) * d)};
  return add_op(std::move(op), {x});
}

Tensor GraphBuilder::pool(const std::string& name, OpKind kind, const Tensor& x, const PoolSpec& s) {
  if (x.shape.size() != 4) fail(name, fmt::format("expected an N x C x H x W input, got {}", format_shape(x.shape)));
  const std::int64_t ho = window_out(x.shape[2], s.kernel, s.stride, s.pad, s.ceil_mode);
  const std::int64_t wo = window_out(x.shape[3], s.kernel, s.stride, s.pad, s.ceil_mode);
  if (ho <= 0 || wo <= 0) fail(name, fmt::format("input {} is too small for a {}x{} window", format_shape(x.shape), s.kernel, s.kernel));
  const Shape shape{x.shape[0], x.shape[1], ho, wo};
  const std::int64_t out = element_count(shape);
  return add_op({name, kind, {}, shape, {}, {}, out * s.kernel * s.kernel, bytes(element_count(x.shape)), bytes(out)}, {x});
}

Tensor GraphBuilder::maxpool(const std::string& name, const Tensor& x, const PoolSpec& spec) {
  return pool(name, OpKind::maxpool, x, spec);
}

Tensor GraphBuilder::avgpool(const std::string& name, const Tensor& x, const PoolSpec& spec) {
  return pool(name, OpKind::avgpool, x, spec);
}

Tensor GraphBuilder::adaptive_avgpool(const std::string& name, const Tensor& x, std::int64_t out_h, std::int64_t out_w) {
  if (x.shape.size() != 4) fail(name, fmt::format("expected an N x C x H x W input, got {}", format_shape(x.shape)));
  const Shape shape{x.shape[0], x.shape[1], out_h, out_w};
  const std::int64_t in = element_count(x.shape);
  return add_op({name, OpKind::avgpool, {}, shape, {}, {}, in, bytes(in), bytes(element_count(shape))}, {x});
}

Tensor GraphBuilder::softmax(const std::string& name, const Tensor& x) {
  const std::int64_t e = element_count(x.shape);
  return add_op({name, OpKind::softmax, {}, x.shape, {}, {}, 5 * e, bytes(e), bytes(e)}, {x});
}

Tensor GraphBuilder::view(const std::string& name, const Tensor& x, Shape shape) {
  if (element_count(shape) > element_count(x.shape) || element_count(shape) <= 0) {
    fail(name, fmt::format("cannot view {} as {}", format_shape(x.shape), format_shape(shape)));
  }
  return add_op({name, OpKind::view, {}, std::move(shape), {}, {}, 0, 0, 0}, {x});
}

ModelGraph GraphBuilder::finish() {
  OpGraph graph;
  std::swap(graph, graph_);
  return ModelGraph(model_, std::move(graph), batch_size_, dtype_bytes_);
}

}  // namespace mgsim::zoo
