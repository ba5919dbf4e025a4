// Engine throughput: events per second on one core (docs/performance.md).
//
// The DAG mirrors what replay() builds, at scale: `streams` compute chains
// (one per GPU class) and one communication channel, a chain of messages where
// every 4th compute position fans in from all streams. Durations are
// pseudo-random, so the heap sees real reordering. items_per_second counts
// the events Engine::run() reports.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "mgsim/engine.hpp"
#include "mgsim/plan.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/simulation.hpp"
#include "synthetic.hpp"

namespace {

using mgsim::ActivityId;
using mgsim::Engine;

constexpr int kStride = 4;  // compute positions per message

/// Adds about `target` activities: `streams` chains of length L plus L/4
/// messages, each after the previous message and one activity of every chain.
void build_dag(Engine& engine, std::int64_t target, int streams) {
  mgsim::bench::SplitMix64 rng(7);
  const std::int64_t length = target * kStride / (static_cast<std::int64_t>(streams) * kStride + 1);
  std::vector<ActivityId> last(static_cast<std::size_t>(streams), -1);
  ActivityId message = -1;
  for (std::int64_t i = 0; i < length; ++i) {
    for (int s = 0; s < streams; ++s) {
      const ActivityId id = engine.add(rng.uniform(1'000, 100'000));
      if (last[static_cast<std::size_t>(s)] >= 0) engine.depend(id, last[static_cast<std::size_t>(s)]);
      last[static_cast<std::size_t>(s)] = id;
    }
    if ((i + 1) % kStride == 0) {
      const ActivityId id = engine.add(rng.uniform(10'000, 400'000), rng.uniform(0, 1'000'000));
      if (message >= 0) engine.depend(id, message);
      for (ActivityId producer : last) engine.depend(id, producer);
      message = id;
    }
  }
}

/// A rate model that changes the rate of one running activity at every event:
/// the one `events` places further in its running list, which alternates
/// between full and half speed. The worst case for the rate machinery. Its
/// own memory is sized up front, so that the timed run measures the engine,
/// not the model growing a vector.
class ChurnModel : public mgsim::RateModel {
 public:
  explicit ChurnModel(int activities) : position_(static_cast<std::size_t>(activities), -1) {}
  void update(const Engine&, ActivityId id, bool active, std::vector<ActivityId>& changed) override {
    if (active) {
      position_[static_cast<std::size_t>(id)] = static_cast<int>(running_.size());
      running_.push_back(id);
    } else {
      const int at = position_[static_cast<std::size_t>(id)];
      running_[static_cast<std::size_t>(at)] = running_.back();
      position_[static_cast<std::size_t>(running_.back())] = at;
      running_.pop_back();
    }
    ++events_;
    if (!running_.empty()) changed.push_back(running_[events_ % running_.size()]);
  }
  mgsim::Rate rate(const Engine&, ActivityId id) const override {
    return (events_ + static_cast<std::size_t>(id)) % 2 == 0 ? mgsim::kFullRate : mgsim::kFullRate / 2;
  }

 private:
  std::vector<ActivityId> running_;
  std::vector<int> position_;
  std::size_t events_ = 0;
};

/// Engine::run() alone: the DAG is built once and copied, untimed, before
/// each run; with `churn`, under ChurnModel (a rate change at every event).
void run_copies(benchmark::State& state, bool churn) {
  Engine prototype;
  build_dag(prototype, state.range(0), static_cast<int>(state.range(1)));
  std::int64_t events = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Engine engine = prototype;
    ChurnModel model(engine.size());
    if (churn) engine.set_rate_model(&model);
    state.ResumeTiming();
    events += engine.run();
    benchmark::DoNotOptimize(engine.finish(engine.size() - 1));
    state.PauseTiming();
    { Engine discard = std::move(engine); }  // free outside the timed region
    state.ResumeTiming();
  }
  state.SetItemsProcessed(events);
  state.counters["activities"] = prototype.size();
}

void BM_EngineRun(benchmark::State& state) { run_copies(state, false); }
void BM_EngineRunRates(benchmark::State& state) { run_copies(state, true); }

/// add() + depend() + run(): what a caller that builds a fresh DAG pays per event.
void BM_EngineBuildAndRun(benchmark::State& state) {
  std::int64_t events = 0;
  for (auto _ : state) {
    Engine engine;
    build_dag(engine, state.range(0), static_cast<int>(state.range(1)));
    events += engine.run();
    benchmark::DoNotOptimize(engine.finish(engine.size() - 1));
  }
  state.SetItemsProcessed(events);
}

/// replay() of a wfbp plan on a synthetic trace: the engine as simulate() drives it.
void BM_ReplayWfbp(benchmark::State& state) {
  const mgsim::Workload workload(mgsim::bench::synthetic_trace(static_cast<int>(state.range(0))));
  const auto collective = mgsim::find_collective("ring").make(mgsim::bench::ring_settings());
  const mgsim::Placement placement(workload, mgsim::Cluster::homogeneous(mgsim::bench::kGpus), *collective);
  const mgsim::Plan plan = mgsim::make_schedule("wfbp", {})->plan(placement.problem);
  std::int64_t events = 0;
  for (auto _ : state) {
    const mgsim::Replay result = mgsim::replay(placement.classes, workload.layout, plan);
    events += result.events;
    benchmark::DoNotOptimize(result.iteration_end);
  }
  state.SetItemsProcessed(events);
}

// Args: {activities, compute streams}.
BENCHMARK(BM_EngineRun)
    ->ArgNames({"n", "streams"})
    ->Args({100'000, 4})
    ->Args({1'000'000, 4})
    ->Args({100'000, 256})
    ->Args({1'000'000, 256})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineRunRates)
    ->ArgNames({"n", "streams"})
    ->Args({100'000, 256})
    ->Args({1'000'000, 4})
    ->Args({1'000'000, 256})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineBuildAndRun)
    ->ArgNames({"n", "streams"})
    ->Args({100'000, 4})
    ->Args({1'000'000, 4})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayWfbp)->ArgName("layers")->Arg(1'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace
