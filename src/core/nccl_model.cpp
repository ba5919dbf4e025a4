// NCCL's predictor (src/graph/tuning.cc of NCCL 2.2x) for all-reduce and
// ring all-gather. Kept from NCCL: the latency tables, the step counts of
// Ring (2(P-1) steps, 2(n-1) of them across nodes) and Tree (2((g-1) intra
// + log2i(n) inter)), the NET latency of Tree used for rings when each node
// has one GPU, latencyInter counted twice for Simple, the network overhead
// floor of multi-node rings, the protocol bandwidth factors, the bus-to-
// algorithm bandwidth ratios, the tree correction factors, the LL
// bandwidth cap across nodes (llMaxBw, which depends on the node count and
// the host CPU, not on channels) and, on NVLS nodes (nvls_tree), half the
// bus bandwidth for the tree beyond 2 nodes (NCCL 2.19-2.27 price the NVLS
// tree at min(bwIntra, nNodes <= 2 ? bwInter : bwInter / 2): past 2 nodes
// an interior node of the double binary tree exchanges data with two
// children and a parent, twice the bytes of a 2-node tree; NCCL's plain
// tree keeps bwInter; evidence: docs/collectives.md, "NCCL latency at
// scale").
// Left out: the per-channel bandwidth caps (perChMax*; they need channel
// counts and GPU generations), the LL cap on one node (it depends on the GPU
// generation) and the ring "plateau" latency factor.

#include "mgsim/nccl_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "mgsim/error.hpp"

namespace mgsim {
namespace {

constexpr int kTree = static_cast<int>(NcclAlgorithm::tree);
constexpr int kRing = static_cast<int>(NcclAlgorithm::ring);
constexpr int kSimple = static_cast<int>(NcclProtocol::simple);

/// NCCL treeCorrectionFactor, per protocol, for log2i(bytes / 64) = 0..22.
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
};

/// floor(log2(n)), 0 for n <= 1 (NCCL log2i).
int log2i(std::int64_t n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

/// How P ranks sit on nodes: g per node, n nodes.
struct Shape {
  int ranks = 0;
  int per_node = 1;
  int nodes = 1;
};

void check_table(const NcclTable& table, std::string_view what) {
  for (const auto& row : table) {
    for (const double v : row) {
      if (!(v >= 0) || !std::isfinite(v)) throw ConfigError(fmt::format("collective 'nccl': {} must be >= 0", what));
    }
  }
}

}  // namespace

std::string_view to_string(NcclAlgorithm algorithm) { return algorithm == NcclAlgorithm::tree ? "Tree" : "Ring"; }

std::string_view to_string(NcclProtocol protocol) {
  return protocol == NcclProtocol::ll ? "LL" : protocol == NcclProtocol::ll128 ? "LL128" : "Simple";
}

NcclModel::NcclModel(const NcclParams& params) : params_(params) {
  check_table(params.base_latency_us, "base latencies");
  check_table(params.intra_hop_latency_us, "intra-node hop latencies");
  check_table(params.net_hop_latency_us, "network hop latencies");
  for (const double v : {params.intra_extra_latency_us, params.inter_extra_latency_us, params.net_overhead_us,
                         params.intra_beta_s_per_byte, params.inter_beta_s_per_byte, params.ll_max_bus_gb_s[0],
                         params.ll_max_bus_gb_s[1]}) {
    if (!(v >= 0) || !std::isfinite(v)) throw ConfigError("collective 'nccl': latencies and betas must be >= 0");
  }
  if (params.gpus_per_node < 1) throw ConfigError("collective 'nccl': gpus_per_node must be >= 1");
  const bool any_algorithm = params.algorithms[0] || params.algorithms[1];
  const bool any_protocol = params.protocols[0] || params.protocols[1] || params.protocols[2];
  if (!any_algorithm || !any_protocol) throw ConfigError("collective 'nccl': no algorithm or no protocol is enabled");
}

namespace {

Shape shape_of(const NcclParams& params, int gpus) {
  const int g = std::min(params.gpus_per_node, gpus);
  if (gpus % g != 0) {
    throw ConfigError(
        fmt::format("collective 'nccl': {} GPUs is not a multiple of gpus_per_node {}", gpus, params.gpus_per_node));
  }
  return {gpus, g, gpus / g};
}

double intra_hop(const NcclParams& params, int a, int p, const Shape& shape) {
  double lat = params.intra_hop_latency_us[a][p] + params.intra_extra_latency_us;
  if (a == kRing && shape.nodes > 1) lat = std::max(lat, params.net_overhead_us * (p == kSimple ? 3 : 1));
  return lat;
}

double net_hop(const NcclParams& params, int a, int p, const Shape& shape) {
  const int table = shape.per_node == 1 ? kTree : a;  // NCCL: "with ppn=1 latencies are fully exposed"
  return params.net_hop_latency_us[table][p] + params.inter_extra_latency_us * (p == kSimple ? 2 : 1);
}

/// Bus bandwidth factor of a protocol (NCCL's "model refinements").
double protocol_factor(int a, int p, const Shape& shape) {
  if (a == kRing) return p == 0 ? 0.5 : p == 1 ? 0.92 : 1.0;
  const double tree = 0.92;
  if (p == 0) return tree / 3.8;
  if (p == 1) return tree * (shape.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0);
  return tree;
}

double bus_beta(const NcclParams& params, const Shape& shape) {
  return shape.nodes == 1 ? params.intra_beta_s_per_byte
                          : std::max(params.intra_beta_s_per_byte, params.inter_beta_s_per_byte);
}

/// Bus bandwidth (bytes/s) of protocol p on algorithm a: the bus bandwidth
/// times the protocol factor, LL capped across nodes at NCCL's llMaxBw.
double protocol_bandwidth(const NcclParams& params, int a, int p, const Shape& shape) {
  const double beta = bus_beta(params, shape);
  const double bus = beta > 0 ? 1.0 / beta : std::numeric_limits<double>::infinity();
  double bw = bus * protocol_factor(a, p, shape);
  if (p == 0 && shape.nodes > 1) bw = std::min(bw, params.ll_max_bus_gb_s[shape.nodes == 2 ? 0 : 1] * 1e9);
  return bw;
}

}  // namespace

double NcclModel::seconds(NcclAlgorithm algorithm, NcclProtocol protocol, double bytes, int gpus) const {
  const int a = static_cast<int>(algorithm), p = static_cast<int>(protocol);
  if (!params_.algorithms[a] || !params_.protocols[p]) return std::numeric_limits<double>::infinity();
  if (gpus <= 1) return 0.0;
  const Shape shape = shape_of(params_, gpus);
  double latency_us = params_.base_latency_us[a][p];
  double ratio = 0.5;
  if (a == kRing) {
    const int steps = 2 * (shape.ranks - 1);
    const int inter_steps = shape.nodes == 1 ? 0 : 2 * (shape.nodes - 1);
    latency_us += (steps - inter_steps) * intra_hop(params_, a, p, shape) + inter_steps * net_hop(params_, a, p, shape);
    ratio = static_cast<double>(shape.ranks) / steps;
  } else {
    latency_us += 2 * ((shape.per_node - 1) * intra_hop(params_, a, p, shape) +
                       log2i(shape.nodes) * net_hop(params_, a, p, shape));
  }
  double bandwidth = protocol_bandwidth(params_, a, p, shape) * ratio;
  if (a == kTree && shape.nodes > 2 && params_.nvls_tree) bandwidth /= 2;
  const int log_size = log2i(static_cast<std::int64_t>(bytes) >> 6);
  if (a == kTree && params_.tree_correction && log_size < 23) bandwidth *= kTreeCorrection[p][log_size];
  return latency_us * 1e-6 + bytes / bandwidth;
}

NcclChoice NcclModel::choose(double bytes, int gpus) const {
  NcclChoice best{NcclAlgorithm::ring, NcclProtocol::simple, std::numeric_limits<double>::infinity()};
  for (const NcclAlgorithm a : {NcclAlgorithm::tree, NcclAlgorithm::ring}) {
    for (const NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
      const double t = seconds(a, p, bytes, gpus);
      if (t < best.seconds) best = {a, p, t};
    }
  }
  return best;
}

double NcclModel::allreduce_seconds(double bytes, int gpus) const {
  if (gpus <= 1) return 0.0;
  return choose(bytes, gpus).seconds;
}

double NcclModel::allgather_seconds(double bytes_per_rank, int gpus) const {
  if (gpus <= 1) return 0.0;
  const Shape shape = shape_of(params_, gpus);
  const double total = bytes_per_rank * gpus;
  const int steps = shape.ranks - 1;
  const int inter_steps = shape.nodes == 1 ? 0 : shape.nodes - 1;
  double best = std::numeric_limits<double>::infinity();
  for (int p = 0; p < 3; ++p) {
    if (!params_.protocols[p]) continue;
    const double latency_us = params_.base_latency_us[kRing][p] +
                              (steps - inter_steps) * intra_hop(params_, kRing, p, shape) +
                              inter_steps * net_hop(params_, kRing, p, shape);
    const double bandwidth = protocol_bandwidth(params_, kRing, p, shape) * shape.ranks / steps;
    best = std::min(best, latency_us * 1e-6 + total / bandwidth);
  }
  return best;
}

NcclParams nccl_params_from(const CollectiveSettings& settings) {
  const Network& network = settings.network;  // without a reduction term (CollectiveInfo::check_network)
  NcclParams params;
  params.intra_beta_s_per_byte = network.intra.beta_s_per_byte;
  params.inter_beta_s_per_byte = network.inter.beta_s_per_byte;
  params.intra_extra_latency_us = network.intra.alpha_s * 1e6;
  params.inter_extra_latency_us = network.inter.alpha_s * 1e6;
  params.gpus_per_node = settings.gpus_per_node;
  params.nvls_tree = param_or(settings.params, kNvlsTree.name, 0) == 1;
  return params;
}

std::unique_ptr<Collective> make_nccl(const CollectiveSettings& settings) {
  return std::make_unique<NcclModel>(nccl_params_from(settings));
}

}  // namespace mgsim
