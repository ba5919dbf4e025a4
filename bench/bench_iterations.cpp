// Many iterations on many ranks (docs/performance.md): ResNet-50 (the zoo's
// roofline-synthetic trace on an H100, fp32, batch 64) on 2048 ranks for 100
// iterations, every rank its own speed class, so the engine replays 2048
// compute streams per iteration. Builder set-up (plan) is outside the timed
// loop; `peak_rss_mib` is the process's peak resident set after the runs.
// BM_VariabilityIterations: the same trace on 2048 identical ranks under
// random per-layer (or per-iteration) delays (docs/variability.md).

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <vector>

#include "mgsim/iteration.hpp"
#include "mgsim/variability.hpp"
#include "mgsim/zoo/models.hpp"
#include "mgsim/zoo/synthetic.hpp"
#include "synthetic.hpp"

namespace {

mgsim::Workload resnet50() {
  mgsim::zoo::ModelOptions options;
  options.batch_size = 64;
  const auto graph = mgsim::zoo::build_model("resnet50", options);
  const auto& gpu = mgsim::zoo::find_gpu("h100");
  return mgsim::Workload(
      mgsim::zoo::synthesize_trace(graph, gpu, mgsim::zoo::Precision::fp32, mgsim::zoo::RooflineSettings::defaults_for(gpu))
          .trace);
}

/// `ranks` ranks with speeds 1 - r * 1e-5: all distinct, so none share a stream.
mgsim::Cluster distinct_ranks(int ranks) {
  std::vector<double> speeds;
  std::vector<int> rank_class;
  for (int r = 0; r < ranks; ++r) {
    speeds.push_back(1.0 - r * 1e-5);
    rank_class.push_back(r);
  }
  return mgsim::Cluster(std::move(speeds), std::move(rank_class));
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

/// Args: {ranks, iterations, compute_slowdown x 100}.
void BM_DataParallelIterations(benchmark::State& state) {
  const mgsim::Workload workload = resnet50();
  const mgsim::Cluster cluster = distinct_ranks(static_cast<int>(state.range(0)));
  const auto collective = mgsim::find_collective("ring").make(mgsim::bench::ring_settings());
  const auto schedule = mgsim::make_schedule("wfbp", {});
  const double slowdown = static_cast<double>(state.range(2)) / 100.0;
  const auto builder = mgsim::find_builder("data-parallel")
                           .make({workload, cluster, *collective, schedule.get(), {slowdown, slowdown}}, {});
  for (auto _ : state) {
    const auto result = mgsim::simulate(*builder, 1, static_cast<int>(state.range(1)));
    benchmark::DoNotOptimize(result.stats.total);
  }
  state.counters["tensors"] = workload.layout.tensor_count();
  state.counters["peak_rss_mib"] = peak_rss_mib();
}

BENCHMARK(BM_DataParallelIterations)
    ->ArgNames({"ranks", "iterations", "slowdown_pct"})
    ->Args({2048, 10, 0})
    ->Args({2048, 100, 0})
    ->Args({256, 100, 10})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

/// Issue #11's target: a homogeneous cluster of `ranks` GPUs under
/// exponential noise of mean 100 us, drawn per layer (per_layer 1) or per
/// iteration (0), every rank on its own timeline: folded into one stream
/// without interference, one engine stream per rank with it.
/// Args: {ranks, iterations, per_layer, slowdown_pct}.
void BM_VariabilityIterations(benchmark::State& state) {
  const mgsim::Workload workload = resnet50();
  const mgsim::Cluster cluster = mgsim::Cluster::homogeneous(static_cast<int>(state.range(0)));
  const auto collective = mgsim::find_collective("ring").make(mgsim::bench::ring_settings());
  const auto schedule = mgsim::make_schedule("wfbp", {});
  const double slowdown = static_cast<double>(state.range(3)) / 100.0;
  mgsim::Variability variability;
  variability.law = "exponential";
  variability.params = {{"mean_s", 1e-4}};
  variability.per = state.range(2) != 0 ? mgsim::DelayUnit::layer : mgsim::DelayUnit::iteration;
  const auto builder =
      mgsim::find_builder("data-parallel")
          .make({workload, cluster, *collective, schedule.get(), {slowdown, slowdown}, variability}, {});
  for (auto _ : state) {
    const auto result = mgsim::simulate(*builder, variability.seed, static_cast<int>(state.range(1)));
    benchmark::DoNotOptimize(result.stats.total);
  }
  state.counters["tensors"] = workload.layout.tensor_count();
  state.counters["peak_rss_mib"] = peak_rss_mib();
}

BENCHMARK(BM_VariabilityIterations)
    ->ArgNames({"ranks", "iterations", "per_layer", "slowdown_pct"})
    ->Args({2048, 10, 1, 0})
    ->Args({2048, 100, 1, 0})
    ->Args({2048, 100, 0, 0})
    ->Args({2048, 10, 1, 10})
    ->Args({2048, 100, 1, 10})
    ->Args({1 << 20, 10, 1, 0})
    ->Args({1 << 20, 10, 0, 0})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
