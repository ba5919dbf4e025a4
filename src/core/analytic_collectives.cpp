#include "analytic_collectives.hpp"

#include <bit>
#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim {

int ceil_log2(int p) { return p <= 1 ? 0 : std::bit_width(static_cast<unsigned>(p - 1)); }

double ring_allreduce_seconds(const Link& link, double bytes, int ranks) {
  const double p = ranks;
  const double share = (p - 1) / p * bytes;
  return 2 * (p - 1) * link.alpha_s + 2 * share * link.beta_s_per_byte + share * link.gamma_s_per_byte;
}

namespace {

/// A single-level model: an all-reduce and an all-gather formula over the
/// bottleneck link.
class FlatCollective : public Collective {
 public:
  using Formula = double (*)(const Link&, double bytes, int gpus);
  FlatCollective(const Link& link, Formula allreduce, Formula allgather)
      : link_(link), allreduce_(allreduce), allgather_(allgather) {}
  double allreduce_seconds(double bytes, int gpus) const override { return allreduce_(link_, bytes, gpus); }
  double allgather_seconds(double bytes, int gpus) const override { return allgather_(link_, bytes, gpus); }
  bool allreduce_affine(int) const override { return true; }  // every formula of this file is

 private:
  Link link_;
  Formula allreduce_;
  Formula allgather_;
};

/// Ring all-gather of m bytes per rank: (P-1) steps of m bytes.
double ring_allgather(const Link& link, double bytes, int gpus) {
  return (gpus - 1) * (link.alpha_s + bytes * link.beta_s_per_byte);
}

/// Recursive-doubling all-gather: log2P steps, (P-1) m bytes received in all.
double recursive_doubling_allgather(const Link& link, double bytes, int gpus) {
  return ceil_log2(gpus) * link.alpha_s + (gpus - 1) * bytes * link.beta_s_per_byte;
}

/// Binomial-tree gather to a root, then a tree broadcast of all P m bytes.
double tree_allgather(const Link& link, double bytes, int gpus) {
  const double d = ceil_log2(gpus);
  return d * link.alpha_s + (gpus - 1) * bytes * link.beta_s_per_byte +
         d * (link.alpha_s + gpus * bytes * link.beta_s_per_byte);
}

double binary_tree(const Link& link, double bytes, int gpus) {
  const double d = ceil_log2(gpus);
  return 2 * d * (link.alpha_s + bytes * link.beta_s_per_byte) + d * bytes * link.gamma_s_per_byte;
}

double recursive_doubling(const Link& link, double bytes, int gpus) {
  const double d = ceil_log2(gpus);
  return d * (link.alpha_s + bytes * (link.beta_s_per_byte + link.gamma_s_per_byte));
}

double rabenseifner(const Link& link, double bytes, int gpus) {
  const double p = gpus;
  const double share = (p - 1) / p * bytes;
  return 2 * ceil_log2(gpus) * link.alpha_s + 2 * share * link.beta_s_per_byte + share * link.gamma_s_per_byte;
}

double double_binary_tree(const Link& link, double bytes, int gpus) {
  return 2 * ceil_log2(gpus) * link.alpha_s + 2 * bytes * link.beta_s_per_byte + bytes * link.gamma_s_per_byte;
}

/// Reduce-scatter inside each node, ring all-reduce of M/g across nodes,
/// all-gather inside each node.
class HierarchicalCollective : public Collective {
 public:
  HierarchicalCollective(const Network& network, int gpus_per_node)
      : network_(network), gpus_per_node_(gpus_per_node) {}

  double allreduce_seconds(double bytes, int gpus) const override {
    const int g = node_size(gpus);
    const int nodes = gpus / g;
    const Link& intra = network_.intra;
    const double share = (g - 1.0) / g * bytes;
    const double reduce_scatter = (g - 1) * intra.alpha_s + share * (intra.beta_s_per_byte + intra.gamma_s_per_byte);
    const double all_gather = (g - 1) * intra.alpha_s + share * intra.beta_s_per_byte;
    const double across = nodes > 1 ? ring_allreduce_seconds(network_.inter, bytes / g, nodes) : 0.0;
    return reduce_scatter + across + all_gather;
  }

  bool allreduce_affine(int) const override { return true; }

  /// The all-reduce's reduce-scatter inside each node, then a ring
  /// reduce-scatter of M/g across the nodes.
  double reduce_scatter_seconds(double bytes, int gpus) const override {
    const int g = node_size(gpus);
    const int nodes = gpus / g;
    const Link& intra = network_.intra;
    const Link& inter = network_.inter;
    const double inside =
        (g - 1) * intra.alpha_s + (g - 1.0) / g * bytes * (intra.beta_s_per_byte + intra.gamma_s_per_byte);
    if (nodes == 1) return inside;
    const double share = (nodes - 1.0) / nodes * bytes / g;
    return inside + (nodes - 1) * inter.alpha_s + share * (inter.beta_s_per_byte + inter.gamma_s_per_byte);
  }

  /// Ring all-gather of each GPU's block across the nodes (one ring per
  /// local rank, as the all-reduce's rings of M/g), then of the nodes' blocks
  /// inside each node: RS(M) + AG(M/P) is the all-reduce (red team: the
  /// blocks of a node through one ring cost g times the inter-node time).
  double allgather_seconds(double bytes, int gpus) const override {
    const int g = node_size(gpus);
    const int nodes = gpus / g;
    const double across = nodes > 1 ? ring_allgather(network_.inter, bytes, nodes) : 0.0;
    return across + (g > 1 ? ring_allgather(network_.intra, nodes * bytes, g) : 0.0);
  }

 private:
  /// GPUs per node at this GPU count; throws when P does not fill whole nodes.
  int node_size(int gpus) const {
    const int g = std::min(gpus_per_node_, gpus);
    if (gpus % g != 0) {
      throw ConfigError(fmt::format("collective 'hierarchical': {} GPUs is not a multiple of gpus_per_node {}",
                                    gpus, gpus_per_node_));
    }
    return g;
  }

  Network network_;
  int gpus_per_node_;
};

}  // namespace

std::unique_ptr<Collective> make_ring(const CollectiveSettings& settings) {
  return std::make_unique<FlatCollective>(settings.network.inter, ring_allreduce_seconds, ring_allgather);
}
std::unique_ptr<Collective> make_binary_tree(const CollectiveSettings& settings) {
  return std::make_unique<FlatCollective>(settings.network.inter, binary_tree, tree_allgather);
}
std::unique_ptr<Collective> make_recursive_doubling(const CollectiveSettings& settings) {
  return std::make_unique<FlatCollective>(settings.network.inter, recursive_doubling, recursive_doubling_allgather);
}
std::unique_ptr<Collective> make_rabenseifner(const CollectiveSettings& settings) {
  return std::make_unique<FlatCollective>(settings.network.inter, rabenseifner, recursive_doubling_allgather);
}
std::unique_ptr<Collective> make_double_binary_tree(const CollectiveSettings& settings) {
  return std::make_unique<FlatCollective>(settings.network.inter, double_binary_tree, ring_allgather);
}
std::unique_ptr<Collective> make_hierarchical(const CollectiveSettings& settings) {
  return std::make_unique<HierarchicalCollective>(settings.network, settings.gpus_per_node);
}

}  // namespace mgsim
