#include "mgsim/io/graph_io.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/limits.hpp"

namespace mgsim {
namespace {

/// The whitespace-separated words of `line` before any '#'.
std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line.substr(0, line.find('#')));
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

/// `word` as an integer in [0, upper), or -1.
int rank_number(const std::string& word, int upper) {
  int value = -1;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  return error == std::errc() && end == word.data() + word.size() && value >= 0 && value < upper ? value : -1;
}

}  // namespace

Graph load_graph(const std::filesystem::path& file) {
  const std::string text = read_input_file(file, InputKind::config);
  check_utf8(text, file.string(), InputKind::config);
  std::istringstream in(text);
  int ranks = 0;
  std::vector<Edge> edges;
  std::map<Edge, int> line_of;  // each edge's line, either way round: a repeat names both (red team: neither)
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    const auto fail = [&](const std::string& what) {
      throw ConfigError(fmt::format("{}: line {}: {}", file.string(), number, what));
    };
    if (ranks == 0) {
      if (w.size() != 2 || w[0] != "ranks" || (ranks = rank_number(w[1], kMaxGpus + 1)) < 1) {
        fail(fmt::format("expected \"ranks N\" with N in [1, {}] first, got '{}'", kMaxGpus, printable(line)));
      }
      continue;
    }
    const int a = w.size() == 2 ? rank_number(w[0], ranks) : -1;
    const int b = w.size() == 2 ? rank_number(w[1], ranks) : -1;
    if (a < 0 || b < 0) fail(fmt::format("expected an edge \"a b\" of two ranks in [0, {}], got '{}'", ranks - 1, printable(line)));
    if (a == b) fail(fmt::format("rank {} linked to itself", a));
    if (const auto [first, added] = line_of.emplace(Edge{std::min(a, b), std::max(a, b)}, number); !added) {
      fail(fmt::format("edge {} {} given twice (first on line {})", a, b, first->second));
    }
    edges.emplace_back(a, b);
  }
  if (ranks == 0) throw ConfigError(fmt::format("{}: expected \"ranks N\" and edges, got no graph", file.string()));
  try {
    Graph graph(ranks, std::move(edges));
    if (!graph.connected()) throw ConfigError("the graph is not connected");
    return graph;
  } catch (const ConfigError& error) {
    throw ConfigError(fmt::format("{}: {}", file.string(), error.what()));
  }
}

}  // namespace mgsim
