#pragma once
// Factories of the zoo's model families (one .cpp per family) and the small
// building blocks they share. Private to src/zoo; the table is model_registry.cpp.

#include <string>

#include "mgsim/zoo/graph_builder.hpp"
#include "mgsim/zoo/models.hpp"

namespace mgsim::zoo {

ModelGraph make_alexnet(const ModelOptions& options);
ModelGraph make_vgg16(const ModelOptions& options);
ModelGraph make_vgg19(const ModelOptions& options);
ModelGraph make_googlenet(const ModelOptions& options);
ModelGraph make_googlenet_bvlc(const ModelOptions& options);
ModelGraph make_inception_v3(const ModelOptions& options);
ModelGraph make_inception_v4(const ModelOptions& options);
ModelGraph make_resnet50(const ModelOptions& options);
ModelGraph make_resnet101(const ModelOptions& options);
ModelGraph make_resnet152(const ModelOptions& options);
ModelGraph make_densenet121(const ModelOptions& options);
ModelGraph make_densenet161(const ModelOptions& options);
ModelGraph make_densenet201(const ModelOptions& options);
ModelGraph make_bert_base(const ModelOptions& options);
ModelGraph make_bert_large(const ModelOptions& options);
ModelGraph make_gpt2(const ModelOptions& options);
ModelGraph make_gpt2_medium(const ModelOptions& options);
ModelGraph make_gpt2_large(const ModelOptions& options);
ModelGraph make_gpt2_xl(const ModelOptions& options);
ModelGraph make_lstm_ptb(const ModelOptions& options);
ModelGraph make_vit_b16(const ModelOptions& options);

/// The image input N x 3 x S x S.
inline Tensor image_input(GraphBuilder& b, const ModelOptions& o) {
  return b.input("input", {o.batch_size, 3, o.image_size, o.image_size});
}

/// torchvision's / Cadene's BasicConv2d: convolution without bias, batch norm, ReLU.
inline Tensor basic_conv(GraphBuilder& b, const std::string& name, const Tensor& x, Conv2dSpec spec) {
  spec.bias = false;
  const Tensor y = b.batchnorm(name + ".bn", b.conv2d(name + ".conv", x, spec));
  return b.activation(name + ".relu", y);
}

/// A convolution with kernel kh x kw, padding ph x pw and stride 1.
inline Conv2dSpec conv_rect(std::int64_t out, int kh, int kw, int ph, int pw) { return {out, kh, kw, 1, ph, pw, false}; }

/// Flattens N x C x H x W (or any rank) to N x rest.
inline Tensor flatten(GraphBuilder& b, const std::string& name, const Tensor& x) {
  return b.view(name, x, {x.shape[0], element_count(x.shape) / x.shape[0]});
}

}  // namespace mgsim::zoo
