// PyTorch DDP buckets and Horovod tensor fusion on small hand-made traces.

#include <catch2/catch.hpp>

#include "mgsim/error.hpp"
#include "mgsim/schedule.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {

/// Forward-order layers of one 1-byte-element tensor each: backward order is
/// the reverse. Sizes 10, 10, 10, 0.5, 2 MiB: backward 2, 0.5, 10, 10, 10 MiB.
Trace ddp_trace() { return make_trace({1, 1, 1, 1, 1}, {10 * kMiB, 10 * kMiB, 10 * kMiB, kMiB / 2, 2 * kMiB}); }

}  // namespace

TEST_CASE("DDP defaults: a 1 MiB first bucket, then 25 MiB buckets closed once reached") {
  // 2 MiB >= 1 MiB closes bucket 1; then 0.5 + 10 + 10 + 10 = 30.5 MiB >= 25 closes at the last tensor.
  const LinearCost cost(1e-3, 1e-9);
  const Setup setup(ddp_trace(), cost, 8);
  const Plan plan = plan_with("ddp", setup.problem);
  CHECK(ranges(plan) == std::vector<std::pair<int, int>>{{0, 1}, {1, 5}});
  CHECK(plan[1].bytes == 30 * kMiB + kMiB / 2);
}

TEST_CASE("DDP with a user bucket cap drops the special first bucket") {
  // cap 12 MiB for every bucket: 2 + 0.5 + 10 = 12.5 >= 12; then 10 + 10 = 20 >= 12.
  const LinearCost cost(1e-3, 1e-9);
  const Setup setup(ddp_trace(), cost, 8);
  CHECK(ranges(plan_with("ddp", setup.problem, {{"bucket_cap_mb", 12}})) ==
        std::vector<std::pair<int, int>>{{0, 3}, {3, 5}});
  // An explicit first cap of 2 MiB: 2 >= 2 closes; 0.5 + 10 + 10 = 20.5 >= 12; 10 left.
  CHECK(ranges(plan_with("ddp", setup.problem, {{"bucket_cap_mb", 12}, {"first_bucket_cap_mb", 2}})) ==
        std::vector<std::pair<int, int>>{{0, 1}, {1, 4}, {4, 5}});
}

TEST_CASE("DDP buckets start once all their gradients exist, strictly in order") {
  // Backward times 1 s each, T = 1 ms + 1 ns/B. Bucket 1 (layer 5) ready at 1 s;
  // bucket 2 holds layers 4..1, ready when layer 1 ends at 5 s.
  const LinearCost cost(1e-3, 1e-9);
  const Setup setup(ddp_trace(), cost, 8);
  const Replay timing = evaluate_closed_form(setup.problem, plan_with("ddp", setup.problem));
  CHECK(timing.message_start == std::vector<SimTime>{1000 * kMs, 5000 * kMs});
}

TEST_CASE("Horovod fuses what is ready at each cycle into buffers up to the threshold") {
  // Cycles wake at 0, 1, 2 ms from the backward start. Backward order layers:
  // 60 MiB ready 0.3 ms, 60 MiB ready 0.4 ms, 10 MiB ready 0.9 ms -> all taken at 1 ms;
  // 60 + 60 = 120 <= 128 MiB fits, + 10 would not: buffers {60, 60} and {10}.
  // 1 MiB ready 1.9 ms -> taken at 2 ms. (The forward, 0.5 ms, is in the next iteration.)
  const Trace trace =
      make_trace({1.0e-3, 0.5e-3, 0.1e-3, 0.3e-3}, {kMiB, 10 * kMiB, 60 * kMiB, 60 * kMiB}, 0.5e-3);
  const LinearCost cost(1e-3, 1e-10);
  const Setup setup(trace, cost, 8);
  const Plan plan = plan_with("horovod", setup.problem, {{"copy_s_per_byte", 1e-12}});
  REQUIRE(ranges(plan) == std::vector<std::pair<int, int>>{{0, 2}, {2, 3}, {3, 4}});
  CHECK(plan[0].not_before == 1000'000);
  CHECK(plan[1].not_before == 1000'000);
  CHECK(plan[2].not_before == 2000'000);
  // The fused buffer pays a copy in and out: 2 * 120 MiB * 1e-12 s/B on top of T.
  const double fused_bytes = 120.0 * kMiB;
  CHECK(plan[0].duration == to_ns(1e-3 + 1e-10 * fused_bytes) + to_ns(2 * fused_bytes * 1e-12));
  CHECK(plan[1].duration == to_ns(1e-3 + 1e-10 * 10 * kMiB));  // one tensor: no copy
}

TEST_CASE("Horovod sends a tensor larger than the threshold alone and waits for the cycle") {
  // Threshold 4 MiB, cycle 2 ms from the backward start at 0. Layers (backward order)
  // 5 MiB ready at 2 ms exactly -> the 2 ms wake-up; 1 MiB ready at 2.5 ms -> 4 ms.
  const Trace trace = make_trace({0.5e-3, 2e-3}, {kMiB, 5 * kMiB});
  const LinearCost cost(1e-3, 1e-10);
  const Setup setup(trace, cost, 2);
  const Plan plan = plan_with("horovod", setup.problem, {{"fusion_threshold_mb", 4}, {"cycle_time_ms", 2}});
  REQUIRE(ranges(plan) == std::vector<std::pair<int, int>>{{0, 1}, {1, 2}});
  CHECK(plan[0].not_before == 2 * kMs);
  CHECK(plan[1].not_before == 4 * kMs);
}

TEST_CASE("schedule parameters are checked by name and range") {
  CHECK_THROWS_AS(make_schedule("ddp", {{"bucket_size", 5}}), ConfigError);
  CHECK_THROWS_AS(make_schedule("ddp", {{"bucket_cap_mb", 0}}), ConfigError);
  CHECK_THROWS_AS(make_schedule("horovod", {{"cycle_time_ms", -1}}), ConfigError);
  CHECK_NOTHROW(make_schedule("horovod", {{"copy_s_per_byte", 0}}));
  CHECK_THROWS_AS(make_schedule("wfbp", {{"anything", 1}}), ConfigError);
}
