#pragma once
// Advice for framework users: for a model and a cluster (a run config),
// which PyTorch DDP bucket_cap_mb, Horovod fusion threshold and cycle time,
// ByteScheduler partition and credit, and P3 slice give the best predicted
// iteration time at each GPU count, how far that is from the optimal merge
// (the `optimal` schedule, MG-WFBP's goal reached exactly) and how much the
// default loses. A small sweep over one parameter at a time.

#include <string>
#include <string_view>
#include <vector>

#include "mgsim/app/run_grid.hpp"
#include "mgsim/io/report.hpp"

namespace mgsim {

/// One framework knob at one GPU count.
struct KnobAdvice {
  int gpus = 0;
  std::string schedule;   ///< "ddp", "horovod", "bytescheduler" or "p3"
  std::string parameter;  ///< "bucket_cap_mb", "fusion_threshold_mb", "cycle_time_ms", "partition_params", ...
  double best_value = 0;  ///< the value with the shortest iteration (the default when nothing beats it)
  bool best_is_default = false;
  SimTime best = 0;       ///< iteration time with best_value
  double default_value = 0;
  SimTime at_default = 0;  ///< iteration time with every parameter left at its default
  SimTime optimal = 0;     ///< iteration time of the `optimal` schedule
  std::vector<std::pair<double, SimTime>> tried;  ///< each value tried and its iteration time

  /// How much slower the default is than the best: at_default / best - 1.
  double default_loss() const { return static_cast<double>(at_default) / static_cast<double>(best) - 1.0; }
  /// How much slower the best is than the optimum: best / optimal - 1.
  double gap_to_optimal() const { return static_cast<double>(best) / static_cast<double>(optimal) - 1.0; }
};

/// Values tried for a knob, ascending: `first` x 1, 2, 4, ..., 4096
/// (0.25 .. 1024 MiB or ms; 16 Ki .. 64 Mi elements for a partition).
std::vector<double> advice_values(double first);

/// Per GPU count of the scenario (in its order): DDP's bucket_cap_mb,
/// Horovod's fusion_threshold_mb and cycle_time_ms, ByteScheduler's
/// partition_params and credit_params, P3's slice_params, each candidate a run of
/// the scenario's grid with every other key as given (overlap, speed classes,
/// variability...), compared by mean iteration time. The scenario's
/// `schedules` are not used; its trace, node size, collective and network
/// must have one value each. A value is tried by setting that parameter alone, the others
/// at their defaults (docs/config.md says what DDP's first bucket then is);
/// the default is every parameter left out. Ties go to the default, then to
/// the smaller value. Refused (check_work) when the runs' estimated steps pass
/// `max_work`, before any runs.
std::vector<KnobAdvice> advise(Scenario scenario, WorkloadCache& cache, double max_work = kDefaultMaxWork);

/// As a table, CSV (one row per KnobAdvice) or JSON ({"advice": [...]}).
std::string format_advice(const std::vector<KnobAdvice>& advice, std::string_view model, std::string_view collective,
                          ReportFormat format);

}  // namespace mgsim
