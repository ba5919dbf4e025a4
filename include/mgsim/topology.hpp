#pragma once
// Communication graphs of decentralized training (D-PSGD, MATCHA): which
// ranks exchange models with which. A Graph is an undirected simple graph on
// the ranks 0..n-1; the ring and the 2-D torus are built here, a graph from a
// file is read by the io layer (docs/decentralized.md gives the format).
// decompose_matchings() splits a graph into matchings (sets of edges without a
// shared rank) by the Misra-Gries edge colouring: every edge in exactly one
// matching, at most max degree + 1 matchings (Vizing's bound).

#include <string_view>
#include <utility>
#include <vector>

namespace mgsim {

/// An undirected edge between two distinct ranks, stored with first < second.
using Edge = std::pair<int, int>;

class Graph {
 public:
  /// `vertices` ranks and `edges`; throws ConfigError for a rank out of
  /// range, a self-loop or an edge given twice (in either direction).
  Graph(int vertices, std::vector<Edge> edges);

  int vertices() const { return vertices_; }
  /// The edges with first < second, in the order given.
  const std::vector<Edge>& edges() const { return edges_; }
  int degree(int vertex) const { return degree_[static_cast<std::size_t>(vertex)]; }
  int max_degree() const;
  /// Every rank reachable from rank 0 (true for one rank).
  bool connected() const;

 private:
  int vertices_;
  std::vector<Edge> edges_;
  std::vector<int> degree_;
};

/// Rank r linked to r + 1 mod n: n edges for n >= 3, one for n = 2, none for 1.
Graph ring_graph(int ranks);

/// The 2-D torus rows x cols with rows the largest divisor of `ranks` not
/// above its square root (a prime count gives 1 x n: the ring). Rank
/// r = i cols + j is linked to its right and lower neighbours, wrapping;
/// an edge that wraps onto one already there (a side of 1 or 2) appears once.
Graph torus_graph(int ranks);

/// The edges of `graph` split into matchings, in the order of the colours of
/// a Misra-Gries edge colouring that visits the edges in the graph's order:
/// deterministic, each edge in exactly one matching, no two edges of a
/// matching sharing a rank, at most max_degree + 1 matchings, none empty.
std::vector<std::vector<Edge>> decompose_matchings(const Graph& graph);

}  // namespace mgsim
