#pragma once
// The metric columns of every report: one table saying, per column, its name
// (CSV header and JSON key), what it means, how to get it from RunMetrics and
// how each format shows it. The table, CSV and JSON writers (report.cpp) all
// walk it, so a new metric is one row here. Documented in docs/config.md.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "mgsim/simulation.hpp"

namespace mgsim {

/// A metric as the JSON writer keeps it: counts as integers, the rest as reals.
using MetricValue = std::variant<std::int64_t, double>;

/// How the readable table shows a column; no header: the table leaves it out.
struct TableCell {
  std::string_view header;  ///< with its unit, e.g. "iter (ms)"
  int width = 0;            ///< of the header, right-aligned
  std::string_view format;  ///< fmt spec of the value after `scale`
  double scale = 1.0;       ///< other than 1: the value as a real times this (seconds to ms...)
  /// A statistic over many iterations: the table leaves it out when it is
  /// the nominal iteration time in every row (no variability).
  bool nominal_statistic = false;
};

struct MetricColumn {
  std::string_view name;  ///< CSV column and JSON key
  std::string_view description;
  MetricValue (*value)(const RunMetrics& metrics);
  std::string_view csv_format;  ///< fmt spec of the CSV field
  TableCell table;
};

/// Every metric, in CSV and JSON order (after the model, schedule and
/// collective); the table shows the ones with a header, in the same order.
std::span<const MetricColumn> metric_columns();

/// `value` as a real number.
double metric_real(const MetricValue& value);

/// `value` in fmt spec `format`; with a `scale` other than 1, the value as a real times `scale`.
std::string format_metric(std::string_view format, const MetricValue& value, double scale = 1.0);

}  // namespace mgsim
