#pragma once
// Parameter servers as a cost model of one message: push to the servers,
// summation, pull (docs/collectives.md, "Parameter servers"). Three rows of
// the collective table share one formula: `ps` (S dedicated server
// machines), `ps-colocated` (S of the workers also serve) and `byteps`
// (BytePS's split between k CPU machines and the GPU workers, Jiang et al.,
// OSDI 2020, section 4.1).

#include <array>
#include <memory>

#include "mgsim/collective.hpp"
#include "mgsim/limits.hpp"

namespace mgsim {

/// Where one message's bytes are summed, as fractions of the message: each
/// of `dedicated` server machines sums `dedicated_share` of it, each of
/// `colocated` workers (which are also servers) `colocated_share`, so that
/// dedicated x dedicated_share + colocated x colocated_share = 1.
struct ServerSplit {
  int dedicated = 0;
  double dedicated_share = 0.0;
  int colocated = 0;
  double colocated_share = 0.0;
};

/// The links and summation rate of a parameter-server exchange.
struct ServerLinks {
  Link worker;                ///< each worker's link (alpha, beta); its gamma is not used
  double server_beta = 0.0;   ///< seconds per byte on a dedicated server's link
  double sum_s_per_byte = 0.0;///< seconds per byte added into a sum, on any server
};

/// Seconds to push `bytes` from each of `workers` workers to the servers of
/// `split`, sum, and pull the result: 2 alpha + bytes x the per-byte time of
/// the busiest link or summation, push and pull pipelined over full-duplex links.
double server_exchange_seconds(const ServerLinks& links, const ServerSplit& split, double bytes, int workers);

/// BytePS's optimal split (Theorem 1 of the paper) of n workers over k CPU machines.
ServerSplit byteps_split(int workers, int cpu_machines);

std::unique_ptr<Collective> make_ps(const CollectiveSettings& settings);
std::unique_ptr<Collective> make_ps_colocated(const CollectiveSettings& settings);
std::unique_ptr<Collective> make_byteps(const CollectiveSettings& settings);
/// Refuses server_beta_s_per_byte with cpu_machines 0 (no CPU machine to price; red team: ignored).
void check_byteps(const CollectiveParams& params);

/// The parameters of each row (CollectiveInfo::params).
inline constexpr CollectiveParam kServers{"servers", 1, kMaxGpus, true, true, "dedicated server machines, S"};
inline constexpr CollectiveParam kColocatedServers{"servers", 1, kMaxGpus, true, false,
                                            "workers that also serve, S <= P (default: every worker)"};
inline constexpr CollectiveParam kCpuMachines{"cpu_machines", 0, kMaxGpus, true, true,
                                       "CPU machines running the summation service, k"};
inline constexpr CollectiveParam kServerBeta{"server_beta_s_per_byte", 0, kMaxSecondsPerByte, false, false,
                                      "seconds per byte on a dedicated server's link (default: the network's beta)"};
inline constexpr CollectiveParam kSumRate{"sum_s_per_byte", 0, kMaxSecondsPerByte, false, false,
                                   "seconds per byte added into a sum on a server (default: the network's gamma)"};

inline constexpr std::array kPsParams{kServers, kServerBeta, kSumRate};
inline constexpr std::array kColocatedParams{kColocatedServers, kSumRate};
inline constexpr std::array kBytepsParams{kCpuMachines, kServerBeta, kSumRate};

}  // namespace mgsim
