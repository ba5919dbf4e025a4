// Inception-v4 as in Cadene's pretrained-models.pytorch (inceptionv4.py),
// which timm's inception_v4 reproduces: BasicConv2d blocks (conv without
// bias, BN eps 0.001, ReLU) under `features`, stem, 4 x Inception-A,
// Reduction-A, 7 x Inception-B, Reduction-B, 3 x Inception-C, an 8 x 8
// average pool and last_linear 1536 -> 1000. 299 x 299 input by default.

#include <fmt/format.h>

#include "model_families.hpp"

namespace mgsim::zoo {
namespace {

Tensor conv(GraphBuilder& b, const std::string& name, const Tensor& x, std::int64_t out, int k, int stride = 1, int pad = 0) {
  return basic_conv(b, name, x, conv_spec(out, k, stride, pad));
}

Tensor conv_hw(GraphBuilder& b, const std::string& name, const Tensor& x, std::int64_t out, int kh, int kw) {
  return basic_conv(b, name, x, conv_rect(out, kh, kw, kh / 2, kw / 2));
}

Tensor stem(GraphBuilder& b, Tensor x) {
  x = conv(b, "features.0", x, 32, 3, 2);
  x = conv(b, "features.1", x, 32, 3);
  x = conv(b, "features.2", x, 64, 3, 1, 1);
  const Tensor a0 = b.maxpool("features.3.maxpool", x, {3, 2});
  const Tensor a1 = conv(b, "features.3.conv", x, 96, 3, 2);
  x = b.concat("features.3.cat", {a0, a1}, 1);
  Tensor c0 = conv(b, "features.4.branch0.0", x, 64, 1);
  c0 = conv(b, "features.4.branch0.1", c0, 96, 3);
  Tensor c1 = conv(b, "features.4.branch1.0", x, 64, 1);
  c1 = conv_hw(b, "features.4.branch1.1", c1, 64, 1, 7);
  c1 = conv_hw(b, "features.4.branch1.2", c1, 64, 7, 1);
  c1 = conv(b, "features.4.branch1.3", c1, 96, 3);
  x = b.concat("features.4.cat", {c0, c1}, 1);
  const Tensor d0 = conv(b, "features.5.conv", x, 192, 3, 2);
  const Tensor d1 = b.maxpool("features.5.maxpool", x, {3, 2});
  return b.concat("features.5.cat", {d0, d1}, 1);
}

Tensor inception_a(GraphBuilder& b, const std::string& n, const Tensor& x) {
  const Tensor b0 = conv(b, n + ".branch0", x, 96, 1);
  Tensor b1 = conv(b, n + ".branch1.0", x, 64, 1);
  b1 = conv(b, n + ".branch1.1", b1, 96, 3, 1, 1);
  Tensor b2 = conv(b, n + ".branch2.0", x, 64, 1);
  b2 = conv(b, n + ".branch2.1", b2, 96, 3, 1, 1);
  b2 = conv(b, n + ".branch2.2", b2, 96, 3, 1, 1);
  const Tensor b3 = conv(b, n + ".branch3.1", b.avgpool(n + ".branch3.0", x, {3, 1, 1}), 96, 1);
  return b.concat(n + ".cat", {b0, b1, b2, b3}, 1);
}

Tensor reduction_a(GraphBuilder& b, const std::string& n, const Tensor& x) {
  const Tensor b0 = conv(b, n + ".branch0", x, 384, 3, 2);
  Tensor b1 = conv(b, n + ".branch1.0", x, 192, 1);
  b1 = conv(b, n + ".branch1.1", b1, 224, 3, 1, 1);
  b1 = conv(b, n + ".branch1.2", b1, 256, 3, 2);
  const Tensor b2 = b.maxpool(n + ".branch2", x, {3, 2});
  return b.concat(n + ".cat", {b0, b1, b2}, 1);
}

Tensor inception_b(GraphBuilder& b, const std::string& n, const Tensor& x) {
  const Tensor b0 = conv(b, n + ".branch0", x, 384, 1);
  Tensor b1 = conv(b, n + ".branch1.0", x, 192, 1);
  b1 = conv_hw(b, n + ".branch1.1", b1, 224, 1, 7);
  b1 = conv_hw(b, n + ".branch1.2", b1, 256, 7, 1);
  Tensor b2 = conv(b, n + ".branch2.0", x, 192, 1);
  b2 = conv_hw(b, n + ".branch2.1", b2, 192, 7, 1);
  b2 = conv_hw(b, n + ".branch2.2", b2, 224, 1, 7);
  b2 = conv_hw(b, n + ".branch2.3", b2, 224, 7, 1);
  b2 = conv_hw(b, n + ".branch2.4", b2, 256, 1, 7);
  const Tensor b3 = conv(b, n + ".branch3.1", b.avgpool(n + ".branch3.0", x, {3, 1, 1}), 128, 1);
  return b.concat(n + ".cat", {b0, b1, b2, b3}, 1);
}

Tensor reduction_b(GraphBuilder& b, const std::string& n, const Tensor& x) {
  Tensor b0 = conv(b, n + ".branch0.0", x, 192, 1);
  b0 = conv(b, n + ".branch0.1", b0, 192, 3, 2);
  Tensor b1 = conv(b, n + ".branch1.0", x, 256, 1);
  b1 = conv_hw(b, n + ".branch1.1", b1, 256, 1, 7);
  b1 = conv_hw(b, n + ".branch1.2", b1, 320, 7, 1);
  b1 = conv(b, n + ".branch1.3", b1, 320, 3, 2);
  const Tensor b2 = b.maxpool(n + ".branch2", x, {3, 2});
  return b.concat(n + ".cat", {b0, b1, b2}, 1);
}

Tensor inception_c(GraphBuilder& b, const std::string& n, const Tensor& x) {
  const Tensor b0 = conv(b, n + ".branch0", x, 256, 1);
  const Tensor b10 = conv(b, n + ".branch1_0", x, 384, 1);
  const Tensor b1a = conv_hw(b, n + ".branch1_1a", b10, 256, 1, 3);
  const Tensor b1b = conv_hw(b, n + ".branch1_1b", b10, 256, 3, 1);
  const Tensor b1 = b.concat(n + ".branch1_cat", {b1a, b1b}, 1);
  Tensor b2 = conv(b, n + ".branch2_0", x, 384, 1);
  b2 = conv_hw(b, n + ".branch2_1", b2, 448, 3, 1);
  b2 = conv_hw(b, n + ".branch2_2", b2, 512, 1, 3);
  const Tensor b2a = conv_hw(b, n + ".branch2_3a", b2, 256, 1, 3);
  const Tensor b2b = conv_hw(b, n + ".branch2_3b", b2, 256, 3, 1);
  const Tensor b2cat = b.concat(n + ".branch2_cat", {b2a, b2b}, 1);
  const Tensor b3 = conv(b, n + ".branch3.1", b.avgpool(n + ".branch3.0", x, {3, 1, 1}), 256, 1);
  return b.concat(n + ".cat", {b0, b1, b2cat, b3}, 1);
}

}  // namespace

ModelGraph make_inception_v4(const ModelOptions& o) {
  GraphBuilder b("inception-v4", o.batch_size, o.dtype_bytes);
  Tensor x = stem(b, image_input(b, o));
  int index = 6;
  for (int i = 0; i < 4; ++i) x = inception_a(b, fmt::format("features.{}", index++), x);
  x = reduction_a(b, fmt::format("features.{}", index++), x);
  for (int i = 0; i < 7; ++i) x = inception_b(b, fmt::format("features.{}", index++), x);
  x = reduction_b(b, fmt::format("features.{}", index++), x);
  for (int i = 0; i < 3; ++i) x = inception_c(b, fmt::format("features.{}", index++), x);
  x = flatten(b, "flatten", b.avgpool("avg_pool", x, {8, 8}));
  b.linear("last_linear", x, 1000);
  return b.finish();
}

}  // namespace mgsim::zoo
