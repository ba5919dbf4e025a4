// The mgsim command line: a thin front end over mgsim::core. Subcommands come
// from one table; library errors become one-line messages and exit code 2.

#include <cstdio>
#include <functional>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "mgsim/collective.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/run_config.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/schedule.hpp"

namespace {

constexpr int kBadInput = 2;

struct RunOptions {
  std::string config;
  std::string format = "table";
  std::string output;
};

void run_command(const RunOptions& options) {
  const mgsim::ReportFormat format = mgsim::parse_report_format(options.format);
  const mgsim::RunConfig config = mgsim::load_run_config(options.config);
  const mgsim::Workload workload(mgsim::load_trace(config.trace));
  const std::string report = mgsim::format_report(mgsim::run_config(config, workload), format);
  if (options.output.empty()) {
    std::fwrite(report.data(), 1, report.size(), stdout);
  } else {
    mgsim::write_file_atomically(options.output, report);
  }
}

void list_command() {
  fmt::print("schedules:\n");
  for (const mgsim::ScheduleInfo& info : mgsim::schedule_registry()) {
    fmt::print("  {:<20} {}\n", info.name, info.description);
    for (const mgsim::ParamSpec& param : info.params) {
      fmt::print("      {} = {:g}: {}\n", param.name, param.default_value, param.description);
    }
  }
  fmt::print("collectives:\n");
  for (const mgsim::CollectiveInfo& info : mgsim::collective_registry()) {
    fmt::print("  {:<20} {}\n", info.name, info.description);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mgsim: trace-driven simulator of data-parallel training on GPU clusters"};
  app.require_subcommand(1);

  RunOptions run;
  CLI::App* run_app = app.add_subcommand("run", "predict iteration time and scaling for every schedule and GPU count");
  run_app->add_option("-c,--config", run.config, "run config (JSON, see docs/config.md)")->required();
  run_app->add_option("-f,--format", run.format, "table, csv or json")->capture_default_str();
  run_app->add_option("-o,--output", run.output, "write to this file instead of stdout");
  run_app->callback([&] { run_command(run); });

  app.add_subcommand("list", "list schedules (with parameters) and collectives")->callback(list_command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kBadInput;
  } catch (const mgsim::Error& error) {
    std::fprintf(stderr, "mgsim: error: %s\n", error.what());
    return kBadInput;
  }
  return 0;
}
