// `mgsim calibrate` cost: three network values of a hierarchical cluster
// fitted to 20 measurements (5 schedules x 4 GPU counts) of the synthetic
// 250-layer, 500-tensor trace, from a start 2-3x off (docs/performance.md).
// The measurements are mgsim's own predictions at the true values.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mgsim/app/calibrate.hpp"
#include "mgsim/io/trace_io.hpp"
#include "synthetic.hpp"

namespace {

nlohmann::json config_json(double inter_alpha_us, double inter_beta, double intra_beta) {
  return {{"trace", "trace.json"},
          {"gpus", {8}},
          {"gpus_per_node", 8},
          {"collective", "hierarchical"},
          {"network",
           {{"intra", {{"alpha_us", 5.0}, {"beta_s_per_byte", intra_beta}}},
            {"inter", {{"alpha_us", inter_alpha_us}, {"beta_s_per_byte", inter_beta}}}}},
          {"schedules", {"wfbp", "single", "mgwfbp", "ddp", "horovod"}}};
}

void write(const std::filesystem::path& file, const nlohmann::json& value) { std::ofstream(file) << value.dump(1); }

void BM_Calibrate(benchmark::State& state) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("mgsim-bench-calibrate-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "trace.json") << mgsim::format_trace_json(mgsim::bench::synthetic_trace(250), {{"kind", "synthetic"}});
  write(dir / "truth.json", config_json(20.0, 1e-10, 4e-12));
  nlohmann::json rows = nlohmann::json::array();
  for (const char* schedule : {"wfbp", "single", "mgwfbp", "ddp", "horovod"}) {
    for (int gpus : {16, 64, 256, 1024})
      rows.push_back({{"gpus", gpus}, {"schedule", schedule}, {"iteration_time_s", 1.0}});
  }
  write(dir / "placeholder.json", {{"measurements", rows}});
  const auto truth = mgsim::Calibration::from_files(dir / "truth.json", dir / "placeholder.json", {});
  const std::vector<double> measured = truth.predict({});
  for (std::size_t m = 0; m < rows.size(); ++m) rows[m]["iteration_time_s"] = measured[m];
  write(dir / "measurements.json", {{"measurements", rows}});
  write(dir / "base.json", config_json(50.0, 3e-10, 1e-11));
  int evaluations = 0;
  for (auto _ : state) {
    const auto calibration = mgsim::Calibration::from_files(
        dir / "base.json", dir / "measurements.json",
        {"network.inter.alpha_us", "network.inter.beta_s_per_byte", "network.intra.beta_s_per_byte"});
    const mgsim::CalibrationResult result = calibration.fit();
    evaluations = result.evaluations;
    state.counters["alpha_us"] = result.values[0];
    state.counters["inter_beta"] = result.values[1];
    state.counters["intra_beta"] = result.values[2];
  }
  state.counters["evaluations"] = evaluations;
  std::filesystem::remove_all(dir);
}

}  // namespace

BENCHMARK(BM_Calibrate)->Unit(benchmark::kSecond)->Iterations(1);
