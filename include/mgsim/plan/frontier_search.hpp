#pragma once
// Frontier tracking (TensorOpt's FT search): the Pareto frontier of
// (iteration time, memory per device) over every assignment of strategies to
// operators. The operator graph is reduced as in OptCNN: a node with one
// neighbour is folded into it, a node with two is replaced by an edge between
// them, parallel edges are merged; every table entry is a frontier, combined
// by Minkowski sum, then dominated points dropped. Whatever does not reduce
// is finished by a dynamic program over a topological order whose states are
// the strategies of the operators still connected to later ones.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "mgsim/plan/cost_model.hpp"

namespace mgsim::plan {

struct SearchOptions {
  /// Most points kept in any table entry; more are thinned to evenly spaced ones.
  std::size_t frontier_bound = 32;
  /// Points above this many bytes per device are dropped as soon as they appear.
  std::int64_t memory_limit = std::numeric_limits<std::int64_t>::max();
  /// Most states the topological dynamic program may hold; past it the search fails with ConfigError.
  std::size_t max_dp_states = 1 << 16;
  /// Most candidate plans the search may offer its frontiers (its work), every
  /// ZeRO stage together; past it the search fails with ConfigError.
  double max_candidates = std::numeric_limits<double>::infinity();
  double offered_before = 0.0;  ///< candidates earlier searches of the same budget offered
};

/// One frontier point: its exact cost (CostModel::evaluate) and strategies.
struct PlanPoint {
  Cost cost;
  std::vector<std::size_t> assignment;  ///< strategy index per operator
  int zero_stage = 0;                   ///< the cost model's (CostSettings::zero_stage)
};

struct SearchResult {
  std::vector<PlanPoint> frontier;  ///< fastest first, memory strictly decreasing
  /// Pure data parallelism, priced exactly whether or not it fits the memory
  /// limit (a candidate of the frontier where it does); empty where the batch
  /// cannot be split that way. Of the first stage searched.
  std::optional<PlanPoint> data_parallel;
  /// No entry was thinned and the shares added up (CostModel::shares_add_up),
  /// at every stage searched: the frontier is then the exact one.
  bool exact = false;
  std::size_t frontier_bound = 0;
  std::size_t thinned = 0;         ///< table entries cut to the bound (0: nothing was lost to it)
  std::size_t eliminated = 0;      ///< operators removed by node elimination or folding
  std::size_t merged_edges = 0;    ///< parallel edges merged
  std::size_t dp_operators = 0;    ///< operators left to the topological dynamic program
  double candidates = 0.0;         ///< candidate plans offered, SearchOptions::offered_before included
};

/// The Pareto set of `points`: fastest first, memory strictly decreasing;
/// of points of equal cost the one of the lowest ZeRO stage stays.
std::vector<PlanPoint> pareto_points(std::vector<PlanPoint> points);

SearchResult search_frontier(const CostModel& model, const SearchOptions& options);

}  // namespace mgsim::plan
