#include "parameter_server.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"

namespace mgsim {
namespace {

/// The per-byte time of a server that sums `share` of every message from
/// `workers` workers: its link carries workers x share each way, and it adds
/// (workers - 1) x share.
double server_per_byte(double link_beta, double sum_s_per_byte, double share, int workers) {
  return share * std::max(workers * link_beta, (workers - 1) * sum_s_per_byte);
}

ServerSplit dedicated_split(int, int servers) {
  if (servers < 1) throw ConfigError(fmt::format("collective 'ps': servers = {}: expected at least 1", servers));
  return {servers, 1.0 / servers, 0, 0.0};
}

/// `servers` 0 stands for every worker.
ServerSplit colocated_split(int workers, int servers) {
  if (servers > workers) {
    throw ConfigError(fmt::format("collective 'ps-colocated': servers = {} is more than the {} GPUs that would host "
                                  "them; give at most the smallest GPU count, or leave servers out (every worker)",
                                  servers, workers));
  }
  const int s = servers == 0 ? workers : servers;
  return {0, 0.0, s, 1.0 / s};
}

class ParameterServer final : public Collective {
 public:
  using Split = ServerSplit (*)(int workers, int count);
  ParameterServer(const ServerLinks& links, Split split, int count) : links_(links), split_(split), count_(count) {}
  double allreduce_seconds(double bytes, int gpus) const override {
    return server_exchange_seconds(links_, split_(gpus, count_), bytes, gpus);
  }
  bool allreduce_affine(int) const override { return true; }

 private:
  ServerLinks links_;
  Split split_;
  int count_;
};

std::unique_ptr<Collective> make_server_model(const CollectiveSettings& settings, ParameterServer::Split split,
                                              std::string_view count_name, double count_default) {
  const Link& inter = settings.network.inter;
  const ServerLinks links{inter, param_or(settings.params, "server_beta_s_per_byte", inter.beta_s_per_byte),
                          param_or(settings.params, "sum_s_per_byte", inter.gamma_s_per_byte)};
  const double count = param_or(settings.params, count_name, count_default);
  if (count < 0) throw ConfigError(fmt::format("collective parameter '{}' is required", count_name));
  return std::make_unique<ParameterServer>(links, split, static_cast<int>(count));
}

}  // namespace

double server_exchange_seconds(const ServerLinks& links, const ServerSplit& split, double bytes, int workers) {
  const double beta = links.worker.beta_s_per_byte;
  double per_byte = beta;  // every worker pushes the message and pulls it back
  if (split.dedicated > 0) {
    const double share = split.dedicated_share;
    per_byte = std::max(per_byte, server_per_byte(links.server_beta, links.sum_s_per_byte, share, workers));
  }
  if (split.colocated > 0) {
    // A worker that serves pushes all but its own share and sends its summed
    // share to the workers - 1 others: (1 + (workers - 2) share) each way.
    const double y = split.colocated_share;
    per_byte = std::max({per_byte, (1 + (workers - 2) * y) * beta, (workers - 1) * y * links.sum_s_per_byte});
  }
  return 2 * links.worker.alpha_s + bytes * per_byte;
}

ServerSplit byteps_split(int workers, int cpu_machines) {
  const double n = workers, k = cpu_machines;
  if (cpu_machines >= workers) return {cpu_machines, 1.0 / k, 0, 0.0};
  const double d = n * n + k * n - 2 * k;
  return {cpu_machines, 2 * (n - 1) / d, workers, (n - k) / d};
}

std::unique_ptr<Collective> make_ps(const CollectiveSettings& settings) {
  return make_server_model(settings, dedicated_split, "servers", -1);
}
std::unique_ptr<Collective> make_ps_colocated(const CollectiveSettings& settings) {
  return make_server_model(settings, colocated_split, "servers", 0);
}
void check_byteps(const CollectiveParams& params) {
  if (params.contains("server_beta_s_per_byte") && param_or(params, "cpu_machines", -1) == 0) {
    throw ConfigError("collective 'byteps': server_beta_s_per_byte prices the CPU machines' links, and cpu_machines = 0 "
                      "has none: leave it out");
  }
}

std::unique_ptr<Collective> make_byteps(const CollectiveSettings& settings) {
  return make_server_model(settings, byteps_split, "cpu_machines", -1);
}


}  // namespace mgsim
