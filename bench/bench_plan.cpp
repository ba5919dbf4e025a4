// `mgsim plan`'s frontier search on the models of the performance target:
// ResNet-152 and BERT-large on 64 devices, 8 samples per GPU, H100 roofline in
// bf16, Adam, the default cluster, frontier bound 32 (docs/performance.md).
// The cost model (strategy tables) is built once; only the search is timed.
// Counters: frontier points, table entries thinned to the bound, operators.

#include <benchmark/benchmark.h>

#include <memory>

#include "mgsim/plan/cluster.hpp"
#include "mgsim/plan/cost_model.hpp"
#include "mgsim/plan/frontier_search.hpp"
#include "mgsim/zoo/models.hpp"

namespace {

constexpr int kDevices = 64;
constexpr int kPerGpu = 8;

void BM_PlanFrontier(benchmark::State& state, const char* model_name) {
  using namespace mgsim;
  const zoo::ModelGraph graph = zoo::build_model(model_name, {kDevices * kPerGpu, 0, 0, false, 2});
  const std::unique_ptr<Collective> collective = plan::default_cluster().make_collective(kDevices);
  const zoo::GpuSpec& gpu = zoo::find_gpu("h100");
  plan::CostSettings settings;
  settings.devices = kDevices;
  settings.precision = zoo::Precision::bf16;
  settings.roofline = zoo::RooflineSettings::defaults_for(gpu);
  const plan::CostModel model(graph, gpu, *collective, settings);
  plan::SearchResult result;
  for (auto _ : state) {
    result = plan::search_frontier(model, {});
    benchmark::DoNotOptimize(result.frontier.data());
  }
  state.counters["frontier_points"] = static_cast<double>(result.frontier.size());
  state.counters["thinned_entries"] = static_cast<double>(result.thinned);
  state.counters["operators"] = static_cast<double>(graph.op_count());
}

BENCHMARK_CAPTURE(BM_PlanFrontier, resnet152, "resnet152")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_PlanFrontier, bert_large, "bert-large")->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
