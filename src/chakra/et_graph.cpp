#include "et_graph.hpp"

#include <fmt/format.h>

#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>

#include "mgsim/error.hpp"

namespace mgsim::chakra {
namespace {

std::unordered_map<std::uint64_t, std::size_t> index_ids(const EtFile& file, const std::string& source) {
  std::unordered_map<std::uint64_t, std::size_t> index;
  for (std::size_t i = 0; i < file.nodes.size(); ++i) {
    const auto [at, fresh] = index.emplace(file.nodes[i].id(), i);
    if (!fresh) {
      throw TraceError(fmt::format("{}: id given twice (first at byte {})", describe(file, i, source),
                                   file.offsets[at->second]));
    }
  }
  return index;
}

void add_parents(const EtFile& file, const std::unordered_map<std::uint64_t, std::size_t>& index, std::size_t i,
                 EtGraph& graph) {
  const ChakraProtoMsg::Node& node = file.nodes[i];
  for (const auto* deps : {&node.data_deps(), &node.ctrl_deps()}) {
    for (std::uint64_t dep : *deps) {
      const auto parent = index.find(dep);
      if (parent == index.end()) {
        ++graph.dangling;
      } else {
        graph.parents[i].push_back(parent->second);
      }
    }
  }
}

}  // namespace

std::string describe(const EtFile& file, std::size_t index, const std::string& source) {
  const ChakraProtoMsg::Node& node = file.nodes[index];
  return fmt::format("{}: node id {} ('{}', byte {})", source, node.id(), node.name(), file.offsets[index]);
}

EtGraph order_nodes(const EtFile& file, const std::string& source) {
  const std::unordered_map<std::uint64_t, std::size_t> index = index_ids(file, source);
  const std::size_t n = file.nodes.size();
  EtGraph graph;
  graph.parents.resize(n);
  std::vector<std::vector<std::size_t>> children(n);
  std::vector<std::size_t> waiting(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    add_parents(file, index, i, graph);
    waiting[i] = graph.parents[i].size();
    for (std::size_t p : graph.parents[i]) children[p].push_back(i);
  }
  // Of the nodes ready together, the one recorded to start first, then the first in the file (red team: a file
  // written in reverse sent the gradients in reverse, whatever the start times said).
  using Ready = std::pair<std::uint64_t, std::size_t>;  // start_time_micros, index
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  const auto push = [&](std::size_t i) { ready.emplace(file.nodes[i].start_time_micros(), i); };
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) push(i);
  }
  while (!ready.empty()) {
    const std::size_t i = ready.top().second;
    ready.pop();
    graph.order.push_back(i);
    for (std::size_t c : children[i]) {
      if (--waiting[c] == 0) push(c);
    }
  }
  if (graph.order.size() < n) {
    std::size_t stuck = 0;
    while (waiting[stuck] == 0) ++stuck;
    throw TraceError(fmt::format("{}: its dependencies form a cycle ({} nodes never become ready)",
                                 describe(file, stuck, source), n - graph.order.size()));
  }
  return graph;
}

}  // namespace mgsim::chakra
