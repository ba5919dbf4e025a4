// Non-blocking SGD and the gossip builders (D-PSGD, MATCHA), by hand.

#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "mgsim/app/run_set.hpp"
#include "mgsim/error.hpp"
#include "mgsim/evaluate.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/iteration.hpp"
#include "test_data.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {

// Backward 4 us and 2 us, 10 + 20 bytes, batch 1: compute c = 6 us at speed 1.
// The all-reduce T(M) = 1 us + 0.1 us/byte: 4 us for the 30 bytes.
// A point-to-point exchange on the link alpha 1 us, beta 0.1 us/byte: t = 4 us.
const Workload kWorkload(make_trace({4e-6, 2e-6}, {10, 20}));
const LinearCost kGossipCost(1e-6, 1e-7);
const Link kGossipLink{1e-6, 1e-7, 0.0};

/// A gossip run's settings for the engine oracle below.
struct GossipCase {
  double budget;
  bool barrier;
  std::uint64_t seed;
};

SimulationResult run(std::string_view name, const Cluster& cluster, const BuilderParams& params, int rounds,
                     std::uint64_t seed = 1, Network network = {kGossipLink, kGossipLink}, const Variability& variability = {}) {
  const BuildContext context{kWorkload, cluster, kGossipCost, nullptr, {}, variability, network};
  const auto builder = find_builder(name).make(context, params);
  return simulate(*builder, seed, rounds);
}

}  // namespace

TEST_CASE("Non-blocking SGD on identical ranks without noise processes all m mini-batches") {
  // Every rank ends its m mini-batches at c = 6 us together: nothing is cut,
  // nobody waits; the round is c + the 4 us all-reduce.
  for (int m : {1, 2, 3}) {
    for (const ChoiceValues& trigger : {ChoiceValues{}, ChoiceValues{{"trigger", "kth"}}, ChoiceValues{{"stop", "abort"}}}) {
      BuilderParams params{{{"minibatches", m}}, trigger, {}};
      if (trigger.contains("trigger")) params.numbers["k"] = 4;
      const SimulationResult result = run("nbsgd", Cluster::homogeneous(4), params, 3);
      for (const IterationTiming& round : result.iterations) {
        CHECK(round.samples == 4.0);  // 4 ranks x batch 1
        CHECK(round.duration() == 10000);
        CHECK(round.wasted == 0);
        CHECK(round.idle == 0);
      }
    }
  }
}

TEST_CASE("Non-blocking SGD: a slow rank stops at its next mini-batch boundary, or discards it") {
  // m = 4. Rank 0 at speed 1: mini-batches of 1.5 us, all four done at 6 us.
  // Rank 1 at speed 0.6: backward 6.667 + 3.333 us = 10 us, mini-batches of
  // 2.5 us ending at 2.5, 5, 7.5 and 10 us.
  const Cluster cluster({1.0, 0.6}, {0, 1});
  SECTION("trigger first, stop at the boundary: rank 1 finishes its third, all-reduce 7.5-11.5 us") {
    const IterationTiming round = run("nbsgd", cluster, {}, 1).iterations[0];
    CHECK(round.compute_end == 7500);
    CHECK(round.end == 11500);
    CHECK(round.samples == 7 * 0.25);  // 4 + 3 mini-batches of a quarter sample
    CHECK(round.idle == 1500);          // rank 0 waits 6 -> 7.5 us
    CHECK(round.wasted == 0);
  }
  SECTION("trigger first, abort: rank 1 drops its third at 6 us, 1 us of it done") {
    const IterationTiming round = run("nbsgd", cluster, {{}, {{"stop", "abort"}}, {}}, 1).iterations[0];
    CHECK(round.end == 10000);
    CHECK(round.samples == 6 * 0.25);
    CHECK(round.wasted == 1000);
    CHECK(round.idle == 0);
  }
  SECTION("trigger kth with k = 2 waits for the slow rank: fully synchronous") {
    const IterationTiming round = run("nbsgd", cluster, {{{"k", 2}}, {{"trigger", "kth"}}, {}}, 1).iterations[0];
    CHECK(round.end == 14000);
    CHECK(round.samples == 2.0);
    CHECK(round.idle == 4000);
  }
  SECTION("a 3 us deadline: rank 0 ends its second at 3 us, none in progress; rank 1 finishes its second (5 us)") {
    // Red team: rank 0 ran a third, to 4.5 us, as if one were in progress at the deadline.
    const IterationTiming round =
        run("nbsgd", cluster, {{{"deadline_s", 3e-6}}, {{"trigger", "deadline"}}, {}}, 1).iterations[0];
    CHECK(round.compute_end == 5000);
    CHECK(round.end == 9000);
    CHECK(round.samples == 4 * 0.25);
    CHECK(round.idle == 2000);  // rank 0 waits 3 -> 5 us
  }
  SECTION("a 3.1 us deadline: rank 0 is in its third and finishes it (4.5 us), rank 1 its second (5 us)") {
    const IterationTiming round =
        run("nbsgd", cluster, {{{"deadline_s", 3.1e-6}}, {{"trigger", "deadline"}}, {}}, 1).iterations[0];
    CHECK(round.compute_end == 5000);
    CHECK(round.samples == 5 * 0.25);
    CHECK(round.idle == 500);
  }
  SECTION("rounds follow each other") {
    const SimulationResult result = run("nbsgd", cluster, {}, 3);
    CHECK(result.iterations[2].start == 2 * 11500);
    CHECK(result.stats.total == 3 * 11500);
  }
}

TEST_CASE("Non-blocking SGD refuses k above the GPU count and k or deadline_s without their trigger") {
  CHECK_THROWS_WITH(run("nbsgd", Cluster::homogeneous(2), {{{"k", 3}}, {{"trigger", "kth"}}, {}}, 1),
                    Catch::Contains("'k' = 3 exceeds the 2 GPUs"));
  CHECK_THROWS_AS(run("nbsgd", Cluster::homogeneous(2), {{{"k", 1}}, {}, {}}, 1), ConfigError);
  CHECK_THROWS_AS(run("nbsgd", Cluster::homogeneous(2), {{}, {{"trigger", "deadline"}}, {}}, 1), ConfigError);
  CHECK_THROWS_AS(run("nbsgd", Cluster::homogeneous(2), {{{"minibatches", 2.5}}, {}, {}}, 1), ConfigError);
  CHECK_THROWS_WITH(run("nbsgd", Cluster::homogeneous(2), {{}, {{"trigger", "last"}}, {}}, 1),
                    Catch::Contains("first, kth, deadline"));
}

TEST_CASE("D-PSGD on a 4-rank ring: compute, then two matchings of exchanges") {
  // The ring 0-1-2-3-0 splits into {01, 23} and {12, 03}; each rank does one
  // exchange of t = 4 us per matching after its compute: 6 + 2 x 4 = 14 us.
  for (const char* barrier : {"true", "false"}) {
    const SimulationResult result = run("dpsgd", Cluster::homogeneous(4), {{}, {{"barrier", barrier}}, {}}, 3);
    for (const IterationTiming& round : result.iterations) {
      CHECK(round.duration() == 14000);
      CHECK(round.samples == 4.0);
      CHECK(round.idle == 0);
    }
  }
}

TEST_CASE("D-PSGD exchanges inside a node use the intra-node link") {
  // Two ranks per node: 01 and 23 are intra (free here), 12 and 03 inter (4 us).
  const Network network{{0.0, 0.0, 0.0}, kGossipLink};
  const SimulationResult result = run("dpsgd", Cluster::homogeneous(4, 2), {}, 1, 1, network);
  CHECK(result.iterations[0].duration() == 6000 + 4000);
}

TEST_CASE("without a barrier, ranks far from a slow one start their next round early") {
  // The path 0-1-2-3 splits into {01, 23} then {12}. Rank 0 at speed 0.5
  // computes 2c = 12 us, the others c = 6 us; t = 4 us.
  // Round 1: 23 at 6-10, 01 at 12-16, 12 at 16-20: ranks end at 16, 20, 20, 10.
  // Round 2 without barrier: computes end 28, 26, 26, 16; 01 at 28-32, 23 at
  // 26-30, 12 at 32-36. With a barrier all start at 20: 01 at 32-36, 12 at 36-40.
  const Cluster cluster({0.5, 1.0}, {0, 1, 1, 1});
  const Graph path(4, {{0, 1}, {1, 2}, {2, 3}});
  CHECK(decompose_matchings(path) == std::vector<std::vector<Edge>>{{{0, 1}, {2, 3}}, {{1, 2}}});
  BuilderParams params{{}, {{"topology", "path.txt"}}, path};
  const SimulationResult free_running = run("dpsgd", cluster, params, 2);
  CHECK(free_running.iterations[0].end == 20000);
  CHECK(free_running.iterations[1].end == 36000);
  // Idle in round 1: rank 1 waits 6 -> 12 and 16 -> 16 (ends 20 after 6 + 8
  // busy), 6 us; rank 2 waits 10 -> 16, 6 us; rank 3 none; rank 0 none.
  CHECK(free_running.iterations[0].idle == 12000);
  params.choices["barrier"] = "true";
  const SimulationResult barrier = run("dpsgd", cluster, params, 2);
  CHECK(barrier.iterations[1].end == 40000);
}

TEST_CASE("MATCHA with budget 1 is D-PSGD on the same matchings") {
  const Cluster cluster({0.5, 1.0, 0.8}, {0, 1, 2, 1, 1, 2, 1, 0, 1});
  for (const char* topology : {"ring", "torus"}) {
    const ChoiceValues choices{{"topology", topology}};
    const SimulationResult dpsgd = run("dpsgd", cluster, {{}, choices, {}}, 5);
    const SimulationResult matcha = run("matcha", cluster, {{{"budget", 1.0}}, choices, {}}, 5);
    for (int i = 0; i < 5; ++i) {
      CHECK(matcha.iterations[static_cast<std::size_t>(i)].end == dpsgd.iterations[static_cast<std::size_t>(i)].end);
      CHECK(matcha.iterations[static_cast<std::size_t>(i)].idle == dpsgd.iterations[static_cast<std::size_t>(i)].idle);
    }
  }
}

TEST_CASE("MATCHA activates each matching with probability budget, the same for the same seed") {
  // An 8-rank ring: 2 matchings; a round takes c + (active matchings) x t.
  // Over 1000 rounds the active count is Binomial(2000, 0.3): mean 600,
  // standard deviation 20.5; accept 5 deviations.
  const BuilderParams params{{{"budget", 0.3}}, {}, {}};
  const SimulationResult result = run("matcha", Cluster::homogeneous(8), params, 1000, 7);
  SimTime exchanges = 0;
  for (const IterationTiming& round : result.iterations) {
    const SimTime comm = round.duration() - 6000;
    REQUIRE(comm % 4000 == 0);
    exchanges += comm / 4000;
  }
  CHECK(exchanges > 600 - 103);
  CHECK(exchanges < 600 + 103);
  const SimulationResult again = run("matcha", Cluster::homogeneous(8), params, 1000, 7);
  CHECK(again.stats.total == result.stats.total);
  const SimulationResult other = run("matcha", Cluster::homogeneous(8), params, 1000, 8);
  CHECK(other.stats.total != result.stats.total);
}

namespace {

/// The oracle for gossip rounds: each round as an engine DAG (every rank's
/// compute from where it stood, then the active matchings' exchanges, each
/// after both ranks' previous activities), with the builder's draws in its
/// order: every rank's delay, then each matching's activation.
std::vector<IterationTiming> gossip_in_engine(const Cluster& cluster, const Graph& graph, const GossipCase& c,
                                              int rounds) {
  const auto law = make_law("exponential", {{"mean_s", 3e-6}});
  const std::vector<std::vector<Edge>> matchings = decompose_matchings(graph);
  Random random(c.seed);
  std::vector<SimTime> end(static_cast<std::size_t>(cluster.size()), 0);
  std::vector<IterationTiming> timings;
  SimTime start = 0;
  for (int round = 0; round < rounds; ++round) {
    Engine engine;
    std::vector<ActivityId> compute, last;
    for (int r = 0; r < cluster.size(); ++r) {
      const SimTime work = scaled_profile(kWorkload.profile, cluster.speed(cluster.class_of(r))).compute_time();
      const SimTime ready = round == 0 || c.barrier ? start : end[static_cast<std::size_t>(r)];
      compute.push_back(engine.add(work + law->draw(random, work), ready));
    }
    last = compute;
    std::vector<SimTime> busy(end.size(), 0);
    for (const std::vector<Edge>& matching : matchings) {
      if (c.budget < 1.0 && !(random.uniform() < c.budget)) continue;
      for (const auto& [a, b] : matching) {
        const ActivityId exchange = engine.add(4000);  // t = 4 us (kGossipLink, 30 bytes)
        for (const int rank : {a, b}) {
          engine.depend(exchange, last[static_cast<std::size_t>(rank)]);
          last[static_cast<std::size_t>(rank)] = exchange;
          busy[static_cast<std::size_t>(rank)] += 4000;
        }
      }
    }
    engine.run();
    IterationTiming timing{start, start, start};
    for (std::size_t r = 0; r < end.size(); ++r) {
      end[r] = engine.finish(last[r]);
      timing.end = std::max(timing.end, end[r]);
      timing.compute_end = std::max(timing.compute_end, engine.finish(compute[r]));
    }
    for (std::size_t r = 0; r < end.size(); ++r) {
      timing.idle += (c.barrier ? timing.end : end[r]) - engine.start(compute[r]) - engine.work(compute[r]) - busy[r];
    }
    timings.push_back(timing);
    start = timing.end;
  }
  return timings;
}

}  // namespace

TEST_CASE("gossip rounds timed directly equal the engine's DAG of compute and exchanges") {
  // Random graphs (about 3 edges per rank), three speeds, exponential
  // delays, D-PSGD and MATCHA at budget 0.5, with and without a barrier.
  std::mt19937_64 rng(28);
  for (int trial = 0; trial < 12; ++trial) {
    const int ranks = 5 + trial;
    std::vector<Edge> edges;
    for (int a = 0; a < ranks; ++a) {
      for (int b = a + 1; b < ranks; ++b) {
        if (std::uniform_int_distribution<int>(0, ranks - 1)(rng) < 3) edges.push_back({a, b});
      }
    }
    const Graph graph(ranks, edges);
    std::vector<int> speed_of;
    for (int r = 0; r < ranks; ++r) speed_of.push_back(static_cast<int>(rng() % 3));
    const Cluster cluster({1.0, 0.7, 0.45}, speed_of);
    const GossipCase c{trial % 2 == 0 ? 1.0 : 0.5, trial % 4 < 2, 40u + static_cast<unsigned>(trial)};
    Variability noise;
    noise.law = "exponential";
    noise.params = {{"mean_s", 3e-6}};
    BuilderParams params{{}, {{"topology", "graph.txt"}, {"barrier", c.barrier ? "true" : "false"}}, graph};
    if (c.budget < 1.0) params.numbers["budget"] = c.budget;
    INFO("trial " << trial);
    const SimulationResult result =
        run(c.budget < 1.0 ? "matcha" : "dpsgd", cluster, params, 6, c.seed, {kGossipLink, kGossipLink}, noise);
    const std::vector<IterationTiming> expected = gossip_in_engine(cluster, graph, c, 6);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      CHECK(result.iterations[i].start == expected[i].start);
      CHECK(result.iterations[i].end == expected[i].end);
      CHECK(result.iterations[i].compute_end == expected[i].compute_end);
      CHECK(result.iterations[i].idle == expected[i].idle);
    }
  }
}

TEST_CASE("gossip builders refuse a budget of 0 or above 1, a graph of another size and a missing network") {
  CHECK_THROWS_AS(run("matcha", Cluster::homogeneous(4), {{{"budget", 0.0}}, {}, {}}, 1), ConfigError);
  CHECK_THROWS_AS(run("matcha", Cluster::homogeneous(4), {{{"budget", 1.5}}, {}, {}}, 1), ConfigError);
  CHECK_THROWS_WITH(run("dpsgd", Cluster::homogeneous(4), {{}, {{"topology", "g.txt"}}, Graph(3, {{0, 1}})}, 1),
                    Catch::Contains("has 3 ranks, the run 4 GPUs"));
  CHECK_THROWS_AS(run("dpsgd", Cluster::homogeneous(4), {{}, {{"barrier", "maybe"}}, {}}, 1), ConfigError);
  const Cluster cluster = Cluster::homogeneous(4);
  CHECK_THROWS_WITH(find_builder("dpsgd").make({kWorkload, cluster, kGossipCost, nullptr, {}}, {}),
                    Catch::Contains("needs a network"));
  // The data-parallel builder plans a schedule: it needs one.
  CHECK_THROWS_WITH(find_builder("data-parallel").make({kWorkload, cluster, kGossipCost, nullptr, {}}, {}),
                    Catch::Contains("no schedule to plan"));
}

TEST_CASE("one lookup resolves a config's schedule name to a schedule or a builder") {
  CHECK(find_schedule_or_builder("mgwfbp").schedule != nullptr);
  CHECK(find_schedule_or_builder("matcha").builder == &find_builder("matcha"));
  CHECK_THROWS_AS(find_schedule_or_builder("data-parallel"), ConfigError);
  CHECK_THROWS_WITH(find_schedule_or_builder("gossip"), Catch::Contains("mgwfbp") && Catch::Contains("nbsgd") &&
                                                            Catch::Contains("dpsgd") && Catch::Contains("matcha"));
}

TEST_CASE("a run config names the builders like schedules, with text, boolean and graph-file parameters") {
  const std::filesystem::path file = std::filesystem::path(kTestData + "graphs/config-petersen.json");
  const Scenario config = load_scenario(file);
  REQUIRE(config.schedules.size() == 4);
  CHECK(config.schedules[0].builder() == nullptr);
  CHECK(config.schedules[1].label() == "dpsgd(barrier=true,topology=petersen.txt)");
  REQUIRE(config.schedules[1].graph.has_value());
  CHECK(config.schedules[1].graph->edges().size() == 15);
  CHECK(config.schedules[3].label() == "nbsgd(k=10,trigger=kth)");
  WorkloadCache cache;
  const std::vector<RunOutcome> outcomes = execute_runs(RunGrid(config, cache), KeepIterations::yes);
  REQUIRE(outcomes.size() == 4);
  // MATCHA with budget 1 on the file's graph is D-PSGD on it, through the whole run path.
  CHECK(outcomes[2].row.metrics.iteration == outcomes[1].row.metrics.iteration);
  CHECK(outcomes[1].row.metrics.samples == 10 * 64);
  // Non-blocking SGD waiting for all 10 ranks keeps every mini-batch.
  CHECK(outcomes[3].row.metrics.samples == 10 * 64);
  CHECK(outcomes[3].row.metrics.samples_min == 10 * 64);
  // Only the plan-based schedule has a timeline.
  CHECK(timeline_iterations(outcomes).size() == 1);
}

TEST_CASE("random delays cut Non-blocking SGD rounds short, the same way for the same seed") {
  // Identical ranks, m = 4 mini-batches of 1.5 us, each delayed by Exp(mean
  // 1 us): the first rank to finish rarely finds the others done, so some
  // rounds keep fewer than 4 x 4 mini-batches, never fewer than 4 + 3 x 1.
  Variability noise;
  noise.law = "exponential";
  noise.params = {{"mean_s", 1e-6}};
  const BuilderParams params{};
  const auto rounds = [&](std::uint64_t seed) {
    return run("nbsgd", Cluster::homogeneous(4), params, 200, seed, {kGossipLink, kGossipLink}, noise);
  };
  const SimulationResult result = rounds(5);
  double fewest = 4.0;
  for (const IterationTiming& round : result.iterations) fewest = std::min(fewest, round.samples);
  CHECK(fewest < 4.0);
  CHECK(fewest >= 7 * 0.25);
  CHECK(rounds(5).stats.total == result.stats.total);
  CHECK(rounds(6).stats.total != result.stats.total);
}

TEST_CASE("efficiency and speedup count the samples an iteration applied and the GPUs' speeds") {
  const Variability none{};
  SECTION("nbsgd with a 1 ns deadline: each of 4 ranks applies 1 of its 4 mini-batches") {
    // Every rank stops at its first mini-batch boundary, 1.5 us, then the
    // 4 us all-reduce: rounds of 5.5 us applying 4 x 0.25 = 1 sample.
    // Throughput 1 / 5.5 us against 4 GPUs x 1 sample / 6 us: 6 / 22;
    // counting iterations instead (6 / 5.5) gave 109%.
    const ScheduleSpec spec{"nbsgd", {{"deadline_s", 1e-9}}, {{"trigger", "deadline"}}, {}, {}, {}, {}};
    const Cluster cluster = Cluster::homogeneous(4);
    const RunPoint point{kWorkload, kGossipCost, spec, nullptr, cluster, {}, Network{kGossipLink, kGossipLink}, 0.0, 0.0, none, 3};
    const RunMetrics m = evaluate(point).metrics;
    CHECK(m.iteration == 5500);
    CHECK(m.samples == 1.0);
    CHECK(m.scaling_efficiency() == Approx(6.0 / 22));
    CHECK(m.speedup() == Approx(4 * 6.0 / 22));
  }
  SECTION("one GPU twice as fast as the trace's: 100%, speedup 1 (t_iter(1) / t_iter(P) gave 200%)") {
    const ScheduleSpec spec{"single", {}, {}, {}, {}, {}, {}};
    const auto schedule = spec.build();
    const Cluster cluster({2.0}, {0});
    const RunPoint point{kWorkload, kGossipCost, spec, schedule.get(), cluster, {}, std::nullopt, 0.0, 0.0, none, 1};
    const RunMetrics m = evaluate(point).metrics;
    CHECK(m.iteration == 3000);  // 6 us of compute at speed 2, nothing to reduce on one GPU
    CHECK(m.scaling_efficiency() == Approx(1.0));
    CHECK(m.speedup() == Approx(1.0));
  }
  SECTION("a GPU at speed 1 and one at 0.6, single all-reduce: the slow one sets the pace") {
    // Compute 6 us and 10 us, then the 4 us all-reduce: 14 us for 2 samples,
    // against (1 + 0.6) samples per 6 us: 2 x 6 / (1.6 x 14) = 12 / 22.4.
    const ScheduleSpec spec{"single", {}, {}, {}, {}, {}, {}};
    const auto schedule = spec.build();
    const Cluster cluster({1.0, 0.6}, {0, 1});
    const RunPoint point{kWorkload, kGossipCost, spec, schedule.get(), cluster, {}, std::nullopt, 0.0, 0.0, none, 1};
    const RunMetrics m = evaluate(point).metrics;
    CHECK(m.iteration == 14000);
    CHECK(m.scaling_efficiency() == Approx(12.0 / 22.4));
    CHECK(m.speedup() == Approx(24.0 / 22.4));
  }
}
