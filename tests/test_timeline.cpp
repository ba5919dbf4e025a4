// Timelines in the Chrome trace event format: one compute slice per layer, one
// communication slice per message, the exposed communication marked, all at
// the times the simulation computed (checked by hand on a three-layer trace).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "mgsim/app/run_set.hpp"
#include "mgsim/io/timeline.hpp"
#include "mgsim/schedule.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;
using nlohmann::json;

namespace {

/// Forward 1 ms; forward-order layers layer1 (tensors of 100 and 10 bytes,
/// backward 2 ms), layer2 (50 bytes, 3 ms), layer3 (20 bytes, 1 ms).
/// Backward runs layer3 [1, 2], layer2 [2, 5], layer1 [5, 7] ms.
Trace timeline_trace() {
  Trace trace = make_trace({0.002, 0.003, 0.001}, {100, 50, 20}, 0.001);
  trace.layers[0].params = {100, 10};
  return trace;
}

/// T(M) = 1 ms + M * 10 us.
const LinearCost kCost(1e-3, 1e-5);

/// One run's iteration as `mgsim run --timeline` shows it, labelled "<P> GPUs, <schedule>".
IterationTrace traced(const Workload& workload, const Collective& collective, const std::string& schedule,
                      const ParamValues& params, int gpus) {
  const ScheduleSpec spec{.name = schedule, .params = params, .unit = MessageUnit::layer};
  const auto built = spec.build();
  const Variability none;
  const Cluster cluster = Cluster::homogeneous(gpus);
  const RunPoint point{
      .workload = workload, .collective = collective, .spec = spec, .schedule = built.get(), .cluster = cluster,
      .variability = none};
  std::vector<RunOutcome> outcomes;
  outcomes.push_back(run_outcome(point, evaluate(point, true), {workload.trace.model, schedule, "test", {}}));
  return timeline_iterations(std::move(outcomes)).front();
}

json timeline_of(const Workload& workload, const std::string& schedule) {
  const std::vector<IterationTrace> runs{traced(workload, kCost, schedule, ParamValues{}, 4)};
  return json::parse(format_timeline(workload, runs));
}

std::vector<json> events_of(const json& document, const std::string& category) {
  std::vector<json> found;
  for (const json& event : document.at("traceEvents")) {
    if (event.value("cat", "") == category) found.push_back(event);
  }
  return found;
}

}  // namespace

TEST_CASE("timeline: every event follows the trace event format", "[timeline]") {
  const Workload workload(timeline_trace());
  const json document = timeline_of(workload, "wfbp");
  REQUIRE(document.at("traceEvents").is_array());
  for (const json& event : document.at("traceEvents")) {
    INFO(event.dump());
    REQUIRE(event.at("ph").is_string());
    CHECK(event.at("pid").is_number_integer());
    CHECK(event.at("tid").is_number_integer());
    const std::string phase = event.at("ph");
    if (phase == "X") {
      CHECK(event.at("ts").is_number());
      CHECK(event.at("dur").get<double>() >= 0);
      CHECK(event.at("name").is_string());
    } else if (phase == "M") {
      CHECK(event.at("args").is_object());
    } else {
      CHECK(phase == "i");
      CHECK(event.at("ts").is_number());
    }
  }
}

TEST_CASE("timeline: one compute slice per layer at the times of the backward pass", "[timeline]") {
  const Workload workload(timeline_trace());
  const json document = timeline_of(workload, "wfbp");
  const auto layers = events_of(document, "backward");
  REQUIRE(layers.size() == 3);
  // The window starts with the backward: layer3 [0, 1000], layer2 [1000, 4000], layer1 [4000, 6000] us.
  CHECK(layers[0].at("name") == "layer3");
  CHECK(layers[0].at("ts") == Approx(0.0));
  CHECK(layers[0].at("dur") == Approx(1000.0));
  CHECK(layers[1].at("name") == "layer2");
  CHECK(layers[1].at("ts") == Approx(1000.0));
  CHECK(layers[1].at("dur") == Approx(3000.0));
  CHECK(layers[2].at("name") == "layer1");
  CHECK(layers[2].at("ts") == Approx(4000.0));
  CHECK(layers[2].at("dur") == Approx(2000.0));
  // The next forward, 1 ms spread by backward (2 : 3 : 1 ms in forward
  // order), after layer1's message: [6000 + 2100, ...] us.
  const auto forward = events_of(document, "forward");
  REQUIRE(forward.size() == 3);
  CHECK(forward[0].at("name") == "layer1");
  CHECK(forward[0].at("ts") == Approx(8100.0));
  CHECK(forward[0].at("dur") == Approx(1000.0 / 3).margin(1e-3));
  CHECK(forward[1].at("dur") == Approx(500.0));
  CHECK(forward[2].at("name") == "layer3");
  CHECK(forward[2].at("ts").get<double>() + forward[2].at("dur").get<double>() == Approx(9100.0));
  for (const json& slice : layers) CHECK(slice.at("pid") == 1);
}

TEST_CASE("timeline: one communication slice per message, named by its layers, with its bytes", "[timeline]") {
  const Workload workload(timeline_trace());
  // WFBP: layer3 (20 B) ready at 1 ms runs [1, 2.2]; layer2 (50 B) at 4 ms [4, 5.5];
  // layer1 (110 B) at 6 ms [6, 8.1]. Backward ends at 6 ms: 2.1 ms exposed.
  const json wfbp = timeline_of(workload, "wfbp");
  const auto messages = events_of(wfbp, "allreduce");
  REQUIRE(messages.size() == 3);
  CHECK(messages[0].at("name") == "layer3");
  CHECK(messages[0].at("ts") == Approx(1000.0));
  CHECK(messages[0].at("dur") == Approx(1200.0));
  CHECK(messages[0].at("args").at("bytes") == 20);
  CHECK(messages[1].at("ts") == Approx(4000.0));
  CHECK(messages[1].at("dur") == Approx(1500.0));
  CHECK(messages[2].at("name") == "layer1");
  CHECK(messages[2].at("args").at("bytes") == 110);
  CHECK(messages[2].at("args").at("tensors") == 2);
  CHECK(messages[2].at("ts") == Approx(6000.0));
  CHECK(messages[2].at("dur") == Approx(2100.0));
  for (const json& slice : messages) CHECK(slice.at("pid") == 2);
  const auto exposed = events_of(wfbp, "exposed");
  REQUIRE(exposed.size() == 1);
  CHECK(exposed[0].at("ts") == Approx(6000.0));
  CHECK(exposed[0].at("dur") == Approx(2100.0));

  // Single-layer: one message of all 180 bytes at 6 ms, 2.8 ms long.
  const json single = timeline_of(workload, "single");
  const auto all = events_of(single, "allreduce");
  REQUIRE(all.size() == 1);
  CHECK(all[0].at("name") == "layer3, layer2, layer1");
  CHECK(all[0].at("args").at("bytes") == 180);
  CHECK(all[0].at("dur") == Approx(2800.0));
  CHECK(events_of(single, "exposed").at(0).at("dur") == Approx(2800.0));
}

TEST_CASE("timeline: the iteration it shows is the one simulate() reports", "[timeline]") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    const Workload workload(random_trace(rng, 30, true));
    for (const char* schedule : {"wfbp", "mgwfbp", "horovod", "p3", "bytescheduler"}) {
      const auto plan = make_schedule(schedule, ParamValues{});
      const RunMetrics metrics = simulate(workload, kCost, *plan, 16);
      const IterationTrace iteration = traced(workload, kCost, schedule, ParamValues{}, 16);
      CHECK(iteration.replay.iteration_end == metrics.iteration);
      CHECK(static_cast<int>(iteration.plan.size()) == metrics.messages);
      const json document = json::parse(format_timeline(workload, std::vector{iteration}));
      CHECK(events_of(document, "backward").size() == workload.trace.layers.size());
      const auto messages = events_of(document, "allreduce");
      CHECK(static_cast<int>(messages.size()) == metrics.messages);
      double busy_us = 0;
      for (const json& slice : messages) busy_us += slice.at("dur").get<double>();
      CHECK(busy_us == Approx(to_seconds(metrics.comm_busy) * 1e6).margin(1e-6));
      double exposed_us = 0;
      for (const json& slice : events_of(document, "exposed")) exposed_us += slice.at("dur").get<double>();
      CHECK(exposed_us == Approx(metrics.exposed_comm_s() * 1e6).margin(1e-6));
    }
  }
}

TEST_CASE("timeline: sparse schedules show their top-k selection and all-gathers", "[timeline]") {
  // LAGS on the three-layer trace, s = 1e-4: layer3 (20 elements) ends its backward at 1 ms, then
  // selects for t_s(20) = 1e-4 * 20 * log2(20) s on the compute track; every message is an all-gather.
  class LinearBoth : public LinearCost {
   public:
    using LinearCost::LinearCost;
    double allgather_seconds(double bytes, int gpus) const override { return allreduce_seconds(bytes, gpus); }
  };
  const LinearBoth cost(1e-3, 1e-5);
  const Workload workload(timeline_trace());
  const ParamValues params{{"density", 0.5}, {"selection_s", 1e-4}, {"value_bytes", 1}, {"index_bytes", 1}};
  const std::vector<IterationTrace> runs{traced(workload, cost, "lags", params, 4)};
  const json document = json::parse(format_timeline(workload, runs));
  const auto selections = events_of(document, "selection");
  REQUIRE(selections.size() == 3);
  CHECK(selections[0].at("ts").get<double>() == Approx(1000.0));
  CHECK(selections[0].at("dur").get<double>() == Approx(to_ns(1e-4 * 20 * std::log2(20.0)) / 1e3));
  CHECK(events_of(document, "allgather").size() == 3);
  CHECK(events_of(document, "allreduce").empty());
}

TEST_CASE("timeline: sharded schedules show reduce-scatters and parameter all-gathers by kind", "[timeline]") {
  // FSDP on the three-layer trace: before the backward of layers 2 and 1 their
  // parameters (2 all-gathers), one reduce-scatter per layer (3), then one
  // all-gather per layer for the next forward (3); nothing is all-reduced.
  class LinearBoth : public LinearCost {
   public:
    using LinearCost::LinearCost;
    double allgather_seconds(double bytes, int gpus) const override { return allreduce_seconds(bytes, gpus) / 2; }
  };
  // 1 ms per byte: gathering layer 2's 50 bytes for its backward takes
  // (1 ms + 12.5 ms) / 2, and that backward, ready at 1 ms, waits for it.
  const LinearBoth cost(1e-3, 1e-3);
  const Workload workload(timeline_trace());
  const std::vector<IterationTrace> runs{traced(workload, cost, "fsdp", {}, 4)};
  const json document = json::parse(format_timeline(workload, runs));
  CHECK(events_of(document, "reduce_scatter").size() == 3);
  const auto gathers = events_of(document, "param_allgather");
  REQUIRE(gathers.size() == 5);
  CHECK(gathers[0].at("args").at("before") == "backward");
  CHECK(gathers[4].at("args").at("before") == "forward");
  CHECK(events_of(document, "allreduce").empty());
  // Exposed slices, the backward's waits for parameters among them, add up
  // to t_iter - compute, the backward counted without those waits.
  const Replay& replay = runs.front().replay;
  REQUIRE(replay.parameter_wait > 0);
  double exposed = 0.0;
  bool in_backward = false;
  for (const json& slice : events_of(document, "exposed")) {
    exposed += slice.at("dur").get<double>();
    in_backward = in_backward || slice.at("args").contains("before_backward_order");
  }
  CHECK(in_backward);
  const SimTime compute = replay.compute_end - replay.parameter_wait + replay.forward;
  CHECK(exposed == Approx(static_cast<double>(replay.iteration_end - compute) / 1e3));
}

TEST_CASE("timeline: host time, coordination and the input wait follow the window, to the iteration's end",
          "[timeline]") {
  // WFBP on 4 GPUs of the three layers, with 2 ms of host time, 3 ms of
  // coordination and an input pipeline that loads a node's batch in 50 ms:
  // after the engine's window come 2 ms of host time, 3 ms of coordination
  // (exposed), then the wait up to 50 ms, where the iteration ends.
  const Workload workload(timeline_trace());
  const ScheduleSpec spec{.name = "wfbp", .params = {}, .unit = MessageUnit::layer};
  const auto built = spec.build();
  const Variability none;
  const Cluster cluster = Cluster::homogeneous(4);
  const double rate = workload.trace.batch_size * std::min(cluster.gpus_per_node(), 4) / 0.050;
  const RunPoint point{.workload = workload, .collective = kCost, .spec = spec, .schedule = built.get(),
                       .cluster = cluster, .iteration_overhead_s = 2e-3, .variability = none,
                       .node_input_samples_per_s = rate, .sync_overhead_s = 3e-3};
  std::vector<RunOutcome> outcomes;
  outcomes.push_back(run_outcome(point, evaluate(point, true), {workload.trace.model, "wfbp", "test", {}}));
  const RunMetrics metrics = outcomes.front().row.metrics;
  const IterationTrace iteration = timeline_iterations(std::move(outcomes)).front();
  const double window_us = to_seconds(iteration.replay.iteration_end) * 1e6;
  const json document = json::parse(format_timeline(workload, std::vector{iteration}));
  const auto host = events_of(document, "host");
  REQUIRE(host.size() == 1);
  CHECK(host[0].at("ts").get<double>() == Approx(window_us));
  CHECK(host[0].at("dur").get<double>() == Approx(2000));
  const auto input = events_of(document, "input");
  REQUIRE(input.size() == 1);
  CHECK(input[0].at("ts").get<double>() == Approx(window_us + 5000));
  CHECK(input[0].at("ts").get<double>() + input[0].at("dur").get<double>() == Approx(50000));
  double exposed_us = 0;
  for (const json& slice : events_of(document, "exposed")) exposed_us += slice.at("dur").get<double>();
  CHECK(exposed_us == Approx(metrics.exposed_comm_s() * 1e6).margin(1e-6));
  const auto end = events_of(document, "iteration");
  REQUIRE(end.size() == 1);
  CHECK(end[0].at("ts").get<double>() == Approx(50000));
  CHECK(metrics.iteration == 50'000'000);
}
