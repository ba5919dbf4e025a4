#pragma once
// The cluster a plan runs on: the collective cost model that prices every
// all-reduce and all-gather of the plan, its network and GPUs per node. Read
// from a cluster file (the `collective`, `gpus_per_node` and `network` keys of
// a run config, docs/plan.md) or the documented default.

#include <filesystem>
#include <memory>
#include <string>

#include "mgsim/collective.hpp"

namespace mgsim::plan {

struct Cluster {
  std::string collective = "hierarchical";
  CollectiveSettings settings;  ///< with the collective's parameters
  std::string source;  ///< the file it came from, or "default"

  /// Builds the cost model for a plan of `gpus` devices. Throws ConfigError
  /// at the file's `gpus_per_node` where a power-of-two group up to `gpus`,
  /// each of which a plan prices, does not fill whole nodes.
  std::unique_ptr<Collective> make_collective(int gpus) const;
};

/// 8 GPUs per node over NVLink-class links (5 us, 150 GB/s), nodes over
/// 100 Gb/s InfiniBand-class links (10 us, 12.5 GB/s), hierarchical all-reduce.
Cluster default_cluster();

/// Throws ConfigError naming the file and key; rejects the `measured` model,
/// which cannot price the group sizes a plan needs.
Cluster load_cluster(const std::filesystem::path& file);

}  // namespace mgsim::plan
