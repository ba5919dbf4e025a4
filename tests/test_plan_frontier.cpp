// Frontier search against exhaustive enumeration on small graphs: every
// assignment of strategies is costed with CostModel::evaluate and its Pareto
// set kept; the search must return exactly that set.

#include <algorithm>
#include <random>
#include <limits>
#include <tuple>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "mgsim/plan/cost_model.hpp"
#include "mgsim/plan/frontier.hpp"
#include "mgsim/plan/frontier_search.hpp"
#include "mgsim/plan/zero_search.hpp"
#include "mgsim/zoo/graph_builder.hpp"

namespace {

using namespace mgsim;
using namespace mgsim::plan;
using mgsim::zoo::GraphBuilder;
using mgsim::zoo::ModelGraph;
using mgsim::zoo::Tensor;

/// Ring over a link without latency: every start-up term is 0, so the
/// operator and edge costs the search adds are exactly what evaluate() adds.
std::unique_ptr<Collective> ring_without_latency() {
  CollectiveSettings cs;
  cs.network.inter = cs.network.intra = {0.0, 1e-9, 1e-10};
  return find_collective("ring").make(cs);
}

CostSettings cost_settings(int devices, bool replication) {
  CostSettings s;
  s.devices = devices;
  s.roofline = zoo::RooflineSettings::defaults_for(zoo::find_gpu("v100"));
  s.optimizer = Optimizer::adam;
  s.allow_replication = replication;
  return s;
}

/// The Pareto set of all assignments, fastest first.
std::vector<Cost> exhaustive_frontier(const CostModel& m) {
  std::vector<std::size_t> a(m.op_count(), 0);
  std::vector<Cost> all;
  while (true) {
    all.push_back(m.evaluate(a));
    std::size_t v = 0;
    while (v < a.size() && ++a[v] == m.strategies(v).size()) a[v++] = 0;
    if (v == a.size()) break;
  }
  std::sort(all.begin(), all.end(), [](const Cost& x, const Cost& y) {
    return x.time != y.time ? x.time < y.time : x.memory < y.memory;
  });
  std::vector<Cost> front;
  for (const Cost& c : all) {
    if (front.empty() || c.memory < front.back().memory) front.push_back(c);
  }
  return front;
}

std::vector<Cost> searched_frontier(const CostModel& m, SearchResult* out = nullptr) {
  SearchOptions o;
  o.frontier_bound = 1000;  // never reached on these graphs: the search is exact
  const SearchResult r = search_frontier(m, o);
  CHECK(r.thinned == 0);
  std::vector<Cost> front;
  for (const PlanPoint& p : r.frontier) {
    CHECK(m.evaluate(p.assignment) == p.cost);  // each point's strategies give its cost
    front.push_back(p.cost);
  }
  if (out) *out = r;
  return front;
}

/// x -> fc1 -> gelu -> fc2 -> layernorm
ModelGraph chain() {
  GraphBuilder b("chain", 32, 4);
  const Tensor x = b.input("x", {32, 256});
  const Tensor h = b.activation("gelu", b.linear("fc1", x, 1024));
  b.layernorm("ln", b.linear("fc2", h, 256));
  return b.finish();
}

/// x -> (left, right) -> add -> out: two paths that meet again.
ModelGraph diamond() {
  GraphBuilder b("diamond", 16, 4);
  const Tensor x = b.input("x", {16, 512});
  const Tensor left = b.linear("left", x, 512);
  const Tensor right = b.activation("right", b.linear("right_fc", x, 512));
  b.linear("out", b.add("add", {left, right}), 64);
  return b.finish();
}

/// ResNet's basic block: conv-bn-relu-conv-bn, plus the input, relu.
ModelGraph residual_block() {
  GraphBuilder b("residual", 8, 4);
  const Tensor x = b.input("x", {8, 64, 14, 14});
  Tensor y = b.activation("relu1", b.batchnorm("bn1", b.conv2d("conv1", x, zoo::conv_spec(64, 3, 1, 1, false))));
  y = b.batchnorm("bn2", b.conv2d("conv2", y, zoo::conv_spec(64, 3, 1, 1, false)));
  b.activation("relu2", b.add("add", {x, y}));
  return b.finish();
}

/// Every operator feeds every later one (a K4 with a tail): no node has two
/// neighbours, so only the topological dynamic program can finish it.
ModelGraph complete() {
  GraphBuilder b("complete", 16, 4);
  const Tensor x = b.input("x", {16, 128});
  const Tensor a = b.activation("a", x);
  const Tensor s = b.add("s", {x, a});
  const Tensor t = b.add("t", {x, a, s});
  b.linear("out", t, 32);
  return b.finish();
}

/// Six operators on 16 x 64 tensors, each an activation, a sum of two
/// earlier tensors (possibly the same one twice) or a linear layer of an
/// earlier tensor: random series-parallel and non-series-parallel shapes.
ModelGraph random_graph(std::mt19937& rng) {
  GraphBuilder b("random", 16, 4);
  std::vector<Tensor> made{b.input("x", {16, 64})};
  for (int i = 0; i < 6; ++i) {
    const auto pick = [&] { return made[std::uniform_int_distribution<std::size_t>(0, made.size() - 1)(rng)]; };
    const std::string name = "op" + std::to_string(i);
    switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
      case 0: made.push_back(b.activation(name, pick())); break;
      case 1: made.push_back(b.add(name, {pick(), pick()})); break;
      default: made.push_back(b.linear(name, pick(), 64)); break;
    }
  }
  return b.finish();
}

/// (time, memory, ZeRO stage) of a frontier point.
using StagedCost = std::tuple<SimTime, std::int64_t, int>;

/// The Pareto set of every assignment under every ZeRO stage, fastest first;
/// of equal costs the lowest stage.
std::vector<StagedCost> exhaustive_staged_frontier(const ModelGraph& g, const Collective& c, CostSettings s) {
  std::vector<StagedCost> all;
  for (int stage = 0; stage <= kMaxZeroStage; ++stage) {
    s.zero_stage = stage;
    const CostModel m(g, zoo::find_gpu("v100"), c, s);
    std::vector<std::size_t> a(m.op_count(), 0);
    while (true) {
      const Cost cost = m.evaluate(a);
      all.emplace_back(cost.time, cost.memory, stage);
      std::size_t v = 0;
      while (v < a.size() && ++a[v] == m.strategies(v).size()) a[v++] = 0;
      if (v == a.size()) break;
    }
  }
  std::sort(all.begin(), all.end());
  std::vector<StagedCost> front;
  for (const StagedCost& c : all) {
    if (front.empty() || std::get<1>(c) < std::get<1>(front.back())) front.push_back(c);
  }
  return front;
}

}  // namespace

TEST_CASE("plan: searching every ZeRO stage equals exhaustive enumeration of stages and strategies", "[plan]") {
  const auto ring = ring_without_latency();
  SearchOptions o;
  o.frontier_bound = 1000;
  // Whether sharded states reach the frontier: the diamond's 512 x 512 weights on 16 samples are
  // best split by features (no replicas, nothing to shard), the chain and the block keep replicas.
  const std::pair<ModelGraph (*)(), bool> cases[] = {{chain, true}, {diamond, false}, {residual_block, true}};
  for (const auto& [make, shards] : cases) {
    const ModelGraph g = make();
    INFO(g.model());
    const StagedSearch searched = search_zero_stages(g, zoo::find_gpu("v100"), *ring, cost_settings(4, false), kAllZeroStages, o);
    std::vector<StagedCost> found;
    for (const PlanPoint& p : searched.result.frontier) found.emplace_back(p.cost.time, p.cost.memory, p.zero_stage);
    const std::vector<StagedCost> expected = exhaustive_staged_frontier(g, *ring, cost_settings(4, false));
    CHECK(found == expected);
    CHECK(std::any_of(expected.begin(), expected.end(), [](const StagedCost& c) { return std::get<2>(c) > 0; }) == shards);
  }
}

TEST_CASE("plan: on random small graphs the frontier equals exhaustive enumeration", "[plan]") {
  std::mt19937 rng(12);
  const auto ring = ring_without_latency();
  for (int trial = 0; trial < 25; ++trial) {
    const ModelGraph g = random_graph(rng);
    const CostModel m(g, zoo::find_gpu("v100"), *ring, cost_settings(4, false));
    INFO("trial " << trial);
    CHECK(searched_frontier(m) == exhaustive_frontier(m));
  }
}

TEST_CASE("plan: on a chain the frontier equals exhaustive enumeration", "[plan]") {
  const ModelGraph g = chain();
  const auto ring = ring_without_latency();
  for (const bool replication : {false, true}) {
    const CostModel m(g, zoo::find_gpu("v100"), *ring, cost_settings(4, replication));
    const std::vector<Cost> expected = exhaustive_frontier(m);
    CHECK(expected.size() > 1);  // a real trade-off, not one point
    CHECK(searched_frontier(m) == expected);
  }
}

TEST_CASE("plan: on a diamond the frontier equals exhaustive enumeration", "[plan]") {
  const ModelGraph g = diamond();
  const auto ring = ring_without_latency();
  const CostModel m(g, zoo::find_gpu("v100"), *ring, cost_settings(4, false));
  const std::vector<Cost> expected = exhaustive_frontier(m);
  CHECK(expected.size() > 1);
  CHECK(searched_frontier(m) == expected);
}

TEST_CASE("plan: on a residual block the frontier equals exhaustive enumeration", "[plan]") {
  const ModelGraph g = residual_block();
  const auto ring = ring_without_latency();
  const CostModel m(g, zoo::find_gpu("v100"), *ring, cost_settings(4, false));
  const std::vector<Cost> expected = exhaustive_frontier(m);
  CHECK(expected.size() > 1);
  CHECK(searched_frontier(m) == expected);
}

TEST_CASE("plan: a graph that does not reduce is finished by the topological dynamic program, exactly", "[plan]") {
  const ModelGraph g = complete();
  const auto ring = ring_without_latency();
  const CostModel m(g, zoo::find_gpu("v100"), *ring, cost_settings(4, false));
  SearchResult r;
  CHECK(searched_frontier(m, &r) == exhaustive_frontier(m));
  CHECK(r.dp_operators >= 4);
}

TEST_CASE("plan: a dynamic program past its states is refused before it starts, at exactly its peak", "[plan]") {
  // x, a, s and t all feed one another (out folds into t): after x, a and s the states are every combination of
  // their strategies, the peak; after t none is live.
  const ModelGraph g = complete();
  const auto ring = ring_without_latency();
  const CostModel m(g, zoo::find_gpu("v100"), *ring, cost_settings(4, false));
  REQUIRE(m.op_count() == 5);
  const std::size_t peak = m.strategies(0).size() * m.strategies(1).size() * m.strategies(2).size();
  SearchOptions o;
  o.max_dp_states = peak - 1;
  CHECK_THROWS_WITH(search_frontier(m, o), Catch::Contains("the operator graph does not reduce (4 operators left") &&
                                               Catch::Contains(fmt::format("needs {} states at its peak, past {}", peak, peak - 1)));
  o.max_dp_states = peak;
  CHECK(search_frontier(m, o).dp_operators == 4);
}

TEST_CASE("plan: a memory limit keeps exactly the frontier points that fit", "[plan]") {
  const ModelGraph g = chain();
  const auto ring = ring_without_latency();
  const CostModel m(g, zoo::find_gpu("v100"), *ring, cost_settings(4, true));
  const std::vector<Cost> all = exhaustive_frontier(m);
  const std::int64_t limit = all[all.size() / 2].memory;
  std::vector<Cost> expected;
  std::copy_if(all.begin(), all.end(), std::back_inserter(expected), [&](const Cost& c) { return c.memory <= limit; });
  SearchOptions o;
  o.frontier_bound = 1000;
  o.memory_limit = limit;
  std::vector<Cost> found;
  for (const PlanPoint& p : search_frontier(m, o).frontier) found.push_back(p.cost);
  CHECK(found == expected);
}

TEST_CASE("plan: a frontier over the bound is thinned to evenly spaced points and says so", "[plan]") {
  FrontierArena arena(3);
  // Ten points on a line: time i, memory 10 - i; all Pareto-optimal.
  Frontier line;
  for (int i = 0; i < 10; ++i) {
    Frontier leaf = arena.leaf(i, 10 - i, 0, static_cast<std::size_t>(i));
    line.push_back(leaf[0]);
  }
  arena.offer(line);
  arena.offer({{5, 9, kNoOrigin}});  // dominated by (1, 9)
  const Frontier kept = arena.take();
  // Indices 0, 9 x 1 / 2 = 4, 9: the fastest, the middle and the smallest.
  REQUIRE(kept.size() == 3);
  CHECK(kept[0].time == 0);
  CHECK(kept[1].time == 4);
  CHECK(kept[2].time == 9);
  CHECK(arena.thinned() == 1);
  std::vector<std::size_t> a(1, 99);
  arena.read_back(kept[1].origin, a);
  CHECK(a[0] == 4);
}

TEST_CASE("plan: the search counts the candidate plans it offers and stops past its budget", "[plan]") {
  // Two frontiers of 3 and 4 points: their sum offers 3 x 4 = 12 candidates, a copy of one 3 more.
  const auto line = [](FrontierArena& arena, int n) {
    Frontier f;
    for (int i = 0; i < n; ++i) f.push_back(arena.leaf(i, 10 - i, 0, static_cast<std::size_t>(i))[0]);
    return f;
  };
  FrontierArena counted(32, std::numeric_limits<std::int64_t>::max(), 15.0, 0.0);
  const Frontier three = line(counted, 3), four = line(counted, 4);
  counted.offer_sum(three, four);
  counted.offer(three);
  CHECK(counted.offered() == 15.0);
  CHECK_NOTHROW(counted.take());  // 15, not past 15
  counted.offer(three);
  CHECK_THROWS_WITH(counted.take(), Catch::Contains("offered more than 15 candidate plans (--max-work"));
  // An earlier search's candidates count against the same budget: every ZeRO stage together.
  const ModelGraph g = chain();
  const auto ring = ring_without_latency();
  SearchOptions o;
  const StagedSearch all = search_zero_stages(g, zoo::find_gpu("v100"), *ring, cost_settings(4, true), kAllZeroStages, o);
  const SearchResult one = search_frontier(CostModel(g, zoo::find_gpu("v100"), *ring, cost_settings(4, true)), o);
  CHECK(all.result.candidates > one.candidates);
  o.max_candidates = all.result.candidates;
  CHECK_NOTHROW(search_zero_stages(g, zoo::find_gpu("v100"), *ring, cost_settings(4, true), kAllZeroStages, o));
  o.max_candidates = all.result.candidates - 1;
  CHECK_THROWS_WITH(search_zero_stages(g, zoo::find_gpu("v100"), *ring, cost_settings(4, true), kAllZeroStages, o),
                    Catch::Contains("--max-work"));
}
