// `mgsim advise`: the best DDP bucket cap and Horovod fusion threshold, the
// default's loss and the gap to the optimal merge, on a trace small enough to
// work out by hand.

#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mgsim/app/sweep_advice.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/version.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {


/// Four layers of one 1 MiB tensor (1-byte elements), 10 ms of backward
/// each, no forward: tensors are ready at 10, 20, 30 and 40 ms.
Trace four_layers() { return make_trace({0.01, 0.01, 0.01, 0.01}, {kMiB, kMiB, kMiB, kMiB}); }

/// `trace` with ring on 2 GPUs with no reduction cost: T(M) = 2 alpha + M b,
/// here 10 ms per MiB; no latency unless `alpha` is given.
std::vector<KnobAdvice> advise_on_two_gpus(Trace trace, double alpha = 0.0) {
  WorkloadCache cache;
  return advise(ring_scenario(cache, std::move(trace), {2}, {alpha, 0.01 / static_cast<double>(kMiB), 0.0}), cache);
}

}  // namespace

TEST_CASE("advise: tries 0.25 MiB to 1024 MiB, or 16 Ki to 64 Mi elements, in powers of two", "[advise]") {
  const std::vector<double> values = advice_values(0.25);
  REQUIRE(values.size() == 13);
  CHECK(values.front() == 0.25);
  CHECK(values[2] == 1.0);
  CHECK(values.back() == 1024.0);
  const std::vector<double> elements = advice_values(16384);
  CHECK(elements.front() == 16384);
  CHECK(elements.back() == 64.0 * 1024 * 1024);
}

TEST_CASE("advise: P3's best slice sends each 1 Mi-element tensor whole once a message costs 1 ms", "[advise]") {
  // alpha 0.5 ms: each message costs 2 alpha = 1 ms plus 10 ms per MiB. Slices
  // of 2^20 elements and more: one message per tensor, [10,21] [21,32] [32,43]
  // [43,54]: 54 ms, and ties go to the smaller slice, 2^20 (the 7th value). Half
  // that: two 6 ms slices per tensor, [10,22] ... [46,58]: 58 ms. The default
  // 50,000: 21 slices per tensor, 31 ms each from 10 ms: 10 + 4 x 31 = 134 ms,
  // less what each slice's time loses to the nanosecond (x 1e7 / 2^20 ns per
  // byte: 476,837.158 ns for 50,000 bytes, 463,256.836 ns for the last 48,576).
  const SimTime per_tensor = 21 * kMs + 20 * 476'837 + 463'257;
  const std::vector<KnobAdvice> advice = advise_on_two_gpus(four_layers(), 0.5e-3);
  REQUIRE(advice.size() == 6);
  const KnobAdvice& p3 = advice[5];
  CHECK(p3.schedule == "p3");
  CHECK(p3.parameter == "slice_params");
  CHECK(p3.best_value == 1048576.0);
  CHECK(p3.best == 54 * kMs);
  CHECK(p3.default_value == 50000.0);
  CHECK(p3.at_default == 10 * kMs + 4 * per_tensor);
  CHECK(p3.at_default == Approx(134 * kMs).epsilon(1e-6));
  REQUIRE(p3.tried.size() == 13);
  CHECK(p3.tried[5] == std::pair<double, SimTime>{524288.0, 58 * kMs});
  CHECK(advice[3].parameter == "partition_params");
  CHECK(advice[4].parameter == "credit_params");
}

TEST_CASE("advise: DDP's best cap sends each tensor alone; the default merges three and loses 40%", "[advise]") {
  const std::vector<KnobAdvice> advice = advise_on_two_gpus(four_layers());
  REQUIRE(advice.size() == 6);
  const KnobAdvice& ddp = advice[0];
  CHECK(ddp.schedule == "ddp");
  CHECK(ddp.parameter == "bucket_cap_mb");
  CHECK(ddp.gpus == 2);
  // Caps up to 1 MiB: one message per tensor, [10,20] [20,30] [30,40] [40,50]: 50 ms,
  // which no plan beats (the last tensor is ready at 40 ms and takes 10 ms alone).
  // Ties go to the smaller cap: 0.25 MiB.
  CHECK(ddp.best_value == 0.25);
  CHECK_FALSE(ddp.best_is_default);
  CHECK(ddp.best == 50 * kMs);
  CHECK(ddp.optimal == 50 * kMs);
  CHECK(ddp.gap_to_optimal() == 0.0);
  // Default: a 1 MiB first bucket [10,20], then 3 MiB (< 25) ready at 40 ms: [40,70].
  CHECK(ddp.default_value == 25.0);
  CHECK(ddp.at_default == 70 * kMs);
  CHECK(ddp.default_loss() == Approx(0.4));
  // A 2 MiB cap: pairs, [20,40] then [40,60]. 4 MiB and more: one bucket at 40 ms, [40,80].
  REQUIRE(ddp.tried.size() == 13);
  CHECK(ddp.tried[3] == std::pair<double, SimTime>{2.0, 60 * kMs});
  CHECK(ddp.tried[4] == std::pair<double, SimTime>{4.0, 80 * kMs});
  CHECK(ddp.tried[12] == std::pair<double, SimTime>{1024.0, 80 * kMs});
}

TEST_CASE("advise: when no threshold beats Horovod's default, the default is the advice", "[advise]") {
  // Tensors become ready 10 ms apart while the cycle is 1 ms: every tensor is
  // sent alone at its own wake-up whatever the threshold: 50 ms, as the optimum.
  const std::vector<KnobAdvice> advice = advise_on_two_gpus(four_layers());
  REQUIRE(advice.size() == 6);
  const KnobAdvice& horovod = advice[1];
  CHECK(horovod.schedule == "horovod");
  CHECK(horovod.parameter == "fusion_threshold_mb");
  CHECK(horovod.best_is_default);
  CHECK(horovod.best_value == 128.0);
  CHECK(horovod.best == 50 * kMs);
  CHECK(horovod.at_default == 50 * kMs);
  CHECK(horovod.default_loss() == 0.0);
  CHECK(horovod.gap_to_optimal() == 0.0);
  // Cycles of 16 ms and more wake up at 0, 16, 32, 48 ms: tensors 1 and 2 (ready
  // at 20 and 30 ms) fuse at 32 ms and tensor 3 waits for 48 ms, so longer cycles
  // lose. Up to 8 ms, wake-ups fall on or just after each ready time: a 8 ms cycle
  // wakes at 16, 24, 32, 40: [16,26] [26,36] [36,46] [46,56] = 56 ms, and only
  // cycles dividing 10 ms (0.25 .. 2 ms, the default 1 ms) reach 50 ms.
  const KnobAdvice& cycle = advice[2];
  CHECK(cycle.parameter == "cycle_time_ms");
  CHECK(cycle.best_is_default);
  CHECK(cycle.best == 50 * kMs);
  CHECK(cycle.tried[5] == std::pair<double, SimTime>{8.0, 56 * kMs});
}

TEST_CASE("advise: the best value is the minimum over everything tried", "[advise]") {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 10; ++round) {
    WorkloadCache cache;
    const Scenario scenario = ring_scenario(cache, random_trace(rng, 40), {4, 64, 1024}, {50e-6, 1e-9, 0.0});
    for (const KnobAdvice& a : advise(scenario, cache)) {
      SimTime minimum = a.at_default;
      for (const auto& [value, time] : a.tried) minimum = std::min(minimum, time);
      CHECK(a.best == minimum);
      CHECK(a.default_loss() >= 0.0);
    }
  }
}

TEST_CASE("advise: the report comes as a table, CSV or JSON", "[advise]") {
  const std::vector<KnobAdvice> advice = advise_on_two_gpus(four_layers());
  const std::string table = format_advice(advice, "four", "ring", ReportFormat::table);
  CHECK(table.find("0.25") != std::string::npos);
  CHECK(table.find("128 (default)") != std::string::npos);
  const std::string csv = format_advice(advice, "four", "ring", ReportFormat::csv);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 7);  // header, 6 rows
  CHECK(csv.starts_with("model,collective,gpus,"));
  CHECK(csv.substr(0, csv.find('\n')).ends_with(",gap_to_optimal,mgsim_version,format_version"));
  CHECK(csv.find(fmt::format("four,ring,2,ddp,bucket_cap_mb,0.25,0,0.050000000,,0.070000000,0.4,0.050000000,0,{},{}\n",
                             version(), kReportFormatVersion)) !=
        std::string::npos);
  const auto json = nlohmann::json::parse(format_advice(advice, "four", "ring", ReportFormat::json));
  CHECK(json.at("advice").size() == 6);
  CHECK(json.at("advice")[1].at("best_is_default") == true);
  CHECK(json.at("mgsim_version") == std::string(version()));
  CHECK(json.at("format_version") == kReportFormatVersion);
}

TEST_CASE("advise: DDP's default is shown unset, since writing 25 out makes its first bucket 25 MiB too", "[advise]") {
  // One 1 MiB tensor at 2 GPUs and 10 ms per MiB: every cap sends it alone in 10 ms, so the default is the best.
  std::vector<KnobAdvice> advice = advise_on_two_gpus(make_trace({0.01}, {kMiB}));
  REQUIRE(advice[0].schedule == "ddp");
  REQUIRE(advice[0].best_is_default);
  const std::string table = format_advice(advice, "one", "ring", ReportFormat::table);
  const std::string ddp = table.substr(table.find("  ddp "), table.find('\n', table.find("  ddp ")) - table.find("  ddp "));
  CHECK(ddp.find("unset (default)") != std::string::npos);
  CHECK(ddp.find(" 25 ") == std::string::npos);
  // Horovod's threshold has no parameter defaulting from it: its default is the number.
  CHECK(table.find("128 (default)") != std::string::npos);
  // CSV and JSON give no number for it either (red team: 25, written into a config, ran another run).
  const std::string csv = format_advice(advice, "one", "ring", ReportFormat::csv);
  CHECK(csv.find("one,ring,2,ddp,bucket_cap_mb,,1,") != std::string::npos);
  CHECK(csv.find("one,ring,2,horovod,fusion_threshold_mb,128,1,") != std::string::npos);
  const auto json = nlohmann::json::parse(format_advice(advice, "one", "ring", ReportFormat::json));
  CHECK(json.at("advice")[0].at("default_value").is_null());
  CHECK(json.at("advice")[0].at("best_value").is_null());
  CHECK(json.at("advice")[1].at("default_value") == 128.0);
}
