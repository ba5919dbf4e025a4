// Sparsified schedules (topk, lags, omgs, omgs-rule) on hand-made traces, the
// exact OMGS against exhaustive search, and their degeneration to the dense
// schedules.

#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

#include <catch2/catch.hpp>

#include "mgsim/error.hpp"
#include "mgsim/schedule.hpp"
#include "test_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {

/// T(M) = a + b M for both all-reduce and all-gather (per-rank bytes).
class LinearBoth : public LinearCost {
 public:
  using LinearCost::LinearCost;
  double allgather_seconds(double bytes, int gpus) const override { return allreduce_seconds(bytes, gpus); }
};

/// Selection seconds of a top-k over d elements.
using SelectionLaw = std::function<double(double)>;

/// s d log2 d, the default law (docs/sparse.md).
SelectionLaw d_log_d(double s) {
  return [s](double d) { return d > 1 ? s * d * std::log2(d) : 0.0; };
}

/// The sparse message of backward-order layers [first, last), from docs/domain.md
/// section 3 directly: k = floor(rho d) (at least 1) values and indices per GPU,
/// all-gathered; selection by `law`.
Message sparse_message(const CommProblem& problem, int first, int last, double rho, const SelectionLaw& law,
                       int value_bytes, int index_bytes) {
  Message m;
  m.begin = problem.layer_begin(first);
  m.end = problem.layer_begin(last);
  const std::int64_t d = problem.elements_of(m.begin, m.end);
  const std::int64_t k = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(rho * static_cast<double>(d))));
  m.bytes = problem.bytes_of(m.begin, m.end);
  m.sent_bytes = k * (value_bytes + index_bytes);
  m.duration = problem.cost.allgather(m.sent_bytes);
  m.selection = to_ns(law(static_cast<double>(d)));
  return m;
}

/// Best iteration end over all 2^(L-1) contiguous groupings of sparse messages.
SimTime exhaustive_sparse(const CommProblem& problem, double rho, const SelectionLaw& law) {
  const int n = problem.layer_count();
  SimTime best = std::numeric_limits<SimTime>::max();
  for (std::uint32_t mask = 0; mask < (1u << (n - 1)); ++mask) {
    Plan plan;
    int first = 0;
    for (int u = 1; u <= n; ++u) {
      if (u == n || (mask & (1u << (u - 1)))) {
        plan.push_back(sparse_message(problem, first, u, rho, law, 4, 4));
        first = u;
      }
    }
    best = std::min(best, end_of(problem, plan));
  }
  return best;
}

/// Issue 28's balance: `layers` layers of 1e3..4e6 elements, each with a backward of its own sparse
/// all-gather's time (default density 0.001, 4 + 4 bytes per kept element) times `ratio` and 2^u, u
/// uniform in [-1, 1]; below ratio 1 merging pays for some layers and not others.
Trace balanced_trace(std::mt19937_64& rng, const Collective& ring, int gpus, double ratio, int layers) {
  std::uniform_int_distribution<std::int64_t> elements(1'000, 4'000'000);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> backward;
  std::vector<std::int64_t> sizes;
  for (int l = 0; l < layers; ++l) {
    sizes.push_back(elements(rng));
    const double kept_bytes = static_cast<double>(std::max<std::int64_t>(1, sizes.back() / 1000) * 8);
    backward.push_back(ring.allgather_seconds(kept_bytes, gpus) * ratio * std::exp2(unit(rng)));
  }
  return make_trace(backward, sizes);
}

/// The ring all-gather on 10 GbE (alpha 45.25 us, beta 9.934e-10 s/B).
std::unique_ptr<Collective> ten_gbe_ring() {
  const Link link{45.25e-6, 9.934107462565104e-10, 0.0};
  return find_collective("ring").make({{link, link}, 1, {}, ""});
}

/// The plain Pareto search over contiguous groupings, without pruning: after
/// the first k layers a grouping leaves the compute stream delayed by its
/// selections S and the channel free at E; boundary k keeps every state that
/// no other has beaten in both, the first by (S, E, later group start) among
/// equals. A message's tensors are ready S later than without selections, and
/// with a selection it waits for that selection, after its last layer.
/// Returns the plan that ends first (the least S among equals) and the
/// largest set kept.
std::pair<Plan, std::size_t> plain_pareto_sparse(const CommProblem& problem, double rho, const SelectionLaw& law) {
  struct Point {
    SimTime shift, channel_free;
    int from_boundary, from_state;
  };
  const auto key = [](const Point& a) { return std::tuple(a.shift, a.channel_free, -a.from_boundary); };
  const int n = problem.layer_count();
  std::vector<std::vector<Point>> front(static_cast<std::size_t>(n) + 1);
  front[0] = {{0, 0, -1, -1}};
  std::size_t widest = 1;
  for (int k = 1; k <= n; ++k) {
    std::vector<Point> candidates;
    for (int g = 0; g < k; ++g) {
      const Message m = sparse_message(problem, g, k, rho, law, 4, 4);
      const auto& from = front[static_cast<std::size_t>(g)];
      for (std::size_t i = 0; i < from.size(); ++i) {
        const SimTime shift = from[i].shift + m.selection;
        SimTime start = std::max(from[i].channel_free, problem.ready_of(m.begin, m.end) + from[i].shift);
        if (m.selection > 0) start = std::max(start, problem.layer_end[static_cast<std::size_t>(k - 1)] + shift);
        candidates.push_back({shift, start + m.duration, g, static_cast<int>(i)});
      }
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](const Point& a, const Point& b) { return key(a) < key(b); });
    auto& kept = front[static_cast<std::size_t>(k)];
    for (const Point& c : candidates) {
      if (kept.empty() || c.channel_free < kept.back().channel_free) kept.push_back(c);
    }
    widest = std::max(widest, kept.size());
  }
  const auto& last = front.back();
  const auto end = [&](const Point& p) { return std::max(problem.compute_end + p.shift, p.channel_free); };
  auto at = static_cast<std::size_t>(
      std::min_element(last.begin(), last.end(), [&](const Point& a, const Point& b) { return end(a) < end(b); }) -
      last.begin());
  Plan plan;
  for (int k = n; k > 0;) {
    const Point& p = front[static_cast<std::size_t>(k)][at];
    plan.insert(plan.begin(), sparse_message(problem, p.from_boundary, k, rho, law, 4, 4));
    at = static_cast<std::size_t>(p.from_state);
    k = p.from_boundary;
  }
  return {plan, widest};
}

}  // namespace

TEST_CASE("LAGS selection runs on the compute stream and delays the next layer's backward") {
  // Forward-order t_b = [2, 1] s, elements [4, 2] (1-byte); rho 0.5, s = 1, 1-byte values and indices;
  // all-gather 1 + m. Layer 2: backward 0..1, select t_s(2) = 2 (1..3), k = 1, 2 bytes, exchange 3..6.
  // Layer 1: backward 3..5, select t_s(4) = 8 (5..13), k = 2, 4 bytes, exchange 13..18.
  const LinearBoth cost(1, 1);
  const Setup setup(make_trace({2, 1}, {4, 2}), cost, 4);
  const ParamValues params{{"density", 0.5}, {"selection_s", 1}, {"value_bytes", 1}, {"index_bytes", 1}};
  const Plan plan = plan_with("lags", setup.problem, params);
  const Replay engine = replay(setup.classes, setup.workload.layout, plan);
  CHECK(engine.message_start == std::vector<SimTime>{3 * kSecond, 13 * kSecond});
  CHECK(engine.message_end == std::vector<SimTime>{6 * kSecond, 18 * kSecond});
  CHECK(engine.compute_end == 13 * kSecond);
  CHECK(engine.compute[0].layer_start == std::vector<SimTime>{0, 3 * kSecond});
  CHECK(engine.compute[0].selection_end == std::vector<SimTime>{3 * kSecond, 13 * kSecond});
  CHECK(evaluate_closed_form(setup.problem, plan).message_end == engine.message_end);
  // TopK: backward 0..3, select t_s(6) = 6 log2 6, then k = 3 (6 bytes): 1 + 6.
  const Plan topk = plan_with("topk", setup.problem, params);
  CHECK(end_of(setup.problem, topk) == 3 * kSecond + to_ns(6 * std::log2(6.0)) + 7 * kSecond);
  // Exact OMGS picks the cheaper of the two groupings: LAGS's 18 s.
  CHECK(end_of(setup.problem, plan_with("omgs", setup.problem, params)) == 18 * kSecond);
}

TEST_CASE("OMGS rule follows the published test step by step") {
  // Same trace. With s = 1, a = 1: at layer 2 the group {2} starts selecting at 1 for 2 s; its exchange
  // could start at 3 (no slack). wait = t_b(1) + t_s(6) - t_s(2) - t_s(4) - 0 = 2 + 15.51 - 2 - 8 = 7.51;
  // saved = (1 + 2) + (1 + 4) - (1 + 6) = 1: no merge.
  const ParamValues costly{{"density", 0.5}, {"selection_s", 1}, {"value_bytes", 1}, {"index_bytes", 1}};
  const LinearBoth small_start(1, 1);
  const Setup a(make_trace({2, 1}, {4, 2}), small_start, 4);
  CHECK(ranges(plan_with("omgs-rule", a.problem, costly)) == std::vector<std::pair<int, int>>{{0, 1}, {1, 2}});
  // With s = 0.01 and a = 5: wait = 2 + 0.155 - 0.02 - 0.08 - 0 = 2.055 < saved = 7 + 9 - 11 = 5: merge.
  // One message: backward 0..3, select t_s(6) = 0.06 log2 6 * ... = 0.155 s, exchange 5 + 6.
  const ParamValues cheap{{"density", 0.5}, {"selection_s", 0.01}, {"value_bytes", 1}, {"index_bytes", 1}};
  const LinearBoth big_start(5, 1);
  const Setup b(make_trace({2, 1}, {4, 2}), big_start, 4);
  const Plan merged = plan_with("omgs-rule", b.problem, cheap);
  CHECK(ranges(merged) == std::vector<std::pair<int, int>>{{0, 2}});
  CHECK(end_of(b.problem, merged) == 3 * kSecond + to_ns(0.01 * 6 * std::log2(6.0)) + 11 * kSecond);
  // LAGS would end at 17.02 s: layer 2 exchange 1.02..8.02, layer 1's waits for the channel, 8.02 + 9.
  CHECK(end_of(b.problem, plan_with("lags", b.problem, cheap)) == to_ns(17.02));
}

TEST_CASE("OMGS equals exhaustive search over contiguous groupings") {
  std::mt19937_64 rng(99);
  const Link link{45.25e-6, 1e-9, 2.5e-9};
  // On a shared fabric (1e-11 s/byte, binding from 128 GPUs) the all-gather is the larger of the
  // model and a floor in its bytes: convex, no longer a line (a red team's
  // crash: the completion bound assumed one).
  for (const double fabric : {0.0, 1e-11}) {
    const CollectiveSettings settings{{link, link, fabric}, 1, {}, "", {}};
    for (std::string_view model : {"ring", "recursive-doubling"}) {
      const auto collective = find_collective(model).make(settings);
      for (int trial = 0; trial < 80; ++trial) {
        // 16..2048 GPUs; half the traces with per-tensor ready offsets.
        const Setup setup(random_trace(rng, 14, trial % 4 >= 2), *collective, 16 << (trial % 8));
        const double rho = trial % 2 ? 0.01 : 0.3;
        const double s = trial % 3 ? 2.19e-10 : 2e-8;
        const ParamValues params{{"density", rho}, {"selection_s", s}};
        INFO(model << " fabric " << fabric << " trial " << trial);
        CHECK(end_of(setup.problem, plan_with("omgs", setup.problem, params)) ==
              exhaustive_sparse(setup.problem, rho, d_log_d(s)));
      }
    }
  }
}

TEST_CASE("OMGS equals exhaustive search on balanced traces") {
  // Issue 28's balance (balanced_trace), the inputs where the search prunes least.
  std::mt19937_64 rng(28);
  const auto ring = ten_gbe_ring();
  int merging = 0;  // trials whose best plan merges some layers and not all
  for (int trial = 0; trial < 24; ++trial) {
    const int gpus = trial % 2 ? 2048 : 256;
    const double ratio = std::vector<double>{1.0, 0.5, 0.25, 0.12}[static_cast<std::size_t>(trial / 2 % 4)];
    const Setup setup(balanced_trace(rng, *ring, gpus, ratio, 14), *ring, gpus);
    INFO("trial " << trial << ", ratio " << ratio << ", " << gpus << " GPUs");
    const Plan plan = plan_with("omgs", setup.problem, {});
    CHECK(end_of(setup.problem, plan) == exhaustive_sparse(setup.problem, 0.001, d_log_d(2.19e-10)));
    merging += plan.size() > 1 && plan.size() < 14;
  }
  CHECK(merging >= 6);  // the inputs of interest are among them
}

TEST_CASE("OMGS plans what the plain Pareto search plans on balanced traces of 80 layers") {
  // The balance of the test above, where the Pareto sets grow to thousands of states: the search's
  // lazy merge of the moved sets, its skips over dominated stretches and its cuts by the bound must
  // give the plain search's plan itself (same groups), not only its end. A quarter of the traces
  // are random_trace's, with per-tensor ready offsets.
  std::mt19937_64 rng(2811);
  const auto ring = ten_gbe_ring();
  std::size_t widest = 0;
  for (int trial = 0; trial < 48; ++trial) {
    const int gpus = trial % 2 ? 2048 : 256;
    const double ratio = std::vector<double>{0.5, 0.25, 0.12, 0.06}[static_cast<std::size_t>(trial / 2 % 4)];
    const Trace balanced = balanced_trace(rng, *ring, gpus, ratio, 80);
    const Setup setup(trial % 8 >= 6 ? random_trace(rng, 80, true) : balanced, *ring, gpus);
    INFO("trial " << trial << ", ratio " << ratio << ", " << gpus << " GPUs");
    const auto [plain, sets] = plain_pareto_sparse(setup.problem, 0.001, d_log_d(2.19e-10));
    const Plan plan = plan_with("omgs", setup.problem, {});
    CHECK(ranges(plan) == ranges(plain));
    CHECK(end_of(setup.problem, plan) == end_of(setup.problem, plain));
    widest = std::max(widest, sets);
  }
  CHECK(widest >= 500);  // sets large enough for long runs and skips
}

TEST_CASE("OMGS keeps the same one of equal states as the plain Pareto search") {
  // Backwards of whole milliseconds, three tensor sizes, free selection and T(m) = 1 ms + 1 us/B: many
  // groupings leave the same (S, E), and which one a set keeps decides the plan.
  std::mt19937_64 rng(3);
  const LinearBoth cost(1e-3, 1e-6);
  std::uniform_int_distribution<int> pick(1, 3), layers(12, 30);
  const ParamValues params{{"density", 0.5}, {"selection_s", 0}};
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<double> backward;
    std::vector<std::int64_t> sizes;
    for (int l = layers(rng); l > 0; --l) {
      backward.push_back(pick(rng) * 1e-3);
      sizes.push_back(pick(rng) * 1000);
    }
    const Setup setup(make_trace(backward, sizes), cost, 4);
    INFO("trial " << trial);
    const Plan plain = plain_pareto_sparse(setup.problem, 0.5, d_log_d(0)).first;
    CHECK(ranges(plan_with("omgs", setup.problem, params)) == ranges(plain));
  }
}

TEST_CASE("OMGS with a measured selection curve equals exhaustive search") {
  // One curve point above every group's size: selection is proportional to d,
  // y d / x (docs/sparse.md), so merging never costs extra selection.
  std::mt19937_64 rng(17);
  const Link link{45.25e-6, 1e-9, 2.5e-9};
  const auto ring = find_collective("ring").make({{link, link}, 1, {}, ""});
  for (int trial = 0; trial < 40; ++trial) {
    const double per_element = trial % 2 ? 5e-9 : 2e-10;
    const SparseOptions curve{{}, {{100'000'000, per_element * 1e8}}};
    const SelectionLaw law = [&](double d) { return d > 1 ? per_element * 1e8 * d / 1e8 : 0.0; };
    const Setup setup(random_trace(rng, 14, true), *ring, 16 << (trial % 8));
    const ParamValues params{{"density", 0.01}};
    INFO("trial " << trial);
    CHECK(end_of(setup.problem, make_schedule("omgs", params, curve)->plan(setup.problem)) ==
          exhaustive_sparse(setup.problem, 0.01, law));
  }
}

TEST_CASE("OMGS is never slower than LAGS, TopK or the OMGS rule") {
  std::mt19937_64 rng(5);
  const Link link{45.25e-6, 1e-9, 2.5e-9};
  const auto ring = find_collective("ring").make({{link, link}, 1, {}, ""});
  for (int trial = 0; trial < 60; ++trial) {
    const Setup setup(random_trace(rng, 50), *ring, 2 << (trial % 10));
    const ParamValues params{{"density", trial % 2 ? 0.001 : 0.05}, {"selection_s", trial % 3 ? 2.19e-10 : 5e-9}};
    const SimTime best = end_of(setup.problem, plan_with("omgs", setup.problem, params));
    for (std::string_view other : {"lags", "topk", "omgs-rule"}) {
      INFO("trial " << trial << " vs " << other);
      CHECK(best <= end_of(setup.problem, plan_with(other, setup.problem, params)));
    }
  }
}

TEST_CASE("with rho = 1, free selection and all-gather = all-reduce, sparse schedules are the dense ones") {
  // rho = 1 keeps every element; 1-byte values (the trace's dtype) and 0-byte indices make each
  // GPU send exactly the dense bytes, and the test collective prices all-gather like all-reduce.
  // Then lags = wfbp, topk = single, omgs = optimal, omgs-rule = mgwfbp (its test reduces to
  // ready(l-1) - tau_c(l) < T(p_l) + T(p_l-1) - T(p_l + p_l-1) = a for affine T).
  std::mt19937_64 rng(11);
  const LinearBoth cost(3e-3, 2e-9);
  const ParamValues dense_like{{"density", 1}, {"selection_s", 0}, {"value_bytes", 4}, {"index_bytes", 0}};
  const std::pair<std::string_view, std::string_view> pairs[] = {
      {"lags", "wfbp"}, {"topk", "single"}, {"omgs", "optimal"}, {"omgs-rule", "mgwfbp"}};
  for (int trial = 0; trial < 40; ++trial) {
    const Setup setup(random_trace(rng, 30), cost, 8);
    for (const auto& [sparse, dense] : pairs) {
      INFO("trial " << trial << ": " << sparse << " vs " << dense);
      const Plan a = plan_with(sparse, setup.problem, dense_like);
      const Plan b = plan_with(dense, setup.problem, {});
      CHECK(end_of(setup.problem, a) == end_of(setup.problem, b));
      if (sparse != "omgs") CHECK(ranges(a) == ranges(b));  // optimal ties may group differently
    }
  }
}

TEST_CASE("bad sparse parameters are config errors") {
  CHECK_THROWS_AS(make_schedule("lags", {{"density", 0}}), ConfigError);
  CHECK_THROWS_AS(make_schedule("lags", {{"density", 1.5}}), ConfigError);
  CHECK_THROWS_AS(make_schedule("omgs", {{"selection_s", -1}}), ConfigError);
  CHECK_THROWS_AS(make_schedule("topk", {{"value_bytes", 0}}), ConfigError);
  // Bytes are whole: 0.4 once rounded to 0-byte exchanges.
  CHECK_THROWS_WITH(make_schedule("topk", {{"value_bytes", 0.4}}),
                    "schedule 'topk': parameter 'value_bytes' must be a finite whole number > 0 and <= 16, got 0.4");
  CHECK_THROWS_WITH(make_schedule("omgs", {{"index_bytes", 4.5}}),
                    "schedule 'omgs': parameter 'index_bytes' must be a finite whole number >= 0 and <= 16, got 4.5");
  CHECK_NOTHROW(make_schedule("omgs", {{"density", 1}, {"selection_s", 0}, {"index_bytes", 0}}));
}

TEST_CASE("sparse schedules refuse measured all-reduce curves without an all-gather curve") {
  CollectiveSettings settings{{}, 1, {{4, 100, 1e-3}}, "curve.json", {}};
  const auto measured = find_collective("measured").make(settings);
  const Setup setup(make_trace({1, 1}, {4, 2}), *measured, 4);
  CHECK_THROWS_AS(plan_with("lags", setup.problem, {}), ConfigError);
  // With a measured all-gather curve at 4 GPUs the all-gathers have a price.
  settings.allgather_curve = {{4, 1, 1e-4}, {4, 1 << 20, 1e-3}};
  const auto with_gather = find_collective("measured").make(settings);
  const Setup priced(make_trace({1, 1}, {4, 2}), *with_gather, 4);
  CHECK_NOTHROW(plan_with("lags", priced.problem, {}));
}

TEST_CASE("per-layer densities override the global one, and a merged group keeps their sum") {
  // Forward layers layer1 (4 elements) and layer2 (2); density 0.5, layer1 at 1.0; 1-byte values and indices.
  // LAGS: layer2 keeps floor(0.5 * 2) = 1 -> 2 bytes; layer1 keeps 4 -> 8 bytes.
  // TopK: one group keeps floor(1.0 * 4 + 0.5 * 2) = 5 -> 10 bytes.
  const LinearBoth cost(1, 1);
  const Setup setup(make_trace({2, 1}, {4, 2}), cost, 4);
  const ParamValues params{{"density", 0.5}, {"value_bytes", 1}, {"index_bytes", 1}};
  const SparseOptions sparse{{{"layer1", 1.0}}, {}};
  const Plan lags = make_schedule("lags", params, sparse)->plan(setup.problem);
  REQUIRE(lags.size() == 2);
  CHECK(lags[0].sent_bytes == 2);
  CHECK(lags[1].sent_bytes == 8);
  CHECK(make_schedule("topk", params, sparse)->plan(setup.problem)[0].sent_bytes == 10);
  CHECK_THROWS_AS(make_schedule("lags", params, SparseOptions{{{"conv9", 0.1}}, {}})->plan(setup.problem), ConfigError);
  CHECK_THROWS_AS(make_schedule("lags", params, SparseOptions{{{"layer1", 0.0}}, {}}), ConfigError);
  CHECK_THROWS_AS(make_schedule("wfbp", {}, sparse), ConfigError);
}

TEST_CASE("a measured selection curve replaces s d log2 d") {
  // Points (100 elements, 1 ms) and (1000, 5 ms). 550 elements: halfway, 3 ms. 50: 50/100 of 1 ms.
  // 2000: the d log2 d shape through the last point, 5 ms * 2000 log2 2000 / (1000 log2 1000).
  const LinearBoth cost(1e-3, 1e-9);
  const SparseOptions curve{{}, {{1000, 5e-3}, {100, 1e-3}}};
  const auto selection_for = [&](std::int64_t elements) {
    const Setup setup(make_trace({1e-3}, {elements}), cost, 4);
    return make_schedule("topk", {}, curve)->plan(setup.problem)[0].selection;
  };
  CHECK(selection_for(550) == to_ns(3e-3));
  CHECK(selection_for(50) == to_ns(0.5e-3));
  CHECK(selection_for(100) == to_ns(1e-3));
  CHECK(selection_for(2000) == to_ns(5e-3 * 2000 * std::log2(2000.0) / (1000 * std::log2(1000.0))));
  // One element: 1/100 of 1 ms by the curve (s d log2 d would make it free).
  CHECK(selection_for(1) == to_ns(1e-5));
  CHECK_THROWS_AS(make_schedule("topk", {}, SparseOptions{{}, {{0, 1e-3}}}), ConfigError);
}
