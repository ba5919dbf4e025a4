#pragma once
// The `nccl` collective: NCCL's own cost predictor (src/graph/tuning.cc,
// ncclTopoTuneModel and ncclTopoGetAlgoTime, NCCL 2.2x defaults), per
// algorithm (Ring, Tree) and protocol (LL, LL128, Simple):
//   time = latency(a, p, P) + M / bandwidth(a, p, P), the fastest (a, p) wins.
// Every constant is a field of NcclParams with NCCL's value as its default;
// the bus bandwidths and extra per-hop latencies come from the config's
// `network` (make_nccl), or from a measured curve (calibrate_nccl, in
// mgsim/profile/nccl_calibration.hpp).
// Formulas, sources and what is left out: docs/profiling.md.

#include <array>
#include <memory>
#include <string_view>

#include "mgsim/collective.hpp"

namespace mgsim {

enum class NcclAlgorithm { tree = 0, ring = 1 };
enum class NcclProtocol { ll = 0, ll128 = 1, simple = 2 };

std::string_view to_string(NcclAlgorithm algorithm);
std::string_view to_string(NcclProtocol protocol);

/// Per algorithm (Tree, Ring) and protocol (LL, LL128, Simple), microseconds.
using NcclTable = std::array<std::array<double, 3>, 2>;

struct NcclParams {
  /// NCCL baseLat: fixed cost of one collective.
  NcclTable base_latency_us{{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}}};
  /// NCCL hwLat[NVLINK]: one step inside a node (use {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}} for PCIe).
  NcclTable intra_hop_latency_us{{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}}};
  /// NCCL hwLat[NET]: one step across nodes.
  NcclTable net_hop_latency_us{{{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}}};
  double intra_extra_latency_us = 0.0;  ///< added to every intra-node step (config: network.intra.alpha_us)
  double inter_extra_latency_us = 0.0;  ///< NCCL latencyInter, twice for Simple (config: network.inter.alpha_us)
  double net_overhead_us = 1.0;         ///< NCCL getNetOverhead (x86 Intel); x3 for Simple; multi-node rings only
  /// NCCL llMaxBws across nodes, Intel x86 hosts: bus bandwidth cap of LL on 2 nodes, on 3 or more (GB/s;
  /// AMD hosts: {22.5, 19.0}). 0 would make LL unusable across nodes.
  std::array<double, 2> ll_max_bus_gb_s{39.0, 20.4};
  double intra_beta_s_per_byte = 0.0;   ///< 1 / bus bandwidth inside a node (config: network.intra.beta_s_per_byte)
  double inter_beta_s_per_byte = 0.0;   ///< 1 / bus bandwidth across nodes (config: network.inter.beta_s_per_byte)
  int gpus_per_node = 1;
  std::array<bool, 2> algorithms{true, true};       ///< Tree, Ring enabled (NCCL_ALGO)
  std::array<bool, 3> protocols{true, true, true};  ///< LL, LL128, Simple enabled (NCCL_PROTO)
  bool tree_correction = true;                      ///< NCCL's treeCorrectionFactor for medium sizes
  /// The tree is NCCL's NVLS tree (Hopper or later GPUs on NVSwitch, NVLS multicast): beyond 2 nodes it moves at
  /// half the bus bandwidth (tuning.cc, NCCL 2.19-2.27: min(bwIntra, nNodes <= 2 ? bwInter : bwInter / 2)).
  /// Off: NCCL's plain tree (V100, A100, PCIe), the ring's bus bandwidth at any node count.
  bool nvls_tree = false;
};

struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  double seconds = 0.0;
};

class NcclModel : public Collective {
 public:
  /// Throws ConfigError when no (algorithm, protocol) is enabled or a value is negative.
  explicit NcclModel(const NcclParams& params);

  double allreduce_seconds(double bytes, int gpus) const override;
  /// Ring all-gather (NCCL's only flat all-gather), same protocol terms.
  double allgather_seconds(double bytes_per_rank, int gpus) const override;
  /// Ring reduce-scatter: NCCL prices it as the all-gather of the 1/P shares
  /// (P-1 steps, the same bytes on the wire).
  double reduce_scatter_seconds(double bytes, int gpus) const override { return allgather_seconds(bytes / gpus, gpus); }

  /// The fastest enabled (algorithm, protocol) for an all-reduce, and its time.
  NcclChoice choose(double bytes, int gpus) const;
  /// Time of one (algorithm, protocol); +infinity when it is disabled.
  double seconds(NcclAlgorithm algorithm, NcclProtocol protocol, double bytes, int gpus) const;

  const NcclParams& params() const { return params_; }

 private:
  NcclParams params_;
};

/// NcclParams from a config's network: betas are 1 / bus bandwidth of each
/// level, alphas the extra per-hop latencies; gamma must be 0.
NcclParams nccl_params_from(const CollectiveSettings& settings);

/// The `nccl` collective's parameter (CollectiveInfo::params): `nvls_tree`,
/// 1 on NVSwitch nodes whose NCCL runs the NVLS tree (NcclParams::nvls_tree).
inline constexpr CollectiveParam kNvlsTree{"nvls_tree", 0, 1, true, false,
                                           "1: NVSwitch nodes with NVLS (H100 and later), NCCL's NVLS tree, half the "
                                           "bus bandwidth beyond 2 nodes (default 0: NCCL's plain tree)", 0.0};
inline constexpr std::array kNcclParams{kNvlsTree};

/// The registry's factory.
std::unique_ptr<Collective> make_nccl(const CollectiveSettings& settings);

}  // namespace mgsim
