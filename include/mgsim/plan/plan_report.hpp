#pragma once
// What `mgsim plan` prints: the frontier (time, memory per device and a
// one-line strategy summary and ZeRO stage per point), pure data parallelism
// (under the first stage searched) for reference,
// and with a memory limit the fastest plan that fits with its per-operator
// strategies; as a table, CSV or JSON (fields in docs/plan.md).

#include <cstdint>
#include <optional>
#include <string>

#include "mgsim/plan/cost_model.hpp"
#include "mgsim/plan/frontier_search.hpp"
#include "mgsim/plan/zero_search.hpp"

namespace mgsim::plan {

/// A search and what it was asked, for the report's header.
struct PlanReport {
  const StagedSearch* search = nullptr;
  std::string gpu;
  std::string cluster;  ///< "default (hierarchical, 8 GPUs per node)" or the file
  std::string timing;   ///< what timed the operators: "the roofline of h100 at its default efficiencies"
  std::optional<std::int64_t> memory_limit;
};

/// "b16 x292, b4.f4 x96": strategies of the parameter-owning operators, most used first.
std::string summarize(const CostModel& model, const std::vector<std::size_t>& assignment);

/// Index into the frontier of the fastest point within the limit, if any.
std::optional<std::size_t> fastest_within(const SearchResult& result, std::int64_t memory_limit);

std::string format_plan_table(const PlanReport& report);
std::string format_plan_csv(const PlanReport& report);
std::string format_plan_json(const PlanReport& report);

}  // namespace mgsim::plan
