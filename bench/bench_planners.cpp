// Planner cost on a synthetic 1,000-layer trace (2 tensors per layer, ring
// all-reduce, P = 64): only Schedule::plan() is timed; the CommProblem is
// built once with Placement. simulate() (placement, plan and timing) next to
// the closed form alone, and a whole config run in-process, are measured for
// reference; the exact planners on balanced traces (issue 28) below
// (docs/performance.md).

#include <benchmark/benchmark.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "mgsim/app/run_set.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/plan.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/simulation.hpp"
#include "synthetic.hpp"

namespace {

using mgsim::bench::kGpus;

/// The timed loop of every planner benchmark: plan `problem` again and again.
void time_plans(benchmark::State& state, const mgsim::Schedule& schedule, const mgsim::CommProblem& problem) {
  std::size_t messages = 0;
  for (auto _ : state) {
    const mgsim::Plan plan = schedule.plan(problem);
    messages = plan.size();
    benchmark::DoNotOptimize(plan.data());
  }
  state.counters["messages"] = static_cast<double>(messages);
}

void BM_Plan(benchmark::State& state, const char* schedule_name) {
  const mgsim::Workload workload(mgsim::bench::synthetic_trace(static_cast<int>(state.range(0))));
  const auto collective = mgsim::find_collective("ring").make(mgsim::bench::ring_settings());
  const mgsim::CommProblem problem = mgsim::Placement(workload, mgsim::Cluster::homogeneous(kGpus), *collective).problem;
  const auto schedule = mgsim::make_schedule(schedule_name, {});
  time_plans(state, *schedule, problem);
}

/// The ring model without its affine flag: `optimal` then prices every
/// candidate group, as it did for every model before its affine search.
class PlainRing : public mgsim::Collective {
 public:
  PlainRing() : ring_(mgsim::find_collective("ring").make(mgsim::bench::ring_settings())) {}
  double allreduce_seconds(double bytes, int gpus) const override { return ring_->allreduce_seconds(bytes, gpus); }

 private:
  std::unique_ptr<mgsim::Collective> ring_;
};

/// `optimal` at scale: range(0) layers, range(1) GPUs, range(2) = 1 for the
/// affine search (ring), 0 for the plain one (PlainRing).
void BM_OptimalAtScale(benchmark::State& state) {
  const mgsim::Workload workload(mgsim::bench::synthetic_trace(static_cast<int>(state.range(0))));
  const int gpus = static_cast<int>(state.range(1));
  const auto ring = mgsim::find_collective("ring").make(mgsim::bench::ring_settings());
  const PlainRing plain;
  const mgsim::Collective& collective = state.range(2) == 1 ? *ring : static_cast<const mgsim::Collective&>(plain);
  const mgsim::GpuClass classes[] = {{gpus, workload.profile}};
  const mgsim::CommProblem problem = mgsim::make_problem(classes, workload.layout, mgsim::CommCost(collective, gpus));
  const auto schedule = mgsim::make_schedule("optimal", {});
  time_plans(state, *schedule, problem);
}

/// Exact `omgs` (default density and selection cost) at scale: range(0)
/// layers, range(1) GPUs, ring with range(2) = 1 the 10 GbE constants of
/// configs/googlenet-k80-sparse.json, 0 the older constants of ring_settings()
/// (a network 8x faster, where selection and exchange balance).
void BM_OmgsAtScale(benchmark::State& state) {
  const mgsim::Workload workload(mgsim::bench::synthetic_trace(static_cast<int>(state.range(0))));
  const int gpus = static_cast<int>(state.range(1));
  mgsim::CollectiveSettings settings = mgsim::bench::ring_settings();
  if (state.range(2) == 1) settings.network.inter.beta_s_per_byte = 9.934107462565104e-10;
  settings.network.intra = settings.network.inter;
  const auto ring = mgsim::find_collective("ring").make(settings);
  const mgsim::GpuClass classes[] = {{gpus, workload.profile}};
  const mgsim::CommProblem problem = mgsim::make_problem(classes, workload.layout, mgsim::CommCost(*ring, gpus));
  const auto schedule = mgsim::make_schedule("omgs", {});
  time_plans(state, *schedule, problem);
}

void BM_Simulate(benchmark::State& state, const char* schedule_name) {
  const mgsim::Workload workload(mgsim::bench::synthetic_trace(static_cast<int>(state.range(0))));
  const auto collective = mgsim::find_collective("ring").make(mgsim::bench::ring_settings());
  const auto schedule = mgsim::make_schedule(schedule_name, {});
  for (auto _ : state) {
    const mgsim::RunMetrics metrics = mgsim::simulate(workload, *collective, *schedule, kGpus);
    benchmark::DoNotOptimize(metrics.iteration);
  }
}

/// The other half of the BM_Simulate pair: the closed form alone on a plan
/// and problem made beforehand, i.e. the least a run can cost once planned.
/// simulate() should stay within 10x of it (docs/performance.md, issue #14).
void BM_ClosedForm(benchmark::State& state, const char* schedule_name) {
  const mgsim::Workload workload(mgsim::bench::synthetic_trace(static_cast<int>(state.range(0))));
  const auto collective = mgsim::find_collective("ring").make(mgsim::bench::ring_settings());
  const mgsim::CommProblem problem = mgsim::Placement(workload, mgsim::Cluster::homogeneous(kGpus), *collective).problem;
  const mgsim::Plan plan = mgsim::make_schedule(schedule_name, {})->plan(problem);
  for (auto _ : state) {
    const mgsim::Replay timing = mgsim::evaluate_closed_form(problem, plan);
    benchmark::DoNotOptimize(timing.iteration_end);
  }
}

/// `mgsim run -c configs/googlenet-k80-ring.json` without process start-up
/// and without printing: load config and trace, execute_runs(), format_report().
void BM_RunConfigGoogleNet(benchmark::State& state) {
  const std::string file = std::string(MGSIM_SOURCE_DIR) + "/configs/googlenet-k80-ring.json";
  std::size_t rows = 0;
  for (auto _ : state) {
    mgsim::WorkloadCache cache;
    const auto results = mgsim::rows_of(mgsim::execute_runs(mgsim::RunGrid(mgsim::load_scenario(file), cache), mgsim::KeepIterations::no));
    const std::string report = mgsim::format_report(results, mgsim::ReportFormat::table);
    rows = results.size();
    benchmark::DoNotOptimize(report.data());
  }
  state.counters["rows"] = static_cast<double>(rows);
}

#define MGSIM_PLAN_BENCH(name) \
  BENCHMARK_CAPTURE(BM_Plan, name, #name)->ArgName("layers")->Arg(1'000)->Unit(benchmark::kMicrosecond)

MGSIM_PLAN_BENCH(mgwfbp);
MGSIM_PLAN_BENCH(optimal);
MGSIM_PLAN_BENCH(ddp);
MGSIM_PLAN_BENCH(horovod);
MGSIM_PLAN_BENCH(wfbp);
MGSIM_PLAN_BENCH(single);
// Scaling of the O(L^2) dynamic program.
BENCHMARK_CAPTURE(BM_Plan, optimal_scaling, "optimal")
    ->ArgName("layers")
    ->Arg(250)
    ->Arg(4'000)
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_OptimalAtScale)
    ->ArgNames({"layers", "gpus", "affine"})
    ->ArgsProduct({{10'000, 100'000}, {8, 64, 2048}, {1}})
    ->Args({10'000, 64, 0})
    ->Args({10'000, 2048, 0})
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_OmgsAtScale)
    ->ArgNames({"layers", "gpus", "10gbe"})
    ->ArgsProduct({{1'000}, {64, 256, 2048}, {1}})
    ->Args({10'000, 2048, 1})
    ->Args({1'000, 2048, 0})
    ->Unit(benchmark::kMillisecond);

// Exact planners on balanced traces (issue 28): each layer's backward takes
// its own message's time, times a ratio (100%: the balance) and a
// factor drawn log-uniformly in [1/2, 2]; the layer sizes are random.
//  - BM_OmgsBalanced: exact `omgs` (default density and selection cost), ring
//    all-gather with the 10 GbE constants of configs/googlenet-k80-sparse.json.
//  - BM_OptimalBalanced: `optimal` on a measured (non-affine) all-reduce curve,
//    so it prices every candidate group (its affine search does not apply).
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
  settings.curve_source = "bench_planners";
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

#define MGSIM_SIMULATE_BENCH(name)                                                                      \
  BENCHMARK_CAPTURE(BM_Simulate, name, #name)->ArgName("layers")->Arg(1'000)->Unit(benchmark::kMicrosecond); \
  BENCHMARK_CAPTURE(BM_ClosedForm, name, #name)->ArgName("layers")->Arg(1'000)->Unit(benchmark::kMicrosecond)

MGSIM_SIMULATE_BENCH(wfbp);
MGSIM_SIMULATE_BENCH(single);
MGSIM_SIMULATE_BENCH(mgwfbp);
MGSIM_SIMULATE_BENCH(optimal);
MGSIM_SIMULATE_BENCH(ddp);
MGSIM_SIMULATE_BENCH(horovod);

BENCHMARK(BM_RunConfigGoogleNet)->Unit(benchmark::kMillisecond);

}  // namespace
