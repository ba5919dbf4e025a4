#include "mgsim/plan/zero_search.hpp"

#include <iterator>

#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim::plan {

const CostModel& StagedSearch::model(int stage) const {
  for (const CostModel& m : models) {
    if (m.settings().zero_stage == stage) return m;
  }
  throw ConfigError(fmt::format("plan: ZeRO stage {} was not searched", stage));
}

StagedSearch search_zero_stages(const zoo::ModelGraph& graph, const zoo::GpuSpec& gpu, const Collective& collective,
                                const CostSettings& base, std::span<const int> stages, const SearchOptions& options) {
  if (stages.empty()) throw ConfigError("plan: expected at least one ZeRO stage to search");
  StagedSearch out;
  out.models.reserve(stages.size());
  std::vector<PlanPoint> all;
  for (const int stage : stages) {
    if (stage < 0 || stage > kMaxZeroStage) {
      throw ConfigError(fmt::format("plan: expected a ZeRO stage in 0..{}, got {}", kMaxZeroStage, stage));
    }
    CostSettings settings = base;
    settings.zero_stage = stage;
    const CostModel& model = out.models.emplace_back(graph, gpu, collective, settings);
    SearchOptions budget = options;  // one budget for every stage
    budget.offered_before = out.result.candidates;
    SearchResult one = search_frontier(model, budget);
    std::move(one.frontier.begin(), one.frontier.end(), std::back_inserter(all));
    const std::size_t thinned = out.result.thinned + one.thinned;
    const bool exact = (out.models.size() == 1 || out.result.exact) && one.exact;
    if (out.models.size() > 1) one.data_parallel = std::move(out.result.data_parallel);  // the first stage's
    one.frontier.clear();
    out.result = std::move(one);
    out.result.thinned = thinned;
    out.result.exact = exact;
  }
  out.result.frontier = pareto_points(std::move(all));
  return out;
}

}  // namespace mgsim::plan
