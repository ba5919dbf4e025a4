// wfbp, single, mgwfbp and optimal on hand-made traces (expected values derived
// by hand in the comments) and, for optimal, against exhaustive search.

#include <algorithm>
#include <limits>

#include <catch2/catch.hpp>

#include "mgsim/schedule.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {

/// Minimum end over all 2^(L-1) contiguous groupings of layers.
SimTime exhaustive_best(const CommProblem& problem) {
  const int n = problem.layer_count();
  SimTime best = std::numeric_limits<SimTime>::max();
  for (std::uint32_t mask = 0; mask < (1u << (n - 1)); ++mask) {
    std::vector<int> group_end;
    for (int u = 1; u < n; ++u) {
      if (mask & (1u << (u - 1))) group_end.push_back(u);
    }
    group_end.push_back(n);
    best = std::min(best, end_of(problem, plan_from_layer_groups(problem, group_end)));
  }
  return best;
}

/// The optimal search as first written, kept as the oracle: every start g of
/// every group (O(L^2) prices), ties to the latest start.
std::vector<std::pair<int, int>> plain_optimal_ranges(const CommProblem& problem) {
  const int n = problem.layer_count();
  std::vector<SimTime> best(static_cast<std::size_t>(n) + 1, 0);
  std::vector<int> cut(static_cast<std::size_t>(n) + 1, 0);
  for (int k = 1; k <= n; ++k) {
    best[k] = std::numeric_limits<SimTime>::max();
    SimTime ready = 0;
    std::int64_t bytes = 0;  // of layers g..k-1
    for (int g = k - 1; g >= 0; --g) {
      const int begin = problem.layer_begin(g), end = problem.layer_begin(g + 1);
      ready = std::max(ready, problem.ready_of(begin, end));
      bytes += problem.bytes_of(begin, end);
      const SimTime finish = std::max(best[g], ready) + problem.cost(bytes);
      if (finish < best[k]) {
        best[k] = finish;
        cut[k] = g;
      }
    }
  }
  std::vector<std::pair<int, int>> groups;
  for (int k = n; k > 0; k = cut[k]) {
    groups.insert(groups.begin(), {problem.layer_begin(cut[k]), problem.layer_begin(k)});
  }
  return groups;
}

}  // namespace

TEST_CASE("wfbp sends one message per layer and single one message in all") {
  const LinearCost cost(1, 1);
  const Setup setup(make_trace({1, 2, 3}, {4, 5, 6}), cost, 2);
  CHECK(ranges(plan_with("wfbp", setup.problem)) == std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}});
  const Plan single = plan_with("single", setup.problem);
  REQUIRE(single.size() == 1);
  CHECK(single[0].bytes == 15);
  // Single: after the whole backward (6 s), T(15) = 1 + 15 = 16 s.
  CHECK(end_of(setup.problem, single) == 22 * kSecond);
}

TEST_CASE("MG-WFBP merges the counterexample fully and optimal beats it") {
  // docs/domain.md: a = 8, b = 1, t_b = [5, 6, 0], bytes = [2, 3, 9] (forward order).
  // Layer 3 ready at 0; tau_c(3) = 0; ready(2) - 0 = 6 < 8: merge 3 into 2.
  // tau_c(2) = max(0 + 0, 6) = 6; ready(1) - 6 = 11 - 6 = 5 < 8: merge 2 into 1.
  // One message of 14 B ready at 11: ends at 11 + 8 + 14 = 33.
  const LinearCost cost(8, 1);
  const Setup setup(make_trace({5, 6, 0}, {2, 3, 9}), cost, 4);
  const Plan rule = plan_with("mgwfbp", setup.problem);
  CHECK(ranges(rule) == std::vector<std::pair<int, int>>{{0, 3}});
  CHECK(end_of(setup.problem, rule) == 33 * kSecond);
  // Layer 3 alone (0..17), then layers 2 and 1 (ready 11, start 17, 8 + 5): 30.
  const Plan best = plan_with("optimal", setup.problem);
  CHECK(ranges(best) == std::vector<std::pair<int, int>>{{0, 1}, {1, 3}});
  CHECK(end_of(setup.problem, best) == 30 * kSecond);
}

TEST_CASE("MG-WFBP follows the published rule step by step") {
  // a = 2, b = 1. Forward order t_b = [1, 1, 10, 1], bytes = [1, 1, 1, 5].
  // Ready times (backward from 0): layer 4 at 1, layer 3 at 11, layer 2 at 12, layer 1 at 13.
  // l = 4: tau_c(4) = 1; ready(3) - 1 = 10, not < 2: layer 4 goes alone (T = 7, ends 8).
  // l = 3: tau_c(3) = max(1 + 7, 11) = 11; ready(2) - 11 = 1 < 2: merge 3 into 2 (T = 4).
  // l = 2: tau_c(2) = max(11 + 0, 12) = 12; ready(1) - 12 = 1 < 2: merge 2 into 1 (T = 5).
  // Messages {4} ending at 8 and {3, 2, 1} ready at 13, ending at 18. WFBP ends at 20.
  const LinearCost cost(2, 1);
  const Setup setup(make_trace({1, 1, 10, 1}, {1, 1, 1, 5}), cost, 2);
  const Plan rule = plan_with("mgwfbp", setup.problem);
  CHECK(ranges(rule) == std::vector<std::pair<int, int>>{{0, 1}, {1, 4}});
  CHECK(end_of(setup.problem, rule) == 18 * kSecond);
  CHECK(end_of(setup.problem, plan_with("wfbp", setup.problem)) == 20 * kSecond);
}

TEST_CASE("MG-WFBP merges only on a strict inequality") {
  // a = 2, b = 1; forward t_b = [2, 1]. Layer 2 ready at 1 (tau_c = 1), layer 1 at 3:
  // 3 - 1 = 2 is not < 2, so no merge. With t_b(1) = 1.999 s it merges.
  const LinearCost cost(2, 1);
  CHECK(plan_with("mgwfbp", Setup(make_trace({2, 1}, {1, 1}), cost, 2).problem).size() == 2);
  CHECK(plan_with("mgwfbp", Setup(make_trace({1.999, 1}, {1, 1}), cost, 2).problem).size() == 1);
}

TEST_CASE("MG-WFBP under ring uses a = 2(P-1) alpha") {
  // alpha = 1 s, no bandwidth cost, P = 4: a = 6 s. Forward t_b = [4, 1]:
  // ready(1) - tau_c(2) = 5 - 1 = 4 < 6, so the layers merge (with a = alpha they would not).
  const Link link{1.0, 0.0, 0.0};
  const auto ring = find_collective("ring").make({{link, link}, 1, {}, ""});
  const Setup setup(make_trace({4, 1}, {1, 1}), *ring, 4);
  CHECK(setup.problem.cost.startup() == 6 * kSecond);
  CHECK(plan_with("mgwfbp", setup.problem).size() == 1);
}

TEST_CASE("optimal equals exhaustive search over contiguous groupings") {
  std::mt19937_64 rng(20261121);
  const Link link{45.25e-6, 1.24e-10, 2.5e-9};
  const CollectiveSettings settings{{link, link}, 1, {{8, 4, 80e-6}, {8, 8192, 180e-6}, {8, 12288, 790e-6},
                                                       {8, 1 << 20, 4e-3}, {8, 2 << 20, 3.9e-3}}, "synthetic"};
  for (std::string_view model : {"ring", "tree", "measured"}) {
    const auto collective = find_collective(model).make(settings);
    for (int trial = 0; trial < 60; ++trial) {
      const Setup setup(random_trace(rng, 14), *collective, 8);
      INFO(model << " trial " << trial << " layers " << setup.problem.layer_count());
      CHECK(end_of(setup.problem, plan_with("optimal", setup.problem)) == exhaustive_best(setup.problem));
    }
  }
}

TEST_CASE("optimal chooses the groups of the plain O(L^2) search, ties included") {
  // The planner prunes its search for affine costs (ring, tree, hierarchical,
  // LinearCost); the plain search prices everything. Same groups expected,
  // on random traces with and without ready offsets, at 4..4096 GPUs.
  std::mt19937_64 rng(14);
  const Link link{45.25e-6, 9.934e-10, 2.5e-9};
  const CollectiveSettings settings{{link, link}, 4, {}, "", {}};
  const auto ring = find_collective("ring").make(settings);
  const auto tree = find_collective("tree").make(settings);
  const auto hierarchical = find_collective("hierarchical").make(settings);
  const LinearCost whole_ns(1e-3, 1e-9);  // 1 ms + 1 ns per byte: many exact ties
  const Collective* const models[] = {ring.get(), tree.get(), hierarchical.get(), &whole_ns};
  for (int trial = 0; trial < 120; ++trial) {
    for (const Collective* collective : models) {
      const Setup setup(random_trace(rng, 300, trial % 2 == 1), *collective, 1 << (trial % 11 + 2));
      INFO("trial " << trial << " layers " << setup.problem.layer_count() << " gpus " << (1 << (trial % 11 + 2)));
      CHECK(ranges(plan_with("optimal", setup.problem)) == plain_optimal_ranges(setup.problem));
    }
  }
  // Identical layers: every tie the search can meet.
  const Setup same(make_trace(std::vector<double>(80, 1e-3), std::vector<std::int64_t>(80, 1'000'000)), whole_ns, 2);
  CHECK(ranges(plan_with("optimal", same.problem)) == plain_optimal_ranges(same.problem));
}

TEST_CASE("optimal matches the plain search on long communication-bound traces at 8 GPUs") {
  // Layers of up to 400 MB against 2 ms of backward a layer: the best plans
  // are a few huge messages, so thousands of starts inside one merged group
  // end within a nanosecond of each other and only rounding separates them.
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> backward(20e-6, 2e-3);
  std::uniform_int_distribution<std::int64_t> bytes(4'000, 400'000'000);
  for (const double beta : {1.24e-10, 9.934e-10}) {
    const Link link{45.25e-6, beta, 2.5e-9};
    const auto ring = find_collective("ring").make({{link, link}, 1, {}, "", {}});
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<double> times;
      std::vector<std::int64_t> sizes;
      for (int l = 0; l < 2000; ++l) {
        times.push_back(backward(rng));
        sizes.push_back(bytes(rng));
      }
      const Setup setup(make_trace(times, sizes), *ring, 8);
      INFO("beta " << beta << " trial " << trial);
      CHECK(ranges(plan_with("optimal", setup.problem)) == plain_optimal_ranges(setup.problem));
    }
  }
}

TEST_CASE("optimal is never slower than any other schedule") {
  std::mt19937_64 rng(7);
  const Link link{45.25e-6, 1.24e-10, 2.5e-9};
  const CollectiveSettings settings{{link, link}, 1, {}, "", {}};
  const std::vector<std::pair<std::string_view, ParamValues>> others{
      {"wfbp", {}}, {"single", {}}, {"mgwfbp", {}}, {"ddp", {}}, {"ddp", {{"bucket_cap_mb", 2}}},
      {"horovod", {}}, {"horovod", {{"fusion_threshold_mb", 4}, {"cycle_time_ms", 0.3}}}};
  for (std::string_view model : {"ring", "tree", "rabenseifner", "double-binary-tree"}) {
    const auto collective = find_collective(model).make(settings);
    for (int trial = 0; trial < 40; ++trial) {
      const Setup setup(random_trace(rng, 40), *collective, 1 << (trial % 11 + 1));
      const SimTime best = end_of(setup.problem, plan_with("optimal", setup.problem));
      for (const auto& [name, params] : others) {
        INFO(model << " trial " << trial << " vs " << name);
        CHECK(best <= end_of(setup.problem, plan_with(name, setup.problem, params)));
      }
    }
  }
}
