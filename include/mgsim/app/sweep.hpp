#pragma once
// A sweep: the grid of a SweepConfig expanded into an ordered list of runs.
// Run `index` is one (trace, collective, network, gpus per node, GPU count,
// schedule), the first outermost and the schedule innermost; the index is
// the row order of the sweep's CSV. A Sweep owns the loaded traces, one cost
// model per (collective, network, gpus per node) and the schedules; every run
// only reads them, so runs may execute on any number of threads at once.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mgsim/io/report.hpp"
#include "mgsim/io/sweep_config.hpp"
#include "mgsim/simulation.hpp"

namespace mgsim {

/// A cost model of the grid: the collective on one network with one node size.
struct SweepLink {
  std::string collective;
  std::string network;  ///< the network's label, or "measured" for the measured curves
  int gpus_per_node = 1;
  std::unique_ptr<Collective> model;
  std::optional<Network> links;  ///< the network's links; none for the measured curves
};

/// Where one run sits in the grid (indices into the sweep's lists).
struct SweepPoint {
  std::size_t trace = 0;
  std::size_t link = 0;
  std::size_t gpus = 0;
  std::size_t schedule = 0;
};

class Sweep {
 public:
  /// Loads every trace, builds every cost model and checks that each answers
  /// at every GPU count of the grid (a measured curve lacking a GPU count, a
  /// node size that does not divide it...) and that every schedule can plan
  /// with it, so that no run can fail later.
  /// Throws TraceError, CurveError or ConfigError naming the file and key.
  explicit Sweep(SweepConfig config);

  /// Number of runs in the grid.
  std::size_t size() const;
  SweepPoint point(std::size_t index) const;
  /// Simulates run `index`.
  RunRow run(std::size_t index) const;
  /// The start of run `index`'s row, up to and including the `gpus` column
  /// and its comma: what the run is, without what it gives.
  std::string key(std::size_t index) const;
  /// Run `index` as a CSV line (with its newline), in the columns of header().
  std::string row(std::size_t index) const;
  /// The sweep's CSV header: the version line (csv_preamble()), then
  /// run,trace,network,gpus_per_node and the columns of
  /// `mgsim run --format csv` (csv_header()).
  static std::string header();

  const SweepConfig& config() const { return config_; }
  const std::vector<SweepLink>& links() const { return links_; }
  /// The loaded traces, in the order of config().traces.
  const std::vector<Workload>& workloads() const { return workloads_; }

 private:
  void check_gpu_counts() const;
  /// Plans every schedule on a tiny probe trace with this cost model (e.g. a
  /// sparse schedule needs an all-gather that measured curves lack).
  void check_schedules(const Workload& probe, const SweepLink& link, int gpus,
                       const std::function<std::string()>& where) const;

  SweepConfig config_;
  std::vector<Workload> workloads_;
  std::vector<SweepLink> links_;
  std::vector<std::unique_ptr<Schedule>> schedules_;  ///< per spec; null for a standalone builder
  std::vector<std::string> schedule_labels_;  ///< per schedule, made once, not per row
  std::vector<Cluster> clusters_;             ///< per GPU count of the grid
};

}  // namespace mgsim
