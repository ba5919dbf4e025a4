// Rate models: activities whose speed changes while they run, integrated
// exactly; interference between compute and messages checked by hand.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mgsim/engine.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/simulation.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

TEST_CASE("rate changes are integrated exactly at the events that cause them") {
  Engine engine;
  InterferenceModel model({1.0, 3.0});  // compute at 1/2 while a message runs, messages at 1/4 while compute runs
  engine.set_rate_model(&model);
  const ResourceId gpu = engine.add_resource(kComputeResource);
  const ResourceId nic = engine.add_resource(kCommResource);
  model.couple(gpu, nic);
  const ResourceId on_gpu[] = {gpu};
  const ResourceId on_nic[] = {nic};
  const ActivityId compute = engine.add(100, 0, on_gpu);
  const ActivityId message = engine.add(30, 20, on_nic);
  CHECK(engine.run() == 2);
  // By hand: 0-20 compute alone does 20 of its 100. From 20 both run slowed:
  // the message needs 30 at 1/4 = 120 ns, so it ends at 140; meanwhile the
  // compute did 120/2 = 60 more, 20 remain at full speed: it ends at 160.
  CHECK(engine.start(message) == 20);
  CHECK(engine.finish(message) == 140);
  CHECK(engine.start(compute) == 0);
  CHECK(engine.finish(compute) == 160);
}

namespace {

/// Processor sharing: every running activity progresses at 1/n of full
/// speed while n run. Each start and finish changes every running rate, so
/// every event moves every queued finish event, earlier and later.
class SharingModel : public RateModel {
 public:
  void update(const Engine&, ActivityId id, bool active, std::vector<ActivityId>& changed) override {
    if (active) {
      running_.push_back(id);
    } else {
      running_.erase(std::find(running_.begin(), running_.end(), id));
    }
    changed = running_;
  }
  Rate rate(const Engine&, ActivityId) const override { return kFullRate / static_cast<Rate>(running_.size()); }

 private:
  std::vector<ActivityId> running_;
};

}  // namespace

TEST_CASE("finish events moved at every event: processor sharing against a scan of real-valued progress") {
  // Jobs arrive at staggered times with distinct sizes; the oracle advances
  // real-valued remaining work from event to event by scanning every job.
  const std::vector<SimTime> arrival = {0, 5'000, 7'000, 20'000, 21'000, 60'000, 61'000, 200'000};
  const std::vector<SimTime> work = {50'000, 8'000, 30'000, 1'000, 45'000, 12'000, 90'000, 3'000};
  Engine engine;
  SharingModel model;
  engine.set_rate_model(&model);
  for (std::size_t j = 0; j < work.size(); ++j) engine.add(work[j], arrival[j]);
  engine.run();

  std::vector<double> left(work.begin(), work.end());
  std::vector<double> finish(work.size(), -1.0);
  double now = 0.0;
  while (std::count(finish.begin(), finish.end(), -1.0) > 0) {
    std::vector<std::size_t> running;
    for (std::size_t j = 0; j < work.size(); ++j) {
      if (finish[j] < 0 && static_cast<double>(arrival[j]) <= now) running.push_back(j);
    }
    const double share = running.empty() ? 0.0 : 1.0 / static_cast<double>(running.size());
    double next = 1e18;  // the next arrival or finish
    for (std::size_t j = 0; j < work.size(); ++j) {
      if (static_cast<double>(arrival[j]) > now) next = std::min(next, static_cast<double>(arrival[j]));
    }
    for (std::size_t j : running) next = std::min(next, now + left[j] / share);
    for (std::size_t j : running) {
      left[j] -= (next - now) * share;
      if (left[j] < 1e-6) finish[j] = next;
    }
    now = next;
  }
  for (std::size_t j = 0; j < work.size(); ++j) {
    INFO("job " << j);
    CHECK(static_cast<double>(engine.start(static_cast<ActivityId>(j))) == static_cast<double>(arrival[j]));
    // Rates 1/3, 1/5... are rounded to 1/65,536 and each move rounds up by
    // < 1 ns: a few ns over a run of 16 events.
    CHECK(std::abs(static_cast<double>(engine.finish(static_cast<ActivityId>(j))) - finish[j]) < 16.0);
  }
}

TEST_CASE("uncoupled resources and activities without resources keep full speed") {
  Engine engine;
  InterferenceModel model({1.0, 1.0});
  engine.set_rate_model(&model);
  const ResourceId gpu = engine.add_resource(kComputeResource);
  const ResourceId nic = engine.add_resource(kCommResource);  // not coupled to gpu
  const ResourceId on_gpu[] = {gpu};
  const ResourceId on_nic[] = {nic};
  const ActivityId a = engine.add(50, 0, on_gpu);
  const ActivityId b = engine.add(50, 0, on_nic);
  const ActivityId c = engine.add(50);
  engine.run();
  CHECK(engine.finish(a) == 50);
  CHECK(engine.finish(b) == 50);
  CHECK(engine.finish(c) == 50);
}

TEST_CASE("slowed rates are kFullRate / (1 + slowdown), rounded") {
  CHECK(slowed_rate(0.0) == kFullRate);
  CHECK(slowed_rate(1.0) == kFullRate / 2);
  CHECK(slowed_rate(3.0) == kFullRate / 4);
  CHECK(slowed_rate(0.25) == 52429);  // 65536 / 1.25 = 52428.8
}

namespace {

/// Two one-tensor layers, forward order: backward 4 us and 2 us, 10 and 20
/// bytes; T(M) = 1 us + 0.1 us/byte, so T(10) = 2 us and T(20) = 3 us. WFBP,
/// no interference: layer 2 runs 0-2, its message 2-5; layer 1 runs 2-6, its
/// message 6-8.
Replay two_layer_wfbp(Overlap overlap) {
  const LinearCost cost(1e-6, 1e-7);
  const Setup setup(make_trace({4e-6, 2e-6}, {10, 20}), cost, 2);
  const Plan plan = make_schedule("wfbp", {})->plan(setup.problem);
  return replay(setup.classes, setup.workload.layout, plan, overlap);
}

}  // namespace

TEST_CASE("interference on a two-layer trace, each slowdown checked by hand") {
  SECTION("none: the ideal overlap") {
    const Replay r = two_layer_wfbp({});
    CHECK(r.message_end == std::vector<SimTime>{5000, 8000});
    CHECK(r.iteration_end == 8000);
  }
  SECTION("compute slowdown 1: layer 1 at half speed while message 2 runs") {
    // 2-5: layer 1 does 1.5 us of 4; the other 2.5 us at full speed end at
    // 7.5 us; message 1 runs 7.5-9.5.
    const Replay r = two_layer_wfbp({1.0, 0.0});
    CHECK(r.message_start == std::vector<SimTime>{2000, 7500});
    CHECK(r.compute_end == 7500);
    CHECK(r.iteration_end == 9500);
  }
  SECTION("communication slowdown 1: message 2 at half speed while layer 1 runs") {
    // 2-6: message 2 does 2 us of 3; the last 1 us ends at 7. Layer 1 ends at
    // 6 but message 1 waits for the channel: 7-9.
    const Replay r = two_layer_wfbp({0.0, 1.0});
    CHECK(r.message_end == std::vector<SimTime>{7000, 9000});
    CHECK(r.compute_end == 6000);
    CHECK(r.iteration_end == 9000);
  }
  SECTION("both 1: both at half speed until message 2 ends") {
    // From 2 both at 1/2: message 2 (3 us) ends at 8, when layer 1 has done
    // 3 us of 4; its last 1 us ends at 9; message 1 runs 9-11.
    const Replay r = two_layer_wfbp({1.0, 1.0});
    CHECK(r.message_end == std::vector<SimTime>{8000, 11000});
    CHECK(r.compute_end == 9000);
    CHECK(r.iteration_end == 11000);
  }
}

TEST_CASE("the breakdown counts each activity as long as it ran beside the other, by hand") {
  // The two layers above. Communication slowdown 1: message 2 runs 2-7 (5
  // us, 3 at full speed), message 1 7-9: 7 us of communication, 6 us of
  // compute, 3 of the 9 exposed. Both 1: message 2 2-8, message 1 9-11 (8
  // us), compute 0-9, 2 us exposed.
  const LinearCost cost(1e-6, 1e-7);
  const Workload workload(make_trace({4e-6, 2e-6}, {10, 20}));
  const auto wfbp = make_schedule("wfbp", {});
  const RunMetrics comm_slowed = simulate(workload, cost, *wfbp, 2, Overlap{0.0, 1.0});
  CHECK(comm_slowed.comm_busy == 7000);
  CHECK(comm_slowed.compute == 6000);
  CHECK(comm_slowed.iteration == 9000);
  const RunMetrics both = simulate(workload, cost, *wfbp, 2, Overlap{1.0, 1.0});
  CHECK(both.comm_busy == 8000);
  CHECK(both.compute == 9000);
  CHECK(both.iteration == 11000);
}

TEST_CASE("zero slowdowns give exactly the ideal replay") {
  std::mt19937_64 rng(5);
  CollectiveSettings settings;
  settings.network.inter = settings.network.intra = Link{20e-6, 1e-9, 1e-10};
  const auto ring = find_collective("ring").make(settings);
  for (int trial = 0; trial < 20; ++trial) {
    const Setup setup(random_trace(rng, 40, trial % 2 == 1), *ring, 8);
    for (const ScheduleInfo& info : schedule_registry()) {
      const Plan plan = make_schedule(info.name, {})->plan(setup.problem);
      Engine engine;
      InterferenceModel zero({0.0, 0.0});
      engine.set_rate_model(&zero);  // the rate path, with rates that never change
      const ReplayDag dag(engine, setup.classes, setup.workload.layout, plan, 0, &zero);
      engine.run();
      const Replay with_model = dag.collect(engine);
      const Replay ideal = replay(setup.classes, setup.workload.layout, plan);
      INFO("trial " << trial << " schedule " << info.name);
      CHECK(with_model.message_start == ideal.message_start);
      CHECK(with_model.message_end == ideal.message_end);
      CHECK(with_model.iteration_end == ideal.iteration_end);
    }
  }
}
