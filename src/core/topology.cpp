#include "mgsim/topology.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim {

Graph::Graph(int vertices, std::vector<Edge> edges)
    : vertices_(vertices), degree_(static_cast<std::size_t>(std::max(vertices, 0)), 0) {
  if (vertices < 1) throw ConfigError(fmt::format("a graph needs at least one rank, got {}", vertices));
  std::set<Edge> seen;
  for (auto [a, b] : edges) {
    if (a < 0 || b < 0 || a >= vertices || b >= vertices) {
      throw ConfigError(fmt::format("edge {} {}: ranks must be in [0, {}]", a, b, vertices - 1));
    }
    if (a == b) throw ConfigError(fmt::format("edge {} {}: a rank cannot be linked to itself", a, b));
    const Edge edge{std::min(a, b), std::max(a, b)};
    if (!seen.insert(edge).second) throw ConfigError(fmt::format("edge {} {} given twice", a, b));
    ++degree_[static_cast<std::size_t>(a)];
    ++degree_[static_cast<std::size_t>(b)];
    edges_.push_back(edge);
  }
}

int Graph::max_degree() const { return *std::max_element(degree_.begin(), degree_.end()); }

bool Graph::connected() const {
  std::vector<std::vector<int>> next(static_cast<std::size_t>(vertices_));
  for (auto [a, b] : edges_) {
    next[static_cast<std::size_t>(a)].push_back(b);
    next[static_cast<std::size_t>(b)].push_back(a);
  }
  std::vector<bool> seen(static_cast<std::size_t>(vertices_), false);
  std::vector<int> stack{0};
  seen[0] = true;
  int reached = 1;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int w : next[static_cast<std::size_t>(v)]) {
      if (seen[static_cast<std::size_t>(w)]) continue;
      seen[static_cast<std::size_t>(w)] = true;
      ++reached;
      stack.push_back(w);
    }
  }
  return reached == vertices_;
}

namespace {

/// Adds the edge a-b unless it is a self-loop or already there.
void link(std::set<Edge>& seen, std::vector<Edge>& edges, int a, int b) {
  if (a == b) return;
  const Edge edge{std::min(a, b), std::max(a, b)};
  if (seen.insert(edge).second) edges.push_back(edge);
}

}  // namespace

Graph ring_graph(int ranks) {
  std::set<Edge> seen;
  std::vector<Edge> edges;
  for (int r = 0; r < ranks; ++r) link(seen, edges, r, (r + 1) % ranks);
  return Graph(ranks, std::move(edges));
}

Graph torus_graph(int ranks) {
  int rows = 1;
  for (int d = 1; static_cast<long long>(d) * d <= ranks; ++d) {
    if (ranks % d == 0) rows = d;
  }
  const int cols = ranks / rows;
  std::set<Edge> seen;
  std::vector<Edge> edges;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      const int r = i * cols + j;
      link(seen, edges, r, i * cols + (j + 1) % cols);
      link(seen, edges, r, ((i + 1) % rows) * cols + j);
    }
  }
  return Graph(ranks, std::move(edges));
}

namespace {

/// Most cells of a Colouring (4 bytes each): 1 GiB.
constexpr double kMaxColouringCells = 1 << 28;

/// A proper edge colouring in progress: at(v, c) is the rank joined to v by
/// the edge of colour c, or -1 when c is free at v.
class Colouring {
 public:
  Colouring(int vertices, int colours)
      : colours_(colours), at_(static_cast<std::size_t>(vertices) * static_cast<std::size_t>(colours), -1) {}

  int at(int v, int c) const { return at_[slot(v, c)]; }
  bool free(int v, int c) const { return at(v, c) < 0; }
  int first_free(int v) const {
    int c = 0;
    while (!free(v, c)) ++c;
    return c;
  }
  /// The colour of edge u-v, or -1 when it is uncoloured.
  int colour(int u, int v) const {
    for (int c = 0; c < colours_; ++c) {
      if (at(u, c) == v) return c;
    }
    return -1;
  }
  void set(int u, int v, int c) {
    at_[slot(u, c)] = v;
    at_[slot(v, c)] = u;
  }
  void unset(int u, int v) {
    const int c = colour(u, v);
    if (c < 0) return;
    at_[slot(u, c)] = -1;
    at_[slot(v, c)] = -1;
  }

 private:
  std::size_t slot(int v, int c) const {
    return static_cast<std::size_t>(v) * static_cast<std::size_t>(colours_) + static_cast<std::size_t>(c);
  }
  int colours_;
  std::vector<int> at_;
};

/// The maximal fan of u starting at v (edge u-v uncoloured): each next rank
/// f is a neighbour of u whose edge u-f has a colour free at the previous one.
std::vector<int> maximal_fan(const Colouring& colouring, const std::vector<std::vector<int>>& next, int u, int v) {
  std::vector<int> fan{v};
  for (bool grown = true; grown;) {
    grown = false;
    for (int f : next[static_cast<std::size_t>(u)]) {
      const int c = colouring.colour(u, f);
      if (c < 0 || !colouring.free(fan.back(), c) || std::find(fan.begin(), fan.end(), f) != fan.end()) continue;
      fan.push_back(f);
      grown = true;
      break;
    }
  }
  return fan;
}

/// Swaps colours c and d on the path from u that alternates d, c, d, ...
void invert_path(Colouring& colouring, int u, int c, int d) {
  std::vector<Edge> path;
  std::vector<int> colour_of;
  for (int v = u, colour = d; colouring.at(v, colour) >= 0; colour = colour == d ? c : d) {
    const int w = colouring.at(v, colour);
    path.emplace_back(v, w);
    colour_of.push_back(colour);
    v = w;
  }
  for (auto [a, b] : path) colouring.unset(a, b);
  for (std::size_t i = 0; i < path.size(); ++i) colouring.set(path[i].first, path[i].second, colour_of[i] == d ? c : d);
}

/// Colours the uncoloured edge u-v: the smallest colour free at both ends,
/// or, when there is none, by a Misra-Gries step (Misra and Gries, 1992).
void colour_edge(Colouring& colouring, const std::vector<std::vector<int>>& next, int u, int v, int colours) {
  for (int c = 0; c < colours; ++c) {
    if (colouring.free(u, c) && colouring.free(v, c)) return colouring.set(u, v, c);
  }
  const std::vector<int> fan = maximal_fan(colouring, next, u, v);
  const int c = colouring.first_free(u);
  const int d = colouring.first_free(fan.back());
  if (c != d) invert_path(colouring, u, c, d);
  // The first w of the fan whose prefix is still a fan and at which d is free.
  std::size_t w = 0;
  for (; w < fan.size(); ++w) {
    if (w > 0) {
      const int link_colour = colouring.colour(u, fan[w]);
      if (link_colour < 0 || !colouring.free(fan[w - 1], link_colour)) break;
    }
    if (colouring.free(fan[w], d)) break;
  }
  // Rotate the prefix: u-fan[i] takes the colour of u-fan[i + 1]; u-fan[w] gets d.
  std::vector<int> shifted;
  for (std::size_t i = 0; i < w; ++i) shifted.push_back(colouring.colour(u, fan[i + 1]));
  for (std::size_t i = 0; i <= w; ++i) colouring.unset(u, fan[i]);
  for (std::size_t i = 0; i < w; ++i) colouring.set(u, fan[i], shifted[i]);
  colouring.set(u, fan[w], d);
}

}  // namespace

std::vector<std::vector<Edge>> decompose_matchings(const Graph& graph) {
  if (graph.edges().empty()) return {};
  const int colours = graph.max_degree() + 1;
  // A table of a colour per rank and colour: a star of 200,000 ranks asked 160 GB (red team: std::bad_alloc).
  if (static_cast<double>(graph.vertices()) * colours > kMaxColouringCells) {
    throw ConfigError(fmt::format("a graph of {} ranks and degree up to {}: colouring its edges into matchings takes "
                                  "{:.3g} table cells, expected at most {:.3g} (fewer ranks or a sparser graph)",
                                  graph.vertices(), graph.max_degree(), static_cast<double>(graph.vertices()) * colours,
                                  kMaxColouringCells));
  }
  std::vector<std::vector<int>> next(static_cast<std::size_t>(graph.vertices()));
  for (auto [a, b] : graph.edges()) {
    next[static_cast<std::size_t>(a)].push_back(b);
    next[static_cast<std::size_t>(b)].push_back(a);
  }
  Colouring colouring(graph.vertices(), colours);
  for (auto [a, b] : graph.edges()) colour_edge(colouring, next, a, b, colours);
  std::vector<std::vector<Edge>> matchings(static_cast<std::size_t>(colours));
  for (const Edge& edge : graph.edges()) {
    matchings[static_cast<std::size_t>(colouring.colour(edge.first, edge.second))].push_back(edge);
  }
  std::erase_if(matchings, [](const std::vector<Edge>& m) { return m.empty(); });
  return matchings;
}

}  // namespace mgsim
