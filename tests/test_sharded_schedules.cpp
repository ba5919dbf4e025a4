// The sharded schedules (DeAR, ZeRO-1/2/3, FSDP): reduce-scatters and
// parameter all-gathers, timed by hand on three layers, engine against the
// closed form on random traces, and the plan checks they rely on.

#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>

#include "mgsim/error.hpp"
#include "mgsim/schedule.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {


/// Ring on 2 GPUs with alpha = gamma = 0 and 1 s per byte, written out:
/// AR(M) = M s and AG(m per GPU) = m s, so a reduce-scatter of M takes
/// AR(M) - AG(M/2) = M/2 s and a parameter all-gather of M takes M/2 s.
class HalfCost : public Collective {
 public:
  double allreduce_seconds(double bytes, int) const override { return bytes; }
  double allgather_seconds(double bytes_per_rank, int) const override { return bytes_per_rank; }
};

/// Forward-order layers l1, l2, l3 of 4, 2, 4 one-byte elements, backward
/// 1 s each, forward 1 s each: backward from 0, l3 ready at 1, l2 at 2, l1 at 3.
Trace three_layers() {
  Trace trace = make_trace({1, 1, 1}, {4, 2, 4});
  trace.forward_time_s = 0;
  for (Layer& layer : trace.layers) trace.forward_time_s += layer.forward_time_s = 1;
  return trace;
}

struct Timed {
  Plan plan;
  Replay replay;
};

/// The schedule's plan on three_layers(), timed by the engine; the closed
/// form must agree to the nanosecond.
Timed timed(const char* name, const ParamValues& params = {}) {
  const HalfCost cost;
  const Setup setup(three_layers(), cost, 2);
  Timed result{make_schedule(name, params)->plan(setup.problem), {}};
  result.replay = replay(setup.classes, setup.workload.layout, result.plan);
  const Replay closed = evaluate_closed_form(setup.problem, result.plan);
  CHECK(closed.message_start == result.replay.message_start);
  CHECK(closed.message_end == result.replay.message_end);
  CHECK(closed.compute_end == result.replay.compute_end);
  CHECK(closed.parameter_wait == result.replay.parameter_wait);
  CHECK(closed.iteration_end == result.replay.iteration_end);
  return result;
}

std::vector<SimTime> seconds(std::initializer_list<SimTime> values) {
  std::vector<SimTime> out;
  for (const SimTime v : values) out.push_back(v * kSecond);
  return out;
}

/// `threshold` bytes as DeAR's threshold_mb.
double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

}  // namespace

TEST_CASE("a reduce-scatter costs the all-reduce less the all-gather of the shares") {
  // Ring, P = 4, alpha 1 us, beta 1 ns/B, gamma 0.5 ns/B, M = 4000 B:
  // AR = 6 us + 2 (3/4) 4000 ns + (3/4) 4000 (0.5) ns = 6 + 6 + 1.5 = 13.5 us;
  // AG of 1000 B per GPU = 3 (1 us + 1000 ns) = 6 us; RS = 7.5 us
  // = (P-1) alpha + (3/4) M (beta + gamma) = 3 + 3 + 1.5.
  CollectiveSettings settings;
  settings.network.inter = settings.network.intra = Link{1e-6, 1e-9, 0.5e-9};
  const auto ring = find_collective("ring").make(settings);
  const CommCost cost(*ring, 4);
  CHECK(cost.reduce_scatter(4000) == 7500);
  CHECK(cost.param_allgather(4000) == 6000);
  CHECK(cost.reduce_scatter(4000) + cost.param_allgather(4000) == cost(4000));
  // Hierarchical, 2 nodes of 2, intra as above, inter alpha 10 us, beta 2 ns/B, gamma 0:
  // inside 1 us + (1/2) 4000 (1.5) ns = 4 us; across 10 us + (1/2)(4000/2)(2) ns = 12 us.
  settings.gpus_per_node = 2;
  settings.network.inter = Link{10e-6, 2e-9, 0.0};
  CHECK(CommCost(*find_collective("hierarchical").make(settings), 4).reduce_scatter(4000) == 16000);
}

TEST_CASE("a model without an all-gather cannot price a reduce-scatter or a parameter all-gather") {
  const LinearCost cost(0, 1);
  const Setup setup(three_layers(), cost, 2);
  for (const char* name : {"dear", "zero1", "zero2", "zero3", "fsdp"}) {
    CHECK_THROWS_WITH(make_schedule(name, {})->plan(setup.problem), Catch::Contains("no all-gather model"));
  }
  // Measured points without an all-gather curve: the same refusal, naming the curve it needs.
  CollectiveSettings measured;
  measured.curve = {{2, 1, 1e-6}, {2, 1000, 1e-5}};
  measured.curve_source = "ar.json";
  CHECK_THROWS_WITH(CommCost(*find_collective("measured").make(measured), 2).reduce_scatter(100),
                    Catch::Contains("all-gather curve"));
}

TEST_CASE("DeAR reduce-scatters during backward and gathers in forward order, by hand") {
  SECTION("one group per layer: RS l3 1..3, l2 3..4, l1 4..6; AG l1 6..8, l2 8..9, l3 9..11") {
    // Forward: l1 after its AG 8..9, l2 9..10, l3 after its AG 11..12.
    // WFBP on the same trace ends at 14 (test_layer_forward.cpp).
    const Timed r = timed("dear", {{"threshold_mb", mib(1)}});
    CHECK(r.replay.message_end == seconds({3, 4, 6, 8, 9, 11}));
    CHECK(r.replay.compute[0].forward_start == seconds({8, 9, 11}));
    CHECK(r.replay.iteration_end == 12 * kSecond);
    CHECK(r.plan[0].kind == CollectiveKind::reduce_scatter);
    CHECK(r.plan[3].kind == CollectiveKind::param_allgather);
    CHECK(r.plan[3].sent_bytes == 2);  // 4 bytes of l1 over 2 GPUs
  }
  SECTION("a threshold of 7 bytes fuses l1 and l2 (4 + 2 < 7), not l3 (6 + 4 >= 7)") {
    // RS l3 1..3, RS l1+l2 (6 B: 3 s) from 3 to 6; AG l1+l2 6..9, AG l3 9..11.
    // Forward: l1 9..10, l2 10..11, l3 11..12.
    const Timed r = timed("dear", {{"threshold_mb", mib(7)}});
    CHECK(ranges(r.plan) == std::vector<std::pair<int, int>>{{0, 1}, {1, 3}, {1, 3}, {0, 1}});
    CHECK(r.replay.message_end == seconds({3, 6, 9, 11}));
    CHECK(r.replay.iteration_end == 12 * kSecond);
  }
  SECTION("the default 25 MiB fuses everything: RS 3..8, AG 8..13, forward 13..16") {
    CHECK(timed("dear").replay.iteration_end == 16 * kSecond);
  }
}

TEST_CASE("ZeRO-1 and ZeRO-2 reduce-scatter buckets, then gather every parameter before the forward, by hand") {
  SECTION("zero2, buckets of 4 elements: l3 | l2 | l1 (2 + 4 > 4)") {
    // RS l3 1..3, l2 3..4, l1 4..6; AG of all 10 B 6..11; forward 11..14.
    const Timed r = timed("zero2", {{"reduce_bucket_size", 4}});
    CHECK(ranges(r.plan) == std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}, {0, 3}});
    CHECK(r.replay.message_end == seconds({3, 4, 6, 11}));
    CHECK(r.replay.compute[0].forward_start == seconds({11, 12, 13}));
    CHECK(r.replay.iteration_end == 14 * kSecond);
  }
  SECTION("zero2, buckets of 6 elements: l3 + l2 | l1") {
    // RS l3+l2 (6 B, 3 s) from 2 to 5, RS l1 5..7, AG 7..12, forward 12..15.
    const Timed r = timed("zero2", {{"reduce_bucket_size", 6}});
    CHECK(r.replay.message_end == seconds({5, 7, 12}));
    CHECK(r.replay.iteration_end == 15 * kSecond);
  }
  SECTION("zero1 waits for the whole backward: RS l3 3..5, l2 5..6, l1 6..8, AG 8..13, forward 13..16") {
    const Timed r = timed("zero1", {{"reduce_bucket_size", 4}});
    CHECK(r.replay.message_start == seconds({3, 5, 6, 8}));
    CHECK(r.replay.iteration_end == 16 * kSecond);
  }
  SECTION("the default bucket (5e8 elements) holds every gradient: RS 3..8, AG 8..13, forward 13..16") {
    CHECK(timed("zero2").replay.iteration_end == 16 * kSecond);
  }
}

TEST_CASE("FSDP gathers each layer before its backward and its forward, by hand") {
  // Channel: AG l2 (1 s, for backward), RS l3 (2), AG l1 (2), RS l2 (1),
  // RS l1 (2), then AG l1 (2), l2 (1), l3 (2) for the forward.
  // l3's backward 0..1 keeps the parameters its forward gathered; AG l2 0..1;
  // RS l3 1..3; l2's backward 1..2; AG l1 3..5; RS l2 5..6; l1's backward
  // waits for AG l1: 5..6; RS l1 6..8; AG l1 8..10, l2 10..11, l3 11..13.
  // Forward: l1 10..11, l2 11..12, l3 after its AG 13..14.
  const Timed r = timed("fsdp");
  REQUIRE(r.plan.size() == 8);
  CHECK(r.plan[0].before_backward);
  CHECK(r.plan[2].before_backward);
  CHECK_FALSE(r.plan[5].before_backward);
  CHECK(r.replay.message_start == seconds({0, 1, 3, 5, 6, 8, 10, 11}));
  CHECK(r.replay.message_end == seconds({1, 3, 5, 6, 8, 10, 11, 13}));
  CHECK(r.replay.compute[0].layer_start == seconds({0, 1, 5}));
  CHECK(r.replay.compute_end == 6 * kSecond);
  CHECK(r.replay.parameter_wait == 3 * kSecond);  // l1's backward from 5, not 2: communication, not compute
  CHECK(r.replay.compute[0].forward_start == seconds({10, 11, 13}));
  CHECK(r.replay.iteration_end == 14 * kSecond);
  // zero3 with buckets of one layer's elements plans the same.
  CHECK(ranges(timed("zero3", {{"reduce_bucket_size", 4}}).plan) == ranges(r.plan));
}

TEST_CASE("ZeRO-3 with one bucket gathers ahead and reduce-scatters once, by hand") {
  // Channel: AG l2 0..1, AG l1 1..3 (no bucket closes before l1), RS of all
  // 10 B (5 s) once l1's backward, which waits for AG l1 (3..4), ends: 4..9;
  // AG l1 9..11, l2 11..12, l3 12..14. Forward: l1 11..12, l2 12..13, l3 14..15.
  const Timed r = timed("zero3");
  CHECK(r.replay.message_end == seconds({1, 3, 9, 11, 12, 14}));
  CHECK(r.replay.compute[0].layer_start == seconds({0, 1, 3}));
  CHECK(r.replay.parameter_wait == kSecond);
  CHECK(r.replay.iteration_end == 15 * kSecond);
}

TEST_CASE("the registry marks the sharded schedules and their ZeRO stage") {
  CHECK(find_schedule("dear").sharded);
  CHECK(find_schedule("dear").zero_stage == 0);
  CHECK(find_schedule("zero1").zero_stage == 1);
  CHECK(find_schedule("zero2").zero_stage == 2);
  CHECK(find_schedule("zero3").zero_stage == 3);
  CHECK(find_schedule("fsdp").zero_stage == 3);
  CHECK_FALSE(find_schedule("wfbp").sharded);
  CHECK(find_schedule("ddp").zero_stage == 0);
}

TEST_CASE("sharded schedules: the engine reproduces the closed form to the nanosecond on random traces") {
  std::mt19937_64 rng(24);
  CollectiveSettings settings;
  settings.network.inter = settings.network.intra = Link{20e-6, 1e-9, 1e-10};
  const auto ring = find_collective("ring").make(settings);
  const std::vector<std::pair<const char*, ParamValues>> schedules{
      {"dear", {}},  {"dear", {{"threshold_mb", 1}}},   {"zero1", {{"reduce_bucket_size", 1e6}}},
      {"zero2", {}}, {"zero2", {{"reduce_bucket_size", 1e6}}}, {"zero3", {}},
      {"zero3", {{"reduce_bucket_size", 1e6}}}, {"fsdp", {}}};
  for (int trial = 0; trial < 40; ++trial) {
    const Setup setup(random_trace(rng, 20, trial % 2 == 1), *ring, 2 << (trial % 6));
    for (const auto& [name, params] : schedules) {
      INFO(name << " trial " << trial);
      check_engine_matches_closed_form(setup, plan_with(name, setup.problem, params));
    }
  }
}

TEST_CASE("plans that would reduce twice, gather too early or wait for themselves are refused") {
  const HalfCost cost;
  const Setup setup(three_layers(), cost, 2);
  const CommProblem& p = setup.problem;
  const auto refused = [&](const Plan& plan, const char* text) {
    CHECK_THROWS_WITH(replay(setup.classes, setup.workload.layout, plan), Catch::Contains(text));
    CHECK_THROWS_WITH(evaluate_closed_form(p, plan), Catch::Contains(text));
  };
  const Message rs = make_reduce_scatter(p, 0, 3);
  const Message gather = make_param_allgather(p, 0, 3);
  SECTION("reduce-scattered but never gathered") { refused({rs}, "gather every reduce-scattered byte once"); }
  SECTION("gathered twice") { refused({rs, gather, gather}, "gather every reduce-scattered byte once"); }
  SECTION("gathered before its gradients are reduced") {
    refused({gather, rs}, "must follow the reduction of its tensors' gradients");
  }
  SECTION("reduced twice") { refused({rs, gather, make_message(p, 0, 1)}, "cover every tensor's bytes once"); }
  SECTION("a backward's gather after a gradient message of its layer") {
    // Layer l2 (backward index 1, tensor 1) would wait for the reduce-scatter of l2 itself.
    refused({make_reduce_scatter(p, 0, 2), make_param_allgather(p, 1, 2, true), make_reduce_scatter(p, 2, 3), gather},
            "before a backward must come before every gradient message");
  }
  SECTION("a gather before the first backward layer, which keeps the last forward's parameters") {
    refused({make_param_allgather(p, 0, 1, true), rs, gather}, "no all-gather may gate it");
  }
  SECTION("the same plan with the gather first is valid") {
    const Plan plan{make_param_allgather(p, 1, 2, true), make_reduce_scatter(p, 0, 3), gather};
    CHECK(replay(setup.classes, setup.workload.layout, plan).iteration_end ==
          evaluate_closed_form(p, plan).iteration_end);
  }
}
