// The bounds on physical values (docs/limits.md) that keep every derived time
// in integer nanoseconds: the loaders refuse a value past its bound with the
// file and key, and no derived step longer than an hour reaches the engine.

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <span>
#include <string>

#include "mgsim/cluster.hpp"
#include "mgsim/error.hpp"
#include "mgsim/evaluate.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/iteration.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/schedule.hpp"
#include "test_support.hpp"
#include "test_sweep_support.hpp"

namespace {

using mgsim::test::SweepTempDir;

std::string trace_error(const mgsim::Trace& trace) {
  SweepTempDir dir;
  const auto file = dir.write_json("t.json", mgsim::test::trace_json(trace));
  try {
    mgsim::load_trace(file);
  } catch (const mgsim::TraceError& error) {
    return error.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("the worst iteration the bounds allow still fits in int64 nanoseconds", "[limits]") {
  // compute <= a year, plus per tensor one collective and one selection of at most an hour each.
  const double worst_ns = mgsim::kMaxComputeSeconds * 1e9 + 2.0 * static_cast<double>(mgsim::kMaxTensors) *
                                                                mgsim::kMaxStepSeconds * 1e9;
  CHECK(worst_ns < static_cast<double>(std::numeric_limits<mgsim::SimTime>::max()));
}

TEST_CASE("a layer's backward time is at most an hour", "[limits][trace]") {
  CHECK(trace_error(mgsim::test::make_trace({3600.0}, {10})) == "(accepted)");
  CHECK_THAT(trace_error(mgsim::test::make_trace({3600.5}, {10})),
             Catch::Contains("layers[0].backward_time_s: expected a finite number >= 0 and <= 3600, got 3600.5"));
  CHECK_THAT(trace_error(mgsim::test::make_trace({1.0}, {10}, 1e9)), Catch::Contains("forward_time_s"));
}

TEST_CASE("an iteration computes at most a year", "[limits][trace]") {
  // 8,760 layers of an hour are 365 days exactly (accepted); one more layer is refused.
  const std::vector<std::int64_t> sizes(8761, 1);
  CHECK(trace_error(mgsim::test::make_trace(std::vector<double>(8760, 3600.0), {sizes.begin(), sizes.end() - 1})) ==
        "(accepted)");
  CHECK_THAT(trace_error(mgsim::test::make_trace(std::vector<double>(8761, 3600.0), sizes)),
             Catch::Contains("expected forward_time_s + every backward_time_s <= 3.1536e+07 s (a year)"));
}

TEST_CASE("a trace holds at most 2^20 gradient tensors", "[limits][trace]") {
  mgsim::Trace trace = mgsim::test::make_trace({1e-3}, {1});
  trace.layers[0].params.assign(static_cast<std::size_t>(mgsim::kMaxTensors), 1);
  CHECK(trace_error(trace) == "(accepted)");
  trace.layers[0].params.push_back(1);
  CHECK_THAT(trace_error(trace), Catch::Contains("layers: expected at most 1048576 gradient tensors in all"));
}

TEST_CASE("a collective longer than an hour is refused before it becomes nanoseconds", "[limits][collectives]") {
  // T(M) = a + b M with a = 3600 s: an empty message takes exactly the bound.
  const mgsim::test::LinearCost hour(3600.0, 1e-9), longer(3600.0, 1.0);
  CHECK(mgsim::CommCost(hour, 2)(0) == 3'600'000'000'000);
  try {
    mgsim::CommCost(longer, 2)(10);  // 3610 s
    FAIL("accepted");
  } catch (const mgsim::ConfigError& error) {
    CHECK_THAT(error.what(), Catch::Contains("an all-reduce of 10 bytes on 2 GPUs takes 3610 s"));
  }
  const mgsim::test::LinearCost not_a_number(std::nan(""), 0.0);
  CHECK_THROWS_AS(mgsim::CommCost(not_a_number, 2)(1), mgsim::ConfigError);
}

TEST_CASE("schedule parameters have upper bounds that keep byte counts in int64", "[limits][schedules]") {
  CHECK_THROWS_AS(mgsim::make_schedule("topk", {{"value_bytes", 1e300}}), mgsim::ConfigError);
  CHECK_THROWS_AS(mgsim::make_schedule("topk", {{"index_bytes", 17}}), mgsim::ConfigError);
  CHECK_THROWS_AS(mgsim::make_schedule("ddp", {{"bucket_cap_mb", 1e300}}), mgsim::ConfigError);
  CHECK_THROWS_AS(mgsim::make_schedule("horovod", {{"cycle_time_ms", 1e300}}), mgsim::ConfigError);
  CHECK_NOTHROW(mgsim::make_schedule("topk", {{"value_bytes", 16}, {"index_bytes", 16}}));
}

TEST_CASE("a run's work estimate counts what its plan does: messages, pairs of units, chunks", "[limits][work]") {
  // Three layers of 120,000, 50,000 and 1 elements (forward order), the first in two tensors of 60,000: four
  // tensors. A closed-form run without variability is charged kStepsPerRun and its plan's steps (red team: an
  // `optimal` plan off a line, every pair of GPT-2 XL's 580 tensors, was charged as 580 steps and ran 370 times
  // longer than its charge; P3's 31,000 slices 25 times).
  mgsim::Trace trace = mgsim::test::make_trace({1e-3, 1e-3, 1e-3}, {120000, 50000, 1});
  trace.layers[0].params = {60000, 60000};
  const mgsim::Workload workload(trace);
  const mgsim::Cluster cluster = mgsim::Cluster::homogeneous(4);
  const mgsim::Variability none{};
  const mgsim::test::LinearCost line(1e-6, 1e-9);
  class Bent final : public mgsim::Collective {  // the same line, but not known to be one: searched pair by pair
   public:
    double allreduce_seconds(double bytes, int) const override { return 1e-6 + 1e-9 * bytes; }
  } bent;
  const auto steps = [&](const std::string& name, mgsim::MessageUnit unit, const mgsim::Collective& collective) {
    const mgsim::ScheduleSpec spec{name, {}, {}, {}, {}, {}, unit};
    const auto schedule = spec.build();
    const mgsim::RunPoint point{workload, collective, spec, schedule.get(), cluster, {}, std::nullopt, 0.0, 0.0, none, 1};
    return mgsim::estimate_steps(point) - mgsim::kStepsPerRun;
  };
  using mgsim::MessageUnit;
  CHECK(steps("wfbp", MessageUnit::tensor, line) == 4);  // a message a tensor
  CHECK(steps("wfbp", MessageUnit::layer, line) == 3);   // a message a layer
  CHECK(steps("optimal", MessageUnit::tensor, line) == 4);  // along the line
  CHECK(steps("optimal", MessageUnit::tensor, bent) == 16);  // every pair of the 4 tensors
  CHECK(steps("optimal", MessageUnit::layer, bent) == 9);    // of the 3 layers
  CHECK(steps("omgs", MessageUnit::tensor, line) == 9);      // its exact pass: pairs of layers
  CHECK(steps("p3", MessageUnit::tensor, line) == 3 * 6);    // slices of 50,000: 2 + 2 + 1 + 1, three steps each
}

TEST_CASE("the exact omgs plan is charged n^3 / 1,000 steps past 1,000 layers", "[limits][work]") {
  // Red team: 10,000 layers of balanced selection and exchange, charged 10^8 (n^2), ran 64 s on 2 GPUs.
  const mgsim::ScheduleSpec spec{"omgs", {}, {}, {}, {}, {}, mgsim::MessageUnit::layer};
  const auto schedule = spec.build();
  mgsim::Trace trace = mgsim::test::make_trace(std::vector<double>(5000, 1e-6), std::vector<std::int64_t>(5000, 10));
  const mgsim::Workload workload(trace);
  CHECK(schedule->plan_steps(1000, workload.layout, true) == 1e6);
  CHECK(schedule->plan_steps(5000, workload.layout, true) == 1.25e8);  // 5000^2 x 5
}

TEST_CASE("a count parameter (ParamSpec::whole) has a whole default and refuses a fraction wherever it is built") {
  using namespace mgsim;
  std::set<std::string> counts;
  // Each count of `owner`'s `params`, built by `build` with a value of it: refused at 2.5.
  const auto check = [&](std::string_view owner, std::span<const ParamSpec> params,
                         const std::function<void(const ParamValues&)>& build) {
    for (const ParamSpec& p : params) {
      if (!p.whole) continue;
      INFO(owner << " " << p.name);
      counts.insert(fmt::format("{}.{}", owner, p.name));
      CHECK(p.default_value == std::floor(p.default_value));
      CHECK_THROWS_WITH(build({{std::string(p.name), 2.5}}), Catch::Contains("whole number"));
    }
  };
  for (const ScheduleInfo& info : schedule_registry()) {
    check(info.name, info.params, [&](const ParamValues& given) { make_schedule(info.name, given); });
  }
  for (const BuilderInfo& info : builder_registry()) {
    check(info.name, info.params, [&](const ParamValues& given) { check_builder_params(info, {given, {}, {}}, 8); });
  }
  // Parameters that count elements, bytes, mini-batches or ranks.
  for (const char* count : {"p3.slice_params", "bytescheduler.partition_params", "bytescheduler.credit_params",
                            "zero1.reduce_bucket_size", "zero3.reduce_bucket_size", "topk.value_bytes",
                            "topk.index_bytes", "nbsgd.minibatches", "nbsgd.k"}) {
    CHECK(counts.contains(count));
  }
}

TEST_CASE("a rank that is a stream of its own is charged log2(ranks)^2 / 36 steps a layer and iteration",
          "[limits][work]") {
  // Red team: ResNet-50 under fsdp on 65536 GPUs with a delay law, 10 iterations, ran 78 s charged 1 a layer.
  // Three layers: a rank of zero3 under variability is at least 1 x 4 steps an iteration (4 and 8 ranks), so 4 more
  // ranks over 10 iterations are 4 x 10 x 4 = 160 more steps (the plan and its replays do not grow with the ranks);
  // at 4096 ranks, 12^2 / 36 = 4 x 4 a rank: 10 x 4 x (4096 x 4 - 4) more than at 4.
  const mgsim::Trace trace = mgsim::test::make_trace({1e-3, 1e-3, 1e-3}, {120000, 50000, 1});
  const mgsim::Workload workload(trace);
  const mgsim::test::LinearCost line(1e-6, 1e-9);
  mgsim::Variability delays;
  delays.law = "exponential";
  delays.params = {{"mean_s", 1e-3}};
  const mgsim::ScheduleSpec spec{"zero3", {}, {}, {}, {}, {}, mgsim::MessageUnit::layer};
  const auto schedule = spec.build();
  const auto steps = [&](int gpus) {
    const mgsim::Cluster cluster = mgsim::Cluster::homogeneous(gpus);
    return mgsim::estimate_steps({workload, line, spec, schedule.get(), cluster, {}, std::nullopt, 0.0, 0.0, delays, 10});
  };
  CHECK(steps(8) - steps(4) == 160);
  CHECK(steps(4096) - steps(4) == Approx(10.0 * 4 * (4096 * 4 - 4)).epsilon(1e-12));
  CHECK(mgsim::rank_layer_steps(65536) == Approx(256.0 / 36).epsilon(1e-12));
}
