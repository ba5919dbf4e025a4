// `mgsim calibrate`: fits numeric values of a run config (by dotted path) to
// measured iteration times or throughputs and writes the fitted config
// (docs/fidelity.md).

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mgsim/app/calibrate.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"

namespace mgsim::cli {
namespace {

struct CalibrateOptions {
  std::string config;
  std::string measurements;
  std::string fit;
  std::string output;
};

/// "a.b,c.d": the dotted paths of --fit.
std::vector<std::string> split_paths(const std::string& list) {
  std::vector<std::string> paths;
  std::stringstream in(list);
  for (std::string path; std::getline(in, path, ',');) paths.push_back(path);
  return paths;
}

/// Refuses an empty --fit list or path (checked after the files, whose errors come first).
void check_paths(const std::string& list, const std::vector<std::string>& paths) {
  if (paths.empty() || list.ends_with(',') || std::find(paths.begin(), paths.end(), "") != paths.end()) {
    throw ConfigError(fmt::format("--fit: expected comma-separated dotted paths such as network.alpha_us, got '{}'", list));
  }
}

/// "+1.23%", or "n/a" for a measurement the others cannot cross-validate.
std::string percent(std::optional<double> predicted, double measured) {
  return predicted ? fmt::format("{:+.2f}%", (*predicted - measured) / measured * 100) : "n/a";
}

std::string report(const Calibration& calibration, const CalibrationResult& result) {
  const std::vector<std::optional<double>> held_out = calibration.leave_one_out(result.values);
  std::size_t width = 4;
  for (const std::string& path : calibration.paths()) width = std::max(width, path.size());
  std::string out = fmt::format("fitted ({} evaluations, sum of squared relative errors {:.3g}):\n", result.evaluations,
                                result.sum_squared_rel_error);
  for (std::size_t i = 0; i < calibration.paths().size(); ++i) {
    out += fmt::format("  {:<{}}  {:>14.6g}  (was {:g})\n", calibration.paths()[i], width, result.values[i],
                       calibration.initial()[i]);
  }
  out += fmt::format("\n{:>4}  {:>6}  {:<24}  {:<24}  {:>14}  {:>14}  {:>9}  {:>9}\n", "#", "gpus", "schedule",
                     "metric", "measured", "predicted", "residual", "held out");
  for (std::size_t m = 0; m < calibration.measurements().size(); ++m) {
    const Measurement& measured = calibration.measurements()[m];
    const double residual = (result.predicted[m] - measured.value) / measured.value;
    out += fmt::format("{:>4}  {:>6}  {:<24}  {:<24}  {:>14.6g}  {:>14.6g}  {:>+8.2f}%  {:>9}\n", m, measured.gpus,
                       measured.schedule_label, metric_key(measured.metric), measured.value, result.predicted[m],
                       residual * 100, percent(held_out[m], measured.value));
  }
  std::vector<double> errors;
  for (std::size_t m = 0; m < held_out.size(); ++m) {
    const double value = calibration.measurements()[m].value;
    if (held_out[m]) errors.push_back(std::abs(*held_out[m] - value) / value);
  }
  std::sort(errors.begin(), errors.end());
  out += "\nresidual: the fit's error on a measurement it was fitted to; held out: the error predicting it with the\n"
         "values fitted on all the other measurements (leave-one-out), what to expect on a new measurement\n";
  if (!errors.empty()) {
    const std::size_t n = errors.size();
    const double median = n % 2 == 1 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
    out += fmt::format("held-out |error|: median {:.2f}%, max {:.2f}% over {} of {} measurements\n", median * 100,
                       errors.back() * 100, n, held_out.size());
  }
  return out;
}

void calibrate(const CalibrateOptions& options) {
  const std::vector<std::string> paths = split_paths(options.fit);
  const Calibration calibration = Calibration::from_files(options.config, options.measurements, paths);
  check_paths(options.fit, paths);
  const CalibrationResult result = calibration.fit();
  const std::string text = report(calibration, result);
  if (options.output == kStdout) {  // the config is the output; the report goes beside it, on stderr
    write_stdout(calibration.config_text(result.values, "-"));
    std::fputs(text.c_str(), stderr);
    return;
  }
  if (!options.output.empty()) {
    write_file_atomically(options.output, calibration.config_text(result.values, options.output));
  }
  write_stdout(text);
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* command =
      app.add_subcommand("calibrate", "fit config values (dotted paths) to measured iteration times or throughputs");
  command->add_option("-c,--config", options->config, "base run config (JSON, see docs/config.md)")
      ->required()
      ->transform(shipped_data());
  command->add_option("-m,--measurements", options->measurements, "measurements (JSON, see docs/fidelity.md)")
      ->required()
      ->transform(shipped_data());
  command
      ->add_option("--fit", options->fit,
                   "comma-separated dotted paths of numbers in the config, e.g. "
                   "network.alpha_us,network.beta_s_per_byte")
      ->required();
  command->add_option("-o,--output", options->output, "write the config with the fitted values to this file (-: stdout, the report then on stderr)")
      ->check(output_name());
  add_examples(command, {"mgsim calibrate -c base.json -m measured.json --fit network.alpha_us,network.beta_s_per_byte -o fitted.json"});
  command->callback([options] { calibrate(*options); });
}

}  // namespace mgsim::cli
