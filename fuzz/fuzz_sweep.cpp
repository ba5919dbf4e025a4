// libFuzzer target, structure-aware: a whole sweep config, mutated with the
// dictionary of config keys (fuzz/config.dict, docs/sweeps.md), run end to
// end on the tiny trace of fuzz_run: the scenario, its grid, every row
// of the CSV. The input's "trace" is replaced by that trace; a grid past 64
// rows, 4096 GPUs or (rank by rank) 10^5 rank-iterations is skipped, so no
// input can hang.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "mgsim/app/run_grid.hpp"
#include "mgsim/app/sweep_runner.hpp"
#include "mgsim/io/scenario.hpp"

namespace {

bool small_enough(const mgsim::RunGrid& grid) {
  const mgsim::Scenario& config = grid.scenario();
  const int gpus = *std::max_element(config.gpus.begin(), config.gpus.end());
  const bool rank_by_rank = !config.variability.none() ||
      std::any_of(config.schedules.begin(), config.schedules.end(), [](const auto& s) { return s.builder() != nullptr; });
  return grid.size() <= 64 && gpus <= 4096 && (!rank_by_rank || double(gpus) * config.iterations <= 1e5);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = mgsim::fuzz::whole_config(data, size, "trace", mgsim::fuzz::tiny_trace());
  if (!file) return 0;
  return mgsim::fuzz::refuse_or_accept([&] {
    mgsim::WorkloadCache cache;
    const mgsim::RunGrid grid(mgsim::load_scenario(*file), cache);
    if (!small_enough(grid)) return;
    mgsim::run_sweep(grid, mgsim::SweepShard::parse("1/1"), 0, 1, [](std::string_view, std::size_t) {});
  });
}
