// GoogLeNet (Inception v1) twice:
// - googlenet: torchvision (models/googlenet.py): BasicConv2d (conv without
//   bias, BN eps 0.001, ReLU), ceil-mode max pools, and torchvision's known
//   3x3 kernel in the "5x5" branch. Auxiliary heads (InceptionAux: adaptive
//   4x4 pool, 1x1 conv 128, fc 2048->1024, fc 1024->1000) are optional.
// - googlenet-bvlc: Caffe's bvlc_googlenet train_val.prototxt: biased convs,
//   true 5x5 kernels, LRN, Caffe layer names (conv1/7x7_s2, inception_3a/1x1,
//   loss1/fc ...) and the two auxiliary heads loss1, loss2 as an option.
// Both run the auxiliary heads right after inception 4a and 4d, as forward() does.

#include <array>

#include "model_families.hpp"

namespace mgsim::zoo {
namespace {

/// Channels of one inception module: 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection.
using Inception = std::array<std::int64_t, 6>;

struct Module {
  const char* tv_name;    // torchvision
  const char* caffe;      // Caffe
  Inception c;
};

constexpr std::array<Module, 9> kModules{{
    {"inception3a", "inception_3a", {64, 96, 128, 16, 32, 32}},
    {"inception3b", "inception_3b", {128, 128, 192, 32, 96, 64}},
    {"inception4a", "inception_4a", {192, 96, 208, 16, 48, 64}},
    {"inception4b", "inception_4b", {160, 112, 224, 24, 64, 64}},
    {"inception4c", "inception_4c", {128, 128, 256, 24, 64, 64}},
    {"inception4d", "inception_4d", {112, 144, 288, 32, 64, 64}},
    {"inception4e", "inception_4e", {256, 160, 320, 32, 128, 128}},
    {"inception5a", "inception_5a", {256, 160, 320, 32, 128, 128}},
    {"inception5b", "inception_5b", {384, 192, 384, 48, 128, 128}},
}};

// --- torchvision -----------------------------------------------------------

Tensor tv_inception(GraphBuilder& b, const std::string& n, const Tensor& x, const Inception& c) {
  const Tensor b1 = basic_conv(b, n + ".branch1", x, conv_spec(c[0], 1));
  Tensor b2 = basic_conv(b, n + ".branch2.0", x, conv_spec(c[1], 1));
  b2 = basic_conv(b, n + ".branch2.1", b2, conv_spec(c[2], 3, 1, 1));
  Tensor b3 = basic_conv(b, n + ".branch3.0", x, conv_spec(c[3], 1));
  b3 = basic_conv(b, n + ".branch3.1", b3, conv_spec(c[4], 3, 1, 1));
  Tensor b4 = b.maxpool(n + ".branch4.0", x, {3, 1, 1, true});
  b4 = basic_conv(b, n + ".branch4.1", b4, conv_spec(c[5], 1));
  return b.concat(n + ".cat", {b1, b2, b3, b4}, 1);
}

void tv_aux(GraphBuilder& b, const std::string& n, const Tensor& x) {
  Tensor y = b.adaptive_avgpool(n + ".pool", x, 4, 4);
  y = flatten(b, n + ".flatten", basic_conv(b, n + ".conv", y, conv_spec(128, 1)));
  y = b.dropout(n + ".dropout", b.activation(n + ".relu", b.linear(n + ".fc1", y, 1024)));
  b.linear(n + ".fc2", y, 1000);
}

// --- Caffe bvlc_googlenet ----------------------------------------------------

Tensor caffe_conv(GraphBuilder& b, const std::string& n, const Tensor& x, const Conv2dSpec& spec) {
  return b.activation(n + "/relu", b.conv2d(n, x, spec));
}

Tensor caffe_inception(GraphBuilder& b, const std::string& n, const Tensor& x, const Inception& c) {
  const Tensor b1 = caffe_conv(b, n + "/1x1", x, conv_spec(c[0], 1));
  Tensor b2 = caffe_conv(b, n + "/3x3_reduce", x, conv_spec(c[1], 1));
  b2 = caffe_conv(b, n + "/3x3", b2, conv_spec(c[2], 3, 1, 1));
  Tensor b3 = caffe_conv(b, n + "/5x5_reduce", x, conv_spec(c[3], 1));
  b3 = caffe_conv(b, n + "/5x5", b3, conv_spec(c[4], 5, 1, 2));
  Tensor b4 = b.maxpool(n + "/pool", x, {3, 1, 1, true});
  b4 = caffe_conv(b, n + "/pool_proj", b4, conv_spec(c[5], 1));
  return b.concat(n + "/output", {b1, b2, b3, b4}, 1);
}

void caffe_aux(GraphBuilder& b, const std::string& n, const Tensor& x) {
  Tensor y = b.avgpool(n + "/ave_pool", x, {5, 3, 0, true});
  y = flatten(b, n + "/flatten", caffe_conv(b, n + "/conv", y, conv_spec(128, 1)));
  y = b.activation(n + "/relu_fc", b.linear(n + "/fc", y, 1024));
  b.linear(n + "/classifier", b.dropout(n + "/drop_fc", y), 1000);
}

}  // namespace

ModelGraph make_googlenet(const ModelOptions& o) {
  GraphBuilder b("googlenet", o.batch_size, o.dtype_bytes);
  Tensor x = basic_conv(b, "conv1", image_input(b, o), conv_spec(64, 7, 2, 3));
  x = b.maxpool("maxpool1", x, {3, 2, 0, true});
  x = basic_conv(b, "conv2", x, conv_spec(64, 1));
  x = basic_conv(b, "conv3", x, conv_spec(192, 3, 1, 1));
  x = b.maxpool("maxpool2", x, {3, 2, 0, true});
  for (std::size_t i = 0; i < kModules.size(); ++i) {
    x = tv_inception(b, kModules[i].tv_name, x, kModules[i].c);
    if (i == 1) x = b.maxpool("maxpool3", x, {3, 2, 0, true});
    if (i == 2 && o.aux_heads) tv_aux(b, "aux1", x);
    if (i == 5 && o.aux_heads) tv_aux(b, "aux2", x);
    if (i == 6) x = b.maxpool("maxpool4", x, {2, 2, 0, true});
  }
  x = flatten(b, "flatten", b.adaptive_avgpool("avgpool", x, 1, 1));
  b.linear("fc", b.dropout("dropout", x), 1000);
  return b.finish();
}

ModelGraph make_googlenet_bvlc(const ModelOptions& o) {
  GraphBuilder b("googlenet-bvlc", o.batch_size, o.dtype_bytes);
  Tensor x = caffe_conv(b, "conv1/7x7_s2", image_input(b, o), conv_spec(64, 7, 2, 3));
  x = b.lrn("pool1/norm1", b.maxpool("pool1/3x3_s2", x, {3, 2, 0, true}), 5);
  x = caffe_conv(b, "conv2/3x3_reduce", x, conv_spec(64, 1));
  x = b.lrn("conv2/norm2", caffe_conv(b, "conv2/3x3", x, conv_spec(192, 3, 1, 1)), 5);
  x = b.maxpool("pool2/3x3_s2", x, {3, 2, 0, true});
  for (std::size_t i = 0; i < kModules.size(); ++i) {
    x = caffe_inception(b, kModules[i].caffe, x, kModules[i].c);
    if (i == 1) x = b.maxpool("pool3/3x3_s2", x, {3, 2, 0, true});
    if (i == 2 && o.aux_heads) caffe_aux(b, "loss1", x);
    if (i == 5 && o.aux_heads) caffe_aux(b, "loss2", x);
    if (i == 6) x = b.maxpool("pool4/3x3_s2", x, {3, 2, 0, true});
  }
  x = flatten(b, "pool5/flatten", b.avgpool("pool5/7x7_s1", x, {7, 1, 0, true}));
  b.linear("loss3/classifier", b.dropout("pool5/drop_7x7_s1", x), 1000);
  return b.finish();
}

}  // namespace mgsim::zoo
