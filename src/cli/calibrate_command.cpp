// `mgsim calibrate`: fits numeric values of a run config (by dotted path) to
// measured iteration times or throughputs and writes the fitted config
// (docs/fidelity.md).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mgsim/app/calibrate.hpp"
#include "mgsim/app/model_choice.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/relative_error.hpp"

namespace mgsim::cli {
namespace {

struct CalibrateOptions {
  std::string config;
  std::string measurements;
  std::string fit;
  std::string output;
  std::vector<std::string> choose;
  double max_work = kDefaultMaxWork;
  int threads = 0;  ///< not given: one per hardware thread
};

/// "a.b,c.d": the dotted paths of --fit.
std::vector<std::string> split_paths(const std::string& list) {
  std::vector<std::string> paths;
  std::stringstream in(list);
  for (std::string path; std::getline(in, path, ',');) paths.push_back(path);
  return paths;
}

/// Refuses an empty --fit list or path, before any file is read.
void check_paths(const std::string& list, const std::vector<std::string>& paths) {
  if (paths.empty() || list.ends_with(',') || std::find(paths.begin(), paths.end(), "") != paths.end()) {
    throw ConfigError(fmt::format("--fit: expected comma-separated dotted paths such as network.alpha_us, got '{}'", list));
  }
}

/// "+1.23%", or "n/a" for a measurement the others cannot cross-validate.
std::string percent(std::optional<double> predicted, double measured) {
  return predicted ? fmt::format("{:+.2f}%", relative_error(*predicted, measured) * 100) : "n/a";
}

/// A residual past this is no fit: the fitted keys cannot reach the measurement within their bounds.
constexpr double kMissedResidual = 0.5;

/// A warning line when the fit itself misses measurements by more than kMissedResidual, else "".
std::string missed_note(const Calibration& calibration, const CalibrationResult& result) {
  std::size_t missed = 0;
  std::size_t worst = 0;
  double worst_residual = 0;
  for (std::size_t m = 0; m < calibration.measurements().size(); ++m) {
    const double measured = calibration.measurements()[m].value;
    const double residual = relative_error(result.predicted[m], measured);
    if (std::abs(residual) > kMissedResidual) ++missed;
    if (std::abs(residual) > std::abs(worst_residual)) {
      worst = m;
      worst_residual = residual;
    }
  }
  if (missed == 0) return "";
  return fmt::format("warning: the fit misses {} of {} measurements by more than {:g}% (#{} by {:+.2f}%): no values of "
                     "the fitted keys within their bounds reach them; check those measurements (a throughput counts "
                     "every GPU's samples, times are in seconds) or fit other keys\n",
                     missed, calibration.measurements().size(), kMissedResidual * 100, worst, worst_residual * 100);
}

std::string report(const Calibration& calibration, const CalibrationResult& result, const HeldOutErrors& held_out) {
  std::size_t width = 4;
  for (const std::string& path : calibration.paths()) width = std::max(width, path.size());
  std::string out = fmt::format("fitted ({} evaluations, sum of squared relative errors {:.3g}):\n", result.evaluations,
                                result.sum_squared_rel_error);
  for (std::size_t i = 0; i < calibration.paths().size(); ++i) {
    const std::string note = identifiability_note(calibration, result, i);
    out += fmt::format("  {:<{}}  {:>14.6g}  (was {:g}){}{}\n", calibration.paths()[i], width, result.values[i],
                       calibration.initial()[i], note.empty() ? "" : "  ", note);
  }
  out += fmt::format("\n{:>4}  {:>6}  {:<24}  {:<24}  {:>14}  {:>14}  {:>9}  {:>9}\n", "#", "gpus", "schedule",
                     "metric", "measured", "predicted", "residual", "held out");
  for (std::size_t m = 0; m < calibration.measurements().size(); ++m) {
    const Measurement& measured = calibration.measurements()[m];
    const double residual = relative_error(result.predicted[m], measured.value);
    out += fmt::format("{:>4}  {:>6}  {:<24}  {:<24}  {:>14.6g}  {:>14.6g}  {:>+8.2f}%  {:>9}\n", m, measured.gpus,
                       printable(row_label(measured)), metric_key(measured.metric), measured.value, result.predicted[m],
                       residual * 100, percent(held_out.predicted[m], measured.value));
  }
  out += "\nresidual: the fit's error on a measurement it was fitted to; held out: the error predicting it with the\n"
         "values fitted on all the other measurements (leave-one-out), what to expect on a new measurement\n";
  if (held_out.count > 0) {
    out += fmt::format("held-out |error|: median {:.2f}%, max {:.2f}% over {} of {} measurements\n",
                       held_out.median * 100, held_out.max * 100, held_out.count, held_out.predicted.size());
  }
  return out + missed_note(calibration, result);
}

/// The candidates of --choose, best marked, before the chosen one's report.
std::string choice_report(const ModelChoice& choice) {
  std::size_t width = 40;  // as wide as the longest label (red team: a longer one pushed its row's columns out)
  for (const Candidate& c : choice.candidates) width = std::max(width, choice_label(c.setting).size());
  std::string out = fmt::format("{:<{}}  {:>12}  {:>15}  {:>15}\n", "candidate", width, "fit rms", "held-out median",
                                "held-out max");
  for (std::size_t i = 0; i < choice.candidates.size(); ++i) {
    const Candidate& c = choice.candidates[i];
    const double fit_rms = std::sqrt(c.fit.sum_squared_rel_error / static_cast<double>(c.fit.predicted.size()));
    const std::string median = c.held_out.count > 0 ? fmt::format("{:.2f}%", c.held_out.median * 100) : "n/a";
    const std::string max = c.held_out.count > 0 ? fmt::format("{:.2f}%", c.held_out.max * 100) : "n/a";
    out += fmt::format("{:<{}}  {:>11.2f}%  {:>15}  {:>15}{}\n", choice_label(c.setting), width, fit_rms * 100, median,
                       max, i == choice.best ? "  <- chosen" : "");
  }
  out += "chosen by the root mean square of the held-out errors (the fit's own where none can be held out)\n";
  if (!choice.tied.empty()) {
    std::vector<std::string> labels;
    for (const std::size_t i : choice.tied) labels.push_back(choice_label(choice.candidates[i].setting));
    out += fmt::format("tied with the chosen one (within a part in a million): {}: the measurements cannot tell "
                       "them apart, the first given was kept\n",
                       fmt::join(labels, ", "));
  }
  return out + "\n";
}

void calibrate(const CalibrateOptions& options) {
  const std::vector<std::string> paths = split_paths(options.fit);
  check_paths(options.fit, paths);
  if (options.config == "-" && options.measurements == "-") {
    throw ConfigError("-c - and -m -: standard input can be read once: give one of them as a file");
  }
  if (!options.choose.empty() && (options.config == "-" || options.measurements == "-")) {
    throw ConfigError("--choose reads -c and -m once per candidate: give them as files, not standard input");
  }
  std::vector<Choice> choices;
  for (const std::string& text : options.choose) choices.push_back(parse_choice(text));
  ModelChoice choice = choose_model(options.config, options.measurements, paths, choices, options.max_work, options.threads);
  const Candidate& chosen = choice.candidates[choice.best];
  const std::string text = (choices.empty() ? "" : choice_report(choice)) +
                           report(chosen.calibration, chosen.fit, chosen.held_out);
  if (options.output == kStdout) {  // the config is the output; the report goes beside it, on stderr
    write_stdout(chosen.calibration.config_text(chosen.fit.values, "-"));
    std::fputs(text.c_str(), stderr);
    return;
  }
  if (options.output.empty()) return write_stdout(text);
  emit_all({{text, kStdout}, {chosen.calibration.config_text(chosen.fit.values, options.output), options.output}});
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
  command->add_option("--choose", options->choose,
                      "KEY=a,b,...: fit each candidate value of a text key (collective, message_unit) and keep the "
                      "one with the smallest held-out error; repeat for more keys (every combination is fitted)");
  command->add_option("-o,--output", options->output, "write the config with the fitted values to this file (-: stdout, the report then on stderr)")
      ->check(output_name());
  command
      ->add_option("--max-work", options->max_work,
                   "most steps the calibration may simulate, every fit together (held-out ones, --choose candidates)")
      ->capture_default_str()
      ->check(finite_in(1, 1e15, true));
  command
      ->add_option("-j,--threads", options->threads,
                   "threads for the held-out fits, 1..1024 (default: one per hardware thread; the answers are the same "
                   "for any count)")
      ->check(whole_in(1, 1024));
  add_examples(command, {"mgsim calibrate -c base.json -m measured.json --fit network.alpha_us,network.beta_s_per_byte -o fitted.json",
                         "mgsim calibrate -c base.json -m measured.json --fit network.beta_s_per_byte --choose collective=ring,tree,double-binary-tree"});
  command->callback([options] { calibrate(*options); });
}

}  // namespace mgsim::cli
