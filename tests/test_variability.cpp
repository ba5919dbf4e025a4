// Delay laws: their table, their parameters and what one draw gives.

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "mgsim/error.hpp"
#include "mgsim/iteration.hpp"
#include "mgsim/variability.hpp"
#include "test_support.hpp"

using namespace mgsim;

namespace {

/// A law's mean, variance and fourth central moment, from its raw moments E[X^k], k = 1..4.
struct Moments {
  double mean;
  double variance;
  double fourth;
};

Moments from_raw(double e1, double e2, double e3, double e4) {
  return {e1, e2 - e1 * e1, e4 - 4 * e3 * e1 + 6 * e2 * e1 * e1 - 3 * e1 * e1 * e1 * e1};
}

/// `n` delays of `law` for units of nominal time `nominal` against the law:
/// sample mean and variance within 5 standard errors (sqrt(variance / n) and
/// sqrt((fourth - variance^2) / n)), and the fraction at most `q` within 5
/// of sqrt(p (1 - p) / n) of P(X <= q) = p.
void check_law(const DelayLaw& law, SimTime nominal, const Moments& expected, double q, double p) {
  constexpr int n = 200'000;
  Random random(2026);
  std::vector<double> draws(n);
  for (double& d : draws) d = static_cast<double>(law.draw(random, nominal));
  double mean = 0;
  for (const double d : draws) mean += d / n;
  double variance = 0;
  double below = 0;
  for (const double d : draws) {
    variance += (d - mean) * (d - mean) / (n - 1);
    below += d <= q ? 1 : 0;
  }
  const double v = expected.variance;
  CHECK(std::abs(mean - expected.mean) < 5 * std::sqrt(v / n));
  CHECK(std::abs(variance - v) < 5 * std::sqrt((expected.fourth - v * v) / n));
  CHECK(std::abs(below / n - p) < 5 * std::sqrt(p * (1 - p) / n));
}

}  // namespace

TEST_CASE("exponential delays: mean m, variance m^2, median m ln 2") {
  // Exp of mean m: fourth central moment 9 m^4. Delays in nanoseconds.
  const double m = 1e7;
  check_law(*make_law("exponential", {{"mean_s", 0.01}}), 0, {m, m * m, 9 * m * m * m * m}, m * std::log(2.0), 0.5);
}

TEST_CASE("shifted-exponential delays: the exponential's, moved by the shift") {
  const double shift = 2e6;
  const double m = 5e6;
  check_law(*make_law("shifted-exponential", {{"shift_s", 0.002}, {"mean_s", 0.005}}), 0,
            {shift + m, m * m, 9 * m * m * m * m}, shift + m * std::log(2.0), 0.5);
}

TEST_CASE("log-normal delays: E[X^k] = median^k e^(k^2 sigma^2 / 2), half below the median") {
  const double median = 4e6;
  const double sigma = 0.5;
  const auto raw = [&](int k) { return std::pow(median, k) * std::exp(k * k * sigma * sigma / 2); };
  check_law(*make_law("lognormal", {{"median_s", 0.004}, {"sigma", sigma}}), 0, from_raw(raw(1), raw(2), raw(3), raw(4)),
            median, 0.5);
}

TEST_CASE("Pareto delays: E[X^k] = shape scale^k / (shape - k), median scale 2^(1/shape)") {
  const double scale = 1e6;
  const double shape = 9;
  const auto raw = [&](int k) { return shape * std::pow(scale, k) / (shape - k); };
  check_law(*make_law("pareto", {{"scale_s", 0.001}, {"shape", shape}}), 0, from_raw(raw(1), raw(2), raw(3), raw(4)),
            scale * std::pow(2.0, 1 / shape), 0.5);
}

TEST_CASE("Bernoulli delays: slowdown x nominal with probability p, else none") {
  // Nominal 2 ms, slowdown 0.5: 1 ms with probability 0.3; E[X^k] = p (1 ms)^k.
  const double slowed = 1e6;
  const auto raw = [&](int k) { return 0.3 * std::pow(slowed, k); };
  check_law(*make_law("bernoulli", {{"probability", 0.3}, {"slowdown", 0.5}}), 2'000'000,
            from_raw(raw(1), raw(2), raw(3), raw(4)), 0, 0.7);
}

TEST_CASE("a log-normal delay takes two uniforms: median exp(sigma sqrt(-2 ln(1 - u1)) cos(2 pi u2))") {
  const auto law = make_law("lognormal", {{"median_s", 0.004}, {"sigma", 0.5}});
  Random random(3);
  Random reference(3);
  for (int i = 0; i < 3; ++i) {
    const double u1 = reference.uniform();
    const double u2 = reference.uniform();
    const double z = std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * std::numbers::pi * u2);
    CHECK(law->draw(random, 0) == std::llround(0.004 * std::exp(0.5 * z) * 1e9));
  }
}

TEST_CASE("a shifted exponential adds its shift; a Pareto delay is never below its scale") {
  const auto shifted = make_law("shifted-exponential", {{"shift_s", 0.002}, {"mean_s", 0.001}});
  const auto pareto = make_law("pareto", {{"scale_s", 0.003}, {"shape", 2.5}});
  Random random(7);
  for (int i = 0; i < 1000; ++i) {
    CHECK(shifted->draw(random, 0) >= 2'000'000);
    CHECK(pareto->draw(random, 0) >= 3'000'000);
  }
}

TEST_CASE("Bernoulli slow-down: probability 0 never delays, 1 always delays by slowdown x nominal") {
  Random random(1);
  const auto never = make_law("bernoulli", {{"probability", 0.0}, {"slowdown", 3.0}});
  const auto always = make_law("bernoulli", {{"probability", 1.0}, {"slowdown", 0.5}});
  for (int i = 0; i < 100; ++i) {
    CHECK(never->draw(random, 1000) == 0);
    CHECK(always->draw(random, 1000) == 500);
    CHECK(always->draw(random, 3) == 2);  // 1.5 ns: halves up
  }
  // A slow-down past an hour is cut there, even past int64 nanoseconds.
  const auto huge = make_law("bernoulli", {{"probability", 1.0}, {"slowdown", 1000.0}});
  CHECK(huge->draw(random, kMaxDelay) == kMaxDelay);
  CHECK(huge->draw(random, SimTime{1} << 62) == kMaxDelay);
}

TEST_CASE("a heavy tail is cut at the largest delay, an hour") {
  // scale 1 s, shape 0.01: U^-100 is beyond an hour unless U > 3600^-0.01 = 0.921.
  const auto law = make_law("pareto", {{"scale_s", 1.0}, {"shape", 0.01}});
  Random random(11);
  int cut = 0;
  for (int i = 0; i < 1000; ++i) {
    const SimTime delay = law->draw(random, 0);
    CHECK(delay <= kMaxDelay);
    cut += delay == kMaxDelay;
  }
  CHECK(cut > 800);  // expected 921 of 1000
}

TEST_CASE("draw_all gives what draw gives unit by unit, and leaves the source where draw does") {
  std::vector<SimTime> nominal;
  for (SimTime t = 0; t < 50; ++t) nominal.push_back(t * 12'345);
  for (const LawInfo& info : law_registry()) {
    INFO(info.name);
    const auto law = make_law(info.name, {});
    Random one(31);
    Random all(31);
    std::vector<SimTime> delays(nominal.size());
    law->draw_all(all, nominal, delays);
    for (std::size_t i = 0; i < nominal.size(); ++i) CHECK(delays[i] == law->draw(one, nominal[i]));
    CHECK(one.next() == all.next());
  }
}

TEST_CASE("laws are refused by name and parameter") {
  CHECK_THROWS_WITH(make_law("gamma", {}), Catch::Contains("exponential") && Catch::Contains("bernoulli"));
  CHECK_THROWS_WITH(make_law("exponential", {{"sigma", 1.0}}), Catch::Contains("law 'exponential'") &&
                                                                   Catch::Contains("unknown parameter 'sigma'"));
  CHECK_THROWS_WITH(make_law("exponential", {{"mean_s", -1.0}}), Catch::Contains("'mean_s'"));
  CHECK_THROWS_WITH(make_law("bernoulli", {{"probability", 1.5}}), Catch::Contains("<= 1"));
  CHECK_THROWS_WITH(make_law("pareto", {{"shape", 0.0}}), Catch::Contains("> 0"));
  CHECK_THROWS_AS(make_law("lognormal", {{"sigma", std::nan("")}}), ConfigError);
}

TEST_CASE("every law of the table builds with its defaults") {
  for (const LawInfo& info : law_registry()) {
    INFO(info.name);
    Random random(5);
    CHECK(make_law(info.name, {})->draw(random, 1000) >= 0);
  }
}

// ---- the data-parallel builder under variability ---------------------------------------------------------

namespace {

using mgsim::test::LinearCost;
using mgsim::test::make_trace;

/// `iterations` of `schedule` under `variability`, T(M) = 1 us + 0.1 us/byte unless `cost` is given.
/// `ranks`: the data-parallel builder's choice, folded (the default) or streams.
SimulationResult run(const Workload& workload, const Cluster& cluster, const Schedule& schedule,
                     const Variability& variability, int iterations, Overlap overlap = {},
                     const Collective& cost = LinearCost(1e-6, 1e-7), const char* ranks = "folded") {
  BuilderParams params;
  params.choices["ranks"] = ranks;
  const auto builder =
      find_builder("data-parallel").make({workload, cluster, cost, &schedule, overlap, variability}, params);
  return simulate(*builder, variability.seed, iterations);
}

Variability exponential(double mean_s, std::uint64_t seed = 1) {
  Variability variability;
  variability.law = "exponential";
  variability.params = {{"mean_s", mean_s}};
  variability.seed = seed;
  return variability;
}

}  // namespace

TEST_CASE("i.i.d. exponential delays per iteration: the mean round is base + H_P / lambda") {
  // One mini-batch per worker: each rank's forward pass takes an Exp(lambda)
  // delay, so every message waits for the slowest of P ranks and the round
  // is the nominal one plus the largest of P delays, whose expectation is
  // H_P / lambda (docs/variability.md). The tolerance is 4 standard errors
  // of the sample of rounds.
  const Workload workload(make_trace({4e-6, 2e-6, 3e-6}, {10, 20, 30}, 1e-6));
  const LinearCost cost(1e-6, 1e-7);
  constexpr double kMean = 0.001;
  constexpr int kIterations = 4000;
  for (const char* name : {"single", "wfbp"}) {
    for (const int gpus : {2, 4, 32}) {
      INFO(name << " on " << gpus << " GPUs");
      const auto schedule = make_schedule(name, {});
      const double base = to_seconds(simulate(workload, cost, *schedule, gpus).iteration);
      const SimulationResult result =
          run(workload, Cluster::homogeneous(gpus), *schedule, exponential(kMean, 2024), kIterations);
      double sum = 0, squares = 0;
      for (const IterationTiming& t : result.iterations) {
        const double d = to_seconds(t.duration());
        sum += d;
        squares += d * d;
      }
      const double mean = sum / kIterations;
      const double std_error = std::sqrt((squares / kIterations - mean * mean) / (kIterations - 1));
      double harmonic = 0;
      for (int k = 1; k <= gpus; ++k) harmonic += 1.0 / k;
      CHECK(std::abs(mean - (base + harmonic * kMean)) < 4 * std_error);
      CHECK(std::abs(to_seconds(result.stats.mean) - mean) < 1e-9);
    }
  }
}

TEST_CASE("zero variability: every schedule's statistics are the deterministic replay's, to the nanosecond") {
  // Two speed classes, with and without interference: the per-rank
  // timelines must give the per-class replay's end and wait exactly, for
  // every schedule of the table.
  std::mt19937_64 rng(9);
  const Link link{2e-5, 1e-9, 0.0};
  const auto ring = find_collective("ring").make({{link, link}});
  for (int trial = 0; trial < 4; ++trial) {
    const Workload workload(mgsim::test::random_trace(rng, 12, true));
    const SpeedShare shares[] = {{0.25, 0.6}};
    const Cluster cluster = Cluster::with_shares(8, 1, shares);
    for (const ScheduleInfo& info : schedule_registry()) {
      const auto schedule = make_schedule(info.name, {});
      for (const Overlap overlap : {Overlap{}, Overlap{0.2, 0.1}}) {
        INFO(info.name << ", trial " << trial << ", compute slowdown " << overlap.compute_slowdown);
        const Iteration nominal = replay_iteration(workload, *ring, *schedule, cluster, overlap);
        for (const DelayUnit per : {DelayUnit::iteration, DelayUnit::layer}) {
          Variability zero = exponential(0.0);
          zero.per = per;
          const SimulationResult result = run(workload, cluster, *schedule, zero, 3, overlap, *ring);
          CHECK(result.stats.mean == nominal.replay.iteration_end);
          CHECK(result.stats.p50 == nominal.replay.iteration_end);
          CHECK(result.stats.p99 == nominal.replay.iteration_end);
          // The nominal window starts every class's backward together; the
          // many-iteration one starts a class's backward where its forward
          // ended, a fast class's earlier, which under interference changes
          // how its backward overlaps the messages (and so its wait), never
          // the slowest class's timing.
          if (overlap.ideal()) CHECK(result.stats.wait == nominal.replay.wait);
        }
      }
    }
  }
}

TEST_CASE("the nominal wait: fast ranks wait for the slow class's compute") {
  // Backward 4 us + 2 us; 2 of 8 ranks at speed 0.5 end compute at 12 us,
  // the other 6 at 6 us: the mean wait is 6 x 6 / 8 = 4.5 us.
  const Workload workload(make_trace({4e-6, 2e-6}, {10, 20}));
  const LinearCost cost(1e-6, 1e-7);
  const SpeedShare shares[] = {{0.25, 0.5}};
  const Iteration it = replay_iteration(workload, cost, *make_schedule("wfbp", {}), Cluster::with_shares(8, 1, shares));
  CHECK(it.replay.wait == 4500);
}

TEST_CASE("a persistent straggler is a rank whose compute always runs at its speed") {
  // Rank 2 of 4 at speed 0.5 and no random delay: the same timing as a
  // cluster whose rank 2 is a speed class of 0.5 (wfbp's plan does not
  // depend on compute times).
  const Workload workload(make_trace({4e-6, 2e-6}, {10, 20}, 1e-6));
  const auto wfbp = make_schedule("wfbp", {});
  Variability straggler = exponential(0.0);
  straggler.stragglers = {{2}, 0.5};
  const SimulationResult result = run(workload, Cluster::homogeneous(4), *wfbp, straggler, 3);
  const LinearCost cost(1e-6, 1e-7);
  const Iteration expected = replay_iteration(workload, cost, *wfbp, Cluster({1.0, 0.5}, {0, 0, 1, 0}));
  CHECK(result.stats.mean == expected.replay.iteration_end);
  CHECK(result.stats.wait == expected.replay.wait);
  CHECK(result.stats.wait == 3 * 7000 / 4);  // ranks end compute at 7 us, rank 2 at 14 us
}

TEST_CASE("per-layer Bernoulli slow-down with probability 1 doubles every layer of every rank") {
  // slowdown 1 delays each unit by its nominal time: every rank computes as
  // a GPU of speed 0.5 would.
  const Workload workload(make_trace({4e-6, 2e-6, 6e-6}, {10, 20, 5}, 3e-6));
  const auto wfbp = make_schedule("wfbp", {});
  Variability doubled;
  doubled.law = "bernoulli";
  doubled.params = {{"probability", 1.0}, {"slowdown", 1.0}};
  doubled.per = DelayUnit::layer;
  const SimulationResult result = run(workload, Cluster::homogeneous(3), *wfbp, doubled, 4);
  const LinearCost cost(1e-6, 1e-7);
  const Iteration expected = replay_iteration(workload, cost, *wfbp, Cluster({0.5}, {0, 0, 0}));
  CHECK(result.stats.min == expected.replay.iteration_end);
  CHECK(result.stats.max == expected.replay.iteration_end);
}

TEST_CASE("the same seed gives the same iterations; another seed others") {
  const Workload workload(make_trace({4e-6, 2e-6}, {10, 20}));
  const auto mgwfbp = make_schedule("mgwfbp", {});
  Variability noisy = exponential(2e-6, 5);
  noisy.per = DelayUnit::layer;
  const auto durations = [&](std::uint64_t seed) {
    noisy.seed = seed;
    std::vector<SimTime> out;
    for (const IterationTiming& t : run(workload, Cluster::homogeneous(16), *mgwfbp, noisy, 50).iterations) {
      out.push_back(t.duration());
    }
    return out;
  };
  CHECK(durations(5) == durations(5));
  CHECK(durations(5) != durations(6));
}

namespace {

/// Random noise for trial `trial`: log-normal or Bernoulli, per layer or per iteration, two stragglers.
Variability random_noise(int trial) {
  Variability noisy;
  noisy.law = trial % 2 == 0 ? "lognormal" : "bernoulli";
  noisy.params = trial % 2 == 0 ? ParamValues{{"median_s", 2e-4}, {"sigma", 1.0}} : ParamValues{{"probability", 0.3}};
  noisy.per = trial % 4 < 2 ? DelayUnit::layer : DelayUnit::iteration;
  noisy.seed = 100 + trial;
  noisy.stragglers = {{1, 7}, 0.4};
  return noisy;
}

/// Folded and per-rank streams, iteration by iteration: ends, compute ends and waits equal to the nanosecond.
void check_same_iterations(const SimulationResult& folded, const SimulationResult& streams) {
  REQUIRE(folded.iterations.size() == streams.iterations.size());
  for (std::size_t i = 0; i < folded.iterations.size(); ++i) {
    INFO("iteration " << i);
    CHECK(folded.iterations[i].start == streams.iterations[i].start);
    CHECK(folded.iterations[i].end == streams.iterations[i].end);
    CHECK(folded.iterations[i].compute_end == streams.iterations[i].compute_end);
    CHECK(folded.iterations[i].wait == streams.iterations[i].wait);
  }
}

}  // namespace

TEST_CASE("without interference the folded rank timelines time every iteration as one engine stream per rank does") {
  // The builder folds the ranks into one stream (RankEnvelope) unless told
  // to keep one engine stream per rank: both must give the same iterations,
  // waits included, on random traces with ready offsets, a slow class,
  // stragglers and per-layer or per-iteration noise.
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 8; ++trial) {
    const Workload workload(mgsim::test::random_trace(rng, 10, true));
    const Link link{2e-5, 1e-9, 0.0};
    const auto ring = find_collective("ring").make({{link, link}});  // sparse schedules need its all-gather
    const SpeedShare shares[] = {{0.3, 0.7}};
    const Cluster cluster = Cluster::with_shares(10, 1, shares);
    const Variability noisy = random_noise(trial);
    for (const char* name : {"wfbp", "mgwfbp", "horovod", "lags"}) {
      INFO(name << ", trial " << trial);
      const auto schedule = make_schedule(name, {});
      check_same_iterations(run(workload, cluster, *schedule, noisy, 6, {}, *ring),
                            run(workload, cluster, *schedule, noisy, 6, {}, *ring, "streams"));
    }
  }
}

TEST_CASE("with interference the swept ranks time every iteration as one engine stream per rank does") {
  // RankSweep times the window outside the engine on one shared compute
  // clock; the reference is the engine with one stream per rank and the
  // interference model. Random traces, overlaps from barely any to heavy
  // (and each side alone), slow classes, stragglers, noise per layer or
  // per iteration, every schedule of the table (selection compute, merged
  // and partial messages, earliest starts).
  std::mt19937_64 rng(28);
  std::uniform_real_distribution<double> slowdown(0.0, 2.0);
  for (int trial = 0; trial < 8; ++trial) {
    const Workload workload(mgsim::test::random_trace(rng, 8, true));
    const Link link{2e-5, 1e-9, 0.0};
    const auto ring = find_collective("ring").make({{link, link}});
    const SpeedShare shares[] = {{0.3, 0.7}};
    const Cluster cluster = Cluster::with_shares(9, 1, shares);
    const Variability noisy = random_noise(trial);
    Overlap overlap{slowdown(rng), slowdown(rng)};
    if (trial == 1) overlap.comm_slowdown = 0.0;
    if (trial == 2) overlap.compute_slowdown = 0.0;
    for (const ScheduleInfo& info : schedule_registry()) {
      INFO(info.name << ", trial " << trial << ", overlap " << overlap.compute_slowdown << " / " << overlap.comm_slowdown);
      const auto schedule = make_schedule(info.name, {});
      check_same_iterations(run(workload, cluster, *schedule, noisy, 5, overlap, *ring),
                            run(workload, cluster, *schedule, noisy, 5, overlap, *ring, "streams"));
    }
  }
}

TEST_CASE("the data-parallel builder's rank timing is one of folded and streams") {
  const Workload workload(make_trace({4e-6, 2e-6}, {10, 20}));
  const LinearCost cost(1e-6, 1e-7);
  const auto wfbp = make_schedule("wfbp", {});
  const Cluster cluster = Cluster::homogeneous(2);
  BuilderParams params;
  params.choices["ranks"] = "per-rank";
  CHECK_THROWS_AS(find_builder("data-parallel").make({workload, cluster, cost, wfbp.get(), {}}, params), ConfigError);
}
