// The table of zoo models, and option checking before a factory runs.

#include <array>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/registry_lookup.hpp"
#include "model_families.hpp"

namespace mgsim::zoo {
namespace {

constexpr int kMaxImageSize = 4096;
constexpr int kMaxSteps = 1 << 16;

constexpr auto kImage = ModelInput::image;
constexpr auto kText = ModelInput::sequence;

constexpr std::array kModels{
    ModelInfo{"alexnet", "AlexNet (one-tower variant)", "torchvision alexnet", kImage, 224, 0, false, make_alexnet},
    ModelInfo{"vgg16", "VGG-16 (configuration D)", "torchvision vgg16", kImage, 224, 0, false, make_vgg16},
    ModelInfo{"vgg19", "VGG-19 (configuration E)", "torchvision vgg19", kImage, 224, 0, false, make_vgg19},
    ModelInfo{"googlenet", "GoogLeNet / Inception v1 with batch norm; aux heads optional", "torchvision googlenet",
              kImage, 224, 0, true, make_googlenet},
    ModelInfo{"googlenet-bvlc", "GoogLeNet as Caffe's bvlc_googlenet (biases, LRN, Caffe layer names); aux heads optional",
              "Caffe models/bvlc_googlenet/train_val.prototxt", kImage, 224, 0, true, make_googlenet_bvlc},
    ModelInfo{"inception-v3", "Inception-v3; aux head (AuxLogits) optional", "torchvision inception_v3", kImage, 299, 0,
              true, make_inception_v3},
    ModelInfo{"inception-v4", "Inception-v4", "Cadene pretrained-models inceptionv4 (= timm inception_v4)", kImage, 299,
              0, false, make_inception_v4},
    ModelInfo{"resnet50", "ResNet-50 (v1.5)", "torchvision resnet50", kImage, 224, 0, false, make_resnet50},
    ModelInfo{"resnet101", "ResNet-101 (v1.5)", "torchvision resnet101", kImage, 224, 0, false, make_resnet101},
    ModelInfo{"resnet152", "ResNet-152 (v1.5)", "torchvision resnet152", kImage, 224, 0, false, make_resnet152},
    ModelInfo{"densenet121", "DenseNet-121", "torchvision densenet121", kImage, 224, 0, false, make_densenet121},
    ModelInfo{"densenet161", "DenseNet-161", "torchvision densenet161", kImage, 224, 0, false, make_densenet161},
    ModelInfo{"densenet201", "DenseNet-201", "torchvision densenet201", kImage, 224, 0, false, make_densenet201},
    ModelInfo{"bert-base", "BERT-base encoder with pooler; pre-training heads optional",
              "BERT-Base uncased config (Hugging Face BertModel / BertForPreTraining)", kText, 128, 512, true,
              make_bert_base},
    ModelInfo{"bert-large", "BERT-large encoder with pooler; pre-training heads optional",
              "BERT-Large uncased config (Hugging Face BertModel / BertForPreTraining)", kText, 128, 512, true,
              make_bert_large},
    ModelInfo{"gpt2", "GPT-2 small (124M) with tied LM head", "OpenAI GPT-2 config (Hugging Face GPT2LMHeadModel)",
              kText, 1024, 1024, false, make_gpt2},
    ModelInfo{"gpt2-medium", "GPT-2 medium (355M)", "OpenAI GPT-2 config (Hugging Face GPT2LMHeadModel)", kText, 1024,
              1024, false, make_gpt2_medium},
    ModelInfo{"gpt2-large", "GPT-2 large (774M)", "OpenAI GPT-2 config (Hugging Face GPT2LMHeadModel)", kText, 1024,
              1024, false, make_gpt2_large},
    ModelInfo{"gpt2-xl", "GPT-2 XL (1.5B)", "OpenAI GPT-2 config (Hugging Face GPT2LMHeadModel)", kText, 1024, 1024,
              false, make_gpt2_xl},
    ModelInfo{"lstm-ptb", "2-layer LSTM language model, Penn Treebank size (vocab 10k, hidden 1500)",
              "PyTorch examples word_language_model RNNModel (LSTM, untied), Zaremba et al. large", kText, 35, 0, false,
              make_lstm_ptb},
    ModelInfo{"vit-b16", "Vision Transformer ViT-B/16", "torchvision vit_b_16", kImage, 224, 0, false, make_vit_b16},
};

std::string names_with_aux_heads() {
  std::string out;
  for (const ModelInfo& info : kModels) {
    if (info.has_aux_heads) out += fmt::format("{}{}", out.empty() ? "" : ", ", info.name);
  }
  return out;
}

void resolve_size(const ModelInfo& info, ModelOptions& o) {
  const bool image = info.input == ModelInput::image;
  if (image && o.seq_len != 0) throw ConfigError(fmt::format("model {} takes images: give an image size, not a sequence length", info.name));
  if (!image && o.image_size != 0) throw ConfigError(fmt::format("model {} takes sequences: give a sequence length, not an image size", info.name));
  int& size = image ? o.image_size : o.seq_len;
  if (size == 0) size = info.default_size;
  const int max = image ? kMaxImageSize : (info.max_size > 0 ? info.max_size : kMaxSteps);
  if (size < 1 || size > max) {
    throw ConfigError(fmt::format("model {}: {} must be in 1..{}, got {}", info.name, image ? "image size" : "sequence length", max, size));
  }
}

/// Every FLOP and byte count of a graph grows linearly with the batch, and
/// the largest is at most their sum: the sums of the batch-1 graph times the
/// batch must stay below 2^62, or some count would overflow int64 (a negative
/// FLOPs total). Throws ConfigError naming the model, batch and size.
void check_batch_work(const ModelInfo& info, const ModelOptions& options) {
  ModelOptions one = options;
  one.batch_size = 1;
  const ModelGraph graph = info.factory(one);
  double per_sample = 0;
  for (OpId v = 0; v < graph.op_count(); ++v) {
    const Operator& op = graph.op(v);
    per_sample += static_cast<double>(op.flops) + static_cast<double>(op.bytes_read + op.bytes_written);
  }
  if (per_sample * options.batch_size >= 0x1p62) {
    throw ConfigError(fmt::format("model {} at batch {} and {} {}: {:.3g} FLOPs and bytes per iteration, past 2^62 "
                                  "(4.6e18): give a smaller batch or size",
                                  info.name, options.batch_size,
                                  info.input == ModelInput::image ? "image size" : "sequence length",
                                  info.input == ModelInput::image ? options.image_size : options.seq_len,
                                  per_sample * options.batch_size));
  }
}

}  // namespace

std::span<const ModelInfo> model_registry() { return kModels; }

const ModelInfo& find_model(std::string_view name) { return find_by_name<ConfigError>(model_registry(), name, "model"); }

ModelGraph build_model(std::string_view name, ModelOptions options) {
  const ModelInfo& info = find_model(name);
  if (options.batch_size < 1 || options.batch_size > (1 << 20)) {
    throw ConfigError(fmt::format("batch size must be in 1..{}, got {}", 1 << 20, options.batch_size));
  }
  if (options.dtype_bytes < 1 || options.dtype_bytes > 16) {
    throw ConfigError(fmt::format("bytes per element must be in 1..16, got {}", options.dtype_bytes));
  }
  if (options.aux_heads && !info.has_aux_heads) {
    throw ConfigError(fmt::format("model {} has no auxiliary heads (models with them: {})", info.name, names_with_aux_heads()));
  }
  resolve_size(info, options);
  check_batch_work(info, options);
  return info.factory(options);
}

}  // namespace mgsim::zoo
