// `mgsim run`: predict iteration time and scaling for every schedule and GPU count of a config.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mgsim/app/run_set.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/run_config.hpp"
#include "mgsim/io/timeline.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/work_estimate.hpp"

namespace mgsim::cli {
namespace {

struct RunOptions {
  std::string config;
  std::string format = "table";
  std::string output;
  std::string timeline;
  double max_work = kDefaultMaxWork;
};

void run(const RunOptions& options) {
  const ReportFormat format = parse_report_format(options.format);
  const RunConfig config = load_run_config(options.config);
  const Workload workload(load_trace(config.trace));
  check_run_work(config, workload, options.max_work);
  std::vector<RunOutcome> outcomes = execute_run_config(config, workload);
  const std::string report = format_report(rows_of(outcomes), format);
  check_outputs({options.output, options.timeline});
  if (!options.timeline.empty()) {
    write_file_atomically(options.timeline, format_timeline(workload, timeline_iterations(std::move(outcomes))));
  }
  emit(report, options.output);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app.add_subcommand("run", "predict iteration time and scaling for every schedule and GPU count");
  command->add_option("-c,--config", options->config, "run config (JSON, see docs/config.md)")->required();
  command->add_option("-f,--format", options->format, "table, csv or json")->capture_default_str();
  command->add_option("-o,--output", options->output, "file to write instead of stdout (-: stdout)");
  command->add_option("--timeline", options->timeline, "also write the simulated iterations as a Chrome trace (Perfetto)");
  command->add_option("--max-work", options->max_work, "most events to simulate (an estimate, checked before running)")
      ->capture_default_str()
      ->check(finite_in(1, 1e15, true));
  add_examples(command, {"mgsim run -c configs/googlenet-k80-measured.json",
                         "mgsim run -c configs/googlenet-k80-ring.json --format csv -o ring.csv",
                         "mgsim run -c configs/googlenet-k80-insitu.json --timeline tl.json  # open tl.json in ui.perfetto.dev"});
  command->callback([options] { run(*options); });
}

}  // namespace mgsim::cli
