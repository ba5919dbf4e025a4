#include "mgsim/io/report.hpp"

#include <array>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "metric_columns.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/json_text.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/registry_lookup.hpp"
#include "mgsim/version.hpp"

namespace mgsim {
namespace {

std::string format_csv(const std::vector<RunRow>& rows) {
  std::string out = csv_header();
  for (const RunRow& row : rows) out += csv_row(row);
  return out;
}

std::string format_json(const std::vector<RunRow>& rows) {
  nlohmann::json results = nlohmann::json::array();
  for (const RunRow& row : rows) {
    nlohmann::json result = {{"model", row.model}, {"schedule", row.schedule}, {"collective", row.collective}};
    for (const MetricColumn& column : metric_columns()) {
      std::visit([&](auto value) { result[std::string(column.name)] = value; }, column.value(row.metrics));
    }
    result["message_unit"] = to_string(row.unit);
    results.push_back(std::move(result));
  }
  nlohmann::json report = {{"results", results}};
  stamp_report(report);
  return json_text(report, 2) + "\n";
}

}  // namespace

std::string csv_field(const std::string& text) {
  // A name's control characters, separators and bidi controls escaped (printable): one row a line, which
  // `sweep --resume` reads back (red team: a network named "10GbE\nrack A" split its rows). A backslash is
  // doubled first, so that no two names read alike (red team: "a\nb" and a literal "a\x0ab").
  std::string escaped;
  for (const char c : text) escaped += c == '\\' ? std::string("\\\\") : std::string(1, c);
  const std::string shown = printable(escaped, std::string::npos);
  if (shown.find_first_of(",\"") == std::string::npos) return shown;
  std::string quoted = "\"";
  for (char c : shown) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_version_fields() { return fmt::format(",{},{}", version(), kReportFormatVersion); }

std::string csv_header() {
  std::string header = "model,schedule,collective";
  for (const MetricColumn& column : metric_columns()) header += fmt::format(",{}", column.name);
  return header + fmt::format(",message_unit{}\n", kCsvVersionColumns);
}

std::string csv_row(const RunRow& row) {
  std::string line = fmt::format("{},{},{}", csv_field(row.model), csv_field(row.schedule), csv_field(row.collective));
  for (const MetricColumn& column : metric_columns()) {
    line += ',';
    line += format_metric(column.csv_format, column.value(row.metrics));
  }
  return line + "," + std::string(to_string(row.unit)) + csv_version_fields() + "\n";
}

ReportFormat parse_report_format(std::string_view name) {
  if (name == "table") return ReportFormat::table;
  if (name == "csv") return ReportFormat::csv;
  if (name == "json") return ReportFormat::json;
  const std::array<std::string_view, 3> names{"table", "csv", "json"};
  throw ConfigError(fmt::format("--format: {}", unknown_name("format", name, names)));
}

std::string format_report(const std::vector<RunRow>& rows, ReportFormat format, const TableOptions& table) {
  switch (format) {
    case ReportFormat::csv: return format_csv(rows);
    case ReportFormat::json: return format_json(rows);
    case ReportFormat::table: break;
  }
  return format_table(rows, table);
}

}  // namespace mgsim
