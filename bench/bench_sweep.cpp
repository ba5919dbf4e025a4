// Whole sweeps in-process, as `mgsim sweep` does them. BM_Sweep1000: 5
// synthetic traces (50 to 250 layers) x 10 GPU counts (4..2048) x 5
// schedules x 4 collectives. Timed: loading the config and the traces,
// validating the grid, and running every row on 1 or 2 threads into memory.
// BM_Sweep100k: 100,000 small runs on one thread, the per-run overhead
// (docs/performance.md, "Sweeps").

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "mgsim/app/sweep_runner.hpp"
#include "mgsim/io/trace_io.hpp"
#include "synthetic.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// A synthetic trace as a trace file, through the one trace writer.
void write_trace(const fs::path& file, const mgsim::Trace& trace) {
  std::ofstream(file) << mgsim::format_trace_json(trace, {{"kind", "synthetic"}});
}

void write(const fs::path& file, const json& value) { std::ofstream(file) << value.dump(); }

/// The sweep's files in a fresh folder; removed at exit.
class SweepInputs {
 public:
  SweepInputs() : folder_(fs::temp_directory_path() / ("mgsim-bench-sweep-" + std::to_string(::getpid()))) {
    fs::create_directories(folder_);
    json traces = json::array();
    for (int layers : {50, 100, 150, 200, 250}) {
      const std::string name = "synthetic-" + std::to_string(layers) + ".json";
      write_trace(folder_ / name, mgsim::bench::synthetic_trace(layers, static_cast<std::uint64_t>(layers)));
      traces.push_back(name);
    }
    write(folder_ / "sweep.json",
          {{"trace", traces},
           {"gpus", {4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048}},
           {"collective", {"ring", "tree", "rabenseifner", "double-binary-tree"}},
           {"network", {{"alpha_us", 45.25}, {"beta_s_per_byte", 1.2417634328e-10}, {"gamma_s_per_byte", 2.5e-9}}},
           {"schedules", {"wfbp", "single", "mgwfbp", "optimal", "ddp"}}});
  }
  ~SweepInputs() {
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }
  fs::path config() const { return folder_ / "sweep.json"; }

 private:
  fs::path folder_;
};

void BM_Sweep1000(benchmark::State& state) {
  const SweepInputs inputs;
  const int threads = static_cast<int>(state.range(0));
  std::size_t runs = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    mgsim::WorkloadCache cache;
    const mgsim::RunGrid sweep(mgsim::load_scenario(inputs.config()), cache);
    std::string csv = mgsim::RunGrid::header();
    mgsim::run_sweep(sweep, {}, 0, threads, [&](std::string_view rows, std::size_t) { csv += rows; });
    runs = sweep.size();
    bytes = csv.size();
    benchmark::DoNotOptimize(csv.data());
  }
  state.counters["runs"] = static_cast<double>(runs);
  state.counters["csv_bytes"] = static_cast<double>(bytes);
  state.counters["runs_per_s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsIterationInvariantRate);
}

/// 100,000 runs of one 64-layer synthetic trace: 10 GPU counts x 2
/// collectives x 5 networks x DDP at 1,000 bucket caps, on one thread. The
/// runs are small, so this measures what each run costs besides its replay:
/// building the problem, planning, metrics, formatting, the hand-off.
void BM_Sweep100k(benchmark::State& state) {
  const SweepInputs inputs;
  json caps = json::array();
  for (int cap = 1; cap <= 1000; ++cap) caps.push_back(cap);
  json networks = json::array();
  for (int i = 1; i <= 5; ++i) {
    networks.push_back({{"name", "net" + std::to_string(i)}, {"alpha_us", 10.0 * i}, {"beta_s_per_byte", 2e-10 * i}});
  }
  const fs::path config = inputs.config().parent_path() / "sweep100k.json";
  write(config, {{"trace", {"synthetic-64.json"}},
                 {"gpus", {4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048}},
                 {"collective", {"ring", "tree"}},
                 {"network", networks},
                 {"schedules", {{{"name", "ddp"}, {"bucket_cap_mb", caps}}}}});
  write_trace(inputs.config().parent_path() / "synthetic-64.json", mgsim::bench::synthetic_trace(64, 64));
  std::size_t runs = 0;
  for (auto _ : state) {
    mgsim::WorkloadCache cache;
    const mgsim::RunGrid sweep(mgsim::load_scenario(config), cache);
    std::size_t bytes = 0;
    mgsim::run_sweep(sweep, {}, 0, 1, [&](std::string_view rows, std::size_t) { bytes += rows.size(); });
    runs = sweep.size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["runs"] = static_cast<double>(runs);
  state.counters["runs_per_s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_Sweep1000)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
// CPU time of the whole process (the runs happen on a worker thread): what a
// run costs on one core, whatever else the machine is doing.
BENCHMARK(BM_Sweep100k)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->Iterations(3);

}  // namespace
