// `mgsim fit CURVE`: fits a measured all-reduce curve (docs/profiling.md):
// a + b*M per size range with breakpoints found from the data, alpha and beta
// of the ring and tree models, and the `nccl` model's bandwidth and latency;
// prints ready-to-paste "network" objects and can write the piecewise fit as
// a curve file for collective "measured". The fitting: mgsim/app/curve_fit_report.hpp.

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mgsim/app/curve_fit_report.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/json_text.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim::cli {
namespace {

struct FitOptions {
  std::string curve;
  std::string insitu;
  CurveFitSettings settings;
  std::string format = "text";
  std::string output;
  std::string curve_output;
};

void fit(const FitOptions& options) {
  if (options.format != "text" && options.format != "json") {
    throw ConfigError(fmt::format("--format: expected text or json, got '{}'", options.format));
  }
  const std::vector<CurvePoint> points = load_curve(options.curve);
  CurveFitReport result = fit_curve(options.curve, points, options.settings);
  std::string report = options.format == "json" ? "" : format_fit_text(result.result);
  std::vector<std::filesystem::path> inputs{options.curve};
  if (!options.insitu.empty()) {
    inputs.emplace_back(options.insitu);
    const nlohmann::ordered_json comparison = compare_insitu(points, options.insitu);
    if (options.format != "json") report += format_insitu_text(comparison);
    result.result["insitu_comparison"] = comparison;
  }
  if (options.format == "json") {
    stamp_report(result.result);
    report = json_text(result.result, 1) + "\n";
  }
  emit(report, options.output, inputs);
  if (!options.curve_output.empty()) {
    const nlohmann::json provenance = {
        {"kind", "synthetic"},
        {"derived_from", options.curve},
        {"method", "mgsim fit: a + b*M per size range (breakpoints by BIC), evaluated at the measured sizes"}};
    check_not_an_input(options.curve_output, inputs);
    write_file_atomically(options.curve_output, format_curve_json(result.fitted, provenance));
  }
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto options = std::make_shared<FitOptions>();
  CLI::App* command = app.add_subcommand("fit",
                                         "fit a measured all-reduce curve: a + b*M per size range, ring/tree "
                                         "alpha-beta, the nccl model");
  command->add_option("curve", options->curve, "curve file, or a trace with in-situ observations (docs/trace-format.md)")
      ->required();
  command->add_option("--insitu", options->insitu,
                      "a trace with in-situ observations: also compare them with the curve, side by side");
  command->add_option("--max-ranges", options->settings.max_ranges, "most size ranges per GPU count")
      ->capture_default_str()
      ->check(CLI::Range(1, 20));
  command
      ->add_option("--tolerance", options->settings.tolerance,
                   "rms relative error each range must meet (more ranges only while one misses it)")
      ->capture_default_str()
      ->check(finite_in(0, 1, true));
  command->add_option("--min-points", options->settings.min_points, "fewest sizes in one range")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  command->add_option("--gpus-per-node", options->settings.gpus_per_node, "node size for the nccl model's calibration")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  command->add_option("-f,--format", options->format, "text or json")->capture_default_str();
  command->add_option("-o,--output", options->output, "write the report to this file instead of stdout (-: stdout)");
  command->add_option("--curve-out", options->curve_output,
                      "write the piecewise fit, evaluated at the measured sizes, as a curve file");
  add_examples(command, {"mgsim fit traces/googlenet-k80-allreduce.json",
                         "mgsim fit traces/googlenet-k80-allreduce.json --format json -o fit.json --curve-out fitted-curve.json"});
  command->callback([options] { fit(*options); });
}

}  // namespace mgsim::cli
