// Parameter servers (docs/collectives.md, "Parameter servers") against the
// closed forms of the BytePS paper (Jiang et al., OSDI 2020: Theorem 1 of
// section 4.1 and the all-reduce and PS times it compares), derived here by
// hand: n workers of link bandwidth B, each with M bytes to reduce;
// all-reduce 2(n-1)M/(nB), non-colocated PS with k servers max(M/B, nM/(kB)),
// colocated PS 2(n-1)M/(nB), BytePS with k CPU machines
// 2n(n-1)M/((n^2 + kn - 2k)B). Throughout: n = 4, B = 1 GB/s (beta 1e-9 s/B),
// M = 1e6 B, so M/B = 1 ms.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "mgsim/app/calibrate.hpp"
#include "mgsim/app/run_grid.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/error.hpp"
#include "mgsim/evaluate.hpp"
#include "mgsim/io/scenario.hpp"
#include "test_data.hpp"
#include "test_support.hpp"
#include "test_sweep_support.hpp"

using namespace mgsim;
using namespace mgsim::test;
using nlohmann::json;

namespace {

constexpr double kM = 1e6;
constexpr int kN = 4;

CollectiveSettings settings(CollectiveParams params, double alpha_s = 0.0, double gamma = 0.0) {
  const Link link{alpha_s, 1e-9, gamma};
  CollectiveSettings s;
  s.network = {link, link};
  s.params = std::move(params);
  return s;
}

double seconds(std::string_view name, const CollectiveSettings& s, double bytes = kM, int workers = kN) {
  return find_collective(name).make(s)->allreduce_seconds(bytes, workers);
}

}  // namespace

TEST_CASE("dedicated PS: the servers' links carry nM/S each way, the workers' M", "[ps]") {
  // S = 2: max(M/B, nM/(SB)) = max(1, 2) ms; S = 4 = n: M/B = 1 ms; S = 8: still M/B.
  CHECK(seconds("ps", settings({{"servers", 2}})) == Approx(2e-3));
  CHECK(seconds("ps", settings({{"servers", 4}})) == Approx(1e-3));
  CHECK(seconds("ps", settings({{"servers", 8}})) == Approx(1e-3));
  // One server: it receives n M = 4 ms of pushes (the classic PS bottleneck).
  CHECK(seconds("ps", settings({{"servers", 1}})) == Approx(4e-3));
  // alpha = 10 us: one step to push, one to pull.
  CHECK(seconds("ps", settings({{"servers", 2}}, 1e-5)) == Approx(2e-3 + 2e-5));
  // Servers on 4 GB/s links (beta 0.25e-9): nM/S x 0.25e-9 = 0.5 ms < M/B: workers bound it, 1 ms.
  CHECK(seconds("ps", settings({{"servers", 2}, {"server_beta_s_per_byte", 0.25e-9}})) == Approx(1e-3));
  // Summation at 0.5 GB/s (2e-9 s/B): each server adds (n-1) shares of M/S: 3 x 5e5 x 2e-9 = 3 ms > 2 ms.
  CHECK(seconds("ps", settings({{"servers", 2}, {"sum_s_per_byte", 2e-9}})) == Approx(3e-3));
  // Without sum_s_per_byte the network's gamma is the summation rate.
  CHECK(seconds("ps", settings({{"servers", 2}}, 0.0, 2e-9)) == Approx(3e-3));
}

TEST_CASE("colocated PS: with S = n it is all-reduce's bandwidth term 2(n-1)M/(nB)", "[ps]") {
  const double ring = 2.0 * (kN - 1) / kN * kM * 1e-9;  // 1.5 ms
  CHECK(seconds("ps-colocated", settings({})) == Approx(ring));  // default S: every worker
  CHECK(seconds("ps-colocated", settings({{"servers", 4}})) == Approx(ring));
  CHECK(seconds("ring", settings({})) == Approx(ring));  // alpha 0, gamma 0
  // S = 2 of the 4 workers serve: each sends (M - M/2) + 3 x M/2 = 2M: 2 ms.
  CHECK(seconds("ps-colocated", settings({{"servers", 2}})) == Approx(2e-3));
  // S = 1: that worker receives the n - 1 others' M: 3 ms.
  CHECK(seconds("ps-colocated", settings({{"servers", 1}})) == Approx(3e-3));
  // More servers than workers is refused, naming both.
  CHECK_THROWS_WITH(seconds("ps-colocated", settings({{"servers", 8}})),
                    Catch::Contains("servers = 8 is more than the 4 GPUs"));
}

TEST_CASE("BytePS equals the paper's optimum 2n(n-1)M/((n^2+kn-2k)B) for every k", "[ps]") {
  // k = 2: D = 16 + 8 - 4 = 20: 24/20 M/B = 1.2 ms.
  CHECK(seconds("byteps", settings({{"cpu_machines", 2}})) == Approx(1.2e-3));
  // k = 1: D = 16 + 4 - 2 = 18: 24/18 ms; k = 3: D = 16 + 12 - 6 = 22: 24/22 ms.
  CHECK(seconds("byteps", settings({{"cpu_machines", 1}})) == Approx(24.0 / 18 * 1e-3));
  CHECK(seconds("byteps", settings({{"cpu_machines", 3}})) == Approx(24.0 / 22 * 1e-3));
  // k = 0: all-reduce (colocated PS with S = n), 1.5 ms.
  CHECK(seconds("byteps", settings({{"cpu_machines", 0}})) == Approx(1.5e-3));
  CHECK(seconds("byteps", settings({{"cpu_machines", 0}})) == Approx(seconds("ps-colocated", settings({}))));
  // k = n: the non-colocated PS optimum M/B; k > n: no better, the workers' links bound it.
  CHECK(seconds("byteps", settings({{"cpu_machines", 4}})) == Approx(1e-3));
  CHECK(seconds("byteps", settings({{"cpu_machines", 8}})) == Approx(1e-3));
  CHECK(seconds("byteps", settings({{"cpu_machines", 4}})) == Approx(seconds("ps", settings({{"servers", 4}}))));
}

TEST_CASE("BytePS matches the paper's optimum for n up to 64 and never slows down with more CPU machines", "[ps]") {
  for (int n : {2, 3, 8, 17, 64}) {
    for (int k = 0; k <= n + 2; ++k) {
      const double t = seconds("byteps", settings({{"cpu_machines", k}}), kM, n);
      const double paper = k >= n ? 1e-3 : 2.0 * n * (n - 1) / (n * n + k * n - 2.0 * k) * 1e-3;
      CHECK(t == Approx(paper));
      if (k > 0) CHECK(t <= seconds("byteps", settings({{"cpu_machines", k - 1}}), kM, n) * (1 + 1e-12));
    }
  }
}

TEST_CASE("a WFBP run on dedicated parameter servers, by hand, engine and closed form", "[ps]") {
  // Two layers of 1000 one-byte gradients, 1 ms of backward each, no
  // forward; 4 GPUs, 2 servers, alpha 10 us, beta 1 us/B: T(M) = 2 alpha +
  // max(M b, 4M/2 b) = 20 us + 2 M us, 2.02 ms a layer. WFBP sends layer 2
  // in [1, 3.02] ms and layer 1 in [3.02, 5.04] ms; single sends 2000 bytes
  // at 2 ms: [2, 6.02] ms.
  SweepTempDir dir;
  dir.write_json("t.json", trace_json(make_trace({0.001, 0.001}, {1000, 1000})));
  const json config = {{"trace", "t.json"},
                       {"gpus", {4}},
                       {"collective", {{"name", "ps"}, {"servers", 2}}},
                       {"network", {{"alpha_us", 10}, {"beta_s_per_byte", 1e-6}}},
                       {"schedules", {"wfbp", "single"}}};
  WorkloadCache cache;
  const RunGrid grid(load_scenario(dir.write_json("c.json", config)), cache);
  for (const Timing timing : {Timing::closed_form, Timing::engine_classes}) {
    const RunMetrics wfbp = evaluate_with(grid.point(0), timing).metrics;
    const RunMetrics single = evaluate_with(grid.point(1), timing).metrics;
    CHECK(wfbp.iteration == 5'040'000);
    CHECK(wfbp.comm_busy == 4'040'000);
    CHECK(single.iteration == 6'020'000);
  }
  CHECK(grid.row(0).collective == "ps(servers=2)");
}

TEST_CASE("a collective's parameter list is an axis of the grid", "[ps]") {
  SweepTempDir dir;
  dir.write_json("t.json", trace_json(make_trace({0.001}, {1000})));
  const json config = {{"trace", "t.json"},
                       {"gpus", {4}},
                       {"collective", {"ring", {{"name", "ps"}, {"servers", {1, 2, 4}}}}},
                       {"network", {{"alpha_us", 0}, {"beta_s_per_byte", 1e-6}}},
                       {"schedules", {"wfbp"}}};
  WorkloadCache cache;
  const RunGrid grid(load_scenario(dir.write_json("c.json", config)), cache);
  REQUIRE(grid.size() == 4);
  CHECK(grid.row(1).collective == "ps(servers=1)");
  CHECK(grid.row(3).collective == "ps(servers=4)");
  // 1000 B: servers 1 -> 4 ms, 2 -> 2 ms, 4 -> 1 ms, after the 1 ms backward.
  CHECK(grid.row(1).metrics.iteration == 5'000'000);
  CHECK(grid.row(2).metrics.iteration == 3'000'000);
  CHECK(grid.row(3).metrics.iteration == 2'000'000);
}

TEST_CASE("calibrate fits a parameter server's summation rate, an ordinary config key", "[ps]") {
  // Truth: 4 dedicated servers summing at 0.2 GB/s (5e-9 s/B), which bounds
  // every message from 8 GPUs up ((P-1)/4 x 5e-9 > P/4 x 1e-9); measurements
  // are its predictions; the fit starts at 1e-9 and must land within 1%.
  SweepTempDir dir;
  json config = {{"trace", kGoogleNetTrace},
                 {"gpus", {8, 32}},
                 {"collective", {{"name", "ps"}, {"servers", 4}, {"sum_s_per_byte", 5e-9}}},
                 {"network", {{"alpha_us", 20}, {"beta_s_per_byte", 1e-9}}},
                 {"schedules", {"wfbp", "mgwfbp"}}};
  WorkloadCache cache;
  const json measurements = predicted_measurements(RunGrid(load_scenario(dir.write_json("truth.json", config)), cache));
  config["collective"]["sum_s_per_byte"] = 1e-9;
  const Calibration calibration = Calibration::from_files(
      dir.write_json("base.json", config), dir.write_json("m.json", measurements), {"collective.sum_s_per_byte"});
  CHECK(calibration.fit().values.at(0) == Approx(5e-9).epsilon(0.01));
}
