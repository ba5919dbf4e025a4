// The FLOP, byte and shape rules of every operator kind (graph_builder.hpp),
// each checked on a tiny operator against a value worked out by hand, and the
// graph structure: inputs in order, execution order, gradient-layer grouping.

#include <catch2/catch.hpp>

#include "mgsim/error.hpp"
#include "mgsim/zoo/graph_builder.hpp"

namespace {

using namespace mgsim::zoo;

/// The operator a builder call just added.
const Operator& last(const ModelGraph& g) { return g.op(g.op_count() - 1); }

}  // namespace

TEST_CASE("zoo: conv2d: 2 N Cout Ho Wo Cin Kh Kw FLOPs plus the bias adds", "[zoo]") {
  GraphBuilder b("t", 2, 4);
  b.conv2d("c", b.input("x", {2, 3, 8, 8}), conv_spec(4, 3, 1, 1, true));
  const ModelGraph g = b.finish();
  const Operator& op = last(g);
  // Output 2 x 4 x 8 x 8 = 512 elements; each 3 x 3 x 3 = 27 MACs: 2 x 512 x 27 = 27,648, + 512 bias adds.
  CHECK(op.output_shape == Shape{2, 4, 8, 8});
  CHECK(op.flops == 28'160);
  // Reads input 384 + weight 4x3x3x3 = 108 + bias 4 elements, writes 512; 4 bytes each.
  CHECK(op.param_count() == 112);
  CHECK(op.bytes_read == (384 + 112) * 4);
  CHECK(op.bytes_written == 512 * 4);
}

TEST_CASE("zoo: conv2d: strides, rectangular kernels and no bias", "[zoo]") {
  GraphBuilder b("t", 1, 4);
  b.conv2d("c", b.input("x", {1, 2, 7, 9}), Conv2dSpec{3, 3, 1, 2, 0, 0, false});
  const ModelGraph g = b.finish();
  // Ho = (7 - 3) / 2 + 1 = 3, Wo = (9 - 1) / 2 + 1 = 5; 45 outputs x 2 x (2 x 3 x 1) = 540.
  CHECK(last(g).output_shape == Shape{1, 3, 3, 5});
  CHECK(last(g).flops == 540);
  CHECK(last(g).params.size() == 1);
}

TEST_CASE("zoo: linear: 2 R In Out plus R Out for the bias, over all leading dimensions", "[zoo]") {
  GraphBuilder b("t", 4, 4);
  const Tensor x = b.input("x", {4, 10});
  b.linear("fc", x, 6);
  b.linear("fc3d", b.input("y", {2, 3, 10}), 6, false);
  const ModelGraph g = b.finish();
  // 4 rows: 2 x 4 x 10 x 6 = 480, + 24 bias adds.
  CHECK(g.op(1).flops == 504);
  CHECK(g.op(1).param_count() == 66);
  // 2 x 3 = 6 rows, no bias: 2 x 6 x 10 x 6 = 720; output 2 x 3 x 6.
  CHECK(last(g).flops == 720);
  CHECK(last(g).output_shape == Shape{2, 3, 6});
}

TEST_CASE("zoo: a tied linear layer costs the same but owns no weight", "[zoo]") {
  GraphBuilder b("t", 2, 2);
  b.linear_tied("head", b.input("x", {2, 5, 8}), 16, "wte", false);
  const ModelGraph g = b.finish();
  // 10 rows: 2 x 10 x 8 x 16 = 2,560; reads 80 inputs + the 128-element tied weight at 2 bytes.
  CHECK(last(g).flops == 2'560);
  CHECK(last(g).params.empty());
  CHECK(last(g).tied_to == "wte");
  CHECK(last(g).bytes_read == (80 + 128) * 2);
}

TEST_CASE("zoo: matmul: 2 B M K N, with or without a transposed right operand", "[zoo]") {
  GraphBuilder b("t", 1, 4);
  const Tensor a = b.input("a", {3, 4, 5});
  b.matmul("qk", a, b.input("k", {3, 6, 5}), true);
  b.matmul("av", a, b.input("v", {3, 5, 6}), false);
  const ModelGraph g = b.finish();
  // 2 x 3 x 4 x 5 x 6 = 720 both ways; output 3 x 4 x 6.
  CHECK(g.op(2).flops == 720);
  CHECK(g.op(2).output_shape == Shape{3, 4, 6});
  CHECK(last(g).flops == 720);
  CHECK_THROWS_AS([] {
    GraphBuilder bad("t", 1, 4);
    bad.matmul("m", bad.input("a", {1, 2, 3}), bad.input("b", {1, 4, 5}), false);
  }(), mgsim::ConfigError);
}

TEST_CASE("zoo: lstm: N T (8 H (In + H) + 21 H) and four tensors per layer", "[zoo]") {
  GraphBuilder b("t", 2, 4);
  b.lstm("rnn", b.input("x", {2, 3, 4}), 5, 0);
  const ModelGraph g = b.finish();
  // Per step 8 x 5 x 9 = 360 + 21 x 5 = 105 -> 465; 2 x 3 steps -> 2,790.
  CHECK(last(g).flops == 2'790);
  // weight_ih 20 x 4, weight_hh 20 x 5, two biases of 20: 80 + 100 + 40 = 220.
  CHECK(last(g).param_count() == 220);
  CHECK(last(g).params.size() == 4);
  CHECK(last(g).params[1].name == "weight_hh_l0");
  CHECK(last(g).output_shape == Shape{2, 3, 5});
}

TEST_CASE("zoo: embedding: no FLOPs, reads only the gathered rows", "[zoo]") {
  GraphBuilder b("t", 2, 4);
  b.embedding("emb", b.input("ids", {2, 3}), 10, 4);
  const ModelGraph g = b.finish();
  // 6 ids x 4 = 24 elements read and written; the table is 10 x 4 = 40 parameters.
  CHECK(last(g).flops == 0);
  CHECK(last(g).bytes_read == 24 * 4);
  CHECK(last(g).bytes_written == 24 * 4);
  CHECK(last(g).param_count() == 40);
}

TEST_CASE("zoo: normalisations: 8 FLOPs per element for batch and layer norm, 2 size + 4 for LRN", "[zoo]") {
  GraphBuilder b("t", 2, 4);
  b.batchnorm("bn", b.input("x", {2, 3, 4, 4}));
  b.layernorm("ln", b.input("y", {2, 3, 8}));
  b.lrn("lrn", b.input("z", {1, 2, 3, 3}), 5);
  const ModelGraph g = b.finish();
  CHECK(g.op(1).flops == 8 * 96);  // 2 x 3 x 16 = 96 elements
  CHECK(g.op(1).param_count() == 6);
  CHECK(g.op(3).flops == 8 * 48);  // 2 x 3 x 8 = 48 elements
  CHECK(g.op(3).param_count() == 16);
  CHECK(g.op(5).flops == 14 * 18);  // (2 x 5 + 4) x 18 elements
}

TEST_CASE("zoo: element-wise kinds: activation 1, dropout 2, add inputs - 1, softmax 5 per element", "[zoo]") {
  GraphBuilder b("t", 2, 4);
  const Tensor x = b.input("x", {2, 4});
  b.activation("relu", x);
  b.dropout("drop", x);
  b.add("add", {x, x, x});
  b.softmax("softmax", x);
  b.add_param("pos", b.input("y", {2, 3, 4}), "pos_embedding", {1, 3, 4});
  b.prepend_token("cls", b.input("z", {2, 3, 4}), "class_token");
  const ModelGraph g = b.finish();
  CHECK(g.op(1).flops == 8);
  CHECK(g.op(2).flops == 16);
  CHECK(g.op(3).flops == 16);  // 3 inputs: 2 adds for each of 8 elements
  CHECK(g.op(3).bytes_read == 3 * 8 * 4);
  CHECK(g.op(4).flops == 40);
  CHECK(g.op(6).flops == 24);  // 2 x 3 x 4 elements, one add each
  CHECK(g.op(6).param_count() == 12);
  CHECK(last(g).output_shape == Shape{2, 4, 4});
  CHECK(last(g).param_count() == 4);
  CHECK_THROWS_AS([] {
    GraphBuilder bad("t", 1, 4);
    bad.add("add", {bad.input("a", {1, 2}), bad.input("b", {1, 3})});
  }(), mgsim::ConfigError);
}

TEST_CASE("zoo: pooling: Kh Kw per output element, floor or ceil output size, adaptive 1 per input", "[zoo]") {
  GraphBuilder b("t", 1, 4);
  b.maxpool("floor", b.input("x", {1, 1, 7, 7}), {3, 2});
  b.maxpool("ceil", b.input("y", {1, 1, 8, 8}), {3, 2, 0, true});
  b.avgpool("ceil_clipped", b.input("z", {1, 1, 5, 5}), {2, 2, 1, true});
  b.adaptive_avgpool("global", b.input("w", {1, 2, 4, 4}), 1, 1);
  const ModelGraph g = b.finish();
  // (7 - 3) / 2 + 1 = 3: 9 outputs x 9 = 81.
  CHECK(g.op(1).output_shape == Shape{1, 1, 3, 3});
  CHECK(g.op(1).flops == 81);
  // ceil((8 - 3) / 2) + 1 = 4.
  CHECK(g.op(3).output_shape == Shape{1, 1, 4, 4});
  // ceil((5 + 2 - 2) / 2) + 1 = 4, but window 4 would start at 6 >= 5 + 1 (in the padding): 3.
  CHECK(g.op(5).output_shape == Shape{1, 1, 3, 3});
  CHECK(last(g).flops == 32);
  CHECK(last(g).output_shape == Shape{1, 2, 1, 1});
}

TEST_CASE("zoo: concat copies its inputs; views are free and cannot grow", "[zoo]") {
  GraphBuilder b("t", 1, 4);
  const Tensor a = b.input("a", {1, 2, 3, 3});
  const Tensor c = b.concat("cat", {a, b.input("b", {1, 5, 3, 3})}, 1);
  b.view("flat", c, {1, 63});
  const ModelGraph g = b.finish();
  CHECK(g.op(2).output_shape == Shape{1, 7, 3, 3});
  CHECK(g.op(2).flops == 0);
  CHECK(g.op(2).bytes_read == (18 + 45) * 4);
  CHECK(g.op(2).bytes_written == 63 * 4);
  CHECK(last(g).bytes_read + last(g).bytes_written + last(g).flops == 0);
  CHECK_THROWS_AS([] {
    GraphBuilder bad("t", 1, 4);
    bad.view("v", bad.input("a", {1, 4}), {1, 5});
  }(), mgsim::ConfigError);
}

TEST_CASE("zoo: a kernel larger than its input is a ConfigError naming model and operator", "[zoo]") {
  GraphBuilder b("tiny", 1, 4);
  const Tensor x = b.input("x", {1, 3, 4, 4});
  CHECK_THROWS_WITH(b.conv2d("conv", x, conv_spec(8, 7)), Catch::Matchers::Contains("model tiny: operator conv"));
}

TEST_CASE("zoo: graph edges keep input order; parameter-free operators join the layer before them", "[zoo]") {
  GraphBuilder b("t", 1, 4);
  const Tensor x = b.input("x", {1, 2, 4, 4});                      // 0: leading, joins conv1
  const Tensor c1 = b.conv2d("conv1", x, conv_spec(2, 3, 1, 1));     // 1
  const Tensor r1 = b.activation("relu1", c1);                       // 2
  const Tensor c2 = b.conv2d("conv2", r1, conv_spec(2, 3, 1, 1));    // 3
  const Tensor s = b.add("add", {c2, r1});                           // 4
  b.activation("relu2", s);                                          // 5
  const ModelGraph g = b.finish();
  CHECK(g.inputs(4) == std::vector<OpId>{3, 2});
  CHECK(boost::num_edges(g.graph()) == 6);  // x-conv1, conv1-relu1, relu1-conv2, conv2-add, relu1-add, add-relu2
  const auto layers = gradient_layers(g);
  REQUIRE(layers.size() == 2);
  CHECK(layers[0].owner == 1);
  CHECK(layers[0].ops == std::vector<OpId>{1, 0, 2});
  CHECK(layers[1].ops == std::vector<OpId>{3, 4, 5});
  // Forward FLOPs: conv 2 x 32 x 18 + 32 = 1,184 each, relus 32 each, add 32.
  CHECK(g.forward_flops() == 2 * 1'184 + 3 * 32);
}
