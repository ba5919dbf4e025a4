// `mgsim fit CURVE...`: fits measured curves, each on its own
// (docs/profiling.md): a + b*M per size range with breakpoints found from the
// data and the bus bandwidth of each range, and for all-reduce curves alpha
// and beta of the ring and tree models and the `nccl` model's bandwidth and
// latency; prints ready-to-paste "network" objects for the models that fit
// and can write the piecewise fit of one curve as a curve file for
// collective "measured". The fitting: mgsim/app/curve_fit_report.hpp.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mgsim/app/curve_fit_report.hpp"
#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/json_reader.hpp"
#include "mgsim/io/json_text.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim::cli {
namespace {

struct FitOptions {
  std::vector<std::string> curves;
  std::string insitu;
  CurveFitSettings settings;
  int gpus_per_node = 0;  ///< 0: from each curve's provenance
  std::string format = "text";
  std::string output;
  std::string curve_output;
};

/// --gpus-per-node when given, else the curve's provenance: its "ranks" on
/// its "hosts" (an nccl-tests import names both) when they divide, else 1.
/// `note` says which, for the text report; `source` names it for an error.
int gpus_per_node(int given, const std::string& file, const CurveFile& curve, std::string& note, std::string& source) {
  source = "--gpus-per-node";
  if (given > 0) return given;
  const nlohmann::json& p = curve.provenance;
  const auto count = [&](const char* key) {  // red team: 2^32 + 8 ranks once read as 8, 16.0 as none
    if (!p.is_object() || !p.contains(key)) return 0;
    return static_cast<int>(read_integer(p[key], JsonWhere{file, "provenance", InputKind::curve}.key(key), 1, kMaxGpus));
  };
  const int ranks = count("ranks");
  const int hosts = count("hosts");
  if (ranks > 0 && hosts > 0 && ranks % hosts == 0) {
    note = fmt::format("  (gpus_per_node {}: the curve's provenance, {} ranks on {} host{}; --gpus-per-node "
                       "overrides it)\n",
                       ranks / hosts, ranks, hosts, hosts == 1 ? "" : "s");
    source = fmt::format("provenance.ranks / provenance.hosts, {} / {}", ranks, hosts);
    return ranks / hosts;
  }
  if (ranks > 0 && hosts > 0) {  // red team: an uneven split was said not to be in the provenance
    note = fmt::format("  (gpus_per_node 1: the curve's provenance has {} ranks on {} hosts, not as many on each; "
                       "give --gpus-per-node)\n",
                       ranks, hosts);
    source = fmt::format("1, the provenance's {} ranks not splitting evenly over its {} hosts", ranks, hosts);
    return 1;
  }
  note = "  (gpus_per_node 1: the curve's provenance does not say how many ranks ran on how many hosts; "
         "give --gpus-per-node)\n";
  source = "1, the provenance naming no ranks on hosts";
  return 1;
}

void fit(const FitOptions& options) {
  if (options.format != "text" && options.format != "json") {
    throw ConfigError(fmt::format("--format: expected text or json, got '{}'", options.format));
  }
  if (options.curves.size() > 1 && (!options.insitu.empty() || !options.curve_output.empty())) {
    throw ConfigError(fmt::format("{} takes one curve, got {}: give one file", !options.insitu.empty() ? "--insitu" : "--curve-out",
                                  options.curves.size()));  // red team: named both, one given
  }
  const auto from_stdin = std::count(options.curves.begin(), options.curves.end(), "-") + (options.insitu == "-");
  if (from_stdin > 1) throw ConfigError("standard input (-) can be read once: give the other inputs as files");
  std::vector<CurveFile> curves;
  for (const std::string& file : options.curves) curves.push_back(load_curve_file(file));
  const CurveFile& curve = curves.back();
  nlohmann::ordered_json comparison;
  if (!options.insitu.empty()) {
    if (curve.collective != CurveCollective::allreduce) {
      throw ConfigError(fmt::format("--insitu: the in-situ observations are all-reduces; {} is an {} curve",
                                    options.curves.front(), curve_collective_name(curve.collective)));
    }
    comparison = compare_insitu(curve.points, options.insitu);
  }
  // Every input read, before the fits (seconds each): an output that cannot be written, or is an input, is said
  // at once (red team: checked before --insitu was read, that trace was overwritten).
  const std::string_view output = options.output.empty() ? kStdout : std::string_view(options.output);
  check_outputs({output, options.curve_output});
  std::string report;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  CurveFitReport result;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const std::string& file = options.curves[i];
    CurveFitSettings settings = options.settings;
    std::string note;
    std::string source;
    settings.gpus_per_node = gpus_per_node(options.gpus_per_node, file, curves[i], note, source);
    try {
      result = fit_curve(file, curves[i], settings);
    } catch (const ConfigError& error) {  // red team: "16 GPUs is not a multiple of gpus_per_node 3" named no file
      throw ConfigError(fmt::format("{}: {} (gpus_per_node from {}): give --gpus-per-node", file, error.what(), source));
    }
    if (curves[i].collective != CurveCollective::allreduce) note.clear();  // no nccl model fitted
    if (options.format != "json") report += (report.empty() ? "" : "\n") + format_fit_text(result.result) + note;
    results.push_back(result.result);
  }
  if (!options.insitu.empty()) {
    if (options.format != "json") report += format_insitu_text(comparison);
    results.back()["insitu_comparison"] = comparison;
  }
  if (options.format == "json") {
    for (nlohmann::ordered_json& fitted : results) stamp_report(fitted);
    report = json_text(results.size() == 1 ? results.front() : results, 1) + "\n";
  }
  if (options.curve_output.empty()) return emit(report, options.output);
  const nlohmann::json provenance = {
      {"kind", "synthetic"},
      {"derived_from", options.curves.front()},
      {"method", "mgsim fit: a + b*M per size range (the fewest ranges that each fit within --tolerance), evaluated at the measured sizes"}};
  // A curve holds collectives of 2 ranks or more: an in-situ trace's 1-GPU iterations are left out (red team:
  // the shipped trace could not be written out).
  std::vector<CurveSample> fitted;
  std::copy_if(result.fitted.begin(), result.fitted.end(), std::back_inserter(fitted),
               [](const CurveSample& s) { return s.gpus >= 2; });
  if (fitted.empty()) {
    throw ConfigError(fmt::format("--curve-out {}: the fit has no point at 2 GPUs or more, and a curve holds "
                                  "collectives of 2 ranks or more",
                                  options.curve_output));
  }
  emit_all({{report, output}, {format_curve_json(fitted, provenance, curve.collective), options.curve_output}});
  if (fitted.size() < result.fitted.size()) {
    std::fprintf(stderr, "mgsim: warning: --curve-out leaves out the fit at 1 GPU: a curve holds collectives of 2 "
                         "ranks or more\n");
  }
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto options = std::make_shared<FitOptions>();
  CLI::App* command = app.add_subcommand("fit",
                                         "fit measured curves: a + b*M per size range with bus bandwidths, "
                                         "ring/tree alpha-beta, the nccl model");
  command
      ->add_option("curves", options->curves,
                   "curve files (all-reduce, all-gather, reduce-scatter), or traces with in-situ observations "
                   "(docs/trace-format.md); each is fitted on its own")
      ->required()
      ->transform(shipped_data());
  command
      ->add_option("--insitu", options->insitu,
                   "a trace with in-situ observations: also compare them with the curve, side by side")
      ->transform(shipped_data());
  command->add_option("--max-ranges", options->settings.max_ranges, "most size ranges per GPU count")
      ->capture_default_str()
      ->check(whole_in(1, 20));
  command
      ->add_option("--tolerance", options->settings.tolerance,
                   "rms relative error each range must meet (more ranges only while one misses it)")
      ->capture_default_str()
      ->check(finite_in(0, 1, true));
  command->add_option("--min-points", options->settings.min_points, "fewest sizes in one range")
      ->capture_default_str()
      ->check(whole_in(2, 1000));
  command
      ->add_option("--gpus-per-node", options->gpus_per_node,
                   "node size for the nccl model's calibration (default: the curve's provenance, ranks / hosts, else 1)")
      ->check(whole_in(1, 1 << 20));
  command->add_option("-f,--format", options->format, "text or json")->capture_default_str();
  command->add_option("-o,--output", options->output, "write the report to this file instead of stdout (-: stdout)")
      ->check(output_name());
  command->add_option("--curve-out", options->curve_output,
                      "write the piecewise fit, evaluated at the measured sizes, as a curve file")
      ->check(output_name());
  add_examples(command, {"mgsim fit traces/googlenet-k80-allreduce.json",
                         "mgsim fit traces/googlenet-k80-allreduce.json --format json -o fit.json --curve-out fitted-curve.json"});
  command->callback([options] { fit(*options); });
}

}  // namespace mgsim::cli
