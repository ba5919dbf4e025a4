#include "mgsim/collective.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analytic_collectives.hpp"
#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/nccl_model.hpp"
#include "mgsim/registry_lookup.hpp"
#include "measured_curve.hpp"
#include "parameter_server.hpp"

namespace mgsim {
namespace {

constexpr std::array kCollectives{
    CollectiveInfo{.name = "ring",
                   .description = "ring all-reduce: 2(P-1)a + 2(P-1)/P M b + (P-1)/P M g",
                   .needs_curve = false,
                   .make_model = make_ring},
    CollectiveInfo{.name = "tree",
                   .description = "binary tree, reduce then broadcast: 2 log2P (a + M b) + log2P M g",
                   .needs_curve = false,
                   .make_model = make_binary_tree},
    CollectiveInfo{.name = "recursive-doubling",
                   .description = "recursive doubling: log2P (a + M b + M g)",
                   .needs_curve = false,
                   .make_model = make_recursive_doubling},
    CollectiveInfo{.name = "rabenseifner",
                   .description = "Rabenseifner halving-doubling: 2 log2P a + 2(P-1)/P M b + (P-1)/P M g",
                   .needs_curve = false,
                   .make_model = make_rabenseifner},
    CollectiveInfo{.name = "double-binary-tree",
                   .description = "NCCL-style pipelined double binary tree: 2 log2P a + 2 M b + M g",
                   .needs_curve = false,
                   .make_model = make_double_binary_tree},
    CollectiveInfo{
        .name = "hierarchical",
        .description = "two-level: intra-node reduce-scatter, inter-node ring all-reduce of M/g, intra-node all-gather",
        .needs_curve = false,
        .make_model = make_hierarchical},
    CollectiveInfo{.name = "nccl",
                   .description = "NCCL's predictor: per algorithm (Ring, Tree) and protocol (LL, LL128, Simple) "
                                  "latency + M / bandwidth, the fastest chosen; the model for NCCL-based frameworks "
                                  "(DDP, Horovod on NCCL, DeepSpeed)",
                   .needs_curve = false,
                   .make_model = make_nccl,
                   .params = kNcclParams,
                   .reduces = false},
    CollectiveInfo{.name = "ps",
                   .description = "parameter servers on S dedicated machines, each summing 1/S of every message: "
                                  "2a + M max(b, P/S b_s, (P-1)/S s)",
                   .needs_curve = false,
                   .make_model = make_ps,
                   .params = kPsParams,
                   .gathers = false},
    CollectiveInfo{.name = "ps-colocated",
                   .description = "parameter servers on S of the workers (default every one), each summing 1/S: "
                                  "2a + M max((1 + (P-2)/S) b, (P-1)/S s)",
                   .needs_curve = false,
                   .make_model = make_ps_colocated,
                   .params = kColocatedParams,
                   .gathers = false},
    CollectiveInfo{.name = "byteps",
                   .description = "BytePS: summation on k CPU machines and on the workers, split as the OSDI'20 "
                                  "paper's Theorem 1; k = 0 is colocated PS, k >= P dedicated PS",
                   .needs_curve = false,
                   .make_model = make_byteps,
                   .params = kBytepsParams,
                   .check = check_byteps,
                   .gathers = false},
    CollectiveInfo{.name = "measured",
                   .description = "measured latency curve, piecewise-linear in size, only at measured GPU counts",
                   .needs_curve = true,
                   .make_model = make_measured},
};

/// A model whose every message (all-reduce or all-gather) takes `overhead`
/// seconds more: a + overhead + b M stays affine.
class WithMessageOverhead final : public Collective {
 public:
  WithMessageOverhead(std::unique_ptr<Collective> model, double overhead)
      : model_(std::move(model)), overhead_(overhead) {}
  double allreduce_seconds(double bytes, int gpus) const override {
    return model_->allreduce_seconds(bytes, gpus) + overhead_;
  }
  double allgather_seconds(double bytes_per_rank, int gpus) const override {
    return model_->allgather_seconds(bytes_per_rank, gpus) + overhead_;
  }
  double reduce_scatter_seconds(double bytes, int gpus) const override {
    return model_->reduce_scatter_seconds(bytes, gpus) + overhead_;
  }
  bool allreduce_affine(int gpus) const override { return model_->allreduce_affine(gpus); }

 private:
  std::unique_ptr<Collective> model_;
  double overhead_;
};

/// A model whose exchanges share the fabric between nodes: each lasts at
/// least the bytes that any algorithm must move between N nodes times the
/// fabric's seconds per byte. An all-reduce of M is a reduce-scatter, after
/// which every node holds the sums of its ranks' shares, and an all-gather of
/// them: (N-1) M bytes cross for each, 2(N-1) M in all, what ring and NCCL's
/// rings move (docs/collectives.md, "A shared fabric").
class OnSharedFabric final : public Collective {
 public:
  OnSharedFabric(std::unique_ptr<Collective> model, double s_per_byte, int gpus_per_node)
      : model_(std::move(model)), s_per_byte_(s_per_byte), gpus_per_node_(gpus_per_node) {}
  double allreduce_seconds(double bytes, int gpus) const override {
    return std::max(model_->allreduce_seconds(bytes, gpus), 2 * (nodes(gpus) - 1) * bytes * s_per_byte_);
  }
  double allgather_seconds(double bytes_per_rank, int gpus) const override {
    return std::max(model_->allgather_seconds(bytes_per_rank, gpus),
                    (nodes(gpus) - 1) * gpus * bytes_per_rank * s_per_byte_);
  }
  double reduce_scatter_seconds(double bytes, int gpus) const override {
    return std::max(model_->reduce_scatter_seconds(bytes, gpus), (nodes(gpus) - 1) * bytes * s_per_byte_);
  }
  /// Within one node nothing crosses the fabric; across nodes the floor bends the line.
  bool allreduce_affine(int gpus) const override { return nodes(gpus) == 1 && model_->allreduce_affine(gpus); }

 private:
  double nodes(int gpus) const { return static_cast<double>((gpus + gpus_per_node_ - 1) / gpus_per_node_); }

  std::unique_ptr<Collective> model_;
  double s_per_byte_;
  int gpus_per_node_;
};

}  // namespace

void CollectiveInfo::check_network(const Network& network) const {
  if (reduces || (network.intra.gamma_s_per_byte == 0 && network.inter.gamma_s_per_byte == 0)) return;
  throw ConfigError(fmt::format("collective '{}' cannot run gamma_s_per_byte > 0 (its predictor has no separate "
                                "reduction term): give 0, or another collective",
                                name));
}

std::unique_ptr<Collective> CollectiveInfo::make(const CollectiveSettings& settings) const {
  check_network(settings.network);
  std::unique_ptr<Collective> model = make_model(settings);
  if (settings.network.fabric_s_per_byte > 0.0) {
    model = std::make_unique<OnSharedFabric>(std::move(model), settings.network.fabric_s_per_byte,
                                             settings.gpus_per_node);
  }
  if (settings.message_overhead_s == 0.0) return model;
  return std::make_unique<WithMessageOverhead>(std::move(model), settings.message_overhead_s);
}

std::span<const CollectiveInfo> collective_registry() { return kCollectives; }

std::string CollectiveSpec::label() const {
  const std::span<const CollectiveParam> known = find_collective(name).params;
  std::vector<std::string> parts;
  for (const auto& given : params) {  // not a structured binding: clang 14 cannot capture one
    const auto param =
        std::find_if(known.begin(), known.end(), [&](const CollectiveParam& p) { return p.name == given.first; });
    if (param == known.end() || param->default_value != given.second) {
      parts.push_back(fmt::format("{}={}", given.first, given.second + 0.0));
    }
  }
  return parts.empty() ? name : fmt::format("{}({})", name, fmt::join(parts, ","));
}

const CollectiveInfo& find_collective(std::string_view name) {
  return find_by_name<ConfigError>(collective_registry(), name, "collective");
}

CommCost::CommCost(const Collective& collective, int gpus) : collective_(&collective), gpus_(gpus) {}

double Collective::allgather_seconds(double, int) const {
  throw ConfigError("this collective has no all-gather model: sparse schedules and those that shard (dear, zero1, "
                    "zero2, zero3, fsdp) need an analytic collective or, with 'measured', an all-gather curve among "
                    "\"curves\"");
}

double Collective::reduce_scatter_seconds(double bytes, int gpus) const {
  const double gather = allgather_seconds(bytes / gpus, gpus);
  const double reduce = allreduce_seconds(bytes, gpus);
  if (reduce < gather) {
    throw ConfigError(fmt::format("this collective's all-gather of {} bytes per GPU takes longer than its "
                                  "all-reduce of {} bytes on {} GPUs, so the reduce-scatter (their difference) "
                                  "is undefined; choose 'ring', 'rabenseifner', 'hierarchical' or 'nccl'",
                                  bytes / gpus, bytes, gpus));
  }
  return reduce - gather;
}

std::string_view curve_collective_name(CurveCollective collective) {
  switch (collective) {
    case CurveCollective::allgather:
      return "allgather";
    case CurveCollective::reducescatter:
      return "reducescatter";
    case CurveCollective::allreduce:
      break;
  }
  return "allreduce";
}

std::optional<CurveCollective> curve_collective_named(std::string_view name) {
  for (const CurveCollective c : {CurveCollective::allreduce, CurveCollective::allgather, CurveCollective::reducescatter}) {
    if (curve_collective_name(c) == name) return c;
  }
  return std::nullopt;
}

double bus_bandwidth(CurveCollective collective, double bytes, double seconds, int gpus) {
  const double n = gpus;
  switch (collective) {
    case CurveCollective::allgather:
      return n * bytes / seconds * (n - 1) / n;
    case CurveCollective::reducescatter:
      return bytes / seconds * (n - 1) / n;
    case CurveCollective::allreduce:
      break;
  }
  return bytes / seconds * 2 * (n - 1) / n;
}

SimTime CommCost::allgather(std::int64_t bytes_per_rank) const {
  if (gpus_ <= 1) return 0;
  return allgather_step(bytes_per_rank, collective_->allgather_seconds(static_cast<double>(bytes_per_rank), gpus_));
}

std::optional<SimTime> CommCost::allgather_within_limit(std::int64_t bytes_per_rank) const {
  if (gpus_ <= 1) return 0;
  const double seconds = collective_->allgather_seconds(static_cast<double>(bytes_per_rank), gpus_);
  if (seconds > kMaxStepSeconds) return std::nullopt;
  return allgather_step(bytes_per_rank, seconds);
}

SimTime CommCost::allgather_step(std::int64_t bytes_per_rank, double seconds) const {
  return step_ns(seconds, [&] { return fmt::format("an all-gather of {} bytes per GPU on {} GPUs", bytes_per_rank, gpus_); });
}

SimTime CommCost::reduce_scatter(std::int64_t bytes) const {
  if (gpus_ <= 1) return 0;
  return step_ns(collective_->reduce_scatter_seconds(static_cast<double>(bytes), gpus_),
                 [&] { return fmt::format("a reduce-scatter of {} bytes on {} GPUs", bytes, gpus_); });
}

SimTime CommCost::param_allgather(std::int64_t bytes) const {
  if (gpus_ <= 1) return 0;
  return step_ns(collective_->allgather_seconds(static_cast<double>(bytes) / gpus_, gpus_),
                 [&] { return fmt::format("an all-gather of {} bytes of parameters on {} GPUs", bytes, gpus_); });
}

std::optional<CommCost::Line> CommCost::line_ns() const {
  if (gpus_ <= 1) return Line{0.0, 0.0};
  if (!collective_->allreduce_affine(gpus_)) return std::nullopt;
  constexpr double kFar = 0x1p40;  // bytes: far enough that rounding of a + b*M is negligible in b
  const double startup = collective_->allreduce_seconds(0, gpus_);
  const double slope = (collective_->allreduce_seconds(kFar, gpus_) - startup) / kFar;
  if (slope < 0) return std::nullopt;
  return Line{startup * 1e9, slope * 1e9};
}

SimTime CommCost::operator()(std::int64_t bytes) const {
  if (gpus_ <= 1) return 0;
  return step_of(bytes, collective_->allreduce_seconds(static_cast<double>(bytes), gpus_));
}

std::optional<SimTime> CommCost::within_limit(std::int64_t bytes) const {
  if (gpus_ <= 1) return 0;
  const double seconds = collective_->allreduce_seconds(static_cast<double>(bytes), gpus_);  // priced once
  if (seconds > kMaxStepSeconds) return std::nullopt;
  return step_of(bytes, seconds);
}

SimTime CommCost::step_of(std::int64_t bytes, double seconds) const {
  return step_ns(seconds, [&] { return fmt::format("an all-reduce of {} bytes on {} GPUs", bytes, gpus_); });
}

}  // namespace mgsim
