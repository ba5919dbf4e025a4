// libFuzzer target, structure-aware: a whole config, mutated with the
// dictionary of its keys and values (fuzz/config.dict, docs/config.md), run
// end to end on a tiny two-layer trace as `mgsim run` runs it: the scenario,
// its grid, the work estimate, every run with its iteration and the report.
// The input's "trace" is replaced by that trace, and a grid past a small work
// budget or 4096 GPUs is skipped, so no input can hang.
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "mgsim/app/run_set.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = mgsim::fuzz::whole_config(data, size, "trace", mgsim::fuzz::tiny_trace());
  if (!file) return 0;
  return mgsim::fuzz::refuse_or_accept([&] {
    mgsim::Scenario scenario = mgsim::load_scenario(*file);
    mgsim::require_one_of_each(scenario, "mgsim run");
    for (const int gpus : scenario.gpus) {
      if (gpus > 4096) return;  // plan-based runs are closed form, but their plans grow with the GPU count
    }
    mgsim::WorkloadCache cache;
    const mgsim::RunGrid grid(std::move(scenario), cache);
    double steps = 0;
    for (std::size_t run = 0; run < grid.size(); ++run) steps += grid.estimate_steps(run);
    mgsim::check_work(steps, 1e6);  // about 0.1 s
    // With iterations: the engine replays every run, as for a timeline, besides the closed form.
    (void)mgsim::format_report(mgsim::rows_of(mgsim::execute_runs(grid, mgsim::KeepIterations::yes)),
                               mgsim::ReportFormat::json);
  });
}
