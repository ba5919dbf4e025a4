#pragma once
// The textbook all-reduce cost models (docs/domain.md section 2, docs/collectives.md).

#include <memory>

#include "mgsim/collective.hpp"

namespace mgsim {

std::unique_ptr<Collective> make_ring(const CollectiveSettings& settings);
std::unique_ptr<Collective> make_binary_tree(const CollectiveSettings& settings);
std::unique_ptr<Collective> make_recursive_doubling(const CollectiveSettings& settings);
std::unique_ptr<Collective> make_rabenseifner(const CollectiveSettings& settings);
std::unique_ptr<Collective> make_double_binary_tree(const CollectiveSettings& settings);
std::unique_ptr<Collective> make_hierarchical(const CollectiveSettings& settings);

/// Ring all-reduce over `ranks` on one link (shared by ring and hierarchical).
double ring_allreduce_seconds(const Link& link, double bytes, int ranks);

}  // namespace mgsim
