#pragma once
// A scenario's grid: every run it asks for, each a RunPoint, in one order.
// Run `index` is one (trace, collective, network, gpus per node, GPU count,
// schedule), the first outermost and the schedule innermost; the index is
// the row order of `mgsim run` and of a sweep's CSV. A RunGrid owns one cost
// model per (collective, network, gpus per node) and one schedule per spec,
// built once, and reads its traces through a WorkloadCache; every run only
// reads them, so runs may be evaluated on any number of threads at once.
// run, sweep, advise, calibrate and validate all predict through it.

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mgsim/error.hpp"
#include "mgsim/evaluate.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/scenario.hpp"

namespace mgsim {

/// Traces loaded once by path, shared by the grids built from them.
class WorkloadCache {
 public:
  /// The workload of `trace`, loaded on first use. Throws TraceError.
  const Workload& get(const std::filesystem::path& trace);
  /// Makes `trace` the workload of `name`, as if loaded from that file.
  void put(const std::filesystem::path& name, Trace trace);

 private:
  std::map<std::filesystem::path, std::unique_ptr<Workload>> loaded_;
};

/// A cost model of the grid: the collective on one network with one node size.
struct GridLink {
  std::string collective;  ///< the collective's label: "ring", "ps(servers=4)"
  std::string network;  ///< the network's label, or "measured" for the measured curves
  int gpus_per_node = 1;
  std::size_t node_size = 0;  ///< the index of gpus_per_node in the scenario's list
  std::unique_ptr<Collective> model;
  std::optional<Network> links;  ///< the network's links; none for the measured curves
};

/// Where one run sits in the grid (indices into the scenario's lists).
struct GridIndex {
  std::size_t trace = 0;
  std::size_t link = 0;
  std::size_t gpus = 0;
  std::size_t schedule = 0;
};

/// Default budget of `--max-work`: 2e8 steps, at most about 20 s on the
/// 2-core CI machine.
inline constexpr double kDefaultMaxWork = 2e8;

/// Throws ConfigError with the estimate and the flag that raises the budget
/// when `steps` (a sum of RunGrid::estimate_steps) is past `max_steps`.
void check_work(double steps, double max_steps);

class RunGrid {
 public:
  /// Loads every trace, builds every cost model and schedule, and checks
  /// that each model answers at every GPU count of the grid (a measured curve
  /// lacking a GPU count, a node size that does not divide it, an all-gather
  /// a sparse schedule needs) and that every layer a schedule names is in
  /// every trace, so that no run fails later for want of them.
  /// Throws TraceError, CurveError or ConfigError naming the file and key.
  RunGrid(Scenario scenario, WorkloadCache& cache);

  /// Number of runs in the grid.
  std::size_t size() const;
  GridIndex index(std::size_t run) const;
  /// Run `run`, resolved.
  RunPoint point(std::size_t run) const;
  /// estimate_steps of run `run`'s point (evaluate.hpp); a ConfigError (a
  /// plan past its bounds, told before any run) names the run as evaluate's do.
  double estimate_steps(std::size_t run) const;
  /// Run `run` evaluated (evaluate.hpp); a ConfigError names the config,
  /// the GPU count and the schedule.
  Evaluation evaluate(std::size_t run, bool keep_iteration = false) const;
  /// Run `run` evaluated, as a report row.
  RunRow row(std::size_t run) const;
  /// The row of an evaluation of run `run`.
  RunRow row(std::size_t run, const RunMetrics& metrics) const;
  /// The start of run `run`'s CSV line, up to and including the `gpus` column
  /// and its comma: what the run is, without what it gives.
  std::string key(std::size_t run) const;
  /// Run `run` as a CSV line (with its newline), in the columns of header().
  std::string csv_line(std::size_t run) const;
  /// A sweep's CSV header: run,trace,network,gpus_per_node, then the columns
  /// of `mgsim run --format csv` (csv_header()).
  static std::string header();

  const Scenario& scenario() const { return scenario_; }
  const std::vector<GridLink>& links() const { return links_; }
  /// The loaded traces, in the order of scenario().traces.
  const Workload& workload(std::size_t trace) const { return *workloads_[trace]; }

 private:
  /// Throws `error` with the run's GPUs, schedule and trace before it.
  [[noreturn]] void rethrow_in_context(std::size_t run, const ConfigError& error) const;
  void check_gpu_counts() const;
  void check_layer_names() const;

  Scenario scenario_;
  std::vector<const Workload*> workloads_;
  std::vector<GridLink> links_;
  std::vector<std::unique_ptr<Schedule>> schedules_;  ///< per spec; null for a standalone builder
  std::vector<std::string> labels_;                   ///< per spec, made once, not per row
  /// Per (GPU count, node size), GPU counts outer: the speed classes over the ranks, made once.
  std::vector<Cluster> clusters_;
};

}  // namespace mgsim
