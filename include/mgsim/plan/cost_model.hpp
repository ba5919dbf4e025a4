#pragma once
// The cost of a parallelization plan: per operator and strategy its time and
// memory per device, per edge the re-layout between neighbours' splits, and
// the exact total of a complete assignment. Built once from a model graph
// (whose batch is the global batch), a GPU roofline and a collective cost
// model; it owns the strategy lists and the per-operator costs, and refers to
// the graph and the collective, which must outlive it. Formulas:
// docs/plan.md ("Cost model").

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mgsim/collective.hpp"
#include "mgsim/model_memory.hpp"
#include "mgsim/plan/strategy.hpp"
#include "mgsim/time.hpp"
#include "mgsim/zoo/gpus.hpp"
#include "mgsim/zoo/graph.hpp"
#include "mgsim/zoo/synthetic.hpp"

namespace mgsim::plan {

/// Time and memory per device; both add up over operators and edges.
struct Cost {
  SimTime time = 0;
  std::int64_t memory = 0;  ///< bytes
  bool operator==(const Cost&) const = default;
};

struct CostSettings {
  int devices = 1;  ///< a power of two
  zoo::Precision precision = zoo::Precision::fp32;
  zoo::RooflineSettings roofline;
  Optimizer optimizer = Optimizer::adam;
  /// Bytes per second of the optimizer step, which every operator's cost
  /// then includes for the parameter elements a device updates (its shard
  /// of them under ZeRO): as `mgsim run` times a trace's
  /// optimizer_bytes_per_s (docs/schedules.md#the-optimizer-step); 0: untimed.
  double optimizer_bytes_per_s = 0.0;
  /// ZeRO stage (0 .. kMaxZeroStage) of the model states of every operator
  /// split along its batch: sharded over its `batch` replicas (model_memory.hpp).
  /// Stages 1 and 2 communicate what an all-reduce does (a reduce-scatter and
  /// an all-gather); stage 3 all-gathers the parameters once more.
  int zero_stage = 0;
  /// Also try strategies whose product of splits is below `devices`
  /// (operators computed redundantly by replicas); else every product equals it.
  bool allow_replication = false;
  /// Per operator: the forward + backward seconds of the whole batch of an
  /// OpKind::measured operator (a layer of a trace, plan/trace_graph.hpp),
  /// which a shard of 1/b of the batch takes 1/b of; 0 for other operators.
  std::vector<double> measured_s;
  /// How a message about a step past the longest (an all-reduce past an
  /// hour) names the cluster, e.g. "c.json (nccl, 8 GPUs per node)"; empty: not named.
  std::string cluster;
};

class CostModel {
 public:
  /// Throws ConfigError when devices is not a power of two or the graph's
  /// element size does not match the precision.
  CostModel(const zoo::ModelGraph& graph, const zoo::GpuSpec& gpu, const Collective& collective,
            const CostSettings& settings);

  const zoo::ModelGraph& graph() const { return *graph_; }
  const CostSettings& settings() const { return settings_; }
  std::size_t op_count() const { return ops_.size(); }

  const std::vector<Strategy>& strategies(zoo::OpId op) const { return ops_[op].strategies; }
  /// An operator's own cost under its i-th strategy, as the search ranks it:
  /// shard compute forward and backward, partial-sum all-reduces, the
  /// size-dependent part of its gradient all-reduce T_b(M) - T_b(0) priced
  /// alone, the optimizer step of its parameter shard, and its memory.
  const Cost& op_cost(zoo::OpId op, std::size_t i) const { return ops_[op].costs[i]; }
  /// Re-layout time, forward and backward, of the tensor `producer` hands to
  /// `consumer`, under their strategies i and j.
  SimTime edge_time(zoo::OpId producer, std::size_t i, zoo::OpId consumer, std::size_t j) const;
  /// Total of a complete assignment (a strategy index per operator): all
  /// operator and edge costs, each operator's gradient share replaced by one
  /// fused message per gradient group size, priced at its total bytes: the
  /// shares T_g(M) - T_g(0) the search ranks by add up to it, less the
  /// start-ups, only for a collective affine in M (not `nccl`'s protocols
  /// or a shared fabric's floor), so every reported total comes from here.
  Cost evaluate(const std::vector<std::size_t>& assignment) const;
  /// evaluate's time of an assignment in the parts a report lists, which add
  /// up to it exactly: per operator its own cost with, in place of its
  /// gradient share, its part of its group's fused message in proportion to
  /// its bytes; the re-layouts on the edges; and what the fused messages take
  /// beyond those parts (their start-ups T_g(0), and the rounding).
  struct TimeParts {
    std::vector<SimTime> operators;
    SimTime relayouts = 0;
    SimTime startups = 0;
  };
  TimeParts time_parts(const std::vector<std::size_t>& assignment) const;
  /// Whether the gradient shares the search ranks by add up to evaluate's
  /// totals: at every gradient group size the collective is affine
  /// (Collective::allreduce_affine), and the start-ups the shares leave out
  /// are nothing or the same for every plan (one group size, which some
  /// operator all-reduces over under every strategy). Else a search that
  /// ranks by the shares can miss a point of the frontier.
  bool shares_add_up() const;
  /// The strategy index of pure data parallelism (every operator split
  /// devices ways along its batch) per operator; throws ConfigError when the
  /// global batch cannot be split that way.
  std::vector<std::size_t> data_parallel() const;

 private:
  struct OpTable {
    std::vector<Strategy> strategies;
    std::vector<Cost> costs;
    std::vector<int> gradient_groups;
    std::vector<double> gradient_bytes;  ///< of its parameter shards, 0 for none
  };

  SimTime relayout(std::int64_t bytes, Layout from, Layout to) const;
  void build_op(zoo::OpId op);
  /// The operator's cost under `s` and the bytes of its gradients.
  std::pair<Cost, double> strategy_cost(zoo::OpId op, const Strategy& s) const;
  SimTime allreduce(double bytes, int group) const;
  /// " on CLUSTER" for a message, or nothing where the settings name none.
  std::string on_cluster() const;
  SimTime allgather(double bytes, int group) const;
  /// An all-gather of `piece` bytes from each of `group` devices. Like
  /// allreduce, refuses a message past an hour (limits.md), as `run` does.
  SimTime allgather_pieces(double piece, int group) const;
  /// Gradient all-reduce, and under ZeRO stage 3 the extra parameter
  /// all-gather, of `bytes` of parameters over `group` replicas.
  SimTime synchronisation(double bytes, int group) const;
  /// synchronisation(bytes) - synchronisation(0): an operator's share of the fused message; 0 without bytes.
  SimTime synchronisation_increment(double bytes, int group) const;

  const zoo::ModelGraph* graph_;
  const zoo::GpuSpec* gpu_;
  const Collective* collective_;
  CostSettings settings_;
  std::vector<OpTable> ops_;
};

}  // namespace mgsim::plan
