// `mgsim advise`: the DDP bucket cap and Horovod fusion threshold that give the
// best predicted iteration time for a model and cluster, against the default
// and the optimal merge.

#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/app/sweep_advice.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim::cli {
namespace {

struct AdviseOptions {
  std::string config;
  std::string format = "table";
  std::string output;
  double max_work = kDefaultMaxWork;
};

void advise_command(const AdviseOptions& options) {
  const ReportFormat format = parse_report_format(options.format);
  Scenario scenario = load_scenario(options.config);
  const std::string collective = scenario.collectives.front().label();
  const std::filesystem::path trace = scenario.traces.front();
  WorkloadCache cache;
  const std::vector<KnobAdvice> advice = advise(std::move(scenario), cache, options.max_work);
  emit(format_advice(advice, cache.get(trace).trace.model, collective, format), options.output);
}

}  // namespace

void add_advise_command(CLI::App& app) {
  auto options = std::make_shared<AdviseOptions>();
  CLI::App* command = app.add_subcommand("advise", "best DDP bucket_cap_mb and Horovod fusion threshold per GPU count, "
                                                   "against the default and the optimal merge");
  command->add_option("-c,--config", options->config, "run config (JSON, see docs/config.md); its schedules are checked as run checks them, not run")
      ->required()
      ->transform(shipped_data());
  command->add_option("-f,--format", options->format, "table, csv or json")->capture_default_str();
  command->add_option("-o,--output", options->output, "file to write instead of stdout (-: stdout)")
      ->check(output_name());
  command->add_option("--max-work", options->max_work, "most events to simulate, every candidate together (an estimate, checked before running)")
      ->capture_default_str()
      ->check(finite_in(1, 1e15, true));
  add_examples(command, {"mgsim advise -c configs/googlenet-k80-ring.json",
                         "mgsim advise -c configs/googlenet-k80-ring.json --format json -o advice.json"});
  command->callback([options] { advise_command(*options); });
}

}  // namespace mgsim::cli
