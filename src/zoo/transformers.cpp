// Transformer models:
// - bert-base, bert-large: the original BERT configurations (Devlin et al.;
//   Google's bert_config.json; Hugging Face BertModel names): vocabulary
//   30,522, 512 positions, 2 token types, hidden 768/1024, 12/24 layers,
//   12/16 heads, intermediate 4 x hidden, pooler. With aux heads: the
//   pre-training heads of BertForPreTraining (MLM transform, decoder tied to
//   the word embeddings with its own bias, next-sentence classifier).
// - gpt2 .. gpt2-xl: OpenAI GPT-2 (Hugging Face GPT2LMHeadModel): vocabulary
//   50,257, 1,024 positions, pre-norm blocks, LM head tied to wte.
// - vit-b16: torchvision vit_b_16: 16 x 16 patches, class token, position
//   embedding, 12 pre-norm blocks of width 768 with 12 heads, MLP 3072.
// Attention is unfused: scores, softmax (with scale and mask), dropout where
// the reference has a non-zero rate, context. Dropouts of rate 0 (ViT) are
// left out.

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "model_families.hpp"

namespace mgsim::zoo {
namespace {

/// Multi-head attention core: query, key and value are N x S x width (or
/// slices of one fused N x S x 3 width projection); returns N x S x width.
Tensor attention(GraphBuilder& b, const std::string& n, const Tensor& q, const Tensor& k, const Tensor& v,
                 std::int64_t width, int heads, bool dropout) {
  const std::int64_t batch = q.shape[0], s = q.shape[1];
  const std::int64_t bh = batch * heads, dh = width / heads;
  const Tensor qh = b.view(n + ".query_heads", q, {bh, s, dh});
  const Tensor kh = b.view(n + ".key_heads", k, {bh, s, dh});
  const Tensor vh = b.view(n + ".value_heads", v, {bh, s, dh});
  Tensor probs = b.softmax(n + ".softmax", b.matmul(n + ".scores", qh, kh, true));
  if (dropout) probs = b.dropout(n + ".dropout", probs);
  const Tensor context = b.matmul(n + ".context", probs, vh, false);
  return b.view(n + ".merge_heads", context, {batch, s, width});
}

struct BertConfig {
  const char* model;
  std::int64_t hidden;
  int layers;
  int heads;
};

Tensor bert_layer(GraphBuilder& b, const std::string& n, const Tensor& x, const BertConfig& c) {
  const std::string self = n + ".attention.self";
  const Tensor q = b.linear(self + ".query", x, c.hidden);
  const Tensor k = b.linear(self + ".key", x, c.hidden);
  const Tensor v = b.linear(self + ".value", x, c.hidden);
  Tensor y = attention(b, self, q, k, v, c.hidden, c.heads, true);
  y = b.dropout(n + ".attention.output.dropout", b.linear(n + ".attention.output.dense", y, c.hidden));
  const Tensor a = b.layernorm(n + ".attention.output.LayerNorm", b.add(n + ".attention.output.add", {y, x}));
  y = b.activation(n + ".intermediate.gelu", b.linear(n + ".intermediate.dense", a, 4 * c.hidden));
  y = b.dropout(n + ".output.dropout", b.linear(n + ".output.dense", y, c.hidden));
  return b.layernorm(n + ".output.LayerNorm", b.add(n + ".output.add", {y, a}));
}

ModelGraph make_bert(const BertConfig& c, const ModelOptions& o) {
  constexpr std::int64_t kVocab = 30522, kPositions = 512, kTypes = 2;
  GraphBuilder b(c.model, o.batch_size, o.dtype_bytes);
  const Shape tokens{o.batch_size, o.seq_len};
  const Tensor words = b.embedding("embeddings.word_embeddings", b.input("input_ids", tokens), kVocab, c.hidden);
  const Tensor positions = b.embedding("embeddings.position_embeddings", b.input("position_ids", tokens), kPositions, c.hidden);
  const Tensor types = b.embedding("embeddings.token_type_embeddings", b.input("token_type_ids", tokens), kTypes, c.hidden);
  Tensor x = b.layernorm("embeddings.LayerNorm", b.add("embeddings.add", {words, positions, types}));
  x = b.dropout("embeddings.dropout", x);
  for (int i = 0; i < c.layers; ++i) x = bert_layer(b, fmt::format("encoder.layer.{}", i), x, c);
  const Tensor first = b.view("pooler.first_token", x, {o.batch_size, c.hidden});
  const Tensor pooled = b.activation("pooler.tanh", b.linear("pooler.dense", first, c.hidden));
  if (o.aux_heads) {
    Tensor t = b.activation("cls.predictions.transform.gelu", b.linear("cls.predictions.transform.dense", x, c.hidden));
    t = b.layernorm("cls.predictions.transform.LayerNorm", t);
    b.linear_tied("cls.predictions.decoder", t, kVocab, "embeddings.word_embeddings", true);
    b.linear("cls.seq_relationship", pooled, 2);
  }
  return b.finish();
}

struct Gpt2Config {
  const char* model;
  std::int64_t width;
  int layers;
  int heads;
};

Tensor gpt2_block(GraphBuilder& b, const std::string& n, const Tensor& x, const Gpt2Config& c) {
  const Tensor qkv = b.linear(n + ".attn.c_attn", b.layernorm(n + ".ln_1", x), 3 * c.width);
  Tensor y = attention(b, n + ".attn", qkv, qkv, qkv, c.width, c.heads, true);
  y = b.dropout(n + ".attn.resid_dropout", b.linear(n + ".attn.c_proj", y, c.width));
  const Tensor a = b.add(n + ".attn_add", {x, y});
  y = b.activation(n + ".mlp.act", b.linear(n + ".mlp.c_fc", b.layernorm(n + ".ln_2", a), 4 * c.width));
  y = b.dropout(n + ".mlp.dropout", b.linear(n + ".mlp.c_proj", y, c.width));
  return b.add(n + ".mlp_add", {a, y});
}

ModelGraph make_gpt2_model(const Gpt2Config& c, const ModelOptions& o) {
  constexpr std::int64_t kVocab = 50257, kPositions = 1024;
  GraphBuilder b(c.model, o.batch_size, o.dtype_bytes);
  const Shape tokens{o.batch_size, o.seq_len};
  const Tensor words = b.embedding("transformer.wte", b.input("input_ids", tokens), kVocab, c.width);
  const Tensor positions = b.embedding("transformer.wpe", b.input("position_ids", tokens), kPositions, c.width);
  Tensor x = b.dropout("transformer.drop", b.add("transformer.embed_add", {words, positions}));
  for (int i = 0; i < c.layers; ++i) x = gpt2_block(b, fmt::format("transformer.h.{}", i), x, c);
  x = b.layernorm("transformer.ln_f", x);
  b.linear_tied("lm_head", x, kVocab, "transformer.wte", false);
  return b.finish();
}

}  // namespace

ModelGraph make_bert_base(const ModelOptions& o) { return make_bert({"bert-base", 768, 12, 12}, o); }
ModelGraph make_bert_large(const ModelOptions& o) { return make_bert({"bert-large", 1024, 24, 16}, o); }
ModelGraph make_gpt2(const ModelOptions& o) { return make_gpt2_model({"gpt2", 768, 12, 12}, o); }
ModelGraph make_gpt2_medium(const ModelOptions& o) { return make_gpt2_model({"gpt2-medium", 1024, 24, 16}, o); }
ModelGraph make_gpt2_large(const ModelOptions& o) { return make_gpt2_model({"gpt2-large", 1280, 36, 20}, o); }
ModelGraph make_gpt2_xl(const ModelOptions& o) { return make_gpt2_model({"gpt2-xl", 1600, 48, 25}, o); }

ModelGraph make_vit_b16(const ModelOptions& o) {
  constexpr std::int64_t kWidth = 768, kPatch = 16;
  constexpr int kLayers = 12, kHeads = 12;
  if (o.image_size % kPatch != 0) {  // torchvision's vit_b_16 refuses it too
    throw ConfigError(fmt::format("model vit-b16: image size must be a multiple of its {}-pixel patch, got {}", kPatch,
                                  o.image_size));
  }
  GraphBuilder b("vit-b16", o.batch_size, o.dtype_bytes);
  const Tensor patches = b.conv2d("conv_proj", image_input(b, o), conv_spec(kWidth, kPatch, kPatch));
  const std::int64_t tokens = patches.shape[2] * patches.shape[3];
  Tensor x = b.view("patches_to_tokens", patches, {o.batch_size, tokens, kWidth});
  x = b.prepend_token("class_token", x, "class_token");
  x = b.add_param("encoder.pos_embedding", x, "pos_embedding", {1, tokens + 1, kWidth});
  for (int i = 0; i < kLayers; ++i) {
    const std::string n = fmt::format("encoder.layers.encoder_layer_{}", i);
    const Tensor qkv = b.linear(n + ".self_attention.in_proj", b.layernorm(n + ".ln_1", x), 3 * kWidth);
    Tensor y = attention(b, n + ".self_attention", qkv, qkv, qkv, kWidth, kHeads, false);
    y = b.linear(n + ".self_attention.out_proj", y, kWidth);
    const Tensor a = b.add(n + ".attn_add", {y, x});
    y = b.activation(n + ".mlp.1", b.linear(n + ".mlp.0", b.layernorm(n + ".ln_2", a), 4 * kWidth));
    x = b.add(n + ".mlp_add", {b.linear(n + ".mlp.3", y, kWidth), a});
  }
  x = b.layernorm("encoder.ln", x);
  b.linear("heads.head", b.view("class_token_out", x, {o.batch_size, kWidth}), 1000);
  return b.finish();
}

}  // namespace mgsim::zoo
