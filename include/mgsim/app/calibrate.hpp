#pragma once
// Calibration (`mgsim calibrate`, docs/fidelity.md): fits numeric values of a
// run config, named by dotted paths ("network.alpha_us", "schedules.2.
// cycle_time_ms"), to measured iteration times or throughputs. A Calibration
// owns the base config document, the measurements and the workloads they
// run on; predict() re-reads the config with candidate values in place and
// simulates every measurement, fit() minimises the squared relative errors
// with NLopt within each value's bounds: the range the config reader accepts
// for that key (include/mgsim/limits.hpp, docs/limits.md), found by asking
// the reader. Everything is checked when it is built, so a fit that cannot
// be answered is refused before any work.

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "mgsim/app/run_grid.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/scenario.hpp"

namespace mgsim {

/// What a measurement observed.
enum class MeasuredMetric {
  iteration_time,  ///< "iteration_time_s"
  throughput,      ///< "throughput_samples_per_s"
  comm_time,       ///< "comm_time_s": the sum of all message durations of an iteration
};

/// One measured run: where it ran and the number observed.
struct Measurement {
  std::filesystem::path trace;  ///< resolved; the base config's trace by default
  std::string trace_content;    ///< the hash and size of the trace JSON, parsed: a copy of the file is the same trace
  int gpus = 0;
  nlohmann::json schedule;     ///< a schedule entry as in a run config
  int config_schedule = -1;    ///< >= 0: the base config's schedule entry of that index runs instead
  std::string schedule_label;  ///< the schedule's label (ScheduleSpec::label); row_label names the run
  /// The row's own collective (`"collective"` of the row, as in a run
  /// config): runs that differed in how they reduce, e.g. the number of
  /// parameter servers; absent, the config's.
  std::optional<CollectiveSpec> collective;
  MeasuredMetric metric = MeasuredMetric::iteration_time;
  double value = 0.0;
  std::string source;  ///< where the number comes from (free text), may be empty
};

/// How reports name a measurement's run: its schedule's label, then its own
/// collective's where it has one ("single ps(servers=1)").
std::string row_label(const Measurement& m);

/// The run a measurement times, to find it again: its trace by content,
/// GPUs, the schedule that runs (the config's entry of its name, when the
/// row names one) with the collective it runs on (its own, or
/// `config_collective` however the row says it), and whether it times the
/// communication or the iteration (a throughput is the iteration time in
/// other units: red team, an iteration time calibrated on was scored as a
/// throughput predicted).
using MeasuredRun = std::tuple<std::string, int, std::string, bool>;
MeasuredRun run_of(const Measurement& m, const std::string& config_collective);

/// A --fit path as the fit reads it in `config`, dotted: an index written
/// as error messages write it, "schedules[0].partition_params", becomes
/// "schedules.0.partition_params" (red team: the path an error named was
/// "no such key"); a key of the config holding dots or brackets
/// ("features[1]", a layer name) stays whole.
std::string dotted_path(const nlohmann::json& config, const std::string& path);

/// A --choose candidate as messages and reports name it, values printable:
/// "collective=tree message_unit=layer".
std::string choice_label(const std::vector<std::pair<std::string, std::string>>& setting);

/// Marks the schedule label of each row whose run a fitted key moves apart
/// from a row that writes the same values out: the config's schedule entry
/// it names (`schedules.N.*`, marked by the parameter), the config's
/// collective when it has none of its own (`collective.*`). Such a row is
/// another run than one giving the start value inline (red team: refused as
/// its repeat), and its label does not show the value it runs. The keys in
/// order, whatever the order of "fit" and the entry's index (a copy of a case
/// reads alike).
void mark_fitted(std::vector<Measurement>& rows, const std::vector<std::string>& paths);

/// The JSON key of a metric ("iteration_time_s", ...).
std::string_view metric_key(MeasuredMetric metric);

/// The range of values the config reader accepts at a path, the others fixed.
struct ValueBounds {
  double lower = 0.0;
  double upper = 0.0;  ///< +infinity when the reader sets no upper bound
};

struct CalibrationResult {
  std::vector<double> values;     ///< fitted, in --fit order
  /// Per value: it ended at one of its bounds, so the measurements do not
  /// pin it down (the optimum lies at or past the bound): not identifiable.
  std::vector<bool> at_bound;
  /// Per value: another value (its index) that moves every prediction in
  /// proportion with it at the fit, so the measurements pin down only a
  /// combination of the two, not each: not identifiable either.
  std::vector<std::optional<std::size_t>> trades_off_with;
  /// Per value: no prediction moves when it changes by 1% at the fit (a
  /// value in a flat region, e.g. a limit that binds nowhere): not identifiable.
  std::vector<bool> flat;
  /// Per value: why a measurement cannot run just past it, where the fit
  /// stopped at such an edge (a message past an hour) inside the reader's
  /// bounds: the optimum may lie past it, so not identifiable either.
  std::vector<std::optional<std::string>> edge;
  /// Per value: the farthest other value the search tried, more than 10%
  /// away, at which no prediction moves by more than 0.1% of its measurement
  /// (the other fitted values as the search had them there): a step-shaped
  /// response (Horovod's cycle time) fits values 4x apart, so the
  /// measurements do not pin it down.
  std::vector<std::optional<double>> also_fits;
  std::vector<double> predicted;  ///< per measurement, at the fitted values
  double sum_squared_rel_error = 0.0;
  int evaluations = 0;
};

/// The work a calibration may do, all its fits together (the global search,
/// the polish, the held-out fits, every candidate of --choose): `run`'s
/// --max-work, spent prediction by prediction, each charged its
/// estimate_steps (its layers and kStepsPerRun included) before it runs.
class WorkBudget {
 public:
  explicit WorkBudget(double max_steps) : max_steps_(max_steps) {}
  /// Charges `steps`; throws WorkError when that would pass the budget (nothing is charged then).
  void spend(double steps);
  double spent() const;
  /// What may still be charged.
  double left() const;
  /// Throws WorkError when a charge was refused (one NLopt stopped on).
  void check() const;
  /// Throws WorkError now, and refuses every later charge, when `count`
  /// pieces of work (fits, say) begun after `before` was spent, each costing
  /// `mean` (that of the `done` ones finished), would pass the budget:
  /// refused at once, not after the budget is spent. `what` names one piece
  /// ("held-out fit").
  void project(double before, double mean, std::size_t count, std::size_t done, std::string_view what);

 private:
  [[noreturn]] void fail() const;
  mutable std::mutex mutex_;  ///< the held-out fits charge it from several threads
  double max_steps_;
  double spent_ = 0.0;
  std::optional<double> refused_;  ///< the charge refused, once one was
};

/// A calibration past its WorkBudget: not a bad config, so no fit catches it.
class WorkError : public Error {
 public:
  using Error::Error;
};

/// A start whose this-many times moves no prediction by 0.1% counts as 0.
inline constexpr double kNegligibleStart = 100;
/// The smallest power of ten calibrate tries as a value's unit.
inline constexpr double kSmallestScale = 1e-15;

class Calibration {
 public:
  /// Loads the base config and the measurements (`{"measurements": [rows]}`,
  /// rows as in docs/fidelity.md) and checks the fit: every path holds a
  /// number, the config runs every measurement, there are at least as many
  /// measurements as paths, and each path changes at least one prediction
  /// when perturbed. Throws ConfigError naming file and key. `setting`
  /// replaces text values of the config first (dotted path, value: a
  /// candidate of --choose; a key given twice, however spelled, is refused).
  /// Every prediction is charged to `budget` (shared with the held-out
  /// fits; a fresh kDefaultMaxWork one when null).
  static Calibration from_files(const std::filesystem::path& config, const std::filesystem::path& measurements,
                                std::vector<std::string> fit_paths,
                                const std::vector<std::pair<std::string, std::string>>& setting = {},
                                std::shared_ptr<WorkBudget> budget = nullptr);
  /// The same from a config document read from `config_file` at key
  /// `config_at` ("" for the whole file; for messages and relative paths)
  /// and rows read from key `rows_key` of `rows_file`; the fit paths listed
  /// at key `fit_key` of `config_file` ("fit" in a validation case), or ""
  /// where they are --fit options.
  Calibration(const std::filesystem::path& config_file, nlohmann::ordered_json config, std::string config_at,
              const std::filesystem::path& rows_file, std::string rows_key, std::vector<Measurement> measurements,
              std::vector<std::string> fit_paths, std::string fit_key, std::shared_ptr<WorkBudget> budget = nullptr);

  /// Predicted value of every measurement with `values` at the fit paths.
  std::vector<double> predict(std::span<const double> values) const;
  /// The same, or none where the config refuses `values` (an Error); the
  /// work budget's WorkError still propagates, as no value can avoid it.
  std::optional<std::vector<double>> predict_if_runs(std::span<const double> values) const;
  /// The fitted values, starting from the base config's: a global search
  /// (NLopt DIRECT-L over each value's lower bound to the smaller of its upper
  /// bound and 16 x its start, so step-shaped responses such as Horovod's
  /// cycle time do not trap it), then Subplex within the bounds from the
  /// better of that point and the start, restarted until it stops helping.
  CalibrationResult fit() const;
  /// Leave-one-out cross-validation: for each measurement, the values fitted
  /// on all the others and its prediction with them, so that its error is a
  /// predictive error, not a fit error. Empty for a measurement whose
  /// remaining measurements cannot fit every path (fewer than the paths,
  /// none that a path moves, or two paths they tie). Each fit starts from the
  /// base config's values, as the fit on all of them did: nothing of the
  /// held-out measurement reaches its prediction.
  /// The fits run on `threads` threads (0: one per hardware thread), each
  /// alone, so that the answers do not depend on the count.
  std::vector<std::optional<double>> leave_one_out(int threads = 1) const;
  /// The base config with `values` in place.
  nlohmann::json with_values(std::span<const double> values) const;
  /// The same as JSON text, keys in the base config's order; relative paths
  /// are rewritten to stay valid from `output`'s folder.
  std::string config_text(std::span<const double> values, const std::filesystem::path& output) const;

  const std::vector<std::string>& paths() const { return paths_; }
  const std::vector<double>& initial() const { return initial_; }
  /// Every measurement's prediction at the config's own values: predict(initial()),
  /// priced once as the constructor checks that every row runs.
  const std::vector<double>& initial_prediction() const { return initial_prediction_; }
  const std::vector<ValueBounds>& bounds() const { return bounds_; }
  const std::vector<Measurement>& measurements() const { return measurements_; }

 private:
  std::vector<double> predict_document(const nlohmann::json& document) const;
  /// Measurement `m` evaluated on `scenario` (read from `document`), as the one evaluator predicts it.
  double predict_one(const nlohmann::json& document, const Scenario& scenario, const Measurement& m) const;
  /// The optimiser's unit of each path: its base value, or where that is 0
  /// or so small that kNegligibleStart times it moves no prediction, the
  /// smallest power of ten (from kSmallestScale) that moves a prediction by
  /// 0.1% from the base. Refuses a start of 0 that turns the value off
  /// where any small value moves a prediction by more than half.
  void choose_scales(const std::vector<double>& base_prediction);
  void check_dependence(const std::vector<double>& base_prediction) const;
  /// Refuses a row that measures the run of an earlier one (run_of): its
  /// held-out error would be that of a fit to its twin.
  void refuse_repeated_runs(const std::string& config_collective) const;
  /// What the config reader accepts at path `i`, the other values at their start.
  ValueBounds find_bounds(std::size_t i) const;
  /// Why `value` at `path` (the other values at their start) cannot run:
  /// the config reader's refusal, or a row's own collective's (a row running
  /// `nccl` takes no gamma); none where it can.
  std::optional<std::string> refusal(const std::string& path, double value) const;
  bool accepts(const std::string& path, double value) const { return !refusal(path, value); }
  /// Why no fraction near the whole number at `path` runs (4.001 or 3.5 for
  /// 4; refused for counts such as servers, nvls_tree, gpus_per_node, a
  /// schedule's minibatches or slice_params): "W cannot run here: REASON"
  /// for the first one tried; none where one runs, or where the start itself does not.
  std::optional<std::string> fraction_refusal(const std::string& path) const;
  /// Why some measurement cannot run with `values` ("measurements[3]: ..."); none where every one runs.
  std::optional<std::string> run_refusal(const std::vector<double>& values) const;

  /// A key of the config, for messages: `key` in config_file_ at config_at_.
  JsonWhere config_where(std::string_view key) const;
  /// Fit path i, for messages: its key in the config (a --fit option) or its
  /// entry of fit_key_; and how a message names the config key: `here`
  /// ("this --fit path") for a --fit option, else "config.network.alpha_us".
  JsonWhere fit_where(std::size_t i) const;
  std::string fit_named(std::size_t i, std::string_view here) const;
  /// Fit path i's key in the config, as messages name keys (schedules[0].x).
  JsonWhere path_where(std::size_t i) const;
  /// "--fit", or the key that lists the fit paths.
  std::string fit_option() const;

  std::filesystem::path config_file_;
  std::string config_at_;
  std::filesystem::path measurements_file_;
  std::string rows_key_;
  std::string fit_key_;
  nlohmann::ordered_json ordered_base_;  ///< as written, for config_text()
  nlohmann::json base_;
  std::vector<std::string> paths_;
  std::vector<double> initial_;
  std::vector<double> initial_prediction_;
  std::vector<double> scale_;  ///< per path: the optimiser works on value / scale
  std::vector<ValueBounds> bounds_;
  std::vector<Measurement> measurements_;
  /// Every measurement's trace, loaded when the calibration is built (so predict() only reads it).
  mutable WorkloadCache workloads_;
  std::shared_ptr<WorkBudget> budget_;
  mutable double charged_ = 0.0;  ///< what this calibration's predictions charged to budget_
};

/// Why value `i` of `result` is not identifiable: "not identifiable: trades
/// off with PATH" for one the measurements pin down only together with
/// another, "... no measurement moves ..." for one in a flat region, "not
/// identifiable: at its lower bound 0" for one that ended on a bound; empty
/// for one they pin down.
std::string identifiability_note(const Calibration& calibration, const CalibrationResult& result, std::size_t i);

}  // namespace mgsim
