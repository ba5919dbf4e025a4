// The exact OMGS search's completion bound (src/core/omgs_completions.hpp)
// against every completion enumerated and stepped by docs/domain.md section
// 3's rules: never above the best one, and equal to it when no group loses
// a fraction of a kept element.

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "omgs_completions.hpp"
#include "sparse_costs.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {

constexpr SimTime kNoLimit = 1'000'000'000'000'000'000;  // 31 years: every plan ends by it

/// The best iteration end over every grouping of the layers from boundary
/// `k` on, after a state with selections `shift` and the channel free at
/// `channel_free`: each group's top-k selection (s d log2 d) delays the
/// compute stream; its all-gather of max(1, floor(rho d)) values and indices
/// starts once the channel is free and its gradients are ready and selected.
SimTime best_completion(const CommProblem& problem, int k, SimTime shift, SimTime channel_free, double rho,
                        double s) {
  const int n = problem.layer_count();
  if (k == n) return std::max(problem.compute_end + shift, channel_free);
  SimTime best = std::numeric_limits<SimTime>::max();
  for (int h = k + 1; h <= n; ++h) {
    const int begin = problem.layer_begin(k), end = problem.layer_begin(h);
    const double d = static_cast<double>(problem.elements_of(begin, end));
    const SimTime selection = d > 1 ? to_ns(s * d * std::log2(d)) : 0;
    const std::int64_t kept = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(rho * d)));
    const SimTime exchange = problem.cost.allgather(kept * 8);
    const SimTime next_shift = shift + selection;
    SimTime ready = problem.ready_of(begin, end) + shift;
    if (selection > 0) ready = std::max(ready, problem.layer_end[static_cast<std::size_t>(h - 1)] + next_shift);
    best = std::min(best, best_completion(problem, h, next_shift, std::max(channel_free, ready) + exchange, rho, s));
  }
  return best;
}

}  // namespace

TEST_CASE("OMGS completion bound is never above the best completion, and exact without rounding") {
  const Link link{45.25e-6, 9.934107462565104e-10, 0.0};
  std::uniform_int_distribution<SimTime> shift(0, 5'000'000), channel(0, 40'000'000);
  for (const bool shared : {false, true}) {
    std::mt19937_64 rng(shared ? 62 : 61);
    for (int trial = 0; trial < 48; ++trial) {
      // rho = 1 keeps whole elements in every group: the exchange is affine in
      // them and the bound misses only the rounding (1 ns a group, the slope's
      // and each exchange's to the nanosecond).
      const bool whole = trial % 3 == 0;
      const double rho = whole ? 1.0 : 0.001;
      const double s = trial % 2 ? 2.19e-10 : 2e-9;
      const int gpus = 16 << (trial % 8);
      const Trace trace = random_trace(rng, 9, trial % 4 >= 2);
      // On a shared fabric the all-gather of m bytes a rank is the larger of
      // ring's (P-1)(a + m b) and the floor (P-1) P m f: with f = (a / m* +
      // b) / P, the two meet at m* = a quarter of every kept byte, so the
      // exchange is convex, under its chord, among the groups (a red team's
      // plan crashed on a bound that took it for a line).
      std::int64_t elements = 0;
      for (const Layer& layer : trace.layers) {
        for (const std::int64_t p : layer.params) elements += p;
      }
      const double quarter = std::max(1.0, std::floor(rho * static_cast<double>(elements))) * 8 / 4;
      const double fabric = shared ? (link.alpha_s / quarter + link.beta_s_per_byte) / gpus : 0.0;
      const auto ring = find_collective("ring").make({{link, link, fabric}, 1, {}, ""});
      const Setup setup(trace, *ring, gpus);
      const CommProblem& problem = setup.problem;
      const int n = problem.layer_count();
      const SparseSettings settings{rho, s, 4, 4, {}, {}};
      const SparseCosts costs(problem, settings);
      std::vector<SimTime> ready;
      for (int u = 0; u < n; ++u) ready.push_back(problem.ready_of(problem.layer_begin(u), problem.layer_begin(u + 1)));
      const std::vector<SimTime> no_floors(static_cast<std::size_t>(n) + 1, 0);
      const auto table = OmgsCompletions::build(problem, costs, ready, no_floors, true, kNoLimit, 1 << 20);
      REQUIRE(table);
      for (int k = 0; k <= n; ++k) {
        for (int state = 0; state < 4; ++state) {
          const SimTime S = state == 0 ? 0 : shift(rng), E = state == 0 ? 0 : channel(rng);
          const SimTime best = best_completion(problem, k, S, E, rho, s);
          const double bound = table->at_least(k, S, E);
          INFO("fabric " << fabric << ", trial " << trial << ", boundary " << k << " of " << n << ", S " << S
                         << ", E " << E);
          CHECK(bound <= static_cast<double>(best));
          if (whole && !shared) CHECK(static_cast<double>(best) - bound <= 3.0 * (n - k) + 2);
        }
      }
    }
  }
}

TEST_CASE("OMGS completion bound keeps no future past the limit") {
  // Two layers of 1e6 elements, no backward: each alone exchanges 1,000 kept
  // elements, together 2,000; a limit below every exchange leaves no plan.
  const Link link{45.25e-6, 1e-9, 0.0};
  const auto ring = find_collective("ring").make({{link, link}, 1, {}, ""});
  const Setup setup(make_trace({0.0, 0.0}, {1'000'000, 1'000'000}), *ring, 16);
  const SparseSettings settings{0.001, 2.19e-10, 4, 4, {}, {}};
  const SparseCosts costs(setup.problem, settings);
  const std::vector<SimTime> ready(2, 0), no_floors(3, 0);
  // 15 x 45.25 us = 678.75 us start-up alone.
  const auto table = OmgsCompletions::build(setup.problem, costs, ready, no_floors, true, 600'000, 1 << 20);
  REQUIRE(table);
  CHECK(table->at_least(0, 0, 0) == std::numeric_limits<double>::infinity());
  CHECK_FALSE(OmgsCompletions::build(setup.problem, costs, ready, no_floors, true, kNoLimit, 2));
}
