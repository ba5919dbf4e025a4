// The readable table of `mgsim run`: the informative columns of the metric
// table (src/io/metric_columns.cpp), and above it what the hidden ones hold.
// Unless every column is asked for, a column is hidden when it says nothing:
// the same in every row (listed once in a note instead), or a statistic over
// many iterations equal to the nominal iteration in every row (no
// variability); and while the table is wider than 120 characters, the
// columns of kNarrowing in turn (named in the note). The iteration time is
// always shown.

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "metric_columns.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/utf8.hpp"

namespace mgsim {
namespace {

constexpr std::string_view kIteration = "iteration_time_s";
constexpr std::size_t kNoteWidth = 120;
/// Left out, in this order, while the table is too wide: the least telling first.
constexpr std::array<std::string_view, 7> kNarrowing{"sent_bytes",  "compute_s", "messages",          "wait_s",
                                                     "selection_s", "speedup",   "p99_iteration_time_s"};

/// `text`, the value `real` as a column prints it; where `real` is not 0 but
/// rounds to it at the column's decimals, in 2 significant digits instead
/// (red team: 3 ns of iteration showed as "0.000" ms, an efficiency of 3e-6
/// as "0.0%", a ratio of 8e-6 as "0.00x").
std::string shown_not_zero(const std::string& text, double real) {
  if (real == 0 || text.find_first_of("123456789") != std::string::npos) return text;
  const std::size_t number_end = text.find_last_of("0123456789") + 1;
  return fmt::format("{:>{}.2g}{}", real, number_end, text.substr(number_end));
}

/// A column's cell, never 0 for a value that is not (shown_not_zero).
std::string cell(const MetricColumn& column, const RunRow& row) {
  const MetricValue value = column.value(row.metrics);
  return shown_not_zero(format_metric(column.table.format, value, column.table.scale),
                        metric_real(value) * column.table.scale);
}

/// "compute (ms)" and "  308.001" as "compute 308.001 ms".
std::string named_value(std::string_view header, const std::string& value) {
  const std::string number = value.substr(value.find_first_not_of(' '));
  const std::size_t unit = header.find(" (");
  if (unit == std::string_view::npos) return fmt::format("{} {}", header, number);
  return fmt::format("{} {} {}", header.substr(0, unit), number, header.substr(unit + 2, header.size() - unit - 3));
}

bool same_in_every_row(const MetricColumn& column, const std::vector<RunRow>& rows) {
  return rows.size() > 1 && std::all_of(rows.begin(), rows.end(), [&](const RunRow& row) {
           return cell(column, row) == cell(column, rows.front());
         });
}

bool nominal_in_every_row(const MetricColumn& column, const std::vector<RunRow>& rows) {
  return column.table.nominal_statistic && std::all_of(rows.begin(), rows.end(), [&](const RunRow& row) {
           return column.value(row.metrics) == MetricValue{row.metrics.iteration_time_s()};
         });
}

/// `items` joined by ", " after `lead`, in lines of at most kNoteWidth characters.
std::string wrapped(std::string lead, const std::vector<std::string>& items) {
  std::string out;
  std::string line = std::move(lead);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (line.size() + 1 + item.size() > kNoteWidth) {
      out += line + "\n";
      line.assign(1, ' ');
    }
    line += " " + item;
  }
  return out + line + "\n";
}

struct Layout {
  std::vector<const MetricColumn*> shown;
  std::string notes;  ///< the lines above the table
};

/// The width of a line of the table: its columns, the schedule's, the baseline's.
std::size_t line_width(const std::vector<const MetricColumn*>& shown, std::size_t fixed) {
  std::size_t width = fixed;
  for (const MetricColumn* column : shown) width += static_cast<std::size_t>(column->table.width) + 2;
  return width;
}

/// Leaves out the columns of kNarrowing in turn while the table is wider than kNoteWidth; their names.
std::vector<std::string> narrowed(std::vector<const MetricColumn*>& shown, std::size_t fixed) {
  std::vector<std::string> left_out;
  for (const std::string_view name : kNarrowing) {
    if (line_width(shown, fixed) <= kNoteWidth) break;
    const auto at = std::find_if(shown.begin(), shown.end(), [&](const MetricColumn* c) { return c->name == name; });
    if (at == shown.end()) continue;
    left_out.emplace_back((*at)->table.header.substr(0, (*at)->table.header.find(" (")));
    shown.erase(at);
  }
  return left_out;
}

/// `fixed`: the width of the schedule and baseline columns.
Layout layout(const std::vector<RunRow>& rows, bool all_columns, std::size_t fixed) {
  Layout layout;
  std::vector<std::string> constant;
  std::vector<std::string> nominal;
  for (const MetricColumn& column : metric_columns()) {
    if (column.table.header.empty()) continue;
    if (!all_columns && column.name != kIteration) {
      const std::string_view header = column.table.header;
      if (nominal_in_every_row(column, rows)) {
        nominal.emplace_back(header.substr(0, header.find(" (")));
        continue;
      }
      if (same_in_every_row(column, rows)) {
        constant.push_back(named_value(header, cell(column, rows.front())));
        continue;
      }
    }
    layout.shown.push_back(&column);
  }
  if (!constant.empty()) layout.notes += wrapped("every row:", constant);
  if (!all_columns) {
    const std::vector<std::string> left_out = narrowed(layout.shown, fixed);
    if (!left_out.empty()) layout.notes += wrapped("left out for width (--columns all shows them):", left_out);
  }
  layout.notes += "iter: the nominal iteration (a decentralized builder's row: its mean round)";
  layout.notes += nominal.empty() ? "; mean, p99: over the config's iterations\n"
                                  : fmt::format("; {} equal it (no variability)\n",
                                                fmt::join(nominal, " and "));
  return layout;
}

/// The baseline's mean iteration time at each row's GPU count / the row's; "" without a baseline. Means
/// both (the nominal iteration without variability): a builder's row is its mean round, delays included
/// (red team: divided by a planned baseline's nominal time, without them).
std::vector<std::string> speedups(const std::vector<RunRow>& rows, const std::string& baseline, int width) {
  if (baseline.empty()) return std::vector<std::string>(rows.size());
  const auto is_baseline = [&](const RunRow& row) { return row.schedule == baseline; };
  if (std::none_of(rows.begin(), rows.end(), is_baseline)) {
    std::vector<std::string> names;
    for (const RunRow& row : rows) {
      if (std::find(names.begin(), names.end(), row.schedule) == names.end()) names.push_back(row.schedule);
    }
    throw ConfigError(fmt::format("--baseline: no schedule '{}' in this run (its schedules: {})", baseline,
                                  fmt::join(names, ", ")));
  }
  std::vector<std::string> cells;
  for (const RunRow& row : rows) {
    const auto base = std::find_if(rows.begin(), rows.end(), [&](const RunRow& other) {
      return is_baseline(other) && other.metrics.gpus == row.metrics.gpus;
    });
    if (base == rows.end()) {
      cells.push_back(fmt::format("{:>{}}", "-", width));
      continue;
    }
    const double ratio = to_seconds(base->metrics.mean_iteration) / to_seconds(row.metrics.mean_iteration);
    cells.push_back(shown_not_zero(fmt::format("{:>{}.2f}x", ratio, width - 1), ratio));
  }
  return cells;
}

/// One line of the table: the cells of the shown columns, the schedule after
/// the first (unless the GPU count is hidden: then first), then the baseline's speedup.
template <typename Cell>
std::string table_line(const Layout& layout, const std::string& schedule, std::size_t width,
                       const std::string& speedup, const Cell& cell_of) {
  std::string line;
  const bool schedule_first = layout.shown.front()->name != "gpus";
  if (schedule_first) line += fmt::format("{:<{}}  ", schedule, width);
  for (const MetricColumn* column : layout.shown) {
    line += cell_of(*column) + "  ";
    if (!schedule_first && column == layout.shown.front()) line += fmt::format("{:<{}}  ", schedule, width);
  }
  line += speedup;
  return line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
}

}  // namespace

std::string format_table(const std::vector<RunRow>& rows, const TableOptions& options) {
  if (rows.empty()) return "";
  std::size_t width = 8;
  for (const RunRow& row : rows) width = std::max(width, row.schedule.size());
  const std::string speedup_header = options.baseline.empty() ? "" : "vs " + options.baseline;
  const int speedup_width = static_cast<int>(std::max<std::size_t>(7, speedup_header.size()));
  const Layout shape =
      layout(rows, options.all_columns, width + (options.baseline.empty() ? 0 : 2 + static_cast<std::size_t>(speedup_width)));
  const std::vector<std::string> speedup = speedups(rows, options.baseline, speedup_width);
  std::string out = fmt::format("model {}, collective {}, message unit {}\n{}\n", printable(rows.front().model),
                                rows.front().collective, to_string(rows.front().unit), shape.notes);
  out += table_line(shape, "schedule", width, fmt::format("{:>{}}", speedup_header, speedup_width),
                    [](const MetricColumn& column) {
                      return fmt::format("{:>{}}", column.table.header, column.table.width);
                    });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0 && rows[i].metrics.gpus != rows[i - 1].metrics.gpus) out += "\n";
    out += table_line(shape, rows[i].schedule, width, speedup[i],
                      [&](const MetricColumn& column) { return cell(column, rows[i]); });
  }
  return out;
}

}  // namespace mgsim
