#pragma once
// The model zoo: every canonical model as a table entry {name, description,
// factory}. A factory builds the model's exact operator graph for a batch
// size, an image size or sequence length, and optional training heads; its
// parameter tensors equal those of the reference implementation named in the
// entry (torchvision, Cadene/timm, Caffe, the original BERT and GPT-2
// configurations). Lookup errors list the valid names.

#include <span>
#include <string_view>

#include "mgsim/zoo/graph.hpp"

namespace mgsim::zoo {

/// How to build a model; 0 means "the model's default".
struct ModelOptions {
  int batch_size = 32;
  int image_size = 0;      ///< vision models: input height = width in pixels
  int seq_len = 0;         ///< text models: tokens per sample (time steps for the LSTM)
  bool aux_heads = false;  ///< GoogLeNet / Inception-v3 auxiliary classifiers, BERT pre-training heads
  int dtype_bytes = 4;     ///< bytes per element of activations and parameters
};

enum class ModelInput { image, sequence };

struct ModelInfo {
  std::string_view name;         ///< lower case, torchvision style: "resnet50"
  std::string_view description;
  std::string_view reference;    ///< the implementation whose tensors it reproduces
  ModelInput input;
  int default_size;              ///< image size or sequence length
  int max_size;                  ///< largest sequence length (position table); 0: no limit
  bool has_aux_heads;
  ModelGraph (*factory)(const ModelOptions& options);  ///< options already resolved and checked
};

std::span<const ModelInfo> model_registry();

/// Throws ConfigError listing the valid names.
const ModelInfo& find_model(std::string_view name);

/// Resolves defaults, checks the options against the model (ConfigError
/// naming the option) and builds the graph.
ModelGraph build_model(std::string_view name, ModelOptions options);

}  // namespace mgsim::zoo
