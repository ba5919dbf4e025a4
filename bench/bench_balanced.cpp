// Exact planners on balanced traces (issue 28): each layer's backward takes
// its own message's time, times a ratio (100%: the balance) and a
// factor drawn log-uniformly in [1/2, 2]; the layer sizes are random.
//  - BM_OmgsBalanced: exact `omgs` (default density and selection cost), ring
//    all-gather with the 10 GbE constants of configs/googlenet-k80-sparse.json.
//  - BM_OptimalBalanced: `optimal` on a measured (non-affine) all-reduce curve,
//    so it prices every candidate group (its affine search does not apply).
// Only Schedule::plan() is timed (docs/performance.md).

#include <benchmark/benchmark.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "mgsim/plan.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/simulation.hpp"
#include "synthetic.hpp"

namespace {

using mgsim::bench::SplitMix64;

/// `layers` layers of one tensor of 1e3..4e6 fp32 elements whose backward
/// takes message_s(elements) x ratio x 2^u, u uniform in [-1, 1].
mgsim::Trace balanced_trace(int layers, const std::function<double(std::int64_t)>& message_s, double ratio,
                            std::uint64_t seed) {
  SplitMix64 rng(seed);
  mgsim::Trace trace;
  trace.model = "balanced-" + std::to_string(layers);
  double backward_total = 0.0;
  for (int l = 0; l < layers; ++l) {
    mgsim::Layer layer;
    layer.name = "layer" + std::to_string(l);
    layer.params = {rng.uniform(1'000, 4'000'000)};
    layer.backward_time_s = message_s(layer.params[0]) * ratio * std::exp2(2 * rng.unit() - 1);
    backward_total += layer.backward_time_s;
    trace.layers.push_back(std::move(layer));
  }
  trace.forward_time_s = backward_total / 2;
  return trace;
}

void time_plans(benchmark::State& state, const mgsim::Schedule& schedule, const mgsim::CommProblem& problem) {
  std::size_t messages = 0;
  for (auto _ : state) {
    const mgsim::Plan plan = schedule.plan(problem);
    messages = plan.size();
    benchmark::DoNotOptimize(plan.data());
  }
  state.counters["messages"] = static_cast<double>(messages);
}

/// range(0) layers, range(1) GPUs, range(2) the ratio of compute to message time, percent.
void BM_OmgsBalanced(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(1));
  mgsim::CollectiveSettings settings = mgsim::bench::ring_settings();
  settings.network.inter.beta_s_per_byte = 9.934107462565104e-10;
  settings.network.intra = settings.network.inter;
  const auto ring = mgsim::find_collective("ring").make(settings);
  // The default density 0.001 and 4 + 4 bytes per kept element (docs/sparse.md).
  const auto allgather_s = [&](std::int64_t elements) {
    return ring->allgather_seconds(static_cast<double>(std::max<std::int64_t>(1, elements / 1000) * 8), gpus);
  };
  const mgsim::Workload workload(balanced_trace(static_cast<int>(state.range(0)), allgather_s, static_cast<double>(state.range(2)) / 100, 28));
  const mgsim::GpuClass classes[] = {{gpus, workload.profile}};
  const mgsim::CommProblem problem = mgsim::make_problem(classes, workload.layout, mgsim::CommCost(*ring, gpus));
  time_plans(state, *mgsim::make_schedule("omgs", {}), problem);
}

/// A measured all-reduce curve at `gpus` GPUs, 1 KiB..1 GiB in powers of 4:
/// NCCL-like, a latency floor, then a protocol switch at 64 KiB (latency
/// doubles, bandwidth triples) and a ring's 2(P-1)/P bandwidth term.
std::vector<mgsim::CurvePoint> measured_points(int gpus) {
  std::vector<mgsim::CurvePoint> points;
  for (std::int64_t bytes = 1024; bytes <= (std::int64_t{1} << 30); bytes *= 4) {
    const bool simple = bytes >= 65'536;
    const double alpha = (simple ? 2 : 1) * 20e-6 * std::log2(gpus);
    const double beta = (simple ? 1.0 : 3.0) / 10e9;
    points.push_back({gpus, bytes, alpha + 2.0 * (gpus - 1) / gpus * static_cast<double>(bytes) * beta});
  }
  return points;
}

/// range(0) layers, range(1) GPUs, range(2) the ratio of compute to message time, percent.
void BM_OptimalBalanced(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(1));
  mgsim::CollectiveSettings settings = mgsim::bench::ring_settings();
  settings.curve = measured_points(gpus);
  settings.curve_source = "bench_balanced";
  const auto measured = mgsim::find_collective("measured").make(settings);
  const auto allreduce_s = [&](std::int64_t elements) {
    return measured->allreduce_seconds(static_cast<double>(elements * 4), gpus);
  };
  const mgsim::Workload workload(balanced_trace(static_cast<int>(state.range(0)), allreduce_s, static_cast<double>(state.range(2)) / 100, 28));
  const mgsim::GpuClass classes[] = {{gpus, workload.profile}};
  const mgsim::CommProblem problem = mgsim::make_problem(classes, workload.layout, mgsim::CommCost(*measured, gpus));
  time_plans(state, *mgsim::make_schedule("optimal", {}), problem);
}

// ratio 100 is the balance (compute = message time within 2x): the
// plan is then one message per layer. Below it, merging pays and the exact
// search keeps thousands of states per boundary: at 1,000 layers seconds to
// a minute (docs/performance.md), so 10,000 layers are run at ratio 100 only.
BENCHMARK(BM_OmgsBalanced)
    ->ArgNames({"layers", "gpus", "ratio_pct"})
    ->ArgsProduct({{1'000, 10'000}, {256, 2048}, {100}})
    ->ArgsProduct({{1'000}, {256, 2048}, {50, 25, 12, 6}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OptimalBalanced)
    ->ArgNames({"layers", "gpus", "ratio_pct"})
    ->ArgsProduct({{1'000, 10'000}, {256, 2048}, {100, 50, 25}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
