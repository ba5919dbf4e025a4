// The exact OMGS search's lazy envelope (src/core/omgs_fronts.hpp) against
// the Pareto set taken the plain way: every candidate of every run, sorted,
// each kept when its E is below all before it.

#include <algorithm>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "omgs_fronts.hpp"

using namespace mgsim;
using namespace mgsim::omgs;

namespace {

/// A Pareto set of `size` states, S rising and E falling, in steps drawn
/// from 1..`step` ns (small steps make equal candidates across runs).
std::vector<State> random_set(std::mt19937_64& rng, int size, SimTime step) {
  std::uniform_int_distribution<SimTime> gap(1, step);
  std::vector<State> set;
  SimTime shift = gap(rng), channel_free = 1'000'000;
  for (int i = 0; i < size; ++i) {
    set.push_back({shift, channel_free, 0, i});
    shift += gap(rng);
    channel_free -= gap(rng);
  }
  return set;
}

/// The Pareto set of every candidate of `runs`, in the order of before().
std::vector<State> plain_pareto(const std::vector<Run>& runs) {
  std::vector<State> all;
  for (const Run& run : runs) {
    for (std::size_t i = run.begin(); i < run.end(); ++i) all.push_back(run.at(i));
  }
  std::sort(all.begin(), all.end(), before);
  std::vector<State> kept;
  for (const State& s : all) {
    if (kept.empty() || s.channel_free < kept.back().channel_free) kept.push_back(s);
  }
  return kept;
}

bool same(const State& a, const State& b) {
  return a.shift == b.shift && a.channel_free == b.channel_free && a.from_boundary == b.from_boundary &&
         a.from_state == b.from_state;
}

}  // namespace

TEST_CASE("OMGS fronts: the lazy envelope of the runs is their plain Pareto set, state for state") {
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<int> run_count(1, 12), size(1, 300);
  std::uniform_int_distribution<SimTime> cost(0, 4'000), step(1, 400);
  for (int trial = 0; trial < 400; ++trial) {
    const int count = run_count(rng);
    std::vector<std::vector<State>> sets;
    for (int g = 0; g < count; ++g) sets.push_back(random_set(rng, size(rng), step(rng)));
    std::vector<Run> runs;
    for (int g = count - 1; g >= 0; --g) {  // later group starts first, as the search gives them
      const auto& set = sets[static_cast<std::size_t>(g)];
      // The group's gradients ready when the channel frees for one state of
      // the set: rule (5) cuts the run there (or nowhere).
      std::uniform_int_distribution<std::size_t> cut(0, set.size());
      const std::size_t at = cut(rng);
      const SimTime ready = at < set.size() ? set[at].channel_free - set[at].shift : 0;
      const SimTime selection = cost(rng), layer_end = std::max<SimTime>(0, ready - selection);
      const SimTime lag = selection > 0 ? std::max(ready, layer_end + selection) : ready;
      runs.emplace_back(set, g, ready, layer_end, selection, cost(rng), lag);
    }
    std::vector<Head> heads;
    std::vector<State> lazy;
    pareto(runs, heads, lazy);
    const std::vector<State> plain = plain_pareto(runs);
    INFO("trial " << trial);
    REQUIRE(lazy.size() == plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) CHECK(same(lazy[i], plain[i]));
  }
}
