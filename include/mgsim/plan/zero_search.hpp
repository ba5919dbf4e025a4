#pragma once
// The ZeRO stage as a dimension of a plan: one frontier search per stage
// (CostSettings::zero_stage), each on its own cost model, and the Pareto
// frontier of their union, each point tagged with the stage it came from.
// Every search is the unchanged frontier search, so the union is exact
// whenever each search is. `mgsim plan --zero` (docs/plan.md).

#include <span>
#include <vector>

#include "mgsim/plan/cost_model.hpp"
#include "mgsim/plan/frontier_search.hpp"

namespace mgsim::plan {

/// Every stage, 0 .. kMaxZeroStage: what `--zero auto` searches.
inline constexpr int kAllZeroStages[] = {0, 1, 2, 3};

struct StagedSearch {
  std::vector<CostModel> models;  ///< one per stage searched, in the order given
  /// The frontier of the union, fastest first, memory strictly decreasing
  /// (the lower stage on a tie); statistics summed over the searches,
  /// except eliminated, merged_edges and dp_operators, the same in each.
  SearchResult result;
  /// The cost model of a searched stage (of a point: its zero_stage).
  const CostModel& model(int stage) const;
};

/// Searches `base` under each of `stages` (at least one, each in 0 ..
/// kMaxZeroStage; ConfigError otherwise). The graph, GPU and collective
/// must outlive the result.
StagedSearch search_zero_stages(const zoo::ModelGraph& graph, const zoo::GpuSpec& gpu, const Collective& collective,
                                const CostSettings& base, std::span<const int> stages, const SearchOptions& options);

}  // namespace mgsim::plan
