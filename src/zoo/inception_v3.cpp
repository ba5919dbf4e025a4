// Inception-v3 as in torchvision (models/inception.py, Inception3 with
// transform_input off): BasicConv2d blocks (conv without bias, BN eps 0.001,
// ReLU), modules A-E, 299 x 299 input by default. The auxiliary classifier
// (AuxLogits, after Mixed_6e) is optional; torchvision's published count
// 27,161,264 includes it, 23,834,568 is the model without it.

#include "model_families.hpp"

namespace mgsim::zoo {
namespace {

Tensor conv(GraphBuilder& b, const std::string& name, const Tensor& x, std::int64_t out, int k, int stride = 1, int pad = 0) {
  return basic_conv(b, name, x, conv_spec(out, k, stride, pad));
}

Tensor conv_hw(GraphBuilder& b, const std::string& name, const Tensor& x, std::int64_t out, int kh, int kw) {
  return basic_conv(b, name, x, conv_rect(out, kh, kw, kh / 2, kw / 2));
}

Tensor avg_pool_3x3(GraphBuilder& b, const std::string& name, const Tensor& x) { return b.avgpool(name, x, {3, 1, 1}); }

Tensor inception_a(GraphBuilder& b, const std::string& n, const Tensor& x, std::int64_t pool_features) {
  const Tensor b1 = conv(b, n + ".branch1x1", x, 64, 1);
  Tensor b5 = conv(b, n + ".branch5x5_1", x, 48, 1);
  b5 = conv(b, n + ".branch5x5_2", b5, 64, 5, 1, 2);
  Tensor b3 = conv(b, n + ".branch3x3dbl_1", x, 64, 1);
  b3 = conv(b, n + ".branch3x3dbl_2", b3, 96, 3, 1, 1);
  b3 = conv(b, n + ".branch3x3dbl_3", b3, 96, 3, 1, 1);
  const Tensor bp = conv(b, n + ".branch_pool", avg_pool_3x3(b, n + ".avg_pool", x), pool_features, 1);
  return b.concat(n + ".cat", {b1, b5, b3, bp}, 1);
}

Tensor inception_b(GraphBuilder& b, const std::string& n, const Tensor& x) {
  const Tensor b3 = conv(b, n + ".branch3x3", x, 384, 3, 2);
  Tensor bd = conv(b, n + ".branch3x3dbl_1", x, 64, 1);
  bd = conv(b, n + ".branch3x3dbl_2", bd, 96, 3, 1, 1);
  bd = conv(b, n + ".branch3x3dbl_3", bd, 96, 3, 2);
  const Tensor bp = b.maxpool(n + ".max_pool", x, {3, 2});
  return b.concat(n + ".cat", {b3, bd, bp}, 1);
}

Tensor inception_c(GraphBuilder& b, const std::string& n, const Tensor& x, std::int64_t c7) {
  const Tensor b1 = conv(b, n + ".branch1x1", x, 192, 1);
  Tensor b7 = conv(b, n + ".branch7x7_1", x, c7, 1);
  b7 = conv_hw(b, n + ".branch7x7_2", b7, c7, 1, 7);
  b7 = conv_hw(b, n + ".branch7x7_3", b7, 192, 7, 1);
  Tensor bd = conv(b, n + ".branch7x7dbl_1", x, c7, 1);
  bd = conv_hw(b, n + ".branch7x7dbl_2", bd, c7, 7, 1);
  bd = conv_hw(b, n + ".branch7x7dbl_3", bd, c7, 1, 7);
  bd = conv_hw(b, n + ".branch7x7dbl_4", bd, c7, 7, 1);
  bd = conv_hw(b, n + ".branch7x7dbl_5", bd, 192, 1, 7);
  const Tensor bp = conv(b, n + ".branch_pool", avg_pool_3x3(b, n + ".avg_pool", x), 192, 1);
  return b.concat(n + ".cat", {b1, b7, bd, bp}, 1);
}

Tensor inception_d(GraphBuilder& b, const std::string& n, const Tensor& x) {
  Tensor b3 = conv(b, n + ".branch3x3_1", x, 192, 1);
  b3 = conv(b, n + ".branch3x3_2", b3, 320, 3, 2);
  Tensor b7 = conv(b, n + ".branch7x7x3_1", x, 192, 1);
  b7 = conv_hw(b, n + ".branch7x7x3_2", b7, 192, 1, 7);
  b7 = conv_hw(b, n + ".branch7x7x3_3", b7, 192, 7, 1);
  b7 = conv(b, n + ".branch7x7x3_4", b7, 192, 3, 2);
  const Tensor bp = b.maxpool(n + ".max_pool", x, {3, 2});
  return b.concat(n + ".cat", {b3, b7, bp}, 1);
}

Tensor inception_e(GraphBuilder& b, const std::string& n, const Tensor& x) {
  const Tensor b1 = conv(b, n + ".branch1x1", x, 320, 1);
  const Tensor b3 = conv(b, n + ".branch3x3_1", x, 384, 1);
  const Tensor b3a = conv_hw(b, n + ".branch3x3_2a", b3, 384, 1, 3);
  const Tensor b3b = conv_hw(b, n + ".branch3x3_2b", b3, 384, 3, 1);
  const Tensor b3cat = b.concat(n + ".branch3x3_cat", {b3a, b3b}, 1);
  Tensor bd = conv(b, n + ".branch3x3dbl_1", x, 448, 1);
  bd = conv(b, n + ".branch3x3dbl_2", bd, 384, 3, 1, 1);
  const Tensor bda = conv_hw(b, n + ".branch3x3dbl_3a", bd, 384, 1, 3);
  const Tensor bdb = conv_hw(b, n + ".branch3x3dbl_3b", bd, 384, 3, 1);
  const Tensor bdcat = b.concat(n + ".branch3x3dbl_cat", {bda, bdb}, 1);
  const Tensor bp = conv(b, n + ".branch_pool", avg_pool_3x3(b, n + ".avg_pool", x), 192, 1);
  return b.concat(n + ".cat", {b1, b3cat, bdcat, bp}, 1);
}

void aux_logits(GraphBuilder& b, const Tensor& x) {
  Tensor y = b.avgpool("AuxLogits.avg_pool", x, {5, 3});
  y = conv(b, "AuxLogits.conv0", y, 128, 1);
  y = conv(b, "AuxLogits.conv1", y, 768, 5);
  y = flatten(b, "AuxLogits.flatten", b.adaptive_avgpool("AuxLogits.adaptive_avg_pool", y, 1, 1));
  b.linear("AuxLogits.fc", y, 1000);
}

}  // namespace

ModelGraph make_inception_v3(const ModelOptions& o) {
  GraphBuilder b("inception-v3", o.batch_size, o.dtype_bytes);
  Tensor x = conv(b, "Conv2d_1a_3x3", image_input(b, o), 32, 3, 2);
  x = conv(b, "Conv2d_2a_3x3", x, 32, 3);
  x = conv(b, "Conv2d_2b_3x3", x, 64, 3, 1, 1);
  x = b.maxpool("maxpool1", x, {3, 2});
  x = conv(b, "Conv2d_3b_1x1", x, 80, 1);
  x = conv(b, "Conv2d_4a_3x3", x, 192, 3);
  x = b.maxpool("maxpool2", x, {3, 2});
  x = inception_a(b, "Mixed_5b", x, 32);
  x = inception_a(b, "Mixed_5c", x, 64);
  x = inception_a(b, "Mixed_5d", x, 64);
  x = inception_b(b, "Mixed_6a", x);
  x = inception_c(b, "Mixed_6b", x, 128);
  x = inception_c(b, "Mixed_6c", x, 160);
  x = inception_c(b, "Mixed_6d", x, 160);
  x = inception_c(b, "Mixed_6e", x, 192);
  if (o.aux_heads) aux_logits(b, x);
  x = inception_d(b, "Mixed_7a", x);
  x = inception_e(b, "Mixed_7b", x);
  x = inception_e(b, "Mixed_7c", x);
  x = flatten(b, "flatten", b.adaptive_avgpool("avgpool", x, 1, 1));
  b.linear("fc", b.dropout("dropout", x), 1000);
  return b.finish();
}

}  // namespace mgsim::zoo
