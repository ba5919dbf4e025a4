// The zoo's models reproduce their reference implementations exactly: the
// number of trainable elements and of tensors, for every model (with and
// without optional heads). Expected totals are the reference's published
// counts, re-derived by hand below from layer sizes:
//   conv k x k (Cin -> Cout): Cin Cout k^2 (+ Cout bias); BN or LayerNorm(C): 2C;
//   linear (In -> Out): In Out + Out; torchvision BasicConv2d = conv without bias + BN.

#include <string>

#include <catch2/catch.hpp>

#include "mgsim/error.hpp"
#include "mgsim/zoo/models.hpp"

namespace {

using namespace mgsim::zoo;

struct Expected {
  const char* model;
  bool aux;
  std::int64_t params;
  int tensors;
};

// AlexNet: convs 23,296 + 307,392 + 663,936 + 884,992 + 590,080; fc 9216x4096 37,752,832,
//   4096x4096 16,781,312, 4096x1000 4,097,000 -> 61,100,840 in 8 x 2 = 16 tensors.
// VGG-16: 13 biased 3x3 convs = 14,714,688 (1,792 + 36,928 + 73,856 + 147,584 + 295,168
//   + 2 x 590,080 + 1,180,160 + 5 x 2,359,808); fc 102,764,544 + 16,781,312 + 4,097,000
//   -> 138,357,544 in 16 x 2 = 32. VGG-19 adds one 256-conv (590,080) and two 512-convs
//   (2 x 2,359,808) -> 143,667,240 in 19 x 2 = 38.
// GoogLeNet (torchvision): stem 124,736 (BasicConv 7x7 3->64, 1x1 64->64, 3x3 64->192);
//   modules 3a..5b 155,872 + 340,224 + 364,512 + 425,232 + 486,192 + 573,312 + 803,840
//   + 978,944 + 1,347,040; fc 1,025,000 -> 6,624,904 in 57 convs x 3 + 2 = 173.
//   Aux heads (BasicConv 1x1 ->128, fc 2048->1024, fc 1024->1000): 3,188,968 (in 512)
//   + 3,191,016 (in 528) -> 13,004,888 in 173 + 2 x 7 = 187.
// bvlc_googlenet (Caffe, biased convs, true 5x5): stem 124,416; modules 163,696 + 388,736
//   + 376,176 + 449,160 + 510,104 + 605,376 + 868,352 + 1,043,456 + 1,444,080;
//   loss3/classifier 1,025,000 -> 6,998,552 in 58 x 2 = 116; heads loss1 3,188,840 +
//   loss2 3,190,888 -> 13,378,280 in 64 x 2 = 128 (the exact count in the provenance of
//   traces/googlenet-k80.json).
// Inception-v3: stem 172,672; Mixed_5b/c/d 255,904 + 277,472 + 285,152; 6a 1,153,280;
//   6b..6e 1,297,408 + 1,691,008 x 2 + 2,141,952; 7a 1,698,304; 7b 5,044,608; 7c 6,076,800;
//   fc 2,049,000 -> 23,834,568 in 94 convs x 3 + 2 = 284; AuxLogits (BasicConv 1x1 768->128,
//   5x5 128->768, fc 768->1000) 3,326,696 -> 27,161,264 (torchvision's count) in 292.
// Inception-v4 (Cadene): stem 605,728; Inception-A 317,632 x 4; Reduction-A 2,306,112;
//   Inception-B 2,936,256 x 7; Reduction-B 2,747,392; Inception-C 4,553,088 x 3;
//   last_linear 1,537,000 -> 42,679,816 in 149 convs x 3 + 2 = 449.
// ResNet-50: stem 9,536; stage first/other blocks 75,008/70,400 (x3), 379,392/280,064 (x4),
//   1,512,448/1,117,184 (x6), 6,039,552/4,462,592 (x3); fc 2,049,000 -> 25,557,032 in 53 convs
//   + 53 BN x 2 + 2 = 161. ResNet-101: stage 3 x 23 -> 44,549,160 in 104 + 208 + 2 = 314.
//   ResNet-152: stages 3, 8, 36, 3 -> 60,192,808 in 155 + 310 + 2 = 467.
// DenseNet-121 (k 32, blocks 6/12/24/16): stem 9,536; blocks 335,040, 919,680, 2,837,760,
//   2,158,080; transitions 33,280, 132,096, 526,336; norm5 2,048; classifier 1,025,000
//   -> 7,978,856; tensors 1 + 2 + 58 layers x 6 + 3 x 3 + 2 + 2 = 364. DenseNet-161
//   (k 48, 6/12/36/24, 96 initial) -> 28,681,000, 1 + 2 + 78 x 6 + 9 + 2 + 2 = 484.
//   DenseNet-201 (k 32, 6/12/48/32) -> 20,013,928, 1 + 2 + 98 x 6 + 9 + 2 + 2 = 604.
// BERT-base: embeddings 30522x768 + 512x768 + 2x768 + LN 1,536 = 23,837,184; layer 4 x 590,592
//   + 1,536 + 2,362,368 + 2,360,064 + 1,536 = 7,087,872 (x12); pooler 590,592 -> 109,482,240
//   in 5 + 12 x 16 + 2 = 199. Pre-training heads: transform 590,592 + LN 1,536, decoder bias
//   30,522 (weight tied), NSP 1,538 -> 110,106,428 in 206. BERT-large: 31,782,912 +
//   24 x 12,596,224 + 1,049,600 = 335,141,888 in 5 + 24 x 16 + 2 = 391; heads 1,049,600 +
//   2,048 + 30,522 + 2,050 -> 336,226,108 in 398.
// GPT-2: wte 50257 d + wpe 1024 d; block 12 d^2 + 13 d; ln_f 2d; LM head tied.
//   d 768 x 12 -> 124,439,808; d 1024 x 24 -> 354,823,168; d 1280 x 36 -> 774,030,080;
//   d 1600 x 48 -> 1,557,611,200; tensors 2 + 12 L + 2 = 148, 292, 436, 580.
// LSTM-PTB: encoder 15,000,000; per layer 4h(h + h) + 8h = 18,012,000 (x2); decoder
//   15,010,000 -> 66,034,000 in 1 + 8 + 2 = 11.
// ViT-B/16: class token 768; conv_proj 768x3x16x16 + 768 = 590,592; pos_embedding 197 x 768
//   = 151,296; block 7,087,872 (x12); encoder.ln 1,536; head 769,000 -> 86,567,656 in
//   1 + 2 + 1 + 12 x 12 + 2 + 2 = 152.
constexpr Expected kExpected[] = {
    {"alexnet", false, 61'100'840, 16},        {"vgg16", false, 138'357'544, 32},
    {"vgg19", false, 143'667'240, 38},         {"googlenet", false, 6'624'904, 173},
    {"googlenet", true, 13'004'888, 187},      {"googlenet-bvlc", false, 6'998'552, 116},
    {"googlenet-bvlc", true, 13'378'280, 128}, {"inception-v3", false, 23'834'568, 284},
    {"inception-v3", true, 27'161'264, 292},   {"inception-v4", false, 42'679'816, 449},
    {"resnet50", false, 25'557'032, 161},      {"resnet101", false, 44'549'160, 314},
    {"resnet152", false, 60'192'808, 467},     {"densenet121", false, 7'978'856, 364},
    {"densenet161", false, 28'681'000, 484},   {"densenet201", false, 20'013'928, 604},
    {"bert-base", false, 109'482'240, 199},    {"bert-base", true, 110'106'428, 206},
    {"bert-large", false, 335'141'888, 391},   {"bert-large", true, 336'226'108, 398},
    {"gpt2", false, 124'439'808, 148},         {"gpt2-medium", false, 354'823'168, 292},
    {"gpt2-large", false, 774'030'080, 436},   {"gpt2-xl", false, 1'557'611'200, 580},
    {"lstm-ptb", false, 66'034'000, 11},       {"vit-b16", false, 86'567'656, 152},
};

}  // namespace

TEST_CASE("zoo: every zoo model has the reference implementation's parameter total and tensor count", "[zoo]") {
  for (const Expected& e : kExpected) {
    INFO(e.model << (e.aux ? " with aux heads" : ""));
    const ModelGraph graph = build_model(e.model, {2, 0, 0, e.aux, 4});
    CHECK(graph.param_count() == e.params);
    CHECK(graph.tensor_count() == e.tensors);
  }
}

TEST_CASE("zoo: the zoo registry lists exactly the issue's model names plus googlenet-bvlc", "[zoo]") {
  std::string names;
  for (const ModelInfo& info : model_registry()) names += std::string(info.name) + " ";
  CHECK(names ==
        "alexnet vgg16 vgg19 googlenet googlenet-bvlc inception-v3 inception-v4 resnet50 resnet101 resnet152 "
        "densenet121 densenet161 densenet201 bert-base bert-large gpt2 gpt2-medium gpt2-large gpt2-xl lstm-ptb "
        "vit-b16 ");
}

TEST_CASE("zoo: parameter totals do not depend on the batch size; text models' not on the sequence length", "[zoo]") {
  CHECK(build_model("resnet50", {1, 0, 0, false, 4}).param_count() == build_model("resnet50", {128, 0, 0, false, 2}).param_count());
  CHECK(build_model("bert-base", {8, 0, 64, false, 4}).param_count() == 109'482'240);
  CHECK(build_model("lstm-ptb", {20, 0, 70, false, 4}).param_count() == 66'034'000);
  // ViT's position table follows the image: 384 / 16 = 24, 24^2 + 1 = 577 positions, (577 - 197) x 768 more.
  CHECK(build_model("vit-b16", {1, 384, 0, false, 4}).param_count() == 86'567'656 + (577 - 197) * 768);
}

TEST_CASE("zoo: shapes flow through the graph: ResNet-50 at 224 ends in 2048 x 7 x 7 and 1000 logits", "[zoo]") {
  const ModelGraph g = build_model("resnet50", {4, 0, 0, false, 4});
  // 224 -> conv1 /2 -> 112 -> maxpool /2 -> 56 -> stages 2..4 each /2 -> 7.
  bool seen_pool = false;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (g.op(v).name == "avgpool") {
      CHECK(g.op(v).input_shapes.front() == Shape{4, 2048, 7, 7});
      seen_pool = true;
    }
  }
  CHECK(seen_pool);
  CHECK(g.op(g.op_count() - 1).name == "fc");
  CHECK(g.op(g.op_count() - 1).output_shape == Shape{4, 1000});
}

TEST_CASE("zoo: ResNet-50 has 107 gradient-producing layers: 53 convs, 53 batch norms, fc", "[zoo]") {
  const ModelGraph g = build_model("resnet50", {1, 0, 0, false, 4});
  const auto layers = gradient_layers(g);
  REQUIRE(layers.size() == 107);
  CHECK(g.op(layers.front().owner).name == "conv1");
  CHECK(g.op(layers[1].owner).name == "bn1");
  CHECK(g.op(layers.back().owner).name == "fc");
}

TEST_CASE("zoo: bad model options are refused with an error naming the option and the valid values", "[zoo]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(build_model("resnet-50", {}), Contains("unknown model 'resnet-50'") && Contains("resnet50, resnet101"));
  CHECK_THROWS_AS(build_model("resnet-50", {}), mgsim::ConfigError);
  CHECK_THROWS_WITH(build_model("resnet50", {1, 0, 0, true, 4}), Contains("no auxiliary heads") && Contains("googlenet"));
  CHECK_THROWS_WITH(build_model("gpt2", {1, 0, 2048, false, 4}), Contains("sequence length must be in 1..1024"));
  CHECK_THROWS_WITH(build_model("bert-base", {1, 224, 0, false, 4}), Contains("takes sequences"));
  CHECK_THROWS_WITH(build_model("resnet50", {1, 0, 128, false, 4}), Contains("takes images"));
  CHECK_THROWS_WITH(build_model("resnet50", {0, 0, 0, false, 4}), Contains("batch size"));
  // AlexNet's third max pool needs at least 3 x 3 input: a 32-pixel image shrinks to 0 first.
  CHECK_THROWS_WITH(build_model("alexnet", {1, 32, 0, false, 4}), Contains("model alexnet: operator") && Contains("too small"));
}
