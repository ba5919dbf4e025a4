#pragma once
// The dependency graph of an ET file and the reading paths built on it:
// nodes in a topological order (file order among the ready), a cycle or a
// repeated id refused, dependencies on nodes absent from the file counted
// (Chakra's PyTorch converter leaves some) and reported by the importer.
#include <cstddef>
#include <string>
#include <vector>

#include "et_stream.hpp"
#include "mgsim/chakra/chakra.hpp"

namespace mgsim::chakra {

struct EtGraph {
  std::vector<std::size_t> order;  ///< node indices, each after every node it depends on
  std::vector<std::vector<std::size_t>> parents;  ///< per node: the indices of the nodes it depends on
  std::size_t dangling = 0;                       ///< dependencies on ids no node of the file has
};

/// Throws TraceError naming `source` and the node for a repeated id or a cycle.
EtGraph order_nodes(const EtFile& file, const std::string& source);

/// "<source>: node id N ('name', byte B)", for messages.
std::string describe(const EtFile& file, std::size_t index, const std::string& source);

/// Reads a file mgsim exported, from its mgsim_* attributes.
Imported import_mgsim(const EtFile& file, const EtGraph& graph, const std::string& source);

/// Reads any other data-parallel ET by the rules of docs/chakra.md.
Imported import_generic(const EtFile& file, const EtGraph& graph, const std::string& source);

}  // namespace mgsim::chakra
