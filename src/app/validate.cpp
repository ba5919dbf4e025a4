#include "mgsim/app/validate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>

#include "mgsim/io/config_parts.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/json_reader.hpp"
#include "measurements.hpp"
#include "mgsim/error.hpp"
#include "mgsim/median.hpp"
#include "mgsim/app/calibrate.hpp"
#include "mgsim/io/json_text.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/iteration.hpp"

namespace mgsim {
namespace {

constexpr const char* kSourceKeys[] = {"url", "table", "hardware", "software", "measured"};

/// Checks every source has its provenance and every row names a source.
void check_sources(JsonReader& top, const std::vector<Measurement>& rows, const JsonWhere& rows_where) {
  const nlohmann::json& sources = top.required("sources");
  const JsonWhere where = top.where().key("sources");
  if (!sources.is_object() || sources.empty()) where.expected("an object of source id -> provenance", sources);
  for (const auto& [id, source] : sources.items()) {
    if (is_blank(id)) where.fail(fmt::format("expected source ids that are not blank, got \"{}\"", printable(id)));
    JsonReader in(source, where.key(id));
    for (const char* key : kSourceKeys) in.prose(key);
    if (in.has("note")) in.prose("note");
    in.reject_unknown();
  }
  std::vector<std::string> ids;
  for (const auto& [id, source] : sources.items()) ids.push_back(id);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!sources.contains(rows[i].source)) {
      rows_where.index(i).key("source").fail(fmt::format(
          "expected one of the ids in \"sources\" ({}), got {}", fmt::join(ids, ", "),
          rows[i].source.empty() ? std::string("none") : fmt::format("\"{}\"", printable(rows[i].source))));
    }
  }
}

/// How the rows of case `file` name each trace: its file name, or, where
/// another trace of the case has the same name, its path from the case's
/// folder (red team: rows of traces a/g.json and b/g.json both read g.json).
std::map<std::filesystem::path, std::string> trace_names(const std::filesystem::path& file,
                                                         const std::vector<Measurement>& calibrating,
                                                         const std::vector<Measurement>& predicting) {
  std::map<std::filesystem::path, std::set<std::filesystem::path>> by_name;
  for (const std::vector<Measurement>* rows : {&calibrating, &predicting}) {
    for (const Measurement& m : *rows) by_name[m.trace.filename()].insert(m.trace);
  }
  std::map<std::filesystem::path, std::string> names;
  for (const auto& [name, traces] : by_name) {
    for (const std::filesystem::path& trace : traces) {
      // From the case's folder, both made absolute (red team: an absolute trace beside a relative case gave "").
      const std::filesystem::path shown = std::filesystem::absolute(trace).lexically_normal().lexically_relative(
          std::filesystem::absolute(file).lexically_normal().parent_path());
      names[trace] = traces.size() == 1 ? name.string() : shown.empty() ? trace.string() : shown.string();
    }
  }
  return names;
}

void add_rows(const std::filesystem::path& file, const std::vector<Measurement>& rows,
              const std::map<std::filesystem::path, std::string>& trace_name, const std::vector<double>& predicted,
              bool calibrates, ValidationReport& report) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Measurement& m = rows[i];
    report.rows.push_back({file.filename().string(), trace_name.at(m.trace), row_label(m),
                           std::string(metric_key(m.metric)), m.source, m.gpus, calibrates, m.value, predicted[i]});
  }
}

/// A predicted number of a case, to find it again in another case.
struct Prediction {
  MeasuredRun run;
  MeasuredMetric metric;
  double measured;
  std::string file;   ///< the case's
  std::size_t index;  ///< in its "predict"
  std::string where() const { return fmt::format("{}: predict[{}]", file, index); }
  /// One number, whatever the id of its source (red team: a copy of a case under another id counted twice).
  bool operator==(const Prediction& other) const { return run == other.run && measured == other.measured; }
};

/// Every case's predicted numbers so far, found again by their run (red
/// team: a pass over all of them for each row made 200,000 rows take 350 s).
struct Predictions {
  std::vector<Prediction> list;
  std::multimap<MeasuredRun, std::size_t> by_run;  ///< indices in `list`, in order within a run

  void add(Prediction prediction) {
    by_run.emplace(prediction.run, list.size());
    list.push_back(std::move(prediction));
  }
  /// The indices below `end` of the predictions of `run`, in order.
  std::vector<std::size_t> of(const MeasuredRun& run, std::size_t end) const {
    std::vector<std::size_t> found;
    for (auto [at, last] = by_run.equal_range(run); at != last && at->second < end; ++at) found.push_back(at->second);
    return found;
  }
};

/// The runs of `rows`, in order.
std::vector<MeasuredRun> runs_of(const std::vector<Measurement>& rows, const std::string& config_collective) {
  std::vector<MeasuredRun> runs;
  for (const Measurement& m : rows) runs.push_back(run_of(m, config_collective));
  return runs;
}

/// Refuses a row of `rows` (at `where`, their runs `runs`) that measures the
/// run of an earlier one (trace, GPUs, schedule with its collective, metric)
/// from the same source or with the same value (a source under two ids), or
/// one of the runs `calibrated` (rows at `calibrating_where`): a repeat
/// counts twice in the median and max, and a run the case calibrates on is
/// no prediction. Two sources may measure one run.
void refuse_repeated_runs(const std::vector<Measurement>& rows, const std::vector<MeasuredRun>& runs, const JsonWhere& where,
                          const std::vector<MeasuredRun>& calibrated, const JsonWhere& calibrating_where) {
  // The first row of each run by source and by value, and of each run calibrated on: found, not searched for.
  std::map<std::pair<MeasuredRun, std::string>, std::size_t> by_source;
  std::map<std::pair<MeasuredRun, double>, std::size_t> by_value;
  std::map<MeasuredRun, std::size_t> calibrating;
  for (std::size_t j = calibrated.size(); j-- > 0;) calibrating[calibrated[j]] = j;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t same_source = by_source.try_emplace({runs[i], rows[i].source}, i).first->second;
    const std::size_t same_value = by_value.try_emplace({runs[i], rows[i].value}, i).first->second;
    if (const std::size_t j = std::min(same_source, same_value); j < i) {
      where.index(i).fail(fmt::format("the run of {}[{}] again, {} (trace, GPUs, schedule, collective and what it "
                                      "times): give each measured run once",
                                      where.path, j,
                                      rows[j].source == rows[i].source ? "from the same source" : "the same number"));
    }
    if (const auto found = calibrating.find(runs[i]); found != calibrating.end()) {
      where.index(i).fail(fmt::format("the run of {}[{}], which the case calibrates on: a number it fits is no "
                                      "prediction",
                                      calibrating_where.path, found->second));
    }
  }
}

/// Half a unit in the last digit of `value` as written (its shortest
/// decimal form, no exponent): 0.32 stands for anything from 0.315 to 0.325.
double half_unit(double value) {
  std::array<char, 400> text{};
  const auto written = std::to_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  const std::string_view digits(text.data(), written.ptr);
  const auto point = digits.find('.');
  const int decimals = point == std::string_view::npos ? 0 : static_cast<int>(digits.size() - point - 1);
  return 0.5 * std::pow(10.0, -decimals);
}

/// Refuses predicted row `i` of a case (its rows `rows`, at `where`, read
/// from `calibration`, whose predictions are `predicted`) that gives, as an
/// iteration time, the throughput of a prediction before it (in any case,
/// `earlier`) or the other way round, from another source (one source is
/// refused before): the product of the two numbers is the run's samples per
/// iteration (its predicted throughput times its predicted iteration time)
/// within the rounding of the two figures as written. Counted twice, one
/// number would weigh twice in the median and max (red team, within a case
/// and across two).
void refuse_one_number_in_two_units(const Calibration& calibration, const std::vector<double>& predicted,
                                    std::size_t i, const Predictions& predictions, std::size_t at,
                                    const std::filesystem::path& file, const std::shared_ptr<WorkBudget>& budget) {
  const Prediction& row = predictions.list[at];
  std::optional<double> samples;
  for (const std::size_t earlier : predictions.of(row.run, at)) {
    const Prediction& other = predictions.list[earlier];
    if (other.metric == row.metric) continue;
    if (!samples) {  // the row's run in the other unit, to know its samples per iteration
      Measurement swapped = calibration.measurements()[i];
      swapped.metric = other.metric;
      const Calibration in_other_unit(file, calibration.with_values({}), "config", file, "predict", {swapped}, {}, "",
                                      budget);
      samples = predicted[i] * in_other_unit.initial_prediction().front();
    }
    // The products of the two figures' rounding intervals (red team: a linear tolerance refused 2 s and
    // 100 samples/s for 256 samples an iteration, and let 0.3 s and 1024 samples/s through).
    const double a = row.measured, b = other.measured, ha = half_unit(a), hb = half_unit(b);
    const double lowest = (a - ha) * (b - hb), highest = (a + ha) * (b + hb);
    if (lowest > *samples * (1 + 1e-9) || highest < *samples * (1 - 1e-9)) continue;
    throw ConfigError(fmt::format("{}: the number of {} in other units ({} {} times {} {}, each as rounded when "
                                  "written, spans the run's {:g} samples an iteration): counted twice; give each "
                                  "measured run once",
                                  row.where(),
                                  other.file == row.file ? fmt::format("predict[{}]", other.index) : other.where(),
                                  metric_key(other.metric), other.measured,
                                  metric_key(row.metric), row.measured, *samples));
  }
}

/// Calibrates and predicts the case `file`, whose content is `text`.
void validate_case(const std::filesystem::path& file, std::string text, double max_work, ValidationReport& report,
                   Predictions& predictions) {
  const nlohmann::json document = parse_json_text(std::move(text), file.string(), InputKind::config);
  JsonReader top(document, {file.string(), "", InputKind::config});
  if (top.required("format") != "mgsim-validation") {
    top.where().key("format").expected("\"mgsim-validation\"", top.required("format"));
  }
  top.integer("version", 1, 1);
  top.prose("description");
  const nlohmann::json& config = top.required("config");
  const Scenario scenario = read_scenario(config, file, "config");
  require_one_of_each(scenario, "mgsim validate");
  const std::filesystem::path base_trace = scenario.traces.front();
  std::vector<std::string> paths;
  if (top.has("fit")) {
    for (const auto& [element, at] : top.array("fit")) paths.push_back(dotted_path(config, read_text(*element, at)));
  }
  const std::filesystem::path folder = file.parent_path();
  const JsonWhere config_where = top.where().key("config");
  std::vector<Measurement> calibrating;
  if (top.has("calibrate")) {
    calibrating = read_measurements(top.required("calibrate"), top.where().key("calibrate"), folder, config,
                                    config_where, base_trace);
  }
  std::vector<Measurement> predicting = read_measurements(top.required("predict"), top.where().key("predict"), folder,
                                                          config, config_where, base_trace);
  if (predicting.empty()) top.where().key("predict").fail("expected at least one measurement to predict, got none");
  check_sources(top, calibrating, top.where().key("calibrate"));
  check_sources(top, predicting, top.where().key("predict"));
  if (!calibrating.empty() && paths.empty()) {
    top.where().key("calibrate").fail("rows to calibrate on, but no \"fit\": name the keys they fit, or leave "
                                      "them out");
  }
  mark_fitted(calibrating, paths);
  mark_fitted(predicting, paths);
  const std::string collective = scenario.collectives.front().label();
  const std::vector<MeasuredRun> calibrated = runs_of(calibrating, collective);
  const std::vector<MeasuredRun> predicted = runs_of(predicting, collective);
  // A run calibrated on twice is refused by the Calibration (Calibration::refuse_repeated_runs).
  refuse_repeated_runs(predicting, predicted, top.where().key("predict"), calibrated, top.where().key("calibrate"));
  top.reject_unknown();
  const std::size_t first = predictions.list.size();  // this case's first prediction
  for (std::size_t i = 0; i < predicting.size(); ++i) {
    Prediction prediction{predicted[i], predicting[i].metric, predicting[i].value, file.string(), i};
    for (const std::size_t earlier : predictions.of(prediction.run, first + i)) {
      if (predictions.list[earlier] == prediction) {
        throw ConfigError(fmt::format("{}: the number {} predicts (the same run and measured value): counted "
                                      "twice (a copy of that case?): give each measured number once",
                                      prediction.where(), predictions.list[earlier].where()));
      }
    }
    predictions.add(std::move(prediction));
  }

  const auto budget = std::make_shared<WorkBudget>(max_work);
  const Calibration calibration(file, config, "config", file, "calibrate", calibrating, paths, "fit", budget);
  const CalibrationResult fit = calibration.fit();
  const std::map<std::filesystem::path, std::string> trace_name = trace_names(file, calibrating, predicting);
  add_rows(file, calibrating, trace_name, fit.predicted, true, report);
  for (std::size_t i = 0; i < paths.size(); ++i)
    report.fitted.push_back(
        {file.filename().string(), paths[i], fit.values[i], identifiability_note(calibration, fit, i)});
  const Calibration prediction(file, calibration.with_values(fit.values), "config", file, "predict", predicting, {},
                               "", budget);
  const std::vector<double>& predicted_values = prediction.initial_prediction();
  for (std::size_t i = 0; i < predicting.size(); ++i) {
    refuse_one_number_in_two_units(prediction, predicted_values, i, predictions, first + i, file, budget);
  }
  add_rows(file, predicting, trace_name, predicted_values, false, report);
}

/// |error| of the predicted rows (of `source` only, when given), sorted.
std::vector<double> abs_errors(const ValidationReport& report, const std::string* source = nullptr) {
  std::vector<double> errors;
  for (const ValidationRow& row : report.rows) {
    if (!row.calibrates && (source == nullptr || row.source == *source)) errors.push_back(std::abs(row.error()));
  }
  std::sort(errors.begin(), errors.end());
  return errors;
}

/// Refuses a case that is another by another name (a link) or a copy of
/// it: it would count every number twice. A link reads as the same text.
void refuse_repeated_cases(const std::vector<std::filesystem::path>& files, const std::vector<std::string>& texts) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (texts[i] == texts[j]) {
        throw ConfigError(fmt::format("{}: the case {} again (a link to it or a copy): give each case once",
                                      files[i].string(), files[j].filename().string()));
      }
    }
  }
}

}  // namespace

double ValidationReport::median_abs_error() const { return median(abs_errors(*this)); }

double ValidationReport::max_abs_error() const {
  const std::vector<double> errors = abs_errors(*this);
  return errors.empty() ? 0.0 : errors.back();
}

std::vector<SourceSummary> ValidationReport::by_source() const {
  std::vector<SourceSummary> summaries;
  for (const ValidationRow& row : rows) {
    const bool seen = std::any_of(summaries.begin(), summaries.end(),
                                  [&](const SourceSummary& s) { return s.source == row.source; });
    if (row.calibrates || seen) continue;
    const std::vector<double> errors = abs_errors(*this, &row.source);
    summaries.push_back({row.source, errors.size(), median(errors), errors.back()});
  }
  return summaries;
}

ValidationReport validate(const std::filesystem::path& path, double max_work) {
  std::vector<std::filesystem::path> files;
  std::error_code error;  // a name too long or a loop of links: read as a file below, which says so
  if (std::filesystem::is_directory(path, error)) {
    // Every *.json and *.json.gz entry not hidden (.name), whatever it is:
    // reading a folder, a device or a broken link is refused with its name,
    // never skipped without a word.
    std::filesystem::directory_iterator entries(path, error);
    if (error) throw ConfigError(fmt::format("{}: cannot list the folder: {}", path.string(), error.message()));
    for (const auto& entry : entries) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with('.') || (!name.ends_with(".json") && !name.ends_with(".json.gz"))) continue;  // hidden: an editor's
      if (find_invalid_utf8(name)) {  // the report names each case by its file, in UTF-8 as every argument
        throw ConfigError(fmt::format("{}: case file '{}': expected a UTF-8 file name", path.string(), printable(name)));
      }
      files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw ConfigError(fmt::format("{}: expected validation cases (*.json, *.json.gz), got none", path.string()));
  } else {
    files.push_back(path);
  }
  std::vector<std::string> texts;
  for (const std::filesystem::path& file : files) texts.push_back(read_input_file(file, InputKind::config));
  refuse_repeated_cases(files, texts);
  ValidationReport report;
  Predictions predictions;  // of every case so far
  for (std::size_t i = 0; i < files.size(); ++i) {
    try {
      validate_case(files[i], std::move(texts[i]), max_work, report, predictions);
    } catch (const WorkError& error) {  // the budget is each case's: say which
      throw WorkError(fmt::format("{}: {}", files[i].string(), error.what()));
    }
  }
  return report;
}

namespace {

std::string format_table(const ValidationReport& report) {
  std::string out = fmt::format("{:<28}  {:<34}  {:<22}  {:>5}  {:<24}  {:>12}  {:>12}  {:>8}  {}\n", "case", "trace",
                                "schedule", "gpus", "metric", "measured", "predicted", "error", "role");
  for (const ValidationRow& row : report.rows) {
    out += fmt::format("{:<28}  {:<34}  {:<22}  {:>5}  {:<24}  {:>12.6g}  {:>12.6g}  {:>+7.1f}%  {}\n",
                       printable(row.case_name), printable(row.trace), printable(row.schedule), row.gpus, row.metric,
                       row.measured, row.predicted, row.error() * 100, row.calibrates ? "calibrates" : "predicted");
  }
  if (!report.fitted.empty()) out += "\nfitted:\n";
  for (const FittedValue& value : report.fitted) {
    out += fmt::format("  {:<28}  {:<28}  {:.6g}{}{}\n", printable(value.case_name), value.path, value.value,
                       value.identifiability.empty() ? "" : "  ", value.identifiability);
  }
  std::size_t predicted = 0;
  for (const ValidationRow& row : report.rows) predicted += row.calibrates ? 0 : 1;
  out += fmt::format("\n{:<24}  {:>9}  {:>15}  {:>12}\n", "source", "predicted", "median |error|", "max |error|");
  for (const SourceSummary& s : report.by_source()) {
    out += fmt::format("{:<24}  {:>9}  {:>14.1f}%  {:>11.1f}%\n", printable(s.source), s.predicted, s.median_abs_error * 100,
                       s.max_abs_error * 100);
  }
  out += fmt::format("\n{} predicted numbers: median |error| {:.1f}%, max |error| {:.1f}%\n", predicted,
                     report.median_abs_error() * 100, report.max_abs_error() * 100);
  return out;
}

std::string role(const ValidationRow& row) { return row.calibrates ? "calibrates" : "predicted"; }

std::string format_csv(const ValidationReport& report) {
  std::string out = fmt::format("case,trace,schedule,gpus,metric,source,measured,predicted,error,role{}\n",
                                kCsvVersionColumns);
  for (const ValidationRow& row : report.rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}{}\n", csv_field(row.case_name), csv_field(row.trace),
                       csv_field(row.schedule), row.gpus, row.metric, csv_field(row.source), row.measured,
                       row.predicted, row.error(), role(row), csv_version_fields());
  }
  return out;
}

std::string format_json(const ValidationReport& report) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const ValidationRow& row : report.rows) {
    rows.push_back({{"case", row.case_name}, {"trace", row.trace}, {"schedule", row.schedule}, {"gpus", row.gpus},
                    {"metric", row.metric}, {"source", row.source}, {"measured", row.measured},
                    {"predicted", row.predicted}, {"error", row.error()}, {"role", role(row)}});
  }
  nlohmann::ordered_json fitted = nlohmann::ordered_json::array();
  for (const FittedValue& value : report.fitted) {
    fitted.push_back({{"case", value.case_name}, {"path", value.path}, {"value", value.value},
                      {"identifiability", value.identifiability}});
  }
  nlohmann::ordered_json sources = nlohmann::ordered_json::array();
  for (const SourceSummary& s : report.by_source()) {
    sources.push_back({{"source", s.source}, {"predicted", s.predicted}, {"median_abs_error", s.median_abs_error},
                       {"max_abs_error", s.max_abs_error}});
  }
  const auto predicted = std::count_if(report.rows.begin(), report.rows.end(),
                                       [](const ValidationRow& row) { return !row.calibrates; });
  nlohmann::ordered_json out = {{"rows", rows},
                                {"fitted", fitted},
                                {"sources", sources},
                                {"predicted", predicted},
                                {"median_abs_error", report.median_abs_error()},
                                {"max_abs_error", report.max_abs_error()}};
  stamp_report(out);
  return json_text(out, 2) + "\n";
}

}  // namespace

std::string format_validation(const ValidationReport& report, ReportFormat format) {
  switch (format) {
    case ReportFormat::csv: return format_csv(report);
    case ReportFormat::json: return format_json(report);
    case ReportFormat::table: break;
  }
  return format_table(report);
}

}  // namespace mgsim
