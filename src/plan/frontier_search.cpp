#include "mgsim/plan/frontier_search.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/plan/frontier.hpp"

namespace mgsim::plan {
namespace {

using zoo::OpId;

/// An edge of the graph being reduced; its table holds a frontier per pair of
/// strategies, indexed [strategy of a x strategies of b + strategy of b].
struct Edge {
  OpId a, b;
  std::vector<Frontier> table;
  bool alive = true;
};

/// The operator graph under reduction: a frontier per operator and strategy,
/// a table per edge. Starts with each operator's own cost and each edge's
/// re-layout time.
class Reducer {
 public:
  Reducer(const CostModel& model, FrontierArena& arena);

  /// Folds, bypasses and merges until nothing changes.
  void reduce(SearchResult& stats);
  /// The frontier of the whole graph: a dynamic program over what is left.
  Frontier finish(const SearchOptions& options, SearchResult& stats);

 private:
  std::size_t count(OpId v) const { return node_[v].size(); }
  static OpId other(const Edge& e, OpId v) { return e.a == v ? e.b : e.a; }
  /// The entry of edge e for node x under strategy sx and its other end under sy.
  const Frontier& entry(const Edge& e, OpId x, std::size_t sx, std::size_t sy) const {
    return e.a == x ? e.table[sx * count(e.b) + sy] : e.table[sy * count(e.b) + sx];
  }
  std::vector<std::size_t> live_edges(OpId v) const;
  bool merge_parallel(OpId v);
  void fold(OpId v, std::size_t e);
  void bypass(OpId v, std::size_t e1, std::size_t e2);
  void add_edge(OpId a, OpId b, std::vector<Frontier> table);
  bool has_later_neighbour(OpId x, const std::vector<bool>& done) const;
  /// The operators live after each step of a dynamic program over `order`:
  /// those processed with an edge to a later one, in the order processed. A
  /// state after the step holds a strategy of each.
  std::vector<std::vector<OpId>> live_after(const std::vector<OpId>& order) const;
  /// Refuses a dynamic program whose states (the strategy combinations of
  /// `live_after` each step) would pass options.max_dp_states, before it
  /// starts (red team: DenseNet was refused midway, after seconds of work).
  void check_states(const std::vector<std::vector<OpId>>& live_after, const SearchOptions& options,
                    const SearchResult& stats) const;

  const CostModel& model_;
  FrontierArena& arena_;
  std::vector<std::vector<Frontier>> node_;
  std::vector<bool> alive_;
  std::vector<Edge> edges_;
  std::vector<std::vector<std::size_t>> incident_;
};

Reducer::Reducer(const CostModel& model, FrontierArena& arena)
    : model_(model), arena_(arena), node_(model.op_count()), alive_(model.op_count(), true),
      incident_(model.op_count()) {
  for (OpId v = 0; v < model.op_count(); ++v) {
    for (std::size_t i = 0; i < model.strategies(v).size(); ++i) {
      const Cost& c = model.op_cost(v, i);
      node_[v].push_back(arena.leaf(c.time, c.memory, v, i));
    }
  }
  for (OpId v = 0; v < model.op_count(); ++v) {
    for (const OpId u : model.graph().inputs(v)) {
      std::vector<Frontier> table;
      for (std::size_t i = 0; i < count(u); ++i) {
        for (std::size_t j = 0; j < count(v); ++j) table.push_back({{model.edge_time(u, i, v, j), 0, kNoOrigin}});
      }
      add_edge(u, v, std::move(table));
    }
  }
}

void Reducer::add_edge(OpId a, OpId b, std::vector<Frontier> table) {
  edges_.push_back({a, b, std::move(table), true});
  incident_[a].push_back(edges_.size() - 1);
  incident_[b].push_back(edges_.size() - 1);
}

std::vector<std::size_t> Reducer::live_edges(OpId v) const {
  std::vector<std::size_t> out;
  for (const std::size_t e : incident_[v]) {
    if (edges_[e].alive) out.push_back(e);
  }
  return out;
}

bool Reducer::merge_parallel(OpId v) {
  const std::vector<std::size_t> es = live_edges(v);
  for (std::size_t x = 0; x < es.size(); ++x) {
    for (std::size_t y = x + 1; y < es.size(); ++y) {
      Edge& keep = edges_[es[x]];
      Edge& drop = edges_[es[y]];
      if (other(keep, v) != other(drop, v)) continue;
      for (std::size_t i = 0; i < count(keep.a); ++i) {
        for (std::size_t j = 0; j < count(keep.b); ++j) {
          Frontier& f = keep.table[i * count(keep.b) + j];
          arena_.offer_sum(f, entry(drop, keep.a, i, j));
          f = arena_.take();
        }
      }
      drop.alive = false;
      return true;
    }
  }
  return false;
}

void Reducer::fold(OpId v, std::size_t e) {
  const OpId u = other(edges_[e], v);
  for (std::size_t su = 0; su < count(u); ++su) {
    for (std::size_t sv = 0; sv < count(v); ++sv) arena_.offer_sum(entry(edges_[e], u, su, sv), node_[v][sv]);
    const Frontier best = arena_.take();
    arena_.offer_sum(node_[u][su], best);
    node_[u][su] = arena_.take();
  }
  edges_[e].alive = false;
  alive_[v] = false;
}

void Reducer::bypass(OpId v, std::size_t e1, std::size_t e2) {
  const OpId u = other(edges_[e1], v), w = other(edges_[e2], v);
  std::vector<Frontier> to_v;  // [su][sv]: u's edge to v plus v itself
  for (std::size_t su = 0; su < count(u); ++su) {
    for (std::size_t sv = 0; sv < count(v); ++sv) {
      arena_.offer_sum(entry(edges_[e1], u, su, sv), node_[v][sv]);
      to_v.push_back(arena_.take());
    }
  }
  std::vector<Frontier> table;
  for (std::size_t su = 0; su < count(u); ++su) {
    for (std::size_t sw = 0; sw < count(w); ++sw) {
      for (std::size_t sv = 0; sv < count(v); ++sv) {
        arena_.offer_sum(to_v[su * count(v) + sv], entry(edges_[e2], v, sv, sw));
      }
      table.push_back(arena_.take());
    }
  }
  edges_[e1].alive = edges_[e2].alive = false;
  alive_[v] = false;
  add_edge(u, w, std::move(table));
}

void Reducer::reduce(SearchResult& stats) {
  for (bool changed = true; changed;) {
    changed = false;
    for (OpId v = 0; v < node_.size(); ++v) {
      if (!alive_[v]) continue;
      while (merge_parallel(v)) ++stats.merged_edges;
      const std::vector<std::size_t> es = live_edges(v);
      if (es.size() == 1) {
        fold(v, es[0]);
      } else if (es.size() == 2) {
        bypass(v, es[0], es[1]);
      } else {
        continue;
      }
      ++stats.eliminated;
      changed = true;
    }
  }
}

bool Reducer::has_later_neighbour(OpId x, const std::vector<bool>& done) const {
  const std::vector<std::size_t> es = live_edges(x);
  return std::any_of(es.begin(), es.end(), [&](std::size_t e) { return !done[other(edges_[e], x)]; });
}

std::size_t position(const std::vector<OpId>& live, OpId x) {
  return static_cast<std::size_t>(std::find(live.begin(), live.end(), x) - live.begin());
}

std::vector<std::vector<OpId>> Reducer::live_after(const std::vector<OpId>& order) const {
  std::vector<bool> done(node_.size(), false);
  std::vector<std::vector<OpId>> lives;
  std::vector<OpId> live;
  for (const OpId v : order) {
    done[v] = true;
    live.push_back(v);
    std::erase_if(live, [&](OpId x) { return !has_later_neighbour(x, done); });
    lives.push_back(live);
  }
  return lives;
}

void Reducer::check_states(const std::vector<std::vector<OpId>>& live_after, const SearchOptions& options,
                           const SearchResult& stats) const {
  double peak = 1;  // after a step, the states are every combination of the live operators' strategies
  for (const std::vector<OpId>& live : live_after) {
    double states = 1;
    for (const OpId x : live) states *= static_cast<double>(count(x));
    peak = std::max(peak, states);
  }
  if (peak > static_cast<double>(options.max_dp_states)) {
    throw ConfigError(fmt::format("model {}: the operator graph does not reduce ({} operators left after {} were "
                                  "eliminated), and the dynamic program over them needs {:.3g} states at its peak, "
                                  "past {}: plan a trace of the model instead (--trace: its layers are a chain)",
                                  model_.graph().model(), live_after.size(), stats.eliminated, peak,
                                  options.max_dp_states));
  }
}

Frontier Reducer::finish(const SearchOptions& options, SearchResult& stats) {
  std::vector<OpId> rest;
  for (OpId v = 0; v < node_.size(); ++v) {
    if (alive_[v]) rest.push_back(v);
  }
  stats.dp_operators = rest.size();
  const std::vector<std::vector<OpId>> lives = live_after(rest);
  check_states(lives, options, stats);
  std::vector<bool> done(node_.size(), false);
  const std::vector<OpId> none;
  std::map<std::vector<std::size_t>, Frontier> states{{{}, {{0, 0, kNoOrigin}}}};
  for (std::size_t step = 0; step < rest.size(); ++step) {
    const OpId v = rest[step];
    const std::vector<OpId>& live = step == 0 ? none : lives[step - 1];  // a state holds their strategies
    const std::vector<OpId>& next_live = lives[step];
    done[v] = true;
    std::vector<std::pair<std::size_t, std::size_t>> back;  // (edge, position in live) to earlier operators
    for (const std::size_t e : live_edges(v)) {
      const OpId x = other(edges_[e], v);
      if (done[x]) back.emplace_back(e, position(live, x));
    }

    std::map<std::vector<std::size_t>, Frontier> next;
    for (const auto& [key, frontier] : states) {
      for (std::size_t sv = 0; sv < count(v); ++sv) {
        Frontier own = node_[v][sv];
        for (const auto& [e, pos] : back) {
          arena_.offer_sum(own, entry(edges_[e], v, sv, key[pos]));
          own = arena_.take();
        }
        std::vector<std::size_t> next_key;
        for (const OpId x : next_live) next_key.push_back(x == v ? sv : key[position(live, x)]);
        Frontier& slot = next[next_key];
        arena_.offer(slot);
        arena_.offer_sum(frontier, own);
        slot = arena_.take();
      }
    }
    states = std::move(next);
  }
  return states.empty() ? Frontier{} : states.begin()->second;  // empty: nothing fits the memory limit
}

/// Pure data parallelism priced exactly, or nothing where the batch cannot be split that way.
std::optional<PlanPoint> data_parallel(const CostModel& model) {
  std::vector<std::size_t> assignment;
  try {
    assignment = model.data_parallel();
  } catch (const ConfigError&) {  // a batch data parallelism cannot split: no such plan
    return std::nullopt;
  }
  const Cost cost = model.evaluate(assignment);
  return PlanPoint{cost, std::move(assignment), model.settings().zero_stage};
}

/// Exact costs of the search's points and of pure data parallelism, fastest
/// first, dominated ones dropped. The search ranks by sums that leave the
/// gradient start-ups out, so with latency it can miss a plan that simple
/// (red team: reported "dominated" while faster than every point).
std::vector<PlanPoint> exact_frontier(const CostModel& model, const FrontierArena& arena, const Frontier& found,
                                      const std::optional<PlanPoint>& data_parallel, std::int64_t memory_limit) {
  constexpr std::size_t kUnset = static_cast<std::size_t>(-1);
  std::vector<PlanPoint> points;
  for (const FrontierPoint& p : found) {
    std::vector<std::size_t> assignment(model.op_count(), kUnset);
    arena.read_back(p.origin, assignment);
    if (std::find(assignment.begin(), assignment.end(), kUnset) != assignment.end()) {
      throw std::logic_error("plan search: a frontier point misses an operator's strategy");
    }
    const Cost cost = model.evaluate(assignment);
    if (cost.memory <= memory_limit) points.push_back({cost, std::move(assignment), model.settings().zero_stage});
  }
  if (data_parallel && data_parallel->cost.memory <= memory_limit) points.push_back(*data_parallel);
  return pareto_points(std::move(points));
}

}  // namespace

std::vector<PlanPoint> pareto_points(std::vector<PlanPoint> points) {
  std::sort(points.begin(), points.end(), [](const PlanPoint& x, const PlanPoint& y) {
    if (x.cost.time != y.cost.time) return x.cost.time < y.cost.time;
    return x.cost.memory != y.cost.memory ? x.cost.memory < y.cost.memory : x.zero_stage < y.zero_stage;
  });
  std::vector<PlanPoint> kept;
  for (PlanPoint& p : points) {
    if (kept.empty() || p.cost.memory < kept.back().cost.memory) kept.push_back(std::move(p));
  }
  return kept;
}

namespace {

/// Refuses a search whose tables would start past kMaxPlanTableEntries, before they are allocated.
void check_table_entries(const CostModel& model) {
  double entries = 0.0;
  for (OpId v = 0; v < model.op_count(); ++v) {
    const auto strategies = static_cast<double>(model.strategies(v).size());
    entries += strategies;
    for (const OpId u : model.graph().inputs(v)) entries += strategies * static_cast<double>(model.strategies(u).size());
  }
  if (entries > kMaxPlanTableEntries) {
    throw ConfigError(fmt::format("the plan search would start with {:.3g} table entries, about {:.0f} GB (at most "
                                  "{:.0f}, docs/limits.md): plan fewer operators or GPUs, or without "
                                  "--allow-replication, where given",
                                  entries, entries * 100 / 1e9, kMaxPlanTableEntries));
  }
}

}  // namespace

SearchResult search_frontier(const CostModel& model, const SearchOptions& options) {
  check_table_entries(model);
  SearchResult result;
  FrontierArena arena(options.frontier_bound, options.memory_limit, options.max_candidates, options.offered_before);
  Reducer reducer(model, arena);
  reducer.reduce(result);
  const Frontier found = reducer.finish(options, result);
  result.data_parallel = data_parallel(model);
  result.frontier = exact_frontier(model, arena, found, result.data_parallel, options.memory_limit);
  result.frontier_bound = arena.bound();
  result.thinned = arena.thinned();
  result.exact = result.thinned == 0 && model.shares_add_up();
  result.candidates = arena.offered();
  return result;
}

}  // namespace mgsim::plan
