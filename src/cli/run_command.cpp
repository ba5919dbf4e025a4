// `mgsim run`: predict iteration time and scaling for every schedule and GPU count of a config.

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "progress_bar.hpp"
#include "mgsim/error.hpp"
#include "mgsim/app/run_set.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/io/timeline.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim::cli {
namespace {

struct RunOptions {
  std::string config;
  std::string format = "table";
  std::string output;
  std::string timeline;
  std::optional<std::string> columns;  ///< default or all: the table's alone
  std::string baseline;
  double max_work = kDefaultMaxWork;
};

/// What --timeline costs, in the steps of --max-work, per layer of each run
/// it draws: 18 runs of 200,000 layers took 190 s and 13 GB (the JSON of
/// every slice), about 500 steps at the 10 M steps/s the bound assumes.
constexpr double kTimelineStepsPerLayer = 500;

TableOptions table_options(const RunOptions& options, ReportFormat format) {
  const std::string columns = options.columns.value_or("default");
  if (columns != "default" && columns != "all") {
    throw ConfigError(fmt::format("--columns: expected 'default' or 'all', got '{}'", columns));
  }
  if (options.columns && format != ReportFormat::table) {  // red team: silently ignored
    throw ConfigError("--columns: only the table leaves columns out (CSV and JSON hold every column)");
  }
  if (!options.baseline.empty() && format != ReportFormat::table) {
    throw ConfigError("--baseline: only the table has a speedup column (CSV and JSON hold iteration_time_s)");
  }
  return {columns == "all", options.baseline};
}

void run(const RunOptions& options) {
  const ReportFormat format = parse_report_format(options.format);
  const TableOptions table = table_options(options, format);
  Scenario scenario = load_scenario(options.config);
  require_one_of_each(scenario, "mgsim run");
  WorkloadCache cache;
  const RunGrid grid(std::move(scenario), cache);
  double steps = 0;
  for (std::size_t run = 0; run < grid.size(); ++run) steps += grid.estimate_steps(run);
  if (!options.timeline.empty()) {
    // Every class's layers are drawn (red team: 1,000 classes drew 1.15 GB in 62.7 s at an estimated 1.5e6).
    for (std::size_t run = 0; run < grid.size(); ++run) {
      const RunPoint point = grid.point(run);
      steps += static_cast<double>(point.workload.layout.layer_count()) * kTimelineStepsPerLayer *
               std::max(1, point.cluster.class_count());
    }
  }
  check_work(steps, options.max_work);
  ProgressBar progress(0, grid.size(), std::chrono::seconds(1));  // on a terminal, after a second
  // Each run's iteration only for a timeline: kept for every run, 60,000 runs held 860 MB.
  std::vector<RunOutcome> outcomes =
      execute_runs(grid, options.timeline.empty() ? KeepIterations::no : KeepIterations::yes,
                   [&](std::size_t done) { progress.update(done); });
  const std::string report = format_report(rows_of(outcomes), format, table);
  const std::string_view output = options.output.empty() ? kStdout : std::string_view(options.output);
  if (options.timeline == kStdout && output == kStdout) {
    throw OutputError("--timeline -: the report goes to standard output already: give it a file with -o");
  }
  check_outputs({output, options.timeline});
  if (options.timeline.empty()) return emit(report, options.output);
  const std::string timeline = format_timeline(grid.workload(0), timeline_iterations(std::move(outcomes)));
  emit_all({{report, output}, {timeline, options.timeline}});
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app.add_subcommand("run", "predict iteration time and scaling for every schedule and GPU count");
  command->add_option("-c,--config", options->config, "run config (JSON, see docs/config.md)")
      ->required()
      ->transform(shipped_data());
  command->add_option("-f,--format", options->format, "table, csv or json")->capture_default_str();
  command->add_option("-o,--output", options->output, "file to write instead of stdout (-: stdout)")
      ->check(output_name());
  command->add_option("--timeline", options->timeline, "also write the simulated iterations as a Chrome trace (Perfetto; -: stdout, with -o naming a file)")
      ->check(output_name());
  command
      ->add_option("--columns", options->columns,
                   "default or all: the table leaves out the columns that are the same in every row and mean/p99 "
                   "equal to the nominal iteration (default), or shows them all");
  command->add_option("--baseline", options->baseline,
                      "schedule (see `mgsim list`): the table adds each row's speedup over it at the same GPU count")
      ->check(CLI::Validator([](const std::string& name) { return name.empty() ? "expected a schedule, got ''" : ""; },
                             "SCHEDULE"));
  command->add_option("--max-work", options->max_work, "most events to simulate (an estimate, checked before running)")
      ->capture_default_str()
      ->check(finite_in(1, 1e15, true));
  add_examples(command, {"mgsim run -c configs/googlenet-k80-measured.json",
                         "mgsim run -c configs/googlenet-k80-ring.json --format csv -o ring.csv",
                         "mgsim run -c configs/googlenet-k80-ring.json --baseline wfbp --columns all",
                         "mgsim run -c configs/googlenet-k80-insitu.json --timeline tl.json  # open tl.json in ui.perfetto.dev"});
  command->callback([options] { run(*options); });
}

}  // namespace mgsim::cli
