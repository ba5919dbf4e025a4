// `mgsim run -c CONFIG --format csv`, written against the installed library:
// tests/install_test.sh checks that it prints what the installed mgsim prints.

#include <cstdio>
#include <exception>

#include "mgsim/app/run_set.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/scenario.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: predict CONFIG\n");
    return 2;
  }
  try {
    mgsim::WorkloadCache cache;
    const auto outcomes = mgsim::execute_runs(mgsim::RunGrid(mgsim::load_scenario(argv[1]), cache), mgsim::KeepIterations::no);
    std::fputs(mgsim::format_report(mgsim::rows_of(outcomes), mgsim::ReportFormat::csv).c_str(), stdout);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "predict: %s\n", error.what());
    return 2;
  }
  return 0;
}
