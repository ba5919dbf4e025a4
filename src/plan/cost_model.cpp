#include "mgsim/plan/cost_model.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"

namespace mgsim::plan {
namespace {

using zoo::OpId;
using zoo::OpKind;
using zoo::Operator;
using zoo::Shape;

/// Convolutions and linear layers: split along batch, output and input features.
bool splits_reduction(OpKind kind) { return kind == OpKind::conv2d || kind == OpKind::linear; }

/// Size of a tensor's feature dimension: attention heads for tensors whose
/// first dimension is batch x heads, channels of N x C x H x W, else the last.
std::int64_t feature_size(const Shape& shape, std::int64_t batch) {
  if (shape.empty()) return 1;
  if (shape[0] != batch && shape[0] % batch == 0) return shape[0] / batch;
  if (shape.size() == 4) return shape[1];
  return shape.size() >= 2 ? shape.back() : 1;
}

/// Whether the operator's feature dimension stays whole: layer norm and a
/// softmax over features normalise along it, an LSTM's recurrence runs along
/// it, and inputs (token ids, pixels) have none to split.
bool keeps_feature_whole(const Operator& op, std::int64_t batch) {
  if (op.kind == OpKind::layernorm || op.kind == OpKind::lstm || op.kind == OpKind::input) return true;
  if (op.kind == OpKind::measured) return true;  // a trace's layer has no shapes to split
  if (op.kind != OpKind::softmax) return false;
  const Shape& s = op.output_shape;
  return s[0] == batch && s.size() != 4;
}

/// Largest power-of-two split of each dimension an operator allows.
struct SplitLimits {
  std::int64_t batch = 1, feature = 1, reduction = 1;
};

SplitLimits limits_of(const Operator& op, std::int64_t batch) {
  SplitLimits l;
  l.batch = op.output_shape.empty() || op.output_shape[0] % batch != 0 ? 1 : batch;
  if (op.kind == OpKind::linear) {
    l.feature = op.output_shape.back();
    l.reduction = op.input_shapes[0].back();
  } else if (op.kind == OpKind::conv2d) {
    l.feature = op.output_shape[1];
    l.reduction = op.input_shapes[0][1];
  } else if (!keeps_feature_whole(op, batch)) {
    l.feature = feature_size(op.output_shape, batch);
    if (op.kind != OpKind::embedding) {
      for (const Shape& in : op.input_shapes) l.feature = std::gcd(l.feature, feature_size(in, batch));
    }
  }
  return l;
}

bool divides(int factor, std::int64_t size) { return size % factor == 0; }

std::vector<Strategy> enumerate(const Operator& op, std::int64_t batch, const CostSettings& settings) {
  const SplitLimits l = limits_of(op, batch);
  const int d = settings.devices;
  std::vector<Strategy> out;
  for (int b = 1; b <= d; b *= 2) {
    for (int f = 1; b * f <= d; f *= 2) {
      for (int k = 1; b * f * k <= d; k *= 2) {
        if (!divides(b, l.batch) || !divides(f, l.feature) || !divides(k, l.reduction)) continue;
        if (b * f * k != d && !settings.allow_replication) continue;
        out.push_back({b, f, k});
      }
    }
  }
  return out;
}

std::int64_t input_elements(const Operator& op) {
  std::int64_t n = 0;
  for (const Shape& s : op.input_shapes) n += zoo::element_count(s);
  return n;
}

/// Pieces a parameter tensor is cut into: weights of convolutions and linear
/// layers along output and input features, every other tensor along the feature split.
int param_split(const Operator& op, const zoo::ParamTensor& p, const Strategy& s) {
  return splits_reduction(op.kind) && p.shape.size() >= 2 ? s.feature * s.reduction : s.feature;
}

/// The layout an operator needs its (first) input in.
Layout consumed_layout(OpKind kind, const Strategy& s) {
  if (splits_reduction(kind)) return {s.batch, s.reduction};
  if (kind == OpKind::embedding) return {s.batch, 1};  // token ids have no feature dimension
  return s.output();
}

/// The work one device does for an operator under a strategy: FLOPs divided
/// by every split, activations read divided by the input's pieces, parameters
/// read by the parameters' pieces, output written by the output's pieces.
Operator shard_of(const Operator& op, const Strategy& s, std::int64_t dtype) {
  const Layout in = consumed_layout(op.kind, s);
  const std::int64_t param_read = splits_reduction(op.kind) ? op.bytes_read - input_elements(op) * dtype
                                  : op.kind == OpKind::embedding ? 0  // reads only the gathered rows
                                                                 : op.param_count() * dtype;
  const int param_pieces = splits_reduction(op.kind) ? s.feature * s.reduction : s.feature;
  Operator shard;
  shard.kind = op.kind;
  shard.flops = op.flops / s.split();
  shard.bytes_read = (op.bytes_read - param_read) / (in.batch * in.feature) + param_read / param_pieces;
  shard.bytes_written = op.bytes_written / (s.batch * s.feature);
  return shard;
}

}  // namespace

CostModel::CostModel(const zoo::ModelGraph& graph, const zoo::GpuSpec& gpu, const Collective& collective,
                     const CostSettings& settings)
    : graph_(&graph), gpu_(&gpu), collective_(&collective), settings_(settings) {
  const int d = settings.devices;
  if (d < 1 || (d & (d - 1)) != 0) throw ConfigError(fmt::format("device count must be a power of two, got {}", d));
  if (graph.dtype_bytes() != zoo::precision_bytes(settings.precision)) {
    throw ConfigError(fmt::format("model {} was built with {} bytes per element, precision {} needs {}", graph.model(),
                                  graph.dtype_bytes(), zoo::precision_name(settings.precision),
                                  zoo::precision_bytes(settings.precision)));
  }
  settings.roofline.check();
  ops_.resize(graph.op_count());
  for (OpId v = 0; v < graph.op_count(); ++v) build_op(v);
}

void CostModel::build_op(OpId v) {
  OpTable& table = ops_[v];
  table.strategies = enumerate(graph_->op(v), graph_->batch_size(), settings_);
  for (const Strategy& s : table.strategies) {
    const auto [cost, gradient_bytes] = strategy_cost(v, s);
    table.costs.push_back(cost);
    table.gradient_bytes.push_back(gradient_bytes);
    const bool owns = graph_->op(v).param_count() > 0;
    table.gradient_groups.push_back(owns ? s.batch : 1);
  }
}

SimTime CostModel::allreduce(double bytes, int group) const {
  if (group <= 1) return 0;
  return step_ns(collective_->allreduce_seconds(bytes, group),
                 [&] { return fmt::format("an all-reduce of {} bytes over {} devices{}", bytes, group, on_cluster()); });
}

std::string CostModel::on_cluster() const {
  return settings_.cluster.empty() ? std::string() : " on " + settings_.cluster;
}

SimTime CostModel::allgather(double bytes, int group) const {
  return group <= 1 ? 0 : allgather_pieces(bytes / group, group);
}

SimTime CostModel::allgather_pieces(double piece, int group) const {
  return step_ns(collective_->allgather_seconds(piece, group),
                 [&] { return fmt::format("an all-gather of {} bytes from each of {} devices{}", piece, group, on_cluster()); });
}

SimTime CostModel::synchronisation(double bytes, int group) const {
  return allreduce(bytes, group) + (settings_.zero_stage == 3 ? allgather(bytes, group) : 0);
}

SimTime CostModel::synchronisation_increment(double bytes, int group) const {
  return bytes > 0 ? synchronisation(bytes, group) - synchronisation(0.0, group) : 0;
}

std::pair<Cost, double> CostModel::strategy_cost(OpId v, const Strategy& s) const {
  const Operator& op = graph_->op(v);
  const std::int64_t dtype = graph_->dtype_bytes();
  const Operator shard = shard_of(op, s, dtype);
  const zoo::Precision p = settings_.precision;
  Cost cost;
  if (op.kind == OpKind::measured) {
    cost.time = to_ns(settings_.measured_s.at(v) / s.batch);
  } else {
    cost.time = to_ns(zoo::forward_seconds(shard, *gpu_, p, settings_.roofline)) +
                to_ns(zoo::backward_seconds(shard, *gpu_, p, settings_.roofline));
  }

  const Layout in = consumed_layout(op.kind, s);
  const std::int64_t out_shard = zoo::element_count(op.output_shape) * dtype / (s.batch * s.feature);
  if (splits_reduction(op.kind)) {
    const std::int64_t in_shard = zoo::element_count(op.input_shapes[0]) * dtype / (in.batch * in.feature);
    cost.time += allreduce(static_cast<double>(out_shard), s.reduction);  // forward partial sums
    cost.time += allreduce(static_cast<double>(in_shard), s.feature);     // backward input gradient
  }
  std::vector<std::int64_t> param_shards;  // elements of each parameter tensor this device computes with
  std::int64_t param_elements = 0;
  for (const zoo::ParamTensor& t : op.params) {
    param_shards.push_back(zoo::element_count(t.shape) / param_split(op, t, s));
    param_elements += param_shards.back();
  }
  const double param_bytes = static_cast<double>(param_elements * dtype);
  const ModelStateSettings states{static_cast<int>(dtype), settings_.optimizer, settings_.zero_stage, s.batch};
  cost.time += synchronisation_increment(param_bytes, s.batch);
  if (settings_.optimizer_bytes_per_s > 0) {  // the step of this device's parameter shard, over its replicas
    cost.time += to_ns(optimizer_step_bytes(param_shards, static_cast<int>(dtype), settings_.optimizer,
                                            settings_.zero_stage, s.batch) /
                       settings_.optimizer_bytes_per_s);
  }
  cost.memory = model_states(param_shards, states).total() + (op.kind == OpKind::view ? 0 : out_shard);
  return {cost, param_bytes};
}

SimTime CostModel::relayout(std::int64_t bytes, Layout from, Layout to) const {
  const auto one_way = [&](Layout a, Layout b) -> SimTime {
    if (b.batch % a.batch == 0 && b.feature % a.feature == 0) return 0;  // a local slice
    const int batch = std::max(a.batch, b.batch), feature = std::max(a.feature, b.feature);
    const int group = batch / b.batch * (feature / b.feature);
    return allgather_pieces(static_cast<double>(bytes) / (static_cast<double>(batch) * feature), group);
  };
  return one_way(from, to) + one_way(to, from);
}

SimTime CostModel::edge_time(OpId producer, std::size_t i, OpId consumer, std::size_t j) const {
  const std::int64_t bytes = zoo::element_count(graph_->op(producer).output_shape) * graph_->dtype_bytes();
  return relayout(bytes, ops_[producer].strategies[i].output(), consumed_layout(graph_->op(consumer).kind, ops_[consumer].strategies[j]));
}

CostModel::TimeParts CostModel::time_parts(const std::vector<std::size_t>& assignment) const {
  TimeParts parts;
  parts.operators.resize(ops_.size());
  std::map<int, double> group_bytes;  // the fused message of each gradient group size
  for (OpId v = 0; v < ops_.size(); ++v) {
    const std::size_t i = assignment[v];
    const OpTable& table = ops_[v];
    // The operator's own cost less its share of the fused message, priced whole below.
    parts.operators[v] = table.costs[i].time - synchronisation_increment(table.gradient_bytes[i], table.gradient_groups[i]);
    group_bytes[table.gradient_groups[i]] += table.gradient_bytes[i];
    for (const OpId u : graph_->inputs(v)) parts.relayouts += edge_time(u, assignment[u], v, assignment[v]);
  }
  // Of each fused message: its time beyond the start-up, and what is left after the operators' parts.
  std::map<int, std::pair<SimTime, SimTime>> fused;
  for (const auto& [group, bytes] : group_bytes) {
    const SimTime whole = synchronisation(bytes, group);
    fused[group] = {whole - synchronisation(0.0, group), whole};
  }
  for (OpId v = 0; v < ops_.size(); ++v) {  // red team: shares priced alone added up to 163% of an nccl plan
    const int group = ops_[v].gradient_groups[assignment[v]];
    const double bytes = ops_[v].gradient_bytes[assignment[v]];
    if (bytes <= 0) continue;
    auto& [increment, left] = fused[group];
    const SimTime part = std::llround(static_cast<double>(increment) * bytes / group_bytes[group]);
    parts.operators[v] += part;
    left -= part;
  }
  for (const auto& [group, message] : fused) parts.startups += message.second;
  return parts;
}

Cost CostModel::evaluate(const std::vector<std::size_t>& assignment) const {
  const TimeParts parts = time_parts(assignment);
  Cost total{std::accumulate(parts.operators.begin(), parts.operators.end(), parts.relayouts + parts.startups), 0};
  for (OpId v = 0; v < ops_.size(); ++v) total.memory += ops_[v].costs[assignment[v]].memory;
  return total;
}

bool CostModel::shares_add_up() const {
  std::set<int> groups;      // the gradient group sizes a plan may all-reduce over
  bool always_paid = false;  // some operator all-reduces over one group under every strategy
  for (const OpTable& table : ops_) {
    const std::vector<int>& g = table.gradient_groups;
    groups.insert(g.begin(), g.end());
    always_paid = always_paid || (g.front() > 1 && std::all_of(g.begin(), g.end(), [&](int x) { return x == g.front(); }));
  }
  groups.erase(1);  // no message
  if (!std::all_of(groups.begin(), groups.end(), [&](int g) { return collective_->allreduce_affine(g); })) return false;
  // Start-ups left out of the ranking shift every plan alike where none
  // costs anything, or where every plan pays the one group's once.
  const bool free = std::all_of(groups.begin(), groups.end(), [&](int g) { return synchronisation(0.0, g) == 0; });
  return free || (groups.size() == 1 && always_paid);
}

std::vector<std::size_t> CostModel::data_parallel() const {
  const Strategy all_batch{settings_.devices, 1, 1};
  std::vector<std::size_t> out;
  for (OpId v = 0; v < ops_.size(); ++v) {
    const auto& list = ops_[v].strategies;
    const auto it = std::find(list.begin(), list.end(), all_batch);
    if (it == list.end()) {
      throw ConfigError(fmt::format("model {}: operator {} cannot be split {} ways along the batch (global batch {})",
                                    graph_->model(), graph_->op(v).name, settings_.devices, graph_->batch_size()));
    }
    out.push_back(static_cast<std::size_t>(it - list.begin()));
  }
  return out;
}

}  // namespace mgsim::plan
