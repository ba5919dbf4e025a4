// ResNet-50/101/152 as in torchvision (models/resnet.py, v1.5: the stride
// sits on the 3x3 convolution of a bottleneck). Convolutions have no bias;
// each is followed by batch norm; the first block of every stage projects the
// shortcut with a 1x1 convolution and batch norm (downsample.0, downsample.1).

#include <array>

#include <fmt/format.h>

#include "model_families.hpp"

namespace mgsim::zoo {
namespace {

Tensor conv_bn(GraphBuilder& b, const std::string& conv, const std::string& bn, const Tensor& x, const Conv2dSpec& spec) {
  return b.batchnorm(bn, b.conv2d(conv, x, spec));
}

/// torchvision Bottleneck: 1x1 -> 3x3 (stride) -> 1x1 (x4), shortcut, add, ReLU.
Tensor bottleneck(GraphBuilder& b, const std::string& name, const Tensor& x, std::int64_t width, int stride) {
  const std::int64_t out = 4 * width;
  Tensor y = conv_bn(b, name + ".conv1", name + ".bn1", x, conv_spec(width, 1, 1, 0, false));
  y = b.activation(name + ".relu1", y);
  y = conv_bn(b, name + ".conv2", name + ".bn2", y, conv_spec(width, 3, stride, 1, false));
  y = b.activation(name + ".relu2", y);
  y = conv_bn(b, name + ".conv3", name + ".bn3", y, conv_spec(out, 1, 1, 0, false));
  Tensor identity = x;
  if (stride != 1 || x.shape[1] != out) {
    identity = conv_bn(b, name + ".downsample.0", name + ".downsample.1", x, conv_spec(out, 1, stride, 0, false));
  }
  return b.activation(name + ".relu3", b.add(name + ".add", {y, identity}));
}

ModelGraph make_resnet(const char* model, const std::array<int, 4>& blocks, const ModelOptions& o) {
  GraphBuilder b(model, o.batch_size, o.dtype_bytes);
  Tensor x = conv_bn(b, "conv1", "bn1", image_input(b, o), conv_spec(64, 7, 2, 3, false));
  x = b.maxpool("maxpool", b.activation("relu", x), {3, 2, 1});
  for (int stage = 0; stage < 4; ++stage) {
    const std::int64_t width = std::int64_t{64} << stage;
    for (int block = 0; block < blocks[static_cast<std::size_t>(stage)]; ++block) {
      const int stride = (stage > 0 && block == 0) ? 2 : 1;
      x = bottleneck(b, fmt::format("layer{}.{}", stage + 1, block), x, width, stride);
    }
  }
  x = flatten(b, "flatten", b.adaptive_avgpool("avgpool", x, 1, 1));
  b.linear("fc", x, 1000);
  return b.finish();
}

}  // namespace

ModelGraph make_resnet50(const ModelOptions& o) { return make_resnet("resnet50", {3, 4, 6, 3}, o); }
ModelGraph make_resnet101(const ModelOptions& o) { return make_resnet("resnet101", {3, 4, 23, 3}, o); }
ModelGraph make_resnet152(const ModelOptions& o) { return make_resnet("resnet152", {3, 8, 36, 3}, o); }

}  // namespace mgsim::zoo
