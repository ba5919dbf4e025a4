// `mgsim fit CURVE`: fits a measured all-reduce curve (docs/profiling.md):
// a + b*M per size range with breakpoints found from the data, alpha and beta
// of the ring and tree models, and the `nccl` model's bandwidth and latency;
// prints ready-to-paste "network" objects and can write the piecewise fit as
// a curve file for collective "measured".

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "commands.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/profile/curve_fit.hpp"
#include "mgsim/profile/nccl_model.hpp"
#include "mgsim/profile/output.hpp"

namespace mgsim::cli {
namespace {

using nlohmann::ordered_json;

struct FitOptions {
  std::string curve;
  int max_ranges = 6;
  int min_points = 3;
  double tolerance = 0.05;
  int gpus_per_node = 1;
  std::string format = "text";
  std::string output;
  std::string curve_output;
};

std::string human_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && std::fmod(bytes, 1024) == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{:g} {}", bytes, kUnits[unit]);
}

ordered_json errors(double rms, double max) { return {{"rms_rel_error", rms}, {"max_rel_error", max}}; }

ordered_json piecewise_json(const profile::PiecewiseFit& fit) {
  ordered_json ranges = ordered_json::array(), breakpoints = ordered_json::array();
  for (std::size_t r = 0; r < fit.ranges.size(); ++r) {
    const profile::SizeRange& range = fit.ranges[r];
    ranges.push_back({{"from_bytes", range.from_bytes},
                      {"to_bytes", range.to_bytes},
                      {"points", range.last - range.first + 1},
                      {"a_s", range.fit.a_s},
                      {"b_s_per_byte", range.fit.b_s_per_byte},
                      {"rms_rel_error", range.fit.rms_rel_error},
                      {"max_rel_error", range.fit.max_rel_error}});
    if (r > 0) breakpoints.push_back({{"after_bytes", fit.ranges[r - 1].to_bytes}, {"before_bytes", range.from_bytes}});
  }
  ordered_json out = {{"tolerance", fit.tolerance}, {"ranges", ranges}, {"breakpoints", breakpoints}};
  out.update(errors(fit.rms_rel_error, fit.max_rel_error));
  return out;
}

/// Six significant digits: what a fit of measured latencies can claim.
double rounded(double value) { return std::stod(fmt::format("{:.6g}", value)); }

ordered_json network_json(double alpha_us, double beta) {
  return {{"alpha_us", rounded(alpha_us)}, {"beta_s_per_byte", rounded(beta)}};
}

ordered_json alpha_beta_json(const profile::AlphaBetaFit& fit) {
  ordered_json out = {{"network", network_json(fit.alpha_s * 1e6, fit.beta_s_per_byte)}};
  out.update(errors(fit.rms_rel_error, fit.max_rel_error));
  return out;
}

/// All fits of a curve, as one JSON document (the text report is printed from it).
ordered_json fit_curve(const FitOptions& options, const std::vector<CurvePoint>& points,
                       std::vector<profile::CurveSample>& fitted) {
  std::map<int, std::vector<CurvePoint>> by_gpus;
  for (const CurvePoint& p : points) by_gpus[p.gpus].push_back(p);
  ordered_json counts = ordered_json::array();
  for (const auto& [gpus, group] : by_gpus) {
    std::vector<profile::SizeSample> samples;
    for (const CurvePoint& p : group) samples.push_back({static_cast<double>(p.bytes), p.seconds});
    const profile::PiecewiseOptions fit_options{options.max_ranges, options.min_points, options.tolerance};
    profile::PiecewiseFit pw;
    try {
      pw = profile::fit_piecewise(samples, fit_options);
    } catch (const CurveError& error) {
      throw CurveError(fmt::format("{}: points: {} GPUs: {}", options.curve, gpus, error.what()));
    }
    const profile::LineFit line = profile::fit_line(pw.samples);
    for (const profile::SizeSample& s : pw.samples) {
      const double t = profile::evaluate(pw, s.bytes);
      fitted.push_back({gpus, static_cast<std::int64_t>(s.bytes), t > 0 ? t : s.seconds, std::nullopt});
    }
    ordered_json single = {{"a_s", line.a_s}, {"b_s_per_byte", line.b_s_per_byte}};
    single.update(errors(line.rms_rel_error, line.max_rel_error));
    counts.push_back({{"gpus", gpus},
                      {"points", group.size()},
                      {"piecewise", piecewise_json(pw)},
                      {"single_line", single},
                      {"ring", alpha_beta_json(profile::fit_alpha_beta(group, profile::AlphaBetaModel::ring))},
                      {"tree", alpha_beta_json(profile::fit_alpha_beta(group, profile::AlphaBetaModel::tree))}});
  }
  profile::NcclParams base;
  base.gpus_per_node = options.gpus_per_node;
  const profile::NcclCalibration nccl = profile::calibrate_nccl(points, base);
  ordered_json nccl_json = {{"gpus_per_node", options.gpus_per_node},
                            {"network", network_json(nccl.extra_latency_us, nccl.beta_s_per_byte)}};
  nccl_json.update(errors(nccl.rms_rel_error, nccl.max_rel_error));
  return {{"curve", options.curve},
          {"gpu_counts", counts},
          {"all_gpu_counts",
           {{"ring", alpha_beta_json(profile::fit_alpha_beta(points, profile::AlphaBetaModel::ring))},
            {"tree", alpha_beta_json(profile::fit_alpha_beta(points, profile::AlphaBetaModel::tree))},
            {"nccl", nccl_json}}}};
}

std::string percent(const ordered_json& fit) {
  return fmt::format("rms error {:.1f}%, max {:.1f}%", fit["rms_rel_error"].get<double>() * 100,
                     fit["max_rel_error"].get<double>() * 100);
}

std::string text_report(const ordered_json& result) {
  std::string out = fmt::format("curve {}\n", result["curve"].get<std::string>());
  for (const ordered_json& c : result["gpu_counts"]) {
    const ordered_json& pw = c["piecewise"];
    out += fmt::format("\nP = {} ({} sizes): a + b*M per size range: {} ranges, each within {:g}% rms ({})\n",
                       c["gpus"].get<int>(), c["points"].get<int>(), pw["ranges"].size(),
                       pw["tolerance"].get<double>() * 100, percent(pw));
    out += fmt::format("  {:<22} {:>6} {:>12} {:>12} {:>11} {:>9} {:>9}\n", "range", "points", "a (us)", "b (s/B)",
                       "1/b (GB/s)", "rms err", "max err");
    for (const ordered_json& r : pw["ranges"]) {
      const double b = r["b_s_per_byte"].get<double>();
      out += fmt::format("  {:<22} {:>6} {:>12.3f} {:>12.4e} {:>11} {:>8.1f}% {:>8.1f}%\n",
                         human_bytes(r["from_bytes"].get<double>()) + " .. " + human_bytes(r["to_bytes"].get<double>()),
                         r["points"].get<int>(), r["a_s"].get<double>() * 1e6, b,
                         b > 0 ? fmt::format("{:.3g}", 1e-9 / b) : std::string("-"),
                         r["rms_rel_error"].get<double>() * 100, r["max_rel_error"].get<double>() * 100);
    }
    for (const ordered_json& bp : pw["breakpoints"]) {
      out += fmt::format("  breakpoint between {} and {}\n", human_bytes(bp["after_bytes"].get<double>()),
                         human_bytes(bp["before_bytes"].get<double>()));
    }
    out += fmt::format("  one line for all sizes: a = {:.3f} us, b = {:.4e} s/B ({})\n",
                       c["single_line"]["a_s"].get<double>() * 1e6, c["single_line"]["b_s_per_byte"].get<double>(),
                       percent(c["single_line"]));
    for (const char* model : {"ring", "tree"}) {
      out +=
          fmt::format("  {} at this P: \"network\": {} ({})\n", model, c[model]["network"].dump(), percent(c[model]));
    }
  }
  const ordered_json& all = result["all_gpu_counts"];
  out += "\nOne model for every GPU count of the curve (paste into a run config):\n";
  for (const char* model : {"ring", "tree"}) {
    out += fmt::format("  \"collective\": \"{}\", \"network\": {}\n      {}\n", model, all[model]["network"].dump(),
                       percent(all[model]));
  }
  out += fmt::format("  \"collective\": \"nccl\", \"gpus_per_node\": {}, \"network\": {}\n      {}\n",
                     all["nccl"]["gpus_per_node"].get<int>(), all["nccl"]["network"].dump(), percent(all["nccl"]));
  return out;
}

void fit(const FitOptions& options) {
  if (options.format != "text" && options.format != "json") {
    throw ConfigError(fmt::format("--format: expected text or json, got '{}'", options.format));
  }
  const std::vector<CurvePoint> points = load_curve(options.curve);
  std::vector<profile::CurveSample> fitted;
  const ordered_json result = fit_curve(options, points, fitted);
  const std::string report = options.format == "json" ? result.dump(1) + "\n" : text_report(result);
  emit(report, options.output, {options.curve});
  if (!options.curve_output.empty()) {
    const nlohmann::json provenance = {
        {"kind", "synthetic"},
        {"derived_from", options.curve},
        {"method", "mgsim fit: a + b*M per size range (breakpoints by BIC), evaluated at the measured sizes"}};
    check_not_an_input(options.curve_output, {options.curve});
    write_file_atomically(options.curve_output, profile::format_curve_json(fitted, provenance));
  }
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto options = std::make_shared<FitOptions>();
  CLI::App* command = app.add_subcommand("fit",
                                         "fit a measured all-reduce curve: a + b*M per size range, ring/tree "
                                         "alpha-beta, the nccl model");
  command->add_option("curve", options->curve, "curve file (docs/trace-format.md)")->required();
  command->add_option("--max-ranges", options->max_ranges, "most size ranges per GPU count")
      ->capture_default_str()
      ->check(CLI::Range(1, 20));
  command
      ->add_option("--tolerance", options->tolerance,
                   "rms relative error each range must meet (more ranges only while one misses it)")
      ->capture_default_str()
      ->check(finite_in(0, 1, true));
  command->add_option("--min-points", options->min_points, "fewest sizes in one range")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  command->add_option("--gpus-per-node", options->gpus_per_node, "node size for the nccl model's calibration")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  command->add_option("-f,--format", options->format, "text or json")->capture_default_str();
  command->add_option("-o,--output", options->output, "write the report to this file instead of stdout");
  command->add_option("--curve-out", options->curve_output,
                      "write the piecewise fit, evaluated at the measured sizes, as a curve file");
  command->callback([options] { fit(*options); });
}

}  // namespace mgsim::cli
