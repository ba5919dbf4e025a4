// AlexNet and VGG-16/19 as in torchvision (models/alexnet.py, models/vgg.py):
// plain stacks of biased convolutions and ReLUs, max pooling, an adaptive
// average pool and a three-layer classifier with dropout.

#include <vector>

#include <fmt/format.h>

#include "model_families.hpp"

namespace mgsim::zoo {
namespace {

/// Conv + ReLU at features.<index>; returns the index after the ReLU.
Tensor conv_relu(GraphBuilder& b, int& index, const Tensor& x, const Conv2dSpec& spec) {
  const Tensor y = b.conv2d(fmt::format("features.{}", index), x, spec);
  const Tensor z = b.activation(fmt::format("features.{}", index + 1), y);
  index += 2;
  return z;
}

/// torchvision VGG: `plan` lists output channels, 0 for a max pool.
ModelGraph make_vgg(const char* name, const std::vector<int>& plan, const ModelOptions& o) {
  GraphBuilder b(name, o.batch_size, o.dtype_bytes);
  Tensor x = image_input(b, o);
  int index = 0;
  for (int channels : plan) {
    if (channels == 0) {
      x = b.maxpool(fmt::format("features.{}", index++), x, {2, 2});
    } else {
      x = conv_relu(b, index, x, conv_spec(channels, 3, 1, 1));
    }
  }
  x = flatten(b, "flatten", b.adaptive_avgpool("avgpool", x, 7, 7));
  x = b.activation("classifier.1", b.linear("classifier.0", x, 4096));
  x = b.dropout("classifier.2", x);
  x = b.activation("classifier.4", b.linear("classifier.3", x, 4096));
  x = b.dropout("classifier.5", x);
  b.linear("classifier.6", x, 1000);
  return b.finish();
}

}  // namespace

ModelGraph make_alexnet(const ModelOptions& o) {
  GraphBuilder b("alexnet", o.batch_size, o.dtype_bytes);
  Tensor x = image_input(b, o);
  int index = 0;
  x = conv_relu(b, index, x, conv_spec(64, 11, 4, 2));
  x = b.maxpool("features.2", x, {3, 2});
  index = 3;
  x = conv_relu(b, index, x, conv_spec(192, 5, 1, 2));
  x = b.maxpool("features.5", x, {3, 2});
  index = 6;
  x = conv_relu(b, index, x, conv_spec(384, 3, 1, 1));
  x = conv_relu(b, index, x, conv_spec(256, 3, 1, 1));
  x = conv_relu(b, index, x, conv_spec(256, 3, 1, 1));
  x = b.maxpool("features.12", x, {3, 2});
  x = flatten(b, "flatten", b.adaptive_avgpool("avgpool", x, 6, 6));
  x = b.dropout("classifier.0", x);
  x = b.activation("classifier.2", b.linear("classifier.1", x, 4096));
  x = b.dropout("classifier.3", x);
  x = b.activation("classifier.5", b.linear("classifier.4", x, 4096));
  b.linear("classifier.6", x, 1000);
  return b.finish();
}

ModelGraph make_vgg16(const ModelOptions& o) {
  return make_vgg("vgg16", {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0}, o);
}

ModelGraph make_vgg19(const ModelOptions& o) {
  return make_vgg("vgg19", {64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0, 512, 512, 512, 512, 0, 512, 512, 512, 512, 0}, o);
}

}  // namespace mgsim::zoo
