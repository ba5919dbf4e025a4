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

std::string report(const Calibration& calibration, const CalibrationResult& result) {
  std::size_t width = 4;
  for (const std::string& path : calibration.paths()) width = std::max(width, path.size());
  std::string out = fmt::format("fitted ({} evaluations, sum of squared relative errors {:.3g}):\n", result.evaluations,
                                result.sum_squared_rel_error);
  for (std::size_t i = 0; i < calibration.paths().size(); ++i) {
    out += fmt::format("  {:<{}}  {:>14.6g}  (was {:g})\n", calibration.paths()[i], width, result.values[i],
                       calibration.initial()[i]);
  }
  out += fmt::format("\n{:>4}  {:>6}  {:<24}  {:<24}  {:>14}  {:>14}  {:>9}\n", "#", "gpus", "schedule", "metric",
                     "measured", "predicted", "residual");
  for (std::size_t m = 0; m < calibration.measurements().size(); ++m) {
    const Measurement& measured = calibration.measurements()[m];
    const double residual = (result.predicted[m] - measured.value) / measured.value;
    out += fmt::format("{:>4}  {:>6}  {:<24}  {:<24}  {:>14.6g}  {:>14.6g}  {:>+8.2f}%\n", m, measured.gpus,
                       measured.schedule_label, metric_key(measured.metric), measured.value, result.predicted[m],
                       residual * 100);
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
  command->add_option("-o,--output", options->output, "write the config with the fitted values to this file (-: stdout, the report then on stderr)");
  add_examples(command, {"mgsim calibrate -c base.json -m measured.json --fit network.alpha_us,network.beta_s_per_byte -o fitted.json"});
  command->callback([options] { calibrate(*options); });
}

}  // namespace mgsim::cli
