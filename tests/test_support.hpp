#pragma once
// Small builders shared by the tests: traces from plain arrays, a linear cost
// model T(M) = a + b M whose numbers are easy to check by hand, and random
// traces for property tests.

#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "mgsim/app/run_grid.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/plan.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/simulation.hpp"
#include "mgsim/trace.hpp"

namespace mgsim::test {

constexpr SimTime kSecond = 1'000'000'000;  ///< engine time units (ns) per second
constexpr SimTime kMs = 1'000'000;          ///< per millisecond
constexpr std::int64_t kMiB = 1024 * 1024;


/// T(M) = a + b M seconds, whatever P is (P >= 2).
class LinearCost : public Collective {
 public:
  LinearCost(double a, double b) : a_(a), b_(b) {}
  double allreduce_seconds(double bytes, int) const override { return a_ + b_ * bytes; }
  bool allreduce_affine(int) const override { return b_ >= 0; }

 private:
  double a_, b_;
};

/// A trace of one-tensor layers with 1-byte elements, times in seconds,
/// everything given in forward order.
inline Trace make_trace(const std::vector<double>& backward_s, const std::vector<std::int64_t>& bytes,
                        double forward_s = 0.0) {
  Trace trace;
  trace.model = "hand-made";
  trace.batch_size = 1;
  trace.forward_time_s = forward_s;
  for (std::size_t l = 0; l < backward_s.size(); ++l) {
    trace.layers.push_back({"layer" + std::to_string(l + 1), {bytes[l]}, 1, backward_s[l], {}});
  }
  return trace;
}

/// `trace` with each layer's own forward time, in seconds.
inline Trace with_forward(Trace trace, const std::vector<double>& forward_s) {
  trace.forward_time_s = 0;
  for (std::size_t l = 0; l < forward_s.size(); ++l) {
    trace.layers[l].forward_time_s = forward_s[l];
    trace.forward_time_s += forward_s[l];
  }
  return trace;
}

/// Everything a planner and the replays need for one trace and cost, on
/// `gpus` identical GPUs.
struct Setup {
  Setup(const Trace& trace_in, const Collective& collective, int gpus)
      : workload(trace_in), placement(workload, Cluster::homogeneous(gpus), collective),
        classes(placement.classes), problem(placement.problem) {}
  Workload workload;
  Placement placement;
  const std::vector<GpuClass>& classes;
  const CommProblem& problem;
};

/// The engine's replay of `plan` on `setup` equals the closed form's to the
/// nanosecond: every message's start and end, the compute end, the wait for
/// parameters and the iteration end.
inline void check_engine_matches_closed_form(const Setup& setup, const Plan& plan) {
  const Replay engine = replay(setup.classes, setup.workload.layout, plan);
  const Replay oracle = evaluate_closed_form(setup.problem, plan);
  CHECK(engine.message_start == oracle.message_start);
  CHECK(engine.message_end == oracle.message_end);
  CHECK(engine.compute_end == oracle.compute_end);
  CHECK(engine.parameter_wait == oracle.parameter_wait);
  CHECK(engine.iteration_end == oracle.iteration_end);
}

/// The plan of the named schedule on `problem`.
inline Plan plan_with(std::string_view schedule, const CommProblem& problem, const ParamValues& params = {}) {
  return make_schedule(schedule, params)->plan(problem);
}

/// When the iteration of `plan` ends, by the closed form.
inline SimTime end_of(const CommProblem& problem, const Plan& plan) {
  return evaluate_closed_form(problem, plan).iteration_end;
}

/// Random trace: 1..max_layers layers of 1..3 tensors, times and sizes spread
/// over orders of magnitude so that every schedule decision occurs.
inline Trace random_trace(std::mt19937_64& rng, int max_layers, bool ready_offsets = false) {
  std::uniform_int_distribution<int> layers(1, max_layers), tensors(1, 3);
  std::uniform_real_distribution<double> time(0.0, 2e-3), unit(0.0, 1.0);
  std::uniform_int_distribution<std::int64_t> elements(1, 2'000'000);
  Trace trace;
  trace.model = "random";
  trace.batch_size = 32;
  trace.forward_time_s = time(rng);
  const int n = layers(rng);
  for (int l = 0; l < n; ++l) {
    Layer layer{fmt::format("l{}", l), {}, 4, unit(rng) < 0.1 ? 0.0 : time(rng), {}};
    const int k = tensors(rng);
    for (int t = 0; t < k; ++t) layer.params.push_back(unit(rng) < 0.3 ? elements(rng) / 1000 + 1 : elements(rng));
    if (ready_offsets) {
      for (int t = 0; t < k; ++t) layer.grad_ready_s.push_back(layer.backward_time_s * unit(rng));
    }
    trace.layers.push_back(layer);
  }
  return trace;
}

/// Message boundaries of a plan as (begin, end) tensor ranges.
inline std::vector<std::pair<int, int>> ranges(const Plan& plan) {
  std::vector<std::pair<int, int>> out;
  for (const Message& m : plan) out.emplace_back(m.begin, m.end);
  return out;
}

/// A scenario of `trace` (put into `cache` as "trace.json") on `gpus`, ring
/// all-reduce over one flat `link`, running `schedules`.
inline Scenario ring_scenario(WorkloadCache& cache, Trace trace, std::vector<int> gpus, Link link,
                              std::vector<ScheduleSpec> schedules = {}) {
  Scenario scenario;
  scenario.file = "test.json";
  scenario.trace_labels = {"trace.json"};
  scenario.traces = {"trace.json"};
  cache.put("trace.json", std::move(trace));
  scenario.gpus = std::move(gpus);
  scenario.networks = {{"net0", {link, link}}};
  scenario.schedules = std::move(schedules);
  return scenario;
}

}  // namespace mgsim::test
