#pragma once
// Files for the sweep, timeline and advice tests: a temporary folder and
// trace files written from in-memory traces.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "mgsim/app/run_grid.hpp"
#include "mgsim/time.hpp"
#include "mgsim/trace.hpp"

namespace mgsim::test {

/// A fresh folder under the system temp folder, removed with everything in it.
class SweepTempDir {
 public:
  SweepTempDir() {
    static std::atomic<int> counter{0};
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("mgsim-test-sweep-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
             std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~SweepTempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  SweepTempDir(const SweepTempDir&) = delete;
  SweepTempDir& operator=(const SweepTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const std::filesystem::path file = path_ / name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    REQUIRE(out.good());
    return file;
  }
  std::filesystem::path write_json(const std::string& name, const nlohmann::json& value) const {
    return write(name, value.dump(1));
  }

  std::string read(const std::string& name) const {
    std::ifstream in(path_ / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  std::filesystem::path path_;
};

/// A trace as the JSON a trace file holds (docs/trace-format.md).
inline nlohmann::json trace_json(const Trace& trace) {
  nlohmann::json layers = nlohmann::json::array();
  for (const Layer& layer : trace.layers) {
    nlohmann::json entry = {{"name", layer.name},
                            {"params", layer.params},
                            {"dtype_bytes", layer.dtype_bytes},
                            {"backward_time_s", layer.backward_time_s}};
    if (!layer.grad_ready_s.empty()) entry["grad_ready_s"] = layer.grad_ready_s;
    layers.push_back(entry);
  }
  nlohmann::json out = {{"format", "mgsim-trace"},
                        {"version", 1},
                        {"model", trace.model},
                        {"batch_size", trace.batch_size},
                        {"forward_time_s", trace.forward_time_s},
                        {"provenance", {{"kind", "synthetic"}, {"note", "mgsim tests"}}},
                        {"layers", layers}};
  if (trace.optimizer_bytes_per_s > 0) out["optimizer_bytes_per_s"] = trace.optimizer_bytes_per_s;
  return out;
}

/// Every run of `grid` as a calibrate measurement of its own predicted
/// iteration time: {"measurements": [...]}.
inline nlohmann::json predicted_measurements(const RunGrid& grid) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t run = 0; run < grid.size(); ++run) {
    const RunRow row = grid.row(run);
    rows.push_back({{"gpus", row.metrics.gpus}, {"schedule", row.schedule},
                    {"iteration_time_s", to_seconds(row.metrics.iteration)}});
  }
  return {{"measurements", rows}};
}

}  // namespace mgsim::test
