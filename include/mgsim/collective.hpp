#pragma once
// Collective cost models: how long an all-reduce of M bytes over P ranks takes.
// Each model is a pure function of (bytes, P) behind one interface; models are
// looked up by name in one table (collective_registry), whose lookup error
// lists the valid names. A model may take parameters a config gives it by
// name (the parameter servers' `servers`), listed with their ranges in its
// row. Formulas and sources: docs/collectives.md.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mgsim/time.hpp"

namespace mgsim {

/// One kind of link, in the alpha-beta-gamma model.
struct Link {
  double alpha_s = 0.0;           ///< latency per message step, seconds
  double beta_s_per_byte = 0.0;   ///< transfer time per byte
  double gamma_s_per_byte = 0.0;  ///< reduction arithmetic time per byte
};

/// The links of a cluster. A flat network has intra == inter; flat
/// (single-level) algorithms use `inter`, the link that bounds them.
struct Network {
  Link intra;  ///< between GPUs of one node
  Link inter;  ///< between nodes
  /// Seconds per byte of the fabric between nodes as a whole, shared by every
  /// node's traffic (SimGrid's cluster backbone): 1 / the bytes a second it
  /// carries in all. An exchange among N nodes moves at least so many bytes
  /// across it (all-reduce 2(N-1) M), so it lasts at least that many bytes
  /// times this (docs/collectives.md, "A shared fabric"); 0: no limit.
  double fabric_s_per_byte = 0.0;
};

/// One measured collective latency (of the operation its curve names).
struct CurvePoint {
  int gpus = 0;
  std::int64_t bytes = 0;
  double seconds = 0.0;
};

/// The operation a measured curve times (docs/trace-format.md, "Curve").
/// `bytes` of a point is the message of an all-reduce, the part each rank
/// contributes to an all-gather, the whole vector each rank reduces in a
/// reduce-scatter.
enum class CurveCollective { allreduce, allgather, reducescatter };

/// "allreduce", "allgather", "reducescatter": the names in curve files.
std::string_view curve_collective_name(CurveCollective collective);
/// The collective of that name, or nothing.
std::optional<CurveCollective> curve_collective_named(std::string_view name);

/// nccl-tests' bus bandwidth of one point, bytes per second
/// (docs/profiling.md): algbw x 2(P-1)/P for an all-reduce, x (P-1)/P for an
/// all-gather and a reduce-scatter, with algbw the size nccl-tests prints
/// (an all-gather's whole output, P x `bytes`) over the time.
double bus_bandwidth(CurveCollective collective, double bytes, double seconds, int gpus);

/// Parameters a config gave a collective, by name: `{"name": "ps", "servers": 4}`.
using CollectiveParams = std::map<std::string, double, std::less<>>;

/// The parameter `name` of `params`, or `fallback` when the config left it out.
inline double param_or(const CollectiveParams& params, std::string_view name, double fallback) {
  const auto found = params.find(name);
  return found == params.end() ? fallback : found->second;
}

/// A parameter of a collective (the parameter servers' `servers`, ...).
/// Absent, the model's default applies (`description` says which) unless
/// `required`.
struct CollectiveParam {
  std::string_view name;
  double min;  ///< smallest value, inclusive
  double max;  ///< largest value, inclusive
  bool integer;
  bool required;
  std::string_view description;
  /// The value its absence gives, where that does not depend on the run (a
  /// label leaves it out: one run, one label); empty where it does.
  std::optional<double> default_value = std::nullopt;
};

/// A collective as a scenario names it: a name and the parameters given.
struct CollectiveSpec {
  std::string name;
  CollectiveParams params;
  /// "ring" or "ps(servers=4)": the row label, unique within a scenario; a
  /// parameter given its fixed default is left out ("nccl(nvls_tree=0)" is "nccl").
  std::string label() const;
};

/// Everything a cost model may be built from.
struct CollectiveSettings {
  Network network;
  int gpus_per_node = 1;
  std::vector<CurvePoint> curve;  ///< all-reduce points; only the `measured` model uses them
  std::string curve_source;       ///< where the points came from, for messages
  /// All-gather points (bytes per rank) for the sparse schedules; only `measured` uses them.
  std::vector<CurvePoint> allgather_curve;
  /// Fixed seconds added to every message (framework dispatch and kernel
  /// launch per tensor or bucket): the config's `message_overhead_s`.
  double message_overhead_s = 0.0;
  /// The collective's own parameters (CollectiveInfo::params), checked by the reader.
  CollectiveParams params;
};

class Collective {
 public:
  virtual ~Collective() = default;
  /// Seconds to all-reduce `bytes` over `gpus` >= 2 ranks. Throws
  /// ConfigError or CurveError when the model cannot answer for this P.
  virtual double allreduce_seconds(double bytes, int gpus) const = 0;
  /// Seconds to all-gather `bytes_per_rank` from each of `gpus` >= 2 ranks
  /// (the exchange of sparsified gradients). Throws ConfigError for models
  /// that have none (a measured model given no all-gather curve).
  virtual double allgather_seconds(double bytes_per_rank, int gpus) const;
  /// Seconds to reduce-scatter `bytes` (every rank's whole vector; each keeps
  /// 1/P of the sum). By default the all-reduce less the all-gather of the
  /// 1/P shares, ring's decomposition (docs/collectives.md); throws
  /// ConfigError where that is negative or the model has no all-gather.
  virtual double reduce_scatter_seconds(double bytes, int gpus) const;
  /// Whether allreduce_seconds is a + b * bytes (a, b >= 0) at this P, up to
  /// floating-point rounding: planners then search along that line instead
  /// of pricing every candidate message.
  virtual bool allreduce_affine(int) const { return false; }
};

struct CollectiveInfo {
  std::string_view name;
  std::string_view description;
  bool needs_curve;  ///< true when the model is built from measured points
  std::unique_ptr<Collective> (*make_model)(const CollectiveSettings&);
  std::span<const CollectiveParam> params = {};  ///< what a config may give it, by name
  /// Throws ConfigError where the parameters together say what the model
  /// would ignore; none when each range suffices.
  void (*check)(const CollectiveParams& params) = nullptr;
  /// Whether the model prices a network's reduction term (gamma_s_per_byte):
  /// NCCL's predictor has none.
  bool reduces = true;
  /// Whether the model has an all-gather (Collective::allgather_seconds):
  /// parameter servers only all-reduce.
  bool gathers = true;
  /// Throws ConfigError where `network` gives a term the model cannot run
  /// (every path that builds the model asks: a config, a measurement row's
  /// own collective, a plan's cluster).
  void check_network(const Network& network) const;
  /// The model built from `settings`: on the network's shared fabric when it
  /// has one (each exchange at least its bytes between nodes at the fabric's
  /// rate), then every message `settings.message_overhead_s` longer.
  std::unique_ptr<Collective> make(const CollectiveSettings& settings) const;
};

/// Every cost model, in the order `mgsim list` shows them.
std::span<const CollectiveInfo> collective_registry();

/// Looks a model up by name; throws ConfigError listing the valid names.
const CollectiveInfo& find_collective(std::string_view name);

/// ceil(log2(p)) for p >= 1: the depth of a binary tree over p ranks.
int ceil_log2(int p);

/// A collective bound to one GPU count, in nanoseconds: what planners and the
/// engine use. With one GPU there is nothing to reduce and every cost is 0.
class CommCost {
 public:
  CommCost(const Collective& collective, int gpus);
  /// All-reduce of `bytes`; throws ConfigError past an hour (limits.md).
  SimTime operator()(std::int64_t bytes) const;
  /// The same, or nothing past an hour: a candidate message a planner may
  /// leave out, where another plan needs none so long.
  std::optional<SimTime> within_limit(std::int64_t bytes) const;
  /// All-gather of `bytes_per_rank` from every GPU (the sparse exchange).
  SimTime allgather(std::int64_t bytes_per_rank) const;
  /// The same, or nothing past an hour, as within_limit.
  std::optional<SimTime> allgather_within_limit(std::int64_t bytes_per_rank) const;
  /// Reduce-scatter of `bytes` (Collective::reduce_scatter_seconds).
  SimTime reduce_scatter(std::int64_t bytes) const;
  /// All-gather of parameters of `bytes` in all, `bytes`/P from every GPU.
  SimTime param_allgather(std::int64_t bytes) const;
  /// Cost of an empty message: the start-up term `a` of the MG-WFBP rule.
  SimTime startup() const { return (*this)(0); }
  /// The line of a model affine at this P (Collective::allreduce_affine), in
  /// ns before rounding: (*this)(M) is llround(startup + slope * M) up to
  /// floating-point error in the model (near 1e-16 of its terms). Empty for
  /// other models.
  struct Line {
    double startup;
    double slope;  ///< ns per byte
  };
  std::optional<Line> line_ns() const;
  int gpus() const { return gpus_; }

 private:
  /// An all-reduce of `bytes` priced `seconds`, in ns; throws past an hour.
  SimTime step_of(std::int64_t bytes, double seconds) const;
  /// The same for an all-gather of `bytes_per_rank` from every GPU.
  SimTime allgather_step(std::int64_t bytes_per_rank, double seconds) const;

  const Collective* collective_;
  int gpus_;
};

}  // namespace mgsim
