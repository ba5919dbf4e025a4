// Communication graphs and their decomposition into matchings.

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "mgsim/error.hpp"
#include "mgsim/io/graph_io.hpp"
#include "mgsim/topology.hpp"
#include "test_data.hpp"

using namespace mgsim;

namespace {

/// Checks what decompose_matchings promises, edge by edge.
void check_decomposition(const Graph& graph) {
  const auto matchings = decompose_matchings(graph);
  std::multiset<Edge> covered;
  for (const auto& matching : matchings) {
    REQUIRE_FALSE(matching.empty());
    std::set<int> ranks;
    for (auto [a, b] : matching) {
      REQUIRE(ranks.insert(a).second);  // no rank twice in one matching
      REQUIRE(ranks.insert(b).second);
      covered.insert({a, b});
    }
  }
  const std::multiset<Edge> edges(graph.edges().begin(), graph.edges().end());
  REQUIRE(covered == edges);  // every edge exactly once
  if (!graph.edges().empty()) REQUIRE(static_cast<int>(matchings.size()) <= graph.max_degree() + 1);
}

}  // namespace

TEST_CASE("a ring links each rank to the next and a torus to its right and lower neighbours") {
  CHECK(ring_graph(1).edges().empty());
  CHECK(ring_graph(2).edges() == std::vector<Edge>{{0, 1}});
  CHECK(ring_graph(4).edges() == std::vector<Edge>{{0, 1}, {1, 2}, {2, 3}, {0, 3}});
  // 16 ranks: 4 x 4, every rank of degree 4, 32 edges.
  const Graph torus = torus_graph(16);
  CHECK(torus.edges().size() == 32);
  for (int r = 0; r < 16; ++r) CHECK(torus.degree(r) == 4);
  // 6 ranks: 2 x 3; the vertical wrap of 2 rows doubles the same edge, kept once: 6 + 3 = 9 edges.
  CHECK(torus_graph(6).edges().size() == 9);
  // A prime count is a 1 x n torus: the ring.
  CHECK(torus_graph(7).edges().size() == 7);
  CHECK(torus_graph(2048).max_degree() == 4);  // 32 x 64
}

TEST_CASE("a graph refuses self-loops, repeated edges and ranks out of range") {
  CHECK_THROWS_AS(Graph(3, {{0, 0}}), ConfigError);
  CHECK_THROWS_AS(Graph(3, {{0, 1}, {1, 0}}), ConfigError);
  CHECK_THROWS_AS(Graph(3, {{0, 3}}), ConfigError);
  CHECK_THROWS_AS(Graph(0, {}), ConfigError);
  CHECK(Graph(3, {{0, 1}, {2, 1}}).connected());
  CHECK_FALSE(Graph(3, {{0, 1}}).connected());
}

TEST_CASE("an even ring splits into two matchings and an odd ring into three") {
  // An even cycle is 2-edge-colourable; an odd one needs 3 (its chromatic index).
  CHECK(decompose_matchings(ring_graph(8)).size() == 2);
  CHECK(decompose_matchings(ring_graph(7)).size() == 3);
}

TEST_CASE("every graph on up to 5 ranks decomposes into valid matchings") {
  // Exhaustive: each subset of the possible edges of n ranks is one graph.
  for (int n = 1; n <= 5; ++n) {
    std::vector<Edge> all;
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) all.emplace_back(a, b);
    }
    for (unsigned mask = 0; mask < (1u << all.size()); ++mask) {
      std::vector<Edge> edges;
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (mask & (1u << i)) edges.push_back(all[i]);
      }
      check_decomposition(Graph(n, edges));
    }
  }
}

TEST_CASE("random graphs, dense and sparse, decompose into at most max degree + 1 matchings") {
  std::mt19937_64 random(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 2 + static_cast<int>(random() % 30);
    const double density = static_cast<double>(random() % 1000) / 1000.0;
    std::vector<Edge> edges;
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (static_cast<double>(random() % 1000) / 1000.0 < density) edges.emplace_back(b, a);
      }
    }
    std::shuffle(edges.begin(), edges.end(), random);
    check_decomposition(Graph(n, edges));
  }
  check_decomposition(torus_graph(2048));
}

TEST_CASE("a graph file gives its ranks and edges; the Petersen graph needs 4 matchings") {
  // Petersen: 10 ranks, 15 edges, 3-regular, chromatic index 4 (it is not 3-edge-colourable).
  const Graph petersen = load_graph(mgsim::test::kTestData + "graphs/petersen.txt");
  CHECK(petersen.vertices() == 10);
  CHECK(petersen.edges().size() == 15);
  CHECK(petersen.max_degree() == 3);
  CHECK(decompose_matchings(petersen).size() == 4);
  check_decomposition(petersen);
}
