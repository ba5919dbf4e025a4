// The memory model of model states per GPU (model_memory.hpp): the ZeRO
// paper's worked example, the optimizer-state bytes per element, shards with
// remainders, and a trace's states, each derived by hand.

#include <cmath>
#include <catch2/catch.hpp>

#include "mgsim/error.hpp"
#include "mgsim/model_memory.hpp"

namespace {

using namespace mgsim;

/// A size in GB (10^9 bytes) to one decimal, as the ZeRO paper prints them.
double paper_gb(std::int64_t bytes) { return std::round(static_cast<double>(bytes) / 1e8) / 10.0; }

}  // namespace

TEST_CASE("model states: the ZeRO paper's 7.5B-parameter model on 64 GPUs, by hand", "[memory]") {
  // Rajbhandari et al., SC'20, figure 1: Psi = 7.5e9 parameters, N_d = 64,
  // mixed-precision Adam: 2-byte parameters, 2-byte gradients, K = 12 bytes of
  // fp32 state (master weights, momentum, variance) per parameter.
  // Psi / N_d = 7.5e9 / 64 = 117,187,500 exactly.
  const std::int64_t psi = 7'500'000'000;
  const std::int64_t tensors[] = {psi};
  ModelStateSettings s{2, Optimizer::adam, 0, 64};
  REQUIRE(optimizer_bytes_per_element(s) == 12);

  // Baseline (2 + 2 + K) Psi = 16 x 7.5e9 = 120e9 B.
  const ModelStateBytes baseline = model_states(tensors, s);
  CHECK(baseline == ModelStateBytes{15'000'000'000, 15'000'000'000, 90'000'000'000});
  CHECK(baseline.total() == 120'000'000'000);
  CHECK(paper_gb(baseline.total()) == 120.0);

  // P_os: 2 Psi + 2 Psi + K Psi / N_d = 30e9 + 12 x 117,187,500 = 31,406,250,000 B: 31.4 GB.
  s.zero_stage = 1;
  const ModelStateBytes os = model_states(tensors, s);
  CHECK(os == ModelStateBytes{15'000'000'000, 15'000'000'000, 1'406'250'000});
  CHECK(os.total() == 31'406'250'000);
  CHECK(paper_gb(os.total()) == 31.4);

  // P_os+g: 2 Psi + (2 + K) Psi / N_d = 15e9 + 14 x 117,187,500 = 16,640,625,000 B: 16.6 GB.
  s.zero_stage = 2;
  const ModelStateBytes os_g = model_states(tensors, s);
  CHECK(os_g == ModelStateBytes{15'000'000'000, 234'375'000, 1'406'250'000});
  CHECK(os_g.total() == 16'640'625'000);
  CHECK(paper_gb(os_g.total()) == 16.6);

  // P_os+g+p: (2 + 2 + K) Psi / N_d = 16 x 117,187,500 = 1,875,000,000 B: 1.9 GB.
  s.zero_stage = 3;
  const ModelStateBytes os_g_p = model_states(tensors, s);
  CHECK(os_g_p == ModelStateBytes{234'375'000, 234'375'000, 1'406'250'000});
  CHECK(os_g_p.total() == 1'875'000'000);
  CHECK(paper_gb(os_g_p.total()) == 1.9);
}

TEST_CASE("model states: optimizer bytes per element are 4 per fp32 copy, plus a master copy below 4-byte parameters",
          "[memory]") {
  const auto k = [](int element_bytes, Optimizer o) { return optimizer_bytes_per_element({element_bytes, o, 0, 1}); };
  CHECK(k(2, Optimizer::adam) == 12);     // master + momentum + variance
  CHECK(k(2, Optimizer::momentum) == 8);  // master + momentum
  CHECK(k(2, Optimizer::sgd) == 4);       // master only
  CHECK(k(4, Optimizer::adam) == 8);      // fp32 training: the parameters are the master copy
  CHECK(k(4, Optimizer::momentum) == 4);
  CHECK(k(4, Optimizer::sgd) == 0);
  CHECK(k(1, Optimizer::adam) == 12);
  CHECK(k(8, Optimizer::adam) == 8);
}

TEST_CASE("model states: a remainder goes to the lowest ranks; rank 0 holds the most", "[memory]") {
  // 10 elements over 4 ranks: 2 each and the remainder 2 on ranks 0 and 1: 3, 3, 2, 2.
  CHECK(shard_elements(10, 4, 0) == 3);
  CHECK(shard_elements(10, 4, 1) == 3);
  CHECK(shard_elements(10, 4, 2) == 2);
  CHECK(shard_elements(10, 4, 3) == 2);
  CHECK(shard_elements(3, 4, 3) == 0);  // fewer elements than ranks: the last rank holds none

  const std::int64_t one[] = {10};
  // Stage 3, bf16 Adam: rank 0's 3 elements x (2 + 2 + 12) = 48 bytes; stage 2 keeps
  // the 10 parameters whole (20 B), stage 1 the gradients too.
  CHECK(model_states(one, {2, Optimizer::adam, 3, 4}) == ModelStateBytes{6, 6, 36});
  CHECK(model_states(one, {2, Optimizer::adam, 2, 4}) == ModelStateBytes{20, 6, 36});
  CHECK(model_states(one, {2, Optimizer::adam, 1, 4}) == ModelStateBytes{20, 20, 36});
  CHECK(model_states(one, {2, Optimizer::adam, 0, 4}) == ModelStateBytes{20, 20, 120});

  // Each tensor is sharded on its own: 10 and 5 over 4 ranks put 3 + 2 = 5
  // elements on rank 0 (80 B at 16 B each), where one flat buffer of 15 puts 4 there (64 B).
  const std::int64_t two[] = {10, 5};
  const std::int64_t flat[] = {15};
  CHECK(model_states(two, {2, Optimizer::adam, 3, 4}).total() == 80);
  CHECK(model_states(flat, {2, Optimizer::adam, 3, 4}).total() == 64);
}

TEST_CASE("model states: one data-parallel rank has nothing to shard: every stage is the baseline", "[memory]") {
  const std::int64_t tensors[] = {1000, 24};
  const ModelStateBytes baseline = model_states(tensors, {4, Optimizer::momentum, 0, 1});
  CHECK(baseline == ModelStateBytes{4096, 4096, 4096});  // 1024 elements x 4 B, momentum in fp32
  for (int stage = 1; stage <= kMaxZeroStage; ++stage) {
    CHECK(model_states(tensors, {4, Optimizer::momentum, stage, 1}) == baseline);
  }
}

TEST_CASE("model states of a trace: every layer's tensors at its element size, over all GPUs", "[memory]") {
  // Layer a: fp32 tensors of 6 and 3 elements; layer b: one bf16 tensor of 5.
  // ZeRO-2 with SGD over 2 GPUs:
  //   a: parameters 9 x 4 = 36; gradients (3 + 2) x 4 = 20; no state at 4 bytes: 0.
  //   b: parameters 5 x 2 = 10; gradients 3 x 2 = 6; the fp32 master copy 3 x 4 = 12.
  Trace trace;
  Layer a;
  a.params = {6, 3};
  a.dtype_bytes = 4;
  Layer b;
  b.params = {5};
  b.dtype_bytes = 2;
  trace.layers = {a, b};
  CHECK(trace_model_states(trace, Optimizer::sgd, 2, 2) == ModelStateBytes{46, 26, 12});
}

TEST_CASE("model states: bad settings are refused with what was expected", "[memory]") {
  const std::int64_t tensors[] = {10};
  CHECK_THROWS_WITH(model_states(tensors, {2, Optimizer::adam, 4, 2}), Catch::Contains("ZeRO stage in 0..3, got 4"));
  CHECK_THROWS_WITH(model_states(tensors, {2, Optimizer::adam, -1, 2}), Catch::Contains("got -1"));
  CHECK_THROWS_WITH(model_states(tensors, {0, Optimizer::adam, 0, 2}), Catch::Contains("1..8 bytes"));
  CHECK_THROWS_WITH(model_states(tensors, {2, Optimizer::adam, 0, 0}), Catch::Contains("at least 1 data-parallel rank"));
  const std::int64_t negative[] = {-1};
  CHECK_THROWS_AS(model_states(negative, {2, Optimizer::adam, 0, 1}), ConfigError);
  CHECK(parse_optimizer("momentum") == Optimizer::momentum);
  CHECK(optimizer_name(Optimizer::adam) == "adam");
  CHECK_THROWS_WITH(parse_optimizer("adamw"), Catch::Contains("adam"));
}
