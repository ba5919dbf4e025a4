// The discrete-event engine on small DAGs checked by hand, and the replay of
// whole iterations against the closed-form recurrences.

#include <catch2/catch.hpp>

#include "mgsim/engine.hpp"
#include "mgsim/schedule.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

TEST_CASE("an activity starts when its last dependency finishes and its earliest start has come") {
  Engine engine;
  const ActivityId a = engine.add(5);
  const ActivityId b = engine.add(3);
  const ActivityId c = engine.add(4);      // after a and b: starts at max(5, 3)
  const ActivityId d = engine.add(1, 20);  // after c, but not before 20
  engine.depend(c, a);
  engine.depend(c, b);
  engine.depend(d, c);
  CHECK(engine.run() == 4);
  CHECK(engine.start(c) == 5);
  CHECK(engine.finish(c) == 9);
  CHECK(engine.start(d) == 20);
  CHECK(engine.finish(d) == 21);
}

TEST_CASE("zero-duration activities and equal times resolve without losing events") {
  Engine engine;
  ActivityId previous = engine.add(0);
  for (int i = 0; i < 100; ++i) {
    const ActivityId next = engine.add(i % 2);
    engine.depend(next, previous);
    previous = next;
  }
  CHECK(engine.run() == 101);
  CHECK(engine.finish(previous) == 50);  // fifty activities of 1 ns in the chain
}

TEST_CASE("an engine runs once") {
  Engine engine;
  engine.add(1);
  engine.run();
  CHECK_THROWS_AS(engine.run(), std::logic_error);
}

TEST_CASE("a dependency cycle is reported, not hung on") {
  Engine engine;
  const ActivityId a = engine.add(1);
  const ActivityId b = engine.add(1);
  engine.depend(a, b);
  engine.depend(b, a);
  CHECK_THROWS_AS(engine.run(), std::logic_error);
}

TEST_CASE("engine reproduces the closed form to the nanosecond for every schedule") {
  std::mt19937_64 rng(42);
  const Link link{45.25e-6, 1.24e-10, 2.5e-9};
  const CollectiveSettings settings{{link, {5e-6, 2e-11, 1e-11}}, 4, {}, "", {}};
  for (std::string_view model : {"ring", "tree", "hierarchical"}) {
    const auto collective = find_collective(model).make(settings);
    for (int trial = 0; trial < 30; ++trial) {
      const bool offsets = trial % 2 == 1;  // half the traces have per-tensor ready times
      const Setup setup(random_trace(rng, 60, offsets), *collective, 4 << (trial % 8));
      for (const ScheduleInfo& info : schedule_registry()) {
        INFO(model << " trial " << trial << " schedule " << info.name);
        check_engine_matches_closed_form(setup, plan_with(info.name, setup.problem));
      }
    }
  }
}

TEST_CASE("simulate() by the closed form reports what the engine's replay gives, to the nanosecond") {
  // simulate() times a one-class run without interference by the closed
  // form; the engine's replay of the same plan, measured, is the oracle.
  std::mt19937_64 rng(7);
  const Link link{45.25e-6, 1.24e-10, 2.5e-9};
  const auto collective = find_collective("ring").make({{link, link}, 1, {}, ""});
  for (int trial = 0; trial < 40; ++trial) {
    const Workload workload(random_trace(rng, 80, trial % 2 == 1));
    const int gpus = 2 << (trial % 10);
    // Every rank at speed 1, or every rank at 0.7: one speed class either way.
    const Cluster cluster = trial % 3 == 0 ? Cluster({0.7}, std::vector<int>(static_cast<std::size_t>(gpus), 0))
                                           : Cluster::homogeneous(gpus);
    for (const ScheduleInfo& info : schedule_registry()) {
      const auto schedule = make_schedule(info.name, {});
      const RunMetrics fast = simulate(workload, *collective, *schedule, cluster);
      const RunMetrics engine = measure(workload, cluster, replay_iteration(workload, *collective, *schedule, cluster));
      INFO("trial " << trial << " schedule " << info.name);
      CHECK(fast.iteration == engine.iteration);
      CHECK(fast.compute == engine.compute);
      CHECK(fast.comm_busy == engine.comm_busy);
      CHECK(fast.messages == engine.messages);
    }
  }
}

TEST_CASE("WFBP replay follows the MG-WFBP recurrences on a hand-made trace") {
  // T(M) = 1 + M; forward 2 s; forward-order t_b = [3, 1, 2], bytes [1, 2, 4].
  // The window starts with the backward: layer 3 ready at 2, sent 2..7;
  // layer 2 ready at 3, sent 7..10; layer 1 ready at 6, sent 10..12.
  // The forward, spread in proportion to t_b (1, 1/3, 2/3 s), runs layer 1
  // after its message (12..13), then layers 2 and 3 (their messages ended
  // earlier): the window ends at 14 = forward + backward + 6 s exposed.
  const LinearCost cost(1, 1);
  const Setup setup(make_trace({3, 1, 2}, {1, 2, 4}, 2), cost, 2);
  const Replay timing = replay(setup.classes, setup.workload.layout, make_schedule("wfbp", {})->plan(setup.problem));
  constexpr SimTime s = 1'000'000'000;
  CHECK(timing.message_start == std::vector<SimTime>{2 * s, 7 * s, 10 * s});
  CHECK(timing.message_end == std::vector<SimTime>{7 * s, 10 * s, 12 * s});
  CHECK(timing.compute_end == 6 * s);
  CHECK(timing.forward == 2 * s);
  CHECK(timing.iteration_end == 14 * s);
  // Compute spans, backward order: layer 3 0..2, layer 2 2..3, layer 1 3..6;
  // then the forward in forward order.
  REQUIRE(timing.compute.size() == 1);
  CHECK(timing.compute[0].layer_start == std::vector<SimTime>{0, 2 * s, 3 * s});
  CHECK(timing.compute[0].layer_end == std::vector<SimTime>{2 * s, 3 * s, 6 * s});
  const SimTime third = 333'333'333;  // 2 s x 1/6, rounded; the last layer takes the rest
  CHECK(timing.compute[0].forward_start == std::vector<SimTime>{12 * s, 13 * s, 13 * s + third});
  CHECK(timing.compute[0].forward_end == std::vector<SimTime>{13 * s, 13 * s + third, 14 * s});
}

TEST_CASE("a collective waits for the slowest GPU class") {
  // Class A (3 GPUs): forward 1, t_b = [1, 1]; class B (1 GPU) at speed 0.5:
  // forward 2, t_b = [2, 2]. Backward starts together at 0.
  // WFBP, T = 1 + M with 1-byte layers (T = 2): layer 2 is ready on A at 1, on B at 2:
  // sent 2..4; layer 1 ready on B at 4: sent 4..6. Backward ends at 4 (B); B's
  // forward (1 s per layer) runs after layer 1's message, 6..8.
  const LinearCost cost(1, 1);
  const Workload fast(make_trace({1, 1}, {1, 1}, 1));
  const Placement placement(fast, Cluster({1.0, 0.5}, {0, 0, 0, 1}), cost);
  const CommProblem& problem = placement.problem;
  const Plan plan = make_schedule("wfbp", {})->plan(problem);
  const Replay engine = replay(placement.classes, fast.layout, plan);
  constexpr SimTime s = 1'000'000'000;
  CHECK(engine.message_start == std::vector<SimTime>{2 * s, 4 * s});
  CHECK(engine.iteration_end == 8 * s);
  CHECK(engine.compute_end == 4 * s);
  CHECK(engine.forward == 2 * s);
  CHECK(evaluate_closed_form(problem, plan).message_end == engine.message_end);
}

TEST_CASE("metrics: speedup, efficiency, throughput and exposed communication") {
  // The MG-WFBP counterexample, optimal schedule: t_iter(1) = 11 s, t_iter(4) = 30 s,
  // batch 1: efficiency 11/30, speedup 4*11/30, throughput 4/30, exposed 30 - 11.
  const LinearCost cost(8, 1);
  const Workload workload(make_trace({5, 6, 0}, {2, 3, 9}));
  const RunMetrics m = simulate(workload, cost, *make_schedule("optimal", {}), 4);
  CHECK(m.iteration_time_s() == Approx(30.0));
  CHECK(m.scaling_efficiency() == Approx(11.0 / 30));
  CHECK(m.speedup() == Approx(44.0 / 30));
  CHECK(m.throughput() == Approx(4.0 / 30));
  CHECK(m.exposed_comm_s() == Approx(19.0));
  CHECK(m.messages == 2);
  CHECK(m.bytes == 14);
}

TEST_CASE("an on-finish callback adds activities that run in the same pass") {
  Engine engine;
  const ActivityId a = engine.add(10);
  const ActivityId d = engine.add(1);
  engine.depend(d, a);
  ActivityId b = -1, c = -1;
  engine.on_finish(a, [&](Engine& e, ActivityId finished) {
    b = e.add(5);
    e.depend(b, finished);  // already finished: no wait, b starts at 10
    c = e.add(7);
    e.depend(c, b);
    e.depend(d, c);  // d now also waits for c
  });
  // By hand: a 0-10, b 10-15, c 15-22, d after a and c: 22-23.
  CHECK(engine.run() == 4);
  CHECK(engine.start(b) == 10);
  CHECK(engine.finish(c) == 22);
  CHECK(engine.start(d) == 22);
  CHECK(engine.finish(d) == 23);
}

TEST_CASE("a dependency on an activity that has started is refused") {
  Engine engine;
  const ActivityId a = engine.add(10);
  const ActivityId b = engine.add(10);
  engine.on_finish(a, [&](Engine& e, ActivityId) { e.depend(b, a); });
  CHECK_THROWS_AS(engine.run(), std::logic_error);
}

TEST_CASE("clear() lets one engine run again from time 0") {
  Engine engine;
  // A chain first, so that the engine has edges to forget.
  for (ActivityId previous = engine.add(10); engine.size() < 40;) {
    const ActivityId next = engine.add(10);
    engine.depend(next, previous);
    previous = next;
  }
  engine.run();
  engine.clear();
  const ActivityId a = engine.add(3, 4);
  for (int i = 0; i < 20; ++i) engine.add(1);
  CHECK(engine.run() == 21);
  CHECK(engine.finish(a) == 7);
}

TEST_CASE("rewind() runs the same DAG again with new earliest starts and work") {
  Engine engine;
  const ActivityId a = engine.add(10);
  const ActivityId b = engine.add(5);
  engine.depend(b, a);
  engine.run();
  REQUIRE(engine.finish(b) == 15);
  engine.rewind();
  engine.set_not_before(a, 100);
  engine.set_work(b, 7);
  CHECK(engine.run() == 2);
  CHECK(engine.start(a) == 100);
  CHECK(engine.finish(b) == 117);  // 100 + 10 + 7
}
