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

std::string format_report(const std::vector<RunRow>& rows, ReportFormat format);

/// The first line of every CSV report: "# mgsim VERSION format N" and a
/// newline (mgsim/version.hpp). Readers skip it as a comment: pandas with
/// comment="#", gnuplot by default (docs/output-format.md).
std::string csv_preamble();
/// The CSV columns of a row, shared by `mgsim run --format csv` and sweeps.
std::string csv_header();
/// One CSV line (with its newline) for a row.
std::string csv_row(const RunRow& row);
/// A CSV field, quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& text);

}  // namespace mgsim
