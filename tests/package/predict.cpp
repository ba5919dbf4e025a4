// `mgsim run -c CONFIG --format csv`, written against the installed library:
// tests/install_test.sh checks that it prints what the installed mgsim prints.

#include <cstdio>
#include <exception>

#include "mgsim/app/run_set.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/run_config.hpp"
#include "mgsim/io/trace_io.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: predict CONFIG\n");
    return 2;
  }
  try {
    const mgsim::RunConfig config = mgsim::load_run_config(argv[1]);
    const mgsim::Workload workload(mgsim::load_trace(config.trace));
    const auto outcomes = mgsim::execute_run_config(config, workload);
    std::fputs(mgsim::format_report(mgsim::rows_of(outcomes), mgsim::ReportFormat::csv).c_str(), stdout);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "predict: %s\n", error.what());
    return 2;
  }
  return 0;
}
