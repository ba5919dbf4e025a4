#include "mgsim/io/report.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"

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
    const RunMetrics& m = row.metrics;
    results.push_back({{"model", row.model},
                       {"schedule", row.schedule},
                       {"collective", row.collective},
                       {"gpus", m.gpus},
                       {"iteration_time_s", m.iteration_time_s()},
                       {"throughput_samples_per_s", m.throughput()},
                       {"speedup", m.speedup()},
                       {"scaling_efficiency", m.scaling_efficiency()},
                       {"compute_s", m.compute_s()},
                       {"exposed_comm_s", m.exposed_comm_s()},
                       {"comm_s", m.comm_s()},
                       {"selection_s", m.selection_s()},
                       {"messages", m.messages},
                       {"bytes", m.bytes},
                       {"sent_bytes", m.sent_bytes}});
  }
  return nlohmann::json{{"results", results}}.dump(2) + "\n";
}

std::string format_table(const std::vector<RunRow>& rows) {
  std::size_t width = 8;
  for (const RunRow& row : rows) width = std::max(width, row.schedule.size());
  std::string out = fmt::format("{:>6}  {:<{}}  {:>12}  {:>12}  {:>9}  {:>10}  {:>12}  {:>12}  {:>11}  {:>8}  {:>9}\n",
                                "gpus", "schedule", width, "iter (ms)", "samples/s", "speedup", "efficiency",
                                "compute (ms)", "exposed (ms)", "select (ms)", "messages", "sent (MB)");
  int previous_gpus = 0;
  for (const RunRow& row : rows) {
    const RunMetrics& m = row.metrics;
    if (previous_gpus != 0 && m.gpus != previous_gpus) out += "\n";
    previous_gpus = m.gpus;
    out += fmt::format("{:>6}  {:<{}}  {:>12.3f}  {:>12.1f}  {:>9.2f}  {:>9.1f}%  {:>12.3f}  {:>12.3f}  {:>11.3f}  {:>8}  {:>9.3f}\n",
                       m.gpus, row.schedule, width, m.iteration_time_s() * 1e3, m.throughput(), m.speedup(),
                       m.scaling_efficiency() * 100, m.compute_s() * 1e3, m.exposed_comm_s() * 1e3,
                       m.selection_s() * 1e3, m.messages, static_cast<double>(m.sent_bytes) * 1e-6);
  }
  if (!rows.empty()) out = fmt::format("model {}, collective {}\n\n", rows.front().model, rows.front().collective) + out;
  return out;
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_header() {
  return "model,schedule,collective,gpus,iteration_time_s,throughput_samples_per_s,speedup,scaling_efficiency,"
         "compute_s,exposed_comm_s,comm_s,selection_s,messages,bytes,sent_bytes\n";
}

std::string csv_row(const RunRow& row) {
  const RunMetrics& m = row.metrics;
  return fmt::format("{},{},{},{},{:.9f},{:.6g},{:.6g},{:.6g},{:.9f},{:.9f},{:.9f},{:.9f},{},{},{}\n",
                     csv_field(row.model), csv_field(row.schedule), csv_field(row.collective), m.gpus,
                     m.iteration_time_s(), m.throughput(), m.speedup(), m.scaling_efficiency(), m.compute_s(),
                     m.exposed_comm_s(), m.comm_s(), m.selection_s(), m.messages, m.bytes, m.sent_bytes);
}

std::vector<RunRow> run_config(const RunConfig& config, const Workload& workload) {
  const auto collective = find_collective(config.collective).make(config.collective_settings);
  std::vector<std::unique_ptr<Schedule>> schedules;
  for (const ScheduleSpec& spec : config.schedules) schedules.push_back(spec.build());
  std::vector<RunRow> rows;
  for (int gpus : config.gpus) {
    for (std::size_t s = 0; s < schedules.size(); ++s) {
      rows.push_back({workload.trace.model, config.schedules[s].label(), config.collective,
                      simulate(workload, *collective, *schedules[s], gpus)});
    }
  }
  return rows;
}

ReportFormat parse_report_format(std::string_view name) {
  if (name == "table") return ReportFormat::table;
  if (name == "csv") return ReportFormat::csv;
  if (name == "json") return ReportFormat::json;
  throw ConfigError(fmt::format("unknown format '{}' (valid: table, csv, json)", name));
}

std::string format_report(const std::vector<RunRow>& rows, ReportFormat format) {
  switch (format) {
    case ReportFormat::csv: return format_csv(rows);
    case ReportFormat::json: return format_json(rows);
    case ReportFormat::table: break;
  }
  return format_table(rows);
}

void write_file_atomically(const std::filesystem::path& file, std::string_view text) {
  const std::filesystem::path target = output_target(file);
  const std::filesystem::path temporary = target.string() + fmt::format(".tmp.{}", ::getpid());
  const auto fail = [&](const std::string& why) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw OutputError(fmt::format("{}: cannot write: {}", file.string(), why));
  };
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) fail(std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) fail(std::strerror(errno));
  }
  std::error_code error;
  std::filesystem::rename(temporary, target, error);
  if (error) fail(error.message());
}

}  // namespace mgsim
