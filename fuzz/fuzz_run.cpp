// libFuzzer target, structure-aware: a whole run config, mutated with the
// dictionary of its keys and values (fuzz/config.dict, docs/config.md), run
// end to end on a tiny two-layer trace: load_run_config, the work estimate,
// every run and the report. The input's "trace" is replaced by that trace,
// and a run past a small work budget is skipped, so no input can hang.
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "mgsim/app/run_set.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/run_config.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/work_estimate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = mgsim::fuzz::whole_config(data, size, "trace", mgsim::fuzz::tiny_trace());
  if (!file) return 0;
  return mgsim::fuzz::refuse_or_accept([&] {
    const mgsim::RunConfig run = mgsim::load_run_config(*file);
    const mgsim::Workload workload(mgsim::load_trace(run.trace));
    mgsim::check_run_work(run, workload, 1e6);  // about 0.1 s
    for (const int gpus : run.gpus) {
      if (gpus > 4096) return;  // plan-based runs are closed form, but their plans grow with the GPU count
    }
    const auto outcomes = mgsim::execute_run_config(run, workload);
    (void)mgsim::format_report(mgsim::rows_of(outcomes), mgsim::ReportFormat::json);
  });
}
