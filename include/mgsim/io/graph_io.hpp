#pragma once
// Reading a communication graph for the gossip builders (D-PSGD, MATCHA)
// from a text file (format in docs/decentralized.md): '#' starts a comment,
// the first line left is "ranks N", every other one an edge "a b" between
// ranks in [0, N). The graph must be connected.

#include <filesystem>

#include "mgsim/topology.hpp"

namespace mgsim {

/// Throws ConfigError "<file>: line L: ..." for anything else.
Graph load_graph(const std::filesystem::path& file);

}  // namespace mgsim
