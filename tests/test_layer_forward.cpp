// Per-layer forward times (trace format version 2), the next forward in the
// iteration window, and the priority schedules it makes worth having.

#include <catch2/catch.hpp>

#include <numeric>
#include <random>

#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/iteration.hpp"
#include "mgsim/variability.hpp"
#include "test_support.hpp"
#include "test_sweep_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {


/// The iteration time of the model before the next forward was in the
/// window: forward, then backward, each message FIFO in plan order as soon
/// as its tensors are ready, the iteration over when compute and messages
/// are. Written from docs/domain.md section 1, independently of replay.cpp.
SimTime forward_first_iteration(const Workload& workload, const Plan& plan) {
  const ComputeProfile& p = workload.profile;
  const TensorLayout& layout = workload.layout;
  std::vector<SimTime> ready(static_cast<std::size_t>(layout.tensor_count()));
  SimTime clock = p.forward;
  for (int u = 0; u < layout.layer_count(); ++u) {
    const int l = layout.layer[static_cast<std::size_t>(layout.layer_begin[u])];
    for (int t = layout.layer_begin[u]; t < layout.layer_begin[u + 1]; ++t) {
      ready[static_cast<std::size_t>(t)] = clock + p.ready_offset(l, layout.index_in_layer[static_cast<std::size_t>(t)]);
    }
    clock += p.backward[static_cast<std::size_t>(l)];
  }
  SimTime channel = 0;
  for (const Message& m : plan) {
    const SimTime r = *std::max_element(ready.begin() + m.begin, ready.begin() + m.end);
    channel = std::max({channel, r, m.not_before + p.forward}) + m.duration;
  }
  return std::max(clock, channel);
}

}  // namespace

TEST_CASE("a forward pass is spread over layers in proportion to their backward, summing exactly") {
  // 2 s over backward 3:1:2 (s): 1, 1/3, 2/3 s; rounding carries so the sum stays 2 s.
  CHECK(spread_forward(2 * kSecond, {3 * kSecond, kSecond, 2 * kSecond}) == std::vector<SimTime>{kSecond, 333'333'333, 666'666'667});
  // Every backward 0: evenly.
  CHECK(spread_forward(10, {0, 0, 0}) == std::vector<SimTime>{3, 4, 3});
  CHECK(spread_forward(0, {5, 7}) == std::vector<SimTime>{0, 0});
}

TEST_CASE("a version-2 trace keeps each layer's forward; version 1 spreads its forward_time_s") {
  const Trace v2 = with_forward(make_trace({3, 1, 2}, {1, 2, 4}), {0.5, 0.25, 2.0});
  const ComputeProfile profile = make_profile(v2);
  CHECK(profile.forward_layers == std::vector<SimTime>{kSecond / 2, kSecond / 4, 2 * kSecond});
  CHECK(profile.forward == 2 * kSecond + kSecond * 3 / 4);

  SweepTempDir dir;
  const auto file = dir.write("v2.json", format_trace_json(v2, {{"kind", "synthetic"}}));
  CHECK(read_input_file(file, InputKind::trace).find("\"version\": 2") != std::string::npos);
  const Trace loaded = load_trace(file);
  CHECK(loaded.forward_time_s == 2.75);
  CHECK(make_profile(loaded).forward_layers == profile.forward_layers);

  const Trace v1 = make_trace({3, 1, 2}, {1, 2, 4}, 2.0);
  const auto v1_file = dir.write("v1.json", format_trace_json(v1, {{"kind", "synthetic"}}));
  CHECK(read_input_file(v1_file, InputKind::trace).find("\"version\": 1") != std::string::npos);
  CHECK(make_profile(load_trace(v1_file)).forward_layers == std::vector<SimTime>{kSecond, 333'333'333, 666'666'667});
}

TEST_CASE("a trace mixing the two forms of forward time is refused, naming the layer and key") {
  SweepTempDir dir;
  const std::string head = R"({"format": "mgsim-trace", "provenance": {"kind": "synthetic"}, "model": "m",
    "batch_size": 1, )";
  const auto v1 = dir.write("a.json", head + R"("version": 1, "forward_time_s": 1,
    "layers": [{"name": "a", "params": [1], "dtype_bytes": 4, "backward_time_s": 1, "forward_time_s": 1}]})");
  CHECK_THROWS_WITH(load_trace(v1), Catch::Contains("layers[0].forward_time_s") &&
                                        Catch::Contains("needs \"version\": 2"));
  const auto missing = dir.write("b.json", head + R"("version": 2,
    "layers": [{"name": "a", "params": [1], "dtype_bytes": 4, "backward_time_s": 1, "forward_time_s": 1},
               {"name": "b", "params": [1], "dtype_bytes": 4, "backward_time_s": 1}]})");
  CHECK_THROWS_WITH(load_trace(missing), Catch::Contains("layers[1]") && Catch::Contains("forward_time_s"));
  const auto both = dir.write("c.json", head + R"("version": 2, "forward_time_s": 1,
    "layers": [{"name": "a", "params": [1], "dtype_bytes": 4, "backward_time_s": 1, "forward_time_s": 1}]})");
  CHECK_THROWS_WITH(load_trace(both), Catch::Contains("forward_time_s") && Catch::Contains("version 2"));
}

TEST_CASE("with the next forward in the window, backward-order schedules time iterations as before") {
  // Every message of a backward-order plan ends by the last one, which
  // carries the first layer: the forward starts after it, as it did at the
  // start of an iteration that ended with the last message.
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> time(1e-4, 5e-3);
  std::uniform_int_distribution<std::int64_t> size(1, 4'000'000);
  const LinearCost cost(2e-5, 1e-9);
  for (int run = 0; run < 40; ++run) {
    std::vector<double> backward;
    std::vector<std::int64_t> bytes;
    for (int l = 0; l < 1 + run % 9; ++l) {
      backward.push_back(time(random));
      bytes.push_back(size(random));
    }
    std::vector<double> forward(backward.size());
    for (double& f : forward) f = time(random);
    const Trace trace = run % 2 == 0 ? with_forward(make_trace(backward, bytes), forward)
                                     : make_trace(backward, bytes, time(random));
    const Setup setup(trace, cost, 16);
    for (const char* name : {"wfbp", "single", "mgwfbp", "optimal", "ddp", "horovod"}) {
      const Plan plan = make_schedule(name, {})->plan(setup.problem);
      const Replay engine = replay(setup.classes, setup.workload.layout, plan);
      CHECK(engine.iteration_end == forward_first_iteration(setup.workload, plan));
      CHECK(evaluate_closed_form(setup.problem, plan).iteration_end == engine.iteration_end);
    }
  }
}

TEST_CASE("P3 and ByteScheduler send the next forward's first layer first, by hand") {
  // Forward-order layers l1, l2, l3: backward 1 s each, forward 1 s each,
  // 4, 2, 4 one-byte elements; T(M) = M s. Slices of 2 elements take 2 s.
  // Backward from 0: l3 ready at 1, l2 at 2, l1 at 3.
  const LinearCost cost(0, 1);
  const Setup setup(with_forward(make_trace({1, 1, 1}, {4, 2, 4}), {1, 1, 1}), cost, 2);
  const auto timed = [&](const char* name, const ParamValues& params) {
    const Plan plan = make_schedule(name, params)->plan(setup.problem);
    const Replay engine = replay(setup.classes, setup.workload.layout, plan);
    CHECK(evaluate_closed_form(setup.problem, plan).iteration_end == engine.iteration_end);
    CHECK(evaluate_closed_form(setup.problem, plan).message_end == engine.message_end);
    return engine;
  };
  SECTION("WFBP: l3 1..5, l2 5..7, l1 7..11, then the forward 11..14") {
    CHECK(timed("wfbp", {}).iteration_end == 14 * kSecond);
  }
  SECTION("P3 picks when the channel is free: l3a 1..3, l1a 3..5, l1b 5..7, l2 7..9, l3b 9..11") {
    // Forward: l1 after 7 (7..8), l2 after 9 (9..10), l3 after 11 (11..12).
    const Replay r = timed("p3", {{"slice_params", 2}});
    CHECK(r.message_end == std::vector<SimTime>{3 * kSecond, 5 * kSecond, 7 * kSecond, 9 * kSecond, 11 * kSecond});
    CHECK(r.compute[0].forward_start == std::vector<SimTime>{7 * kSecond, 9 * kSecond, 11 * kSecond});
    CHECK(r.iteration_end == 12 * kSecond);
  }
  SECTION("ByteScheduler with 4 elements of credit commits l3b before l1 is ready") {
    // l3a 1..3 and l3b 3..5 are chosen at 1; l1a is chosen when l3a ends (3):
    // 5..7, l1b 7..9, l2 9..11. Forward: l1 9..10, l2 11..12, l3 12..13.
    const Replay r = timed("bytescheduler", {{"partition_params", 2}, {"credit_params", 4}});
    CHECK(r.message_end == std::vector<SimTime>{3 * kSecond, 5 * kSecond, 7 * kSecond, 9 * kSecond, 11 * kSecond});
    CHECK(r.compute[0].forward_start == std::vector<SimTime>{9 * kSecond, 11 * kSecond, 12 * kSecond});
    CHECK(r.iteration_end == 13 * kSecond);
  }
  SECTION("ByteScheduler without credit is P3 with its partition") {
    CHECK(timed("bytescheduler", {{"partition_params", 2}, {"credit_params", 0}}).iteration_end == 12 * kSecond);
  }
}

TEST_CASE("the next forward, slowed by the messages it overlaps, counts as compute, by hand") {
  // The P3 case above with backward 0.25, 0.5 and 1 s (forward order) and
  // compute at half rate while a message runs (compute_slowdown 1). l3
  // 0..1 (channel idle), l3a 1..3; l2 1..2 and l1 2..2.5 at half rate. At 3
  // l1 is ready: l1a 3..5, l1b 5..7, l2 7..9, l3b 9..11. Forward: l1 7..9
  // beside l2's message, l2 9..11 beside l3b, l3 11..12 alone. Compute:
  // 2.5 s of backward and 2 + 2 + 1 s of forward; 4.5 s of the 12 exposed.
  const LinearCost cost(0, 1);
  const Setup setup(with_forward(make_trace({0.25, 0.5, 1}, {4, 2, 4}), {1, 1, 1}), cost, 2);
  const auto p3 = make_schedule("p3", {{"slice_params", 2}});
  const Replay r = replay(setup.classes, setup.workload.layout, p3->plan(setup.problem), Overlap{1.0, 0.0});
  CHECK(r.message_end == std::vector<SimTime>{3 * kSecond, 5 * kSecond, 7 * kSecond, 9 * kSecond, 11 * kSecond});
  CHECK(r.compute[0].forward_start == std::vector<SimTime>{7 * kSecond, 9 * kSecond, 11 * kSecond});
  CHECK(r.compute[0].forward_end == std::vector<SimTime>{9 * kSecond, 11 * kSecond, 12 * kSecond});
  CHECK(r.compute_end == 2 * kSecond + kSecond / 2);
  CHECK(r.forward == 5 * kSecond);
  CHECK(r.iteration_end == 12 * kSecond);
  // Many iterations, the ranks in one engine stream each or swept outside
  // the engine (RankSweep: variability without delays), every window alike.
  Variability none;
  none.law = "exponential";
  none.params = {{"mean_s", 0.0}};
  const Cluster pair = Cluster::homogeneous(2);
  for (const char* ranks : {"streams", "folded"}) {
    INFO(ranks);
    BuilderParams params;
    params.choices["ranks"] = ranks;
    const auto builder = find_builder("data-parallel")
                             .make({setup.workload, pair, cost, p3.get(), Overlap{1.0, 0.0}, none}, params);
    const SimulationResult result = simulate(*builder, none.seed, 3);
    for (const IterationTiming& it : result.iterations) {
      CHECK(it.duration() == 12 * kSecond);
      CHECK(it.compute_end - it.start == 7 * kSecond + kSecond / 2);
    }
  }
}

TEST_CASE("a partition that would cut the gradients into too many chunks is refused") {
  const LinearCost cost(0, 1);
  const Setup setup(make_trace({1}, {std::int64_t{1} << 30}), cost, 2);
  CHECK_THROWS_AS(make_schedule("p3", {{"slice_params", 1}})->plan(setup.problem), ConfigError);
  CHECK_THROWS_WITH(make_schedule("p3", {{"slice_params", 0}}), Catch::Contains("slice_params"));
}
