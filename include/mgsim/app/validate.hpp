#pragma once
// Validation (`mgsim validate`, docs/fidelity.md): a folder of cases, each a
// run config with real, public measurements and their provenance. A case
// names the config values it fits (may be none), the measurements that
// calibrate them and the measurements it predicts; validate() calibrates
// each case (Calibration) and compares its predictions with the measured
// numbers. Only predicted rows count towards the error summary.

#include <filesystem>
#include <string>
#include <vector>

#include "mgsim/app/run_grid.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/relative_error.hpp"

namespace mgsim {

/// One measured number of a case and what mgsim made of it.
struct ValidationRow {
  std::string case_name;  ///< the case file's name
  std::string trace;      ///< the trace file's name, or its path from the case's folder where two of the case share a name
  std::string schedule;
  std::string metric;  ///< "throughput_samples_per_s", ...
  std::string source;  ///< the case's source id
  int gpus = 0;
  bool calibrates = false;  ///< used to fit the case's values, so not a prediction
  double measured = 0.0;
  double predicted = 0.0;
  /// (predicted - measured) / measured.
  double error() const { return relative_error(predicted, measured); }
};

/// A fitted value of a case.
struct FittedValue {
  std::string case_name;
  std::string path;
  double value = 0.0;
  /// Why the case's calibrating rows do not pin it down (identifiability_note); empty: they do.
  std::string identifiability;
};

/// The predictions of one source id (a case's "sources" key).
struct SourceSummary {
  std::string source;
  std::size_t predicted = 0;
  double median_abs_error = 0.0;
  double max_abs_error = 0.0;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  std::vector<FittedValue> fitted;
  /// Median and largest |error| over the predicted rows (0 when there are none).
  double median_abs_error() const;
  double max_abs_error() const;
  /// The same per source id, in order of first appearance; sources with no
  /// predicted row are left out.
  std::vector<SourceSummary> by_source() const;
};

/// Runs every case file (`*.json` and `*.json.gz`, in name order) of `path`, or the one file
/// `path` names, each case's calibration and predictions within a WorkBudget
/// of `max_work` steps. Throws ConfigError naming file and key on a bad case.
ValidationReport validate(const std::filesystem::path& path, double max_work = kDefaultMaxWork);

/// The report as `format` says (docs/output-format.md): the table is the
/// rows (predicted vs measured), the fitted values, and the median and max
/// |error| of the predictions per source and over all; the CSV is the rows
/// alone, one a measured number; the JSON holds all of it.
std::string format_validation(const ValidationReport& report, ReportFormat format = ReportFormat::table);

}  // namespace mgsim
