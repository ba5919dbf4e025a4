// DenseNet-121/161/201 as in torchvision (models/densenet.py, the default
// memory_efficient=False path): every dense layer concatenates all earlier
// feature maps of its block (a copy), then BN-ReLU-1x1 conv (bn_size x growth
// channels) and BN-ReLU-3x3 conv (growth channels); transitions halve the
// channels with BN-ReLU-1x1 conv and a 2x2 average pool. No conv has a bias.

#include <array>
#include <vector>

#include <fmt/format.h>

#include "model_families.hpp"

namespace mgsim::zoo {
namespace {

struct DenseNetConfig {
  const char* model;
  std::int64_t growth;
  std::array<int, 4> blocks;
  std::int64_t init_features;
};

constexpr std::int64_t kBnSize = 4;

Tensor bn_relu_conv(GraphBuilder& b, const std::string& name, const std::string& suffix, const Tensor& x,
                    const Conv2dSpec& spec) {
  const Tensor y = b.activation(name + ".relu" + suffix, b.batchnorm(name + ".norm" + suffix, x));
  return b.conv2d(name + ".conv" + suffix, y, spec);
}

Tensor dense_block(GraphBuilder& b, const std::string& name, const Tensor& x, int layers, std::int64_t growth) {
  std::vector<Tensor> features{x};
  for (int l = 1; l <= layers; ++l) {
    const std::string layer = fmt::format("{}.denselayer{}", name, l);
    const Tensor in = features.size() == 1 ? x : b.concat(layer + ".cat", features, 1);
    Tensor y = bn_relu_conv(b, layer, "1", in, conv_spec(kBnSize * growth, 1, 1, 0, false));
    y = bn_relu_conv(b, layer, "2", y, conv_spec(growth, 3, 1, 1, false));
    features.push_back(y);
  }
  return b.concat(name + ".cat", features, 1);
}

ModelGraph make_densenet(const DenseNetConfig& c, const ModelOptions& o) {
  GraphBuilder b(c.model, o.batch_size, o.dtype_bytes);
  Tensor x = b.conv2d("features.conv0", image_input(b, o), conv_spec(c.init_features, 7, 2, 3, false));
  x = b.activation("features.relu0", b.batchnorm("features.norm0", x));
  x = b.maxpool("features.pool0", x, {3, 2, 1});
  for (std::size_t i = 0; i < c.blocks.size(); ++i) {
    x = dense_block(b, fmt::format("features.denseblock{}", i + 1), x, c.blocks[i], c.growth);
    if (i + 1 < c.blocks.size()) {
      const std::string t = fmt::format("features.transition{}", i + 1);
      x = bn_relu_conv(b, t, "", x, conv_spec(x.shape[1] / 2, 1, 1, 0, false));
      x = b.avgpool(t + ".pool", x, {2, 2});
    }
  }
  x = b.activation("features.relu5", b.batchnorm("features.norm5", x));
  x = flatten(b, "flatten", b.adaptive_avgpool("avgpool", x, 1, 1));
  b.linear("classifier", x, 1000);
  return b.finish();
}

}  // namespace

ModelGraph make_densenet121(const ModelOptions& o) { return make_densenet({"densenet121", 32, {6, 12, 24, 16}, 64}, o); }
ModelGraph make_densenet161(const ModelOptions& o) { return make_densenet({"densenet161", 48, {6, 12, 36, 24}, 96}, o); }
ModelGraph make_densenet201(const ModelOptions& o) { return make_densenet({"densenet201", 32, {6, 12, 48, 32}, 64}, o); }

}  // namespace mgsim::zoo
