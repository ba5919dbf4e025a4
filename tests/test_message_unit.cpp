// Message unit "tensor" vs "layer": what the layer-grouping schedules send as
// their smallest message.

#include <catch2/catch.hpp>

#include "mgsim/schedule.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {

/// Three forward-order layers of two 1-byte tensors each (weight, bias).
Trace two_tensor_layers() {
  Trace trace = make_trace({1e-3, 2e-3, 3e-3}, {1000, 2000, 3000});
  for (Layer& layer : trace.layers) layer.params.push_back(10);
  return trace;
}

Plan plan_with(std::string_view schedule, MessageUnit unit, const CommProblem& problem) {
  return make_schedule(schedule, {}, {}, unit)->plan(problem);
}

}  // namespace

TEST_CASE("A two-tensor layer gives twice the wfbp messages under tensor") {
  const LinearCost cost(1e-4, 1e-9);
  const Setup setup(two_tensor_layers(), cost, 4);
  // 3 layers: 3 messages of a layer each; 6 tensors: 6 messages of one tensor each.
  CHECK(plan_with("wfbp", MessageUnit::layer, setup.problem).size() == 3);
  const Plan per_tensor = plan_with("wfbp", MessageUnit::tensor, setup.problem);
  CHECK(ranges(per_tensor) == std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}});
}

TEST_CASE("Under tensor, a tensor ready early inside its layer is sent before the layer ends") {
  // One layer of backward 10 ms, forward 0: tensor 1 (bias, backward order 0)
  // is ready at 2 ms, tensor 0 (weight) at 10 ms. T = 1 ms + 0 per byte.
  // wfbp by tensor: bias 2..3 ms, weight 10..11 ms; by layer: one message 10..11 ms.
  Trace trace = make_trace({10e-3}, {100});
  trace.layers[0].params.push_back(10);
  trace.layers[0].grad_ready_s = {10e-3, 2e-3};
  const LinearCost cost(1e-3, 0.0);
  const Setup setup(trace, cost, 2);
  const Replay by_tensor =
      replay(setup.classes, setup.workload.layout, plan_with("wfbp", MessageUnit::tensor, setup.problem));
  CHECK(by_tensor.message_start == std::vector<SimTime>{2'000'000, 10'000'000});
  const Replay by_layer =
      replay(setup.classes, setup.workload.layout, plan_with("wfbp", MessageUnit::layer, setup.problem));
  CHECK(by_layer.message_start == std::vector<SimTime>{10'000'000});
}

TEST_CASE("Under tensor, optimal groups tensors and never loses to its layer-unit answer") {
  // Every layer grouping is also a tensor grouping, so the tensor optimum is <= the layer optimum.
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const Trace trace = random_trace(rng, 8, true);
    const LinearCost cost(2e-4, 1e-9);
    const Setup setup(trace, cost, 8);
    const SimTime by_tensor =
        evaluate_closed_form(setup.problem, plan_with("optimal", MessageUnit::tensor, setup.problem)).iteration_end;
    const SimTime by_layer =
        evaluate_closed_form(setup.problem, plan_with("optimal", MessageUnit::layer, setup.problem)).iteration_end;
    CHECK(by_tensor <= by_layer);
  }
}

TEST_CASE("The message unit does not change DDP, Horovod or the single message") {
  const LinearCost cost(1e-4, 1e-9);
  const Setup setup(two_tensor_layers(), cost, 4);
  for (const char* name : {"ddp", "horovod", "single"}) {
    INFO(name);
    CHECK(ranges(plan_with(name, MessageUnit::tensor, setup.problem)) ==
          ranges(plan_with(name, MessageUnit::layer, setup.problem)));
  }
}
