#pragma once
// Writing a run's results: one row per (schedule, GPU count), as a readable
// table, CSV or JSON, every format driven by one table of metric columns
// (src/io/metric_columns.cpp). Files are written whole or not at all.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "mgsim/io/files.hpp"  // write_file_atomically
#include "mgsim/simulation.hpp"

namespace mgsim {

struct RunRow {
  std::string model;
  std::string schedule;  ///< the schedule's label, with any parameters
  std::string collective;
  RunMetrics metrics;
  MessageUnit unit = MessageUnit::tensor;  ///< what the layer-grouping schedules sent as one unit
};

enum class ReportFormat { table, csv, json };

/// Parses "table", "csv" or "json"; throws ConfigError listing them.
ReportFormat parse_report_format(std::string_view name);

/// What the readable table shows (`mgsim run --columns`, `--baseline`).
struct TableOptions {
  /// Every table column; by default those that say nothing are left out (the
  /// same in every row: listed once above the table; a statistic that is the
  /// nominal iteration in every row).
  bool all_columns = false;
  /// A schedule label: adds a column "vs LABEL", that schedule's iteration
  /// time / the row's at the same GPU count ("" for none; a label no row
  /// has is a ConfigError listing the run's schedules).
  std::string baseline;
};

/// The readable table (docs/config.md, Output).
std::string format_table(const std::vector<RunRow>& rows, const TableOptions& options = {});

/// `table` applies to ReportFormat::table; CSV and JSON hold every column.
std::string format_report(const std::vector<RunRow>& rows, ReportFormat format, const TableOptions& table = {});

/// The last two columns of every CSV report, as header fields
/// (",mgsim_version,format_version") and as a row's values (",VERSION,N"):
/// which mgsim wrote the row, in which format (mgsim/version.hpp). CSVs have
/// no other line than the header and the rows (docs/output-format.md).
inline constexpr std::string_view kCsvVersionColumns = ",mgsim_version,format_version";
std::string csv_version_fields();
/// The CSV columns of a row, shared by `mgsim run --format csv` and sweeps.
std::string csv_header();
/// One CSV line (with its newline) for a row.
std::string csv_row(const RunRow& row);
/// A CSV field on one line: control characters, separators and bidi controls
/// escaped (printable), then quoted when it holds a comma or a quote.
std::string csv_field(const std::string& text);

}  // namespace mgsim
