// The optimizer step (docs/schedules.md#the-optimizer-step): a trace that
// gives the bandwidth its step streams the model states at makes every run
// add the step of its config's optimizer, on the elements each GPU updates.
// Checked by hand on a two-layer trace, and on the zoo's scaling to a
// measured figure.

#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "mgsim/app/run_grid.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/model_memory.hpp"
#include "mgsim/zoo/gpus.hpp"
#include "mgsim/zoo/models.hpp"
#include "mgsim/zoo/synthetic.hpp"
#include "test_support.hpp"
#include "test_sweep_support.hpp"

using namespace mgsim;
using namespace mgsim::test;
using nlohmann::json;

namespace {

/// Two layers of 250 fp32 elements (1000 bytes), 1 ms of backward each, no
/// forward; the optimizer step streams 4 MB/s.
Trace two_fp32_layers(double optimizer_bytes_per_s) {
  Trace trace = make_trace({0.001, 0.001}, {250, 250});
  for (Layer& layer : trace.layers) layer.dtype_bytes = 4;
  trace.optimizer_bytes_per_s = optimizer_bytes_per_s;
  return trace;
}

RunMetrics run_of(const SweepTempDir& dir, const json& config) {
  WorkloadCache cache;
  return RunGrid(load_scenario(dir.write_json("c.json", config)), cache).row(0).metrics;
}

}  // namespace

TEST_CASE("a fused optimizer step streams gradient, parameters and state once", "[optimizer]") {
  // fp32: gradient 4, parameter read and written 8, each state copy 8.
  CHECK(optimizer_step_bytes_per_element(4, Optimizer::sgd) == 12);
  CHECK(optimizer_step_bytes_per_element(4, Optimizer::momentum) == 20);
  CHECK(optimizer_step_bytes_per_element(4, Optimizer::adam) == 28);
  // fp16 / bf16: gradient 2, fp32 master read and written 8, fp16 copy written 2.
  CHECK(optimizer_step_bytes_per_element(2, Optimizer::sgd) == 12);
  CHECK(optimizer_step_bytes_per_element(2, Optimizer::adam) == 28);
  // fp64: no master copy; gradient 8, parameter 16.
  CHECK(optimizer_step_bytes_per_element(8, Optimizer::momentum) == 32);
  // Rank 0 of 3 updates ceil(n / 3) of each tensor from ZeRO stage 1 on.
  Trace trace = make_trace({0.001, 0.001}, {10, 20});
  for (Layer& layer : trace.layers) layer.dtype_bytes = 4;
  CHECK(trace_optimizer_step_bytes(trace, Optimizer::sgd, 0, 3) == 30 * 12);
  CHECK(trace_optimizer_step_bytes(trace, Optimizer::sgd, 1, 3) == (4 + 7) * 12);
}

TEST_CASE("the optimizer step lengthens every iteration by the elements a GPU updates (two layers, by hand)",
          "[optimizer]") {
  // 500 fp32 elements at 4 MB/s: SGD 6000 bytes 1.5 ms, momentum 10000
  // bytes 2.5 ms, Adam 14000 bytes 3.5 ms. Ring on 2 GPUs, alpha 0, 1 us a
  // byte: each layer's message takes 1 ms; WFBP ends at 3 ms, compute 2 ms.
  SweepTempDir dir;
  dir.write_json("t.json", trace_json(two_fp32_layers(4e6)));
  json config = {{"trace", "t.json"},
                 {"gpus", {2}},
                 {"network", {{"alpha_us", 0}, {"beta_s_per_byte", 1e-6}}},
                 {"schedules", {"wfbp"}}};
  // Adam, the default: 3 + 3.5 ms; compute and the one-GPU iteration 2 + 3.5 ms.
  const RunMetrics adam = run_of(dir, config);
  CHECK(adam.iteration == 6'500'000);
  CHECK(adam.compute == 5'500'000);
  CHECK(adam.single_gpu == 5'500'000);
  CHECK(adam.exposed_comm_s() == Approx(1e-3));
  CHECK(adam.scaling_efficiency() == Approx(5.5 / 6.5));
  config["optimizer"] = "sgd";
  CHECK(run_of(dir, config).iteration == 4'500'000);
  config["optimizer"] = "momentum";
  CHECK(run_of(dir, config).iteration == 5'500'000);
  // With the host time of the iteration as well: both, one after the other.
  config["iteration_overhead_s"] = 1e-3;
  CHECK(run_of(dir, config).iteration == 6'500'000);
  config.erase("iteration_overhead_s");
  config.erase("optimizer");

  SECTION("ZeRO: each GPU updates its shard, 125 of each tensor's 250: Adam 1.75 ms") {
    for (const char* schedule : {"zero1", "zero2", "zero3", "fsdp"}) {
      config["schedules"] = {schedule};
      const RunMetrics with = run_of(dir, config);
      dir.write_json("t.json", trace_json(two_fp32_layers(0)));
      const RunMetrics without = run_of(dir, config);
      dir.write_json("t.json", trace_json(two_fp32_layers(4e6)));
      CHECK(with.iteration - without.iteration == 1'750'000);
      CHECK(with.single_gpu - without.single_gpu == 3'500'000);  // one GPU updates everything
    }
  }
  SECTION("the slowest speed class sets the step: half speed, 7 ms") {
    config["speed_classes"] = {{{"fraction", 0.5}, {"speed", 0.5}}};
    const RunMetrics with = run_of(dir, config);
    dir.write_json("t.json", trace_json(two_fp32_layers(0)));
    CHECK(with.iteration - run_of(dir, config).iteration == 7'000'000);
  }
  SECTION("many iterations with delays: every statistic moves by the step") {
    config["variability"] = {{"law", "exponential"}, {"mean_s", 1e-3}, {"seed", 7}};
    const RunMetrics with = run_of(dir, config);
    dir.write_json("t.json", trace_json(two_fp32_layers(0)));
    const RunMetrics without = run_of(dir, config);
    CHECK(with.mean_iteration - without.mean_iteration == 3'500'000);
    CHECK(with.p99_iteration - without.p99_iteration == 3'500'000);
  }
  SECTION("a trace without the bandwidth: no step, whatever the optimizer") {
    dir.write_json("t.json", trace_json(two_fp32_layers(0)));
    config["optimizer"] = "adam";
    CHECK(run_of(dir, config).iteration == 3'000'000);
  }
}

TEST_CASE("trace files carry optimizer_bytes_per_s, within its limits", "[optimizer]") {
  const Trace trace = two_fp32_layers(4e6);
  const Trace read = parse_trace(format_trace_json(trace, {{"kind", "synthetic"}}), "t.json");
  CHECK(read.optimizer_bytes_per_s == 4e6);
  json text = trace_json(trace);
  text["optimizer_bytes_per_s"] = 0;
  CHECK_THROWS_WITH(parse_trace(text.dump(), "t.json"),
                    Catch::Contains("t.json") && Catch::Contains("optimizer_bytes_per_s"));
  text["optimizer_bytes_per_s"] = 1e16;
  CHECK_THROWS_WITH(parse_trace(text.dump(), "t.json"), Catch::Contains("<= 1000000000000000, got 1e+16"));
}

TEST_CASE("zoo traces time the optimizer step at the memory bandwidth and scale it with the rest", "[optimizer]") {
  using namespace mgsim::zoo;
  const GpuSpec k80 = find_gpu("k80");
  RooflineSettings settings{1.0, 0.5, 2.0, 0.0, Optimizer::momentum};
  SyntheticTrace t = synthesize_trace(build_model("resnet50", {8, 0, 0, false, 4}), k80, Precision::fp32, settings);
  // Half of the K80's 240 GB/s; 20 bytes per fp32 element under momentum.
  CHECK(t.trace.optimizer_bytes_per_s == Approx(120e9));
  const double step = 25'557'032.0 * 20 / 120e9;
  CHECK(t.provenance["optimizer_step"]["roofline_step_s"].get<double>() == Approx(step));
  double layers = t.trace.forward_time_s;
  for (const Layer& layer : t.trace.layers) layers += layer.backward_time_s;
  // Scaled to a step twice the roofline's (layers and the optimizer step alike).
  scale_to_measured(t, {0, 2 * (layers + step), "a test"});
  CHECK(t.trace.optimizer_bytes_per_s == Approx(60e9));
  double scaled = t.trace.forward_time_s;
  for (const Layer& layer : t.trace.layers) scaled += layer.backward_time_s;
  CHECK(scaled == Approx(2 * layers));
  // Without a step (a parameter server updates): no bandwidth in the trace.
  settings.optimizer_step.reset();
  const SyntheticTrace none = synthesize_trace(build_model("resnet50", {8, 0, 0, false, 4}), k80, Precision::fp32, settings);
  CHECK(none.trace.optimizer_bytes_per_s == 0);
  CHECK_FALSE(none.provenance.contains("optimizer_step"));
}
