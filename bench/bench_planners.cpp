// Planner cost on a synthetic 1,000-layer trace (2 tensors per layer, ring
// all-reduce, P = 64): only Schedule::plan() is timed; the CommProblem is
// built once with Placement. simulate() (placement, plan and timing) next to
// the closed form alone, and a whole config run in-process, are measured for
// reference (docs/performance.md).

#include <benchmark/benchmark.h>

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
    const auto results = mgsim::rows_of(mgsim::execute_runs(mgsim::RunGrid(mgsim::load_scenario(file), cache)));
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
