#include "mgsim/plan/plan_report.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>
#include "mgsim/counted.hpp"
#include "mgsim/io/json_text.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/utf8.hpp"
#include <nlohmann/json.hpp>

namespace mgsim::plan {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double gib(std::int64_t bytes) { return static_cast<double>(bytes) / kGiB; }
double ms(SimTime t) { return to_seconds(t) * 1e3; }

/// The model every point shares the settings of, but the ZeRO stage: the first searched.
const CostModel& first_model(const PlanReport& r) { return r.search->models.front(); }

/// "ZeRO stages 0-3" or "ZeRO stage 2": what was searched.
std::string zero_searched(const StagedSearch& search) {
  const auto& m = search.models;
  if (m.size() == 1) return fmt::format("ZeRO stage {}", m.front().settings().zero_stage);
  return fmt::format("ZeRO stages {}-{}", m.front().settings().zero_stage, m.back().settings().zero_stage);
}

std::string header(const PlanReport& r) {
  const CostModel& m = first_model(r);
  const CostSettings& s = m.settings();
  return fmt::format(
      "{} on {} x {} ({}, {}, {}), global batch {}, cluster: {}\n"
      "simulated, not measured: operators timed by {}, communication by the collective cost model\n",
      printable(m.graph().model()), s.devices, r.gpu, zoo::precision_name(s.precision), optimizer_name(s.optimizer),
      zero_searched(*r.search), m.graph().batch_size(), r.cluster, r.timing);
}

std::string exactness(const SearchResult& result) {
  if (result.exact) return "exact";
  if (result.thinned > 0) return "bounded: points between the kept ones may be missing";
  return "not proven exact: ranked without the gradient start-ups, each point then priced exactly";
}

std::string search_line(const SearchResult& result) {
  const std::string rest = result.dp_operators <= 1
                               ? std::string("the graph reduced completely")
                               : fmt::format("{} left to the topological dynamic program", result.dp_operators);
  return fmt::format("frontier: {} ({}); bound {} points per table entry (--frontier-bound), {} thinned to it; {} "
                     "eliminated, {}\n",
                     counted(std::ssize(result.frontier), "point"), exactness(result), result.frontier_bound,
                     counted(static_cast<std::int64_t>(result.thinned), "entry", "entries"),
                     counted(static_cast<std::int64_t>(result.eliminated), "operator"), rest);
}

/// The index of `dp` in the frontier, or nothing where a point of it dominates it.
std::optional<std::size_t> frontier_index(const PlanReport& r, const PlanPoint& dp) {
  const auto& f = r.search->result.frontier;
  const auto it = std::find_if(f.begin(), f.end(),
                               [&](const PlanPoint& p) { return p.cost == dp.cost && p.zero_stage == dp.zero_stage; });
  return it == f.end() ? std::nullopt : std::optional<std::size_t>(static_cast<std::size_t>(it - f.begin()));
}

std::string data_parallel_line(const PlanReport& r) {
  const std::optional<PlanPoint>& dp = r.search->result.data_parallel;
  if (!dp) return "data parallel: none (the global batch cannot be split that many ways)\n";
  const std::optional<std::size_t> at = frontier_index(r, *dp);
  return fmt::format("data parallel: {:.3f} ms, {:.2f} GiB per device, ZeRO stage {} ({})\n", ms(dp->cost.time),
                     gib(dp->cost.memory), dp->zero_stage, at ? fmt::format("point {}", *at) : "dominated");
}

/// The fastest point within the limit, its stage and every operator's strategy.
nlohmann::ordered_json chosen_json(const PlanReport& r, std::size_t chosen) {
  const PlanPoint& p = r.search->result.frontier[chosen];
  const CostModel& m = r.search->model(p.zero_stage);
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (zoo::OpId v = 0; v < m.op_count(); ++v) {
    ops.push_back({{"operator", m.graph().op(v).name}, {"strategy", format_strategy(m.strategies(v)[p.assignment[v]])}});
  }
  return {{"point", chosen}, {"zero_stage", p.zero_stage}, {"operators", ops}};
}

/// A point's strategy summary, read from the cost model of its stage.
std::string summary(const PlanReport& r, const PlanPoint& p) {
  return summarize(r.search->model(p.zero_stage), p.assignment);
}

std::string operator_table(const CostModel& m, const std::vector<std::size_t>& assignment) {
  std::string out = fmt::format("{:<52} {:<10} {:>12} {:>10} {:>12}\n", "operator", "kind", "strategy", "time_ms",
                                "memory_MiB");
  const CostModel::TimeParts parts = m.time_parts(assignment);
  SimTime operators = 0;
  for (zoo::OpId v = 0; v < m.op_count(); ++v) {
    operators += parts.operators[v];
    const zoo::Operator& op = m.graph().op(v);
    if (op.kind == zoo::OpKind::view) continue;
    out += fmt::format("{:<52} {:<10} {:>12} {:>10.3f} {:>12.2f}\n", op.name, zoo::op_kind_name(op.kind),
                       format_strategy(m.strategies(v)[assignment[v]]), ms(parts.operators[v]),
                       static_cast<double>(m.op_cost(v, assignment[v]).memory) / (1024.0 * 1024.0));
  }
  return out + fmt::format("operators {:.3f} ms + re-layouts {:.3f} ms + gradient all-reduce start-ups {:.3f} ms = "
                           "{:.3f} ms\n",
                           ms(operators), ms(parts.relayouts), ms(parts.startups),
                           ms(operators + parts.relayouts + parts.startups));
}

}  // namespace

std::string summarize(const CostModel& model, const std::vector<std::size_t>& assignment) {
  std::map<std::string, int> uses;
  for (zoo::OpId v = 0; v < model.op_count(); ++v) {
    if (model.graph().op(v).param_count() > 0) ++uses[format_strategy(model.strategies(v)[assignment[v]])];
  }
  std::vector<std::pair<std::string, int>> sorted(uses.begin(), uses.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  std::string out;
  for (const auto& [strategy, n] : sorted) out += fmt::format("{}{} x{}", out.empty() ? "" : ", ", strategy, n);
  return out;
}

std::optional<std::size_t> fastest_within(const SearchResult& result, std::int64_t memory_limit) {
  for (std::size_t i = 0; i < result.frontier.size(); ++i) {
    if (result.frontier[i].cost.memory <= memory_limit) return i;  // fastest first
  }
  return std::nullopt;
}

std::string format_plan_table(const PlanReport& r) {
  const SearchResult& result = r.search->result;
  std::string out = header(r) + search_line(result) + data_parallel_line(r);
  out += fmt::format("\n{:>5} {:>12} {:>12} {:>4}  {}\n", "point", "time_ms", "memory_GiB", "zero",
                     "strategies of parameter-owning operators");
  for (std::size_t i = 0; i < result.frontier.size(); ++i) {
    const PlanPoint& p = result.frontier[i];
    out += fmt::format("{:>5} {:>12.3f} {:>12.2f} {:>4}  {}\n", i, ms(p.cost.time), gib(p.cost.memory), p.zero_stage,
                       summary(r, p));
  }
  if (!r.memory_limit) return out;
  const std::optional<std::size_t> chosen = fastest_within(result, *r.memory_limit);
  if (!chosen) {
    const std::int64_t smallest = result.frontier.empty() ? 0 : result.frontier.back().cost.memory;
    // Red team: "no plan fits in 0.00 GiB; the smallest needs 0.00 GiB" for 1 KiB against 24 kB.
    const auto memory = [](std::int64_t bytes) {
      if (bytes >= std::int64_t{1} << 30) return fmt::format("{:.2f} GiB", gib(bytes));
      if (bytes >= std::int64_t{1} << 20) return fmt::format("{:.2f} MiB", static_cast<double>(bytes) / (1 << 20));
      return fmt::format("{} bytes", bytes);
    };
    const bool apart = memory(*r.memory_limit) != memory(smallest);  // else in bytes (red team: 6.27 GiB and 6.27 GiB)
    return out + fmt::format("\nno plan fits in {} per device; the smallest needs {}: lower --batch "
                             "(activations shrink with it) or plan more GPUs (--gpus)\n",
                             apart ? memory(*r.memory_limit) : fmt::format("{} bytes", *r.memory_limit),
                             apart ? memory(smallest) : fmt::format("{} bytes", smallest));
  }
  const PlanPoint& p = result.frontier[*chosen];
  out += fmt::format("\nfastest plan within {:.2f} GiB: point {}, {:.3f} ms, {:.2f} GiB per device, ZeRO stage {}\n",
                     gib(*r.memory_limit), *chosen, ms(p.cost.time), gib(p.cost.memory), p.zero_stage);
  return out + operator_table(r.search->model(p.zero_stage), p.assignment);
}

std::string format_plan_csv(const PlanReport& r) {
  const CostModel& m = first_model(r);
  std::string out = fmt::format(
      "model,gpus,kind,point,time_s,memory_bytes,zero_stage,fits_memory_limit,strategies{}\n", kCsvVersionColumns);
  const auto row = [&](std::string_view kind, std::optional<std::size_t> point, const PlanPoint& p) {
    const std::string fits = r.memory_limit ? (p.cost.memory <= *r.memory_limit ? "yes" : "no") : "";
    out += fmt::format("{},{},{},{},{:.9f},{},{},{},\"{}\"{}\n", csv_field(m.graph().model()), m.settings().devices, kind,
                       point ? std::to_string(*point) : "", to_seconds(p.cost.time), p.cost.memory, p.zero_stage,
                       fits, summary(r, p), csv_version_fields());
  };
  for (std::size_t i = 0; i < r.search->result.frontier.size(); ++i) row("frontier", i, r.search->result.frontier[i]);
  if (const std::optional<PlanPoint>& dp = r.search->result.data_parallel) row("data_parallel", frontier_index(r, *dp), *dp);
  return out;
}

std::string format_plan_json(const PlanReport& r) {
  const CostModel& m = first_model(r);
  const SearchResult& result = r.search->result;
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const CostModel& searched : r.search->models) stages.push_back(searched.settings().zero_stage);
  nlohmann::ordered_json doc{
      {"model", m.graph().model()},
      {"gpus", m.settings().devices},
      {"gpu", r.gpu},
      {"precision", zoo::precision_name(m.settings().precision)},
      {"optimizer", optimizer_name(m.settings().optimizer)},
      {"zero_stages", stages},
      {"global_batch", m.graph().batch_size()},
      {"cluster", r.cluster},
      {"provenance", "simulated, not measured: operators timed by " + r.timing + ", communication by the collective cost model"},
      {"frontier_bound", result.frontier_bound},
      {"thinned_entries", result.thinned},
      {"exact", result.exact},
      {"data_parallel", nullptr},
  };
  if (const std::optional<PlanPoint>& dp = result.data_parallel) {
    const std::optional<std::size_t> at = frontier_index(r, *dp);
    doc["data_parallel"] = {{"time_s", to_seconds(dp->cost.time)}, {"memory_bytes", dp->cost.memory},
                            {"zero_stage", dp->zero_stage}, {"on_frontier", at.has_value()},
                            {"point", at ? nlohmann::ordered_json(*at) : nlohmann::ordered_json(nullptr)}};
  }
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const PlanPoint& p : result.frontier) {
    points.push_back({{"time_s", to_seconds(p.cost.time)}, {"memory_bytes", p.cost.memory},
                      {"zero_stage", p.zero_stage}, {"strategies", summary(r, p)}});
  }
  doc["frontier"] = points;
  if (r.memory_limit) {
    doc["memory_limit_bytes"] = *r.memory_limit;
    const std::optional<std::size_t> chosen = fastest_within(result, *r.memory_limit);
    doc["chosen"] = chosen ? chosen_json(r, *chosen) : nlohmann::ordered_json(nullptr);
  }
  stamp_report(doc);
  return json_text(doc, 1) + "\n";
}

}  // namespace mgsim::plan
