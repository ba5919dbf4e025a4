// Clusters of ranks, iteration builders and the many-iteration loop.

#include <catch2/catch.hpp>

#include "mgsim/cluster.hpp"
#include "mgsim/error.hpp"
#include "mgsim/iteration.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

TEST_CASE("speed shares take their ranks first, rounded by largest remainders, and the rest run at speed 1") {
  const SpeedShare shares[] = {{0.2, 0.5}};
  const Cluster cluster = Cluster::with_shares(10, 2, shares);
  REQUIRE(cluster.size() == 10);
  REQUIRE(cluster.class_count() == 2);
  CHECK(cluster.class_size(0) == 2);
  CHECK(cluster.speed(0) == 0.5);
  CHECK(cluster.class_of(1) == 0);
  CHECK(cluster.class_of(2) == 1);
  CHECK(cluster.speed(1) == 1.0);
  CHECK(cluster.node_of(5) == 2);
  CHECK_FALSE(cluster.homogeneous());
  CHECK(Cluster::homogeneous(4).homogeneous());
  const SpeedShare rounded_up[] = {{0.55, 0.5}, {0.45, 0.9}};  // 5.5 -> 6 ranks, then 4.5 -> 5 but only 4 left
  const Cluster full = Cluster::with_shares(10, 1, rounded_up);
  CHECK(full.class_count() == 2);
  CHECK(full.class_size(0) == 6);
  CHECK(full.class_size(1) == 4);
  // Thirds of 4 GPUs: 4/3 each, 1 + 1 + 1 and the largest remainder (a tie:
  // the first share) one more; no rank is left at speed 1. Of 2 GPUs: 1 + 1.
  const SpeedShare thirds[] = {{1.0 / 3, 2.0}, {1.0 / 3, 3.0}, {1.0 / 3, 4.0}};
  const Cluster four = Cluster::with_shares(4, 1, thirds);
  REQUIRE(four.class_count() == 3);
  CHECK(four.class_size(0) == 2);
  CHECK(four.class_size(1) == 1);
  CHECK(four.class_size(2) == 1);
  CHECK(four.speed(2) == 4.0);
  const Cluster two = Cluster::with_shares(2, 1, thirds);
  REQUIRE(two.class_count() == 2);
  CHECK(two.speed(0) == 2.0);
  CHECK(two.speed(1) == 3.0);
  // Two thirds listed, the rest 1 - 2/3 (0.33333333333333337 in doubles): a tie of three, the first share first.
  const SpeedShare two_thirds[] = {{1.0 / 3, 2.0}, {1.0 / 3, 4.0}};
  const Cluster split = Cluster::with_shares(4, 1, two_thirds);
  REQUIRE(split.class_count() == 3);
  CHECK(split.class_size(0) == 2);
  CHECK(split.class_size(1) == 1);
  CHECK(split.class_size(2) == 1);
  // 0.33 each: 1.32 ranks each and 0.04 for the rest, whose remainder is the smallest.
  const SpeedShare almost[] = {{0.33, 2.0}, {0.33, 3.0}, {0.33, 4.0}};
  CHECK(Cluster::with_shares(4, 1, almost).class_count() == 3);
}

TEST_CASE("two ranks of different speed classes: messages wait for the slower one") {
  // Forward order: backward 4 us and 2 us, 10 and 20 bytes; T(M) = 1 us +
  // 0.1 us/byte. Rank 0 at speed 1 runs layer 2 in 0-2 and layer 1 in 2-6;
  // rank 1 at speed 0.5 takes twice as long: 0-4 and 4-12. WFBP: message 2
  // is ready on both at 4 and runs 4-7; message 1 at 12, 12-14.
  const Workload workload(make_trace({4e-6, 2e-6}, {10, 20}));
  const LinearCost cost(1e-6, 1e-7);
  const Cluster cluster({1.0, 0.5}, {0, 1});
  const auto wfbp = make_schedule("wfbp", {});
  const auto builder = find_builder("data-parallel").make({workload, cluster, cost, wfbp.get(), {}}, {});
  const SimulationResult result = simulate(*builder, 1, 1);
  REQUIRE(result.iterations.size() == 1);
  CHECK(result.iterations[0].compute_end == 12000);
  CHECK(result.iterations[0].end == 14000);
}

TEST_CASE("iterations run back to back and a homogeneous run repeats the single-iteration replay") {
  const Workload workload(make_trace({4e-6, 2e-6}, {10, 20}));
  const LinearCost cost(1e-6, 1e-7);
  const auto wfbp = make_schedule("wfbp", {});
  const Cluster cluster = Cluster::homogeneous(4);
  const auto builder = find_builder("data-parallel").make({workload, cluster, cost, wfbp.get(), {}}, {});
  const SimulationResult result = simulate(*builder, 1, 100);
  const SimTime one = simulate(workload, cost, *wfbp, 4).iteration;  // 8 us, see test_rates.cpp
  REQUIRE(one == 8000);
  REQUIRE(result.iterations.size() == 100);
  CHECK(result.iterations[41].start == 41 * one);
  CHECK(result.stats.total == 100 * one);
  CHECK(result.stats.mean == one);
  CHECK(result.stats.p99 == one);
}

namespace {

/// One activity per iteration whose work is drawn from the random source.
class NoisyBuilder : public IterationBuilder {
 public:
  void build(Engine& engine, Random& random, SimTime start) override {
    engine.clear();
    id_ = engine.add(1000 + static_cast<SimTime>(random.next() % 1000), start);
    start_ = start;
  }
  IterationTiming collect(const Engine& engine) const override {
    return {start_, engine.finish(id_), engine.finish(id_)};
  }

 private:
  ActivityId id_ = 0;
  SimTime start_ = 0;
};

std::vector<SimTime> ends(const SimulationResult& result) {
  std::vector<SimTime> out;
  for (const IterationTiming& t : result.iterations) out.push_back(t.end);
  return out;
}

}  // namespace

TEST_CASE("100 iterations with one seed reproduce the same numbers; another seed does not") {
  NoisyBuilder builder;
  const auto first = ends(simulate(builder, 2024, 100));
  const auto again = ends(simulate(builder, 2024, 100));
  const auto other = ends(simulate(builder, 2025, 100));
  CHECK(first == again);
  CHECK(first != other);
  // The documented generator is xoshiro256++ seeded by SplitMix64: its first
  // output for seed 2024, 9674054429496410833 (an independent Python
  // implementation of the two, checked on their reference outputs), fixes
  // the first iteration's work: 833 ns over 1000.
  CHECK(first[0] == 1000 + 833);
}

TEST_CASE("iteration statistics use nearest-rank percentiles") {
  std::vector<IterationTiming> timings;
  SimTime at = 0;
  for (SimTime d = 100; d >= 1; --d) {  // durations 100, 99, ..., 1
    timings.push_back({at, at + d, at + d});
    at += d;
  }
  const IterationStats stats = iteration_stats(timings);
  CHECK(stats.iterations == 100);
  CHECK(stats.total == 5050);
  CHECK(stats.mean == 51);  // 50.5 rounded half up
  CHECK(stats.p50 == 50);
  CHECK(stats.p99 == 99);
  CHECK(stats.min == 1);
  CHECK(stats.max == 100);
}

TEST_CASE("an unknown iteration builder is refused with the valid names") {
  CHECK_THROWS_WITH(find_builder("gossip"), Catch::Contains("data-parallel"));
}
