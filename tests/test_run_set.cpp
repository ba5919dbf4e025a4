// The run-set executor behind `mgsim run`, `run --timeline` and sweeps: each
// schedule built once, each (GPU count, schedule) planned and replayed once,
// and the report rows and the timeline made from those same iterations.

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "mgsim/app/run_set.hpp"
#include "mgsim/counted.hpp"
#include "mgsim/simulation.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {

const Link kGridLink{1e-5, 1e-9, 0.0};

std::vector<ScheduleSpec> wfbp_and_mgwfbp() { return {ScheduleSpec{"wfbp"}, ScheduleSpec{"mgwfbp"}}; }

}  // namespace

TEST_CASE("run set: the report and the timeline come from the same iterations", "[run_set]") {
  std::mt19937_64 rng(3);
  WorkloadCache cache;
  const RunGrid grid(ring_scenario(cache, random_trace(rng, 20, true), {2, 8, 32}, kGridLink, wfbp_and_mgwfbp()), cache);
  std::vector<RunOutcome> outcomes = execute_runs(grid, KeepIterations::yes);
  const std::vector<RunRow> rows = rows_of(outcomes);
  const std::vector<IterationTrace> timeline = timeline_iterations(std::move(outcomes));
  REQUIRE(rows.size() == 6);
  REQUIRE(timeline.size() == 6);
  CHECK(timeline[0].label == "2 GPUs, wfbp");
  CHECK(timeline[5].label == "32 GPUs, mgwfbp");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    CHECK(timeline[r].replay.iteration_end == rows[r].metrics.iteration);
    CHECK(static_cast<int>(timeline[r].plan.size()) == rows[r].metrics.messages);
  }
}

TEST_CASE("run set: rows come GPU counts outer and agree with simulate()", "[run_set]") {
  std::mt19937_64 rng(5);
  WorkloadCache cache;
  const RunGrid grid(ring_scenario(cache, random_trace(rng, 30, true), {2, 8, 32}, kGridLink, wfbp_and_mgwfbp()), cache);
  const Workload& workload = grid.workload(0);
  const std::vector<RunRow> rows = rows_of(execute_runs(grid, KeepIterations::no));
  const auto ring = find_collective("ring").make({{kGridLink, kGridLink}});
  REQUIRE(rows.size() == 6);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int gpus = grid.scenario().gpus[r / 2];
    const ScheduleSpec& spec = grid.scenario().schedules[r % 2];
    const RunMetrics expected = simulate(workload, *ring, *spec.build(), gpus);
    CHECK(rows[r].schedule == spec.label());
    CHECK(rows[r].collective == "ring");
    CHECK(rows[r].model == workload.trace.model);
    CHECK(rows[r].metrics.gpus == gpus);
    CHECK(rows[r].metrics.iteration == expected.iteration);
    CHECK(rows[r].metrics.compute == expected.compute);
    CHECK(rows[r].metrics.comm_busy == expected.comm_busy);
    CHECK(rows[r].metrics.messages == expected.messages);
    CHECK(rows[r].metrics.bytes == expected.bytes);
  }
}

TEST_CASE("measure() of a replayed iteration is what simulate() reports", "[run_set]") {
  std::mt19937_64 rng(11);
  const LinearCost cost(2e-4, 1e-9);
  for (int round = 0; round < 20; ++round) {
    const Workload workload(random_trace(rng, 25, true));
    for (const char* name : {"wfbp", "single", "optimal", "ddp"}) {
      const auto schedule = make_schedule(name, ParamValues{});
      const RunMetrics simulated = simulate(workload, cost, *schedule, 16);
      const Cluster cluster = Cluster::homogeneous(16);
      const RunMetrics measured = measure(workload, cluster, replay_iteration(workload, cost, *schedule, cluster));
      CHECK(measured.iteration == simulated.iteration);
      CHECK(measured.compute == simulated.compute);
      CHECK(measured.single_gpu == simulated.single_gpu);
      CHECK(measured.comm_busy == simulated.comm_busy);
      CHECK(measured.selection == simulated.selection);
      CHECK(measured.messages == simulated.messages);
      CHECK(measured.bytes == simulated.bytes);
      CHECK(measured.sent_bytes == simulated.sent_bytes);
      CHECK(measured.batch_size == simulated.batch_size);
    }
  }
}

TEST_CASE("counts read '1 GPU' and '2 GPUs' in class names and messages", "[run_set]") {
  CHECK(counted(1, "GPU") == "1 GPU");
  CHECK(counted(0, "GPU") == "0 GPUs");
  CHECK(counted(2, "entry", "entries") == "2 entries");
  CHECK(class_name(Cluster::homogeneous(1), 0) == "GPU class 0 (1 GPU)");
  CHECK(class_name(Cluster::homogeneous(3), 0) == "GPU class 0 (3 GPUs)");
  const Cluster mixed({1.0, 0.5}, {0, 1, 0});
  CHECK(class_name(mixed, 1) == "rank 1 at speed 0.5 (1 GPU)");
  CHECK(class_name(mixed, 0) == "ranks 0,2 at speed 1 (2 GPUs)");
}
