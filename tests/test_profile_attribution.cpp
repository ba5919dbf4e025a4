// The attribution of gradient-ready times (records.hpp, layer_timing.hpp,
// layer_profile.hpp) on synthetic record streams: the rule "end of the last
// GPU work launched by the marker's thread before the marker, on that work's
// stream", records in any order, several threads and streams, missing and
// duplicate markers, incomplete iterations; then medians, layers, and a whole
// profile written and read back as a trace. Every expectation is derived by
// hand in the comment next to it (times in ns).

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/median.hpp"
#include "mgsim/profile/allreduce_bench.hpp"
#include "mgsim/profile/device.hpp"
#include "mgsim/profile/layer_profile.hpp"
#include "mgsim/profile/output.hpp"
#include "test_data.hpp"

namespace {

using namespace mgsim;
using namespace mgsim::profile;

constexpr std::uint64_t kMain = 1, kAutograd = 2, kComm = 3;

/// Builds record streams: each launch gets the next correlation id.
struct Records {
  RecordSet set;
  std::uint64_t next = 100;

  void work(std::uint64_t thread, std::int64_t launch, std::uint32_t stream, std::int64_t start, std::int64_t end) {
    set.launches.push_back({next, thread, launch});
    set.activities.push_back({next, 0, stream, start, end});
    ++next;
  }
  void iteration(int i, std::int64_t begin, std::int64_t backward, std::int64_t end) {
    set.markers.push_back({MarkerKind::iteration_begin, begin, kMain, i});
    set.markers.push_back({MarkerKind::backward_begin, backward, kMain, i});
    set.markers.push_back({MarkerKind::iteration_end, end, kMain, i});
  }
  void grad(int param, std::int64_t time, std::uint64_t thread = kAutograd) {
    set.markers.push_back({MarkerKind::grad_ready, time, thread, param});
  }
  /// An NCCL kernel launched by `thread`.
  void collective(std::uint64_t thread, std::int64_t launch, std::uint32_t stream, std::int64_t start,
                  std::int64_t end) {
    set.launches.push_back({next, thread, launch});
    set.activities.push_back({next, 0, stream, start, end, true});
    ++next;
  }
  /// The comm hook's marker before it launches an all-reduce of `bytes`.
  void comm(std::int64_t bytes, std::int64_t time, std::uint64_t thread = kAutograd) {
    set.markers.push_back({MarkerKind::comm_launch, time, thread, 0, bytes});
  }
};

/// One iteration starting at `t0`: forward kernels from t0+10, backward
/// launched from t0+100 on the autograd thread, stream 7:
///   launch t0+110 -> kernel [t0+120, t0+150]; marker p0 at t0+115 (before it!)
///   launch t0+130 -> kernel [t0+150, t0+190]; marker p1 at t0+140
///   launch t0+160 -> kernel [t0+190, t0+200]; marker p2 at t0+170
void simple_iteration(Records& r, int i, std::int64_t t0) {
  r.iteration(i, t0, t0 + 100, t0 + 300);
  r.work(kMain, t0 + 5, 7, t0 + 10, t0 + 60);
  r.work(kMain, t0 + 20, 7, t0 + 60, t0 + 110);
  r.work(kAutograd, t0 + 110, 7, t0 + 120, t0 + 150);
  r.grad(0, t0 + 115);
  r.work(kAutograd, t0 + 130, 7, t0 + 150, t0 + 190);
  r.grad(1, t0 + 140);
  r.work(kAutograd, t0 + 160, 7, t0 + 190, t0 + 200);
  r.grad(2, t0 + 170);
}

TEST_CASE("profile: a gradient is ready when the last kernel launched before its marker ends", "[profile]") {
  Records r;
  simple_iteration(r, 0, 1000);
  AttributionNotes notes;
  const auto timings = attribute_iterations(r.set, 3, notes);
  REQUIRE(timings.size() == 1);
  // Forward: first forward kernel starts at 1010, first backward kernel at 1120: 110.
  CHECK(timings[0].forward_ns == 110);
  // Backward starts on the GPU at 1120. p1's marker (1140) follows the launch at
  // 1130 whose kernel ends at 1190: 70. p2: kernel launched at 1160 ends at 1200: 80.
  CHECK(timings[0].ready_ns[1] == 70);
  CHECK(timings[0].ready_ns[2] == 80);
  CHECK(timings[0].backward_ns == 80);
  // p0's marker (1115) follows the launch at 1110 (kernel ends 1150): 30.
  CHECK(timings[0].ready_ns[0] == 30);
  CHECK(notes.markers_without_work == 0);
}

TEST_CASE("profile: records in any order give the same times", "[profile]") {
  Records r;
  simple_iteration(r, 0, 1000);
  simple_iteration(r, 1, 5000);
  AttributionNotes sorted_notes, shuffled_notes;
  const auto sorted = attribute_iterations(r.set, 3, sorted_notes);
  std::mt19937_64 rng(7);
  for (int round = 0; round < 5; ++round) {
    RecordSet shuffled = r.set;
    std::shuffle(shuffled.activities.begin(), shuffled.activities.end(), rng);
    std::shuffle(shuffled.launches.begin(), shuffled.launches.end(), rng);
    std::shuffle(shuffled.markers.begin(), shuffled.markers.end(), rng);
    const auto timings = attribute_iterations(shuffled, 3, shuffled_notes);
    REQUIRE(timings.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
      CHECK(timings[i].iteration == sorted[i].iteration);
      CHECK(timings[i].forward_ns == sorted[i].forward_ns);
      CHECK(timings[i].ready_ns == sorted[i].ready_ns);
    }
  }
}

TEST_CASE("profile: other threads' work and the marker thread's stream decide nothing else", "[profile]") {
  Records r;
  r.iteration(0, 0, 100, 1000);
  r.work(kMain, 5, 7, 10, 90);
  r.work(kAutograd, 110, 7, 120, 200);  // compute stream
  // A communication thread launches a long all-reduce on stream 13 before the
  // marker: another thread, so it never counts.
  r.work(kComm, 150, 13, 150, 900);
  r.grad(0, 210);
  // The autograd thread then launches on stream 7 (ends 300) and on a side
  // stream 9 (ends 260, launched last): p1 follows the stream of the last launch.
  r.work(kAutograd, 220, 7, 225, 300);
  r.work(kAutograd, 230, 9, 240, 260);
  r.grad(1, 240);
  AttributionNotes notes;
  const auto timings = attribute_iterations(r.set, 2, notes);
  // Backward GPU start: earliest start of work launched after 100: 120.
  // p0: last autograd launch before 210 is at 110 (stream 7, ends 200): 80.
  CHECK(timings[0].ready_ns[0] == 80);
  // p1: last launch before 240 is at 230 on stream 9; its latest end there is 260: 140.
  CHECK(timings[0].ready_ns[1] == 140);
}

TEST_CASE("profile: GPU work that starts before the call that launched it is refused", "[profile]") {
  // Launched at 110, started at 105: the clocks disagree or the records are damaged.
  Records r;
  r.iteration(0, 0, 100, 1000);
  r.work(kMain, 5, 7, 10, 90);
  r.work(kAutograd, 110, 7, 105, 200);
  r.grad(0, 210);
  AttributionNotes notes;
  CHECK_THROWS_WITH(attribute_iterations(r.set, 1, notes),
                    Catch::Contains("starts at 105 ns, before its launch at 110 ns: a damaged trace or clocks that "
                                    "disagree"));
}

TEST_CASE("profile: a missing marker leaves its parameter out of that iteration only", "[profile]") {
  Records r;
  simple_iteration(r, 0, 1000);
  // Iteration 1 has no marker for p2.
  r.iteration(1, 5000, 5100, 5300);
  r.work(kMain, 5005, 7, 5010, 5060);
  r.work(kAutograd, 5110, 7, 5120, 5150);
  r.grad(0, 5115);
  r.work(kAutograd, 5130, 7, 5150, 5200);
  r.grad(1, 5140);
  AttributionNotes notes;
  const auto timings = attribute_iterations(r.set, 4, notes);
  REQUIRE(timings.size() == 2);
  CHECK_FALSE(timings[1].ready_ns[2].has_value());
  const TimingSummary summary = summarize(timings, 4);
  // p1: 70 in iteration 0, 5200 - 5120 = 80 in iteration 1: median 75.
  CHECK(summary.ready_ns[1] == 75.0);
  CHECK(summary.ready_spread_ns[1] == 10.0);
  CHECK(summary.samples == std::vector<int>{2, 2, 1, 0});
  CHECK(summary.ready_ns[2] == 80.0);  // iteration 0 only
  // p3 was never marked: left out of the trace and reported.
  const std::vector<ParamInfo> params = {
      {"a.w", "a", 10, 4}, {"b.w", "b", 20, 4}, {"c.w", "c", 30, 4}, {"d.w", "d", 40, 4}};
  const BuiltTrace built = build_trace(params, summary, "m", 8);
  CHECK(built.unused_parameters == std::vector<std::string>{"d.w"});
  CHECK(built.trace.layers.size() == 3);
}

TEST_CASE("profile: incomplete iterations are dropped and counted, none complete is an error", "[profile]") {
  Records r;
  simple_iteration(r, 0, 1000);
  // Iteration 1 lost its end marker (the process was killed).
  r.set.markers.push_back({MarkerKind::iteration_begin, 5000, kMain, 1});
  r.set.markers.push_back({MarkerKind::backward_begin, 5100, kMain, 1});
  r.grad(0, 5200);
  AttributionNotes notes;
  const auto timings = attribute_iterations(r.set, 3, notes);
  CHECK(timings.size() == 1);
  CHECK(notes.incomplete_iterations == 1);
  CHECK(notes.stray_markers == 1);  // the marker at 5200 lies in no complete window

  Records empty;
  empty.iteration(0, 0, 100, 200);  // no backward GPU work at all
  AttributionNotes none;
  CHECK_THROWS_AS(attribute_iterations(empty.set, 1, none), TraceError);
}

TEST_CASE("profile: a parameter marked twice in one iteration keeps the last marker", "[profile]") {
  Records r;
  simple_iteration(r, 0, 1000);
  r.grad(0, 1170);  // a tied weight accumulated again after the launch at 1160
  AttributionNotes notes;
  const auto timings = attribute_iterations(r.set, 3, notes);
  CHECK(notes.duplicate_markers == 1);
  CHECK(timings[0].ready_ns[0] == 80);  // like p2: kernel ends at 1200, backward started at 1120
}

TEST_CASE("profile: a marker with no work before it is ready at the backward start", "[profile]") {
  Records r;
  r.iteration(0, 0, 100, 500);
  r.work(kMain, 5, 7, 10, 90);
  r.grad(0, 105);  // before any backward launch of its thread
  r.work(kAutograd, 110, 7, 120, 200);
  r.grad(1, 150, 99);  // thread 99 launched nothing: matched against every thread
  AttributionNotes notes;
  const auto timings = attribute_iterations(r.set, 2, notes);
  CHECK(timings[0].ready_ns[0] == 0);
  CHECK(notes.markers_without_work == 1);
  CHECK(timings[0].ready_ns[1] == 80);  // the launch at 110 (any thread) ends at 200; start 120
  CHECK(notes.markers_any_thread == 1);
}

TEST_CASE("median of an even count is the mean of the two middle values; of none, 0") {
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({5, 1, 3}) == 3.0);
  CHECK(median({}) == 0.0);
}

/// Two layers in framework order, "a" (100 and 10 elements, 4 bytes) and "b"
/// (200 and 20, 2 bytes); over 3 iterations a forward of 500 and the
/// parameters ready at 100, 60, 30, 20: "b" finishes first.
const std::vector<ParamInfo> kTwoLayers = {
    {"a.weight", "a", 100, 4}, {"a.bias", "a", 10, 4}, {"b.weight", "b", 200, 2}, {"b.bias", "b", 20, 2}};
TimingSummary two_layer_summary() {
  TimingSummary summary;
  summary.iterations = 3;
  summary.forward_ns = 500;
  summary.ready_ns = {100, 60, 30, 20};
  summary.ready_spread_ns = {1, 2, 3, 4};
  summary.samples = {3, 3, 3, 3};
  return summary;
}

TEST_CASE("profile: layers follow the order their gradients finish, gaps are backward times", "[profile]") {
  // Parameters in framework order; layer "b" finishes first (ready 30), then
  // "a" (ready 100): backward order b, a; forward order a, b.
  const std::vector<ParamInfo>& params = kTwoLayers;
  TimingSummary summary = two_layer_summary();
  const BuiltTrace built = build_trace(params, summary, "toy", 16);
  REQUIRE(built.trace.layers.size() == 2);
  const Layer& a = built.trace.layers[0];
  const Layer& b = built.trace.layers[1];
  CHECK(a.name == "a");
  CHECK(b.name == "b");
  // b: starts at 0, ends at 30: 30 ns; tensors ready at 30 and 20.
  CHECK(b.backward_time_s == Approx(30e-9));
  CHECK(b.grad_ready_s[0] == Approx(30e-9));
  CHECK(b.grad_ready_s[1] == Approx(20e-9));
  CHECK(b.dtype_bytes == 2);
  // a: starts at 30, ends at 100: 70 ns; tensors at 100 - 30 = 70 and 60 - 30 = 30.
  CHECK(a.backward_time_s == Approx(70e-9));
  CHECK(a.grad_ready_s[0] == Approx(70e-9));
  CHECK(a.grad_ready_s[1] == Approx(30e-9));
  CHECK(a.params == std::vector<std::int64_t>{100, 10});
  CHECK(built.trace.forward_time_s == Approx(500e-9));
  CHECK(built.clamped_tensors == 0);

  // A tensor of "a" ready at 25, before "a" starts (30): offset clamped to 0.
  summary.ready_ns[1] = 25;
  const BuiltTrace clamped = build_trace(params, summary, "toy", 16);
  CHECK(clamped.clamped_tensors == 1);
  CHECK(clamped.trace.layers[0].grad_ready_s[1] == 0.0);
}

TEST_CASE("profile: a forward marker ends its layer's forward when the work launched before it ends", "[profile]") {
  // simple_iteration's forward: kernels [10, 60] (launched 5) and [60, 110]
  // (launched 20) from t0 = 1000. Layer of p2 marked at 1010 (after the first
  // launch): its forward ends at 1060, 50 after the forward's start (1010).
  // Layer of p0 marked at 1030: ends at 1110: 100. p1 unmarked. A forward
  // marker in the backward (1150) belongs to no forward: stray.
  Records r;
  simple_iteration(r, 0, 1000);
  r.set.markers.push_back({MarkerKind::forward_done, 1010, kMain, 2});
  r.set.markers.push_back({MarkerKind::forward_done, 1030, kMain, 0});
  r.set.markers.push_back({MarkerKind::forward_done, 1150, kMain, 1});
  AttributionNotes notes;
  const auto timings = attribute_iterations(r.set, 3, notes);
  REQUIRE(timings.size() == 1);
  CHECK(timings[0].forward_done_ns[2] == 50);
  CHECK(timings[0].forward_done_ns[0] == 100);
  CHECK_FALSE(timings[0].forward_done_ns[1].has_value());
  CHECK(notes.stray_markers == 1);
  CHECK(timings[0].ready_ns[1] == 70);  // the gradients are as without forward markers
  CHECK(parse_marker_name("mgsim:fwd:4")->kind == MarkerKind::forward_done);
  CHECK(parse_marker_name("mgsim:fwd:4")->index == 4);
}

TEST_CASE("profile: per-layer forward times are the gaps between forward ends, the last up to the forward",
          "[profile]") {
  // Forward order a, b (as in the test above). a's forward ends at 120 (its
  // parameters marked 120 and 80: the later counts), b's at 300; the forward
  // lasts 500: a 120 ns, b the rest, 380 ns; they sum to the forward.
  const std::vector<ParamInfo>& params = kTwoLayers;
  TimingSummary summary = two_layer_summary();
  summary.forward_done_ns = {120, 80, 300, 0};
  summary.forward_samples = {3, 3, 3, 0};
  const BuiltTrace built = build_trace(params, summary, "toy", 16);
  REQUIRE(has_layer_forward(built.trace));
  CHECK(built.trace.layers[0].forward_time_s == Approx(120e-9));
  CHECK(built.trace.layers[1].forward_time_s == Approx(380e-9));
  // a's forward marked at 320, after b's (300): a takes 320 ns and b, the
  // last layer, still takes the rest of the forward, 180 ns.
  summary.forward_done_ns = {320, 80, 300, 0};
  const BuiltTrace late = build_trace(params, summary, "toy", 16);
  CHECK(late.trace.layers[0].forward_time_s == Approx(320e-9));
  CHECK(late.trace.layers[1].forward_time_s == Approx(180e-9));
  // No marker for b: one forward time for the trace (version 1).
  summary.forward_samples = {3, 3, 0, 0};
  const BuiltTrace unknown = build_trace(params, summary, "toy", 16);
  CHECK_FALSE(has_layer_forward(unknown.trace));
  CHECK(unknown.trace.forward_time_s == Approx(500e-9));
}

TEST_CASE("profile: the record file is read back, malformed lines name the line", "[profile]") {
  std::istringstream good(
      "# mgsim-cupti-records 1\n"
      "I\tdevice0\tExample GPU\n"
      "A\t101\t0\t7\t1000\t2000\tK\n"
      "L\t101\t55\t900\n"
      "M\t55\t950\tmgsim:iter:backward:3\n"
      "M\t55\t960\tsomebody else's marker\n"
      "M\t55\t2100\tmgsim:grad:12\n");
  const RecordSet r = read_record_file(good, "rec.tsv");
  CHECK(r.info.at("device0") == "Example GPU");
  REQUIRE(r.activities.size() == 1);
  CHECK(r.activities[0].stream == 7);
  CHECK(r.activities[0].end_ns == 2000);
  REQUIRE(r.launches.size() == 1);
  CHECK(r.launches[0].thread == 55);
  REQUIRE(r.markers.size() == 2);  // the foreign marker is ignored
  CHECK(r.markers[0].kind == MarkerKind::backward_begin);
  CHECK(r.markers[0].index == 3);
  CHECK(r.markers[1].kind == MarkerKind::grad_ready);
  CHECK(r.markers[1].index == 12);

  std::istringstream header("# something else\n");
  CHECK_THROWS_WITH(read_record_file(header, "rec.tsv"), Catch::Contains("rec.tsv: line 1"));
  std::istringstream bad("# mgsim-cupti-records 1\nA\t1\t0\t7\t2000\t1000\tK\n");  // ends before it starts
  CHECK_THROWS_WITH(read_record_file(bad, "rec.tsv"), Catch::Contains("rec.tsv: line 2: malformed record"));
  CHECK_FALSE(parse_marker_name("mgsim:grad:-1").has_value());
  CHECK_FALSE(parse_marker_name("mgsim:grad:x").has_value());
  CHECK(parse_marker_name("mgsim:iter:end:0")->kind == MarkerKind::iteration_end);
}

TEST_CASE("profile: a whole profile is written and loads back as a trace", "[profile]") {
  const nlohmann::json description = {
      {"format", "mgsim-profile-model"},
      {"version", 1},
      {"model", "toy"},
      {"batch_size", 32},
      {"precision", "bf16"},
      {"warmup", 2},
      {"iterations", 2},
      {"params",
       {{{"name", "fc1.weight"}, {"layer", "fc1"}, {"elements", 1000}, {"dtype_bytes", 4}},
        {{"name", "fc1.bias"}, {"layer", "fc1"}, {"elements", 10}, {"dtype_bytes", 4}},
        {{"name", "fc2.weight"}, {"layer", "fc2"}, {"elements", 500}, {"dtype_bytes", 4}}}},
      {"provenance", {{"framework", "PyTorch (test)"}, {"gpu", "none (synthetic records)"}}}};
  const ModelDescription model = parse_model_description(description, "model.json");
  Records r;
  simple_iteration(r, 0, 1000);
  simple_iteration(r, 1, 5000);
  const LayerProfile profile = assemble_layer_profile(model, {&r.set, 1}, "mgsim profile layers --model toy");
  // Ready 30 (fc1.weight), 70 (fc1.bias), 80 (fc2.weight) in both iterations.
  // fc1 finishes at 70, fc2 at 80: the backward runs fc1 (0..70) then fc2
  // (70..80), so in forward order fc2 comes first and fc1 last.
  REQUIRE(profile.trace.layers.size() == 2);
  CHECK(profile.trace.layers[0].name == "fc2");
  CHECK(profile.trace.layers[0].backward_time_s == Approx(10e-9));
  CHECK(profile.trace.layers[1].name == "fc1");
  CHECK(profile.trace.layers[1].backward_time_s == Approx(70e-9));
  REQUIRE(profile.trace.layers[1].grad_ready_s.size() == 2);
  CHECK(profile.trace.layers[1].grad_ready_s[0] == Approx(30e-9));
  CHECK(profile.trace.layers[1].grad_ready_s[1] == Approx(70e-9));
  CHECK(profile.provenance["precision"] == "bf16");
  CHECK(profile.provenance["framework"] == "PyTorch (test)");
  CHECK(profile.provenance["statistics"]["iterations"] == 2);

  const std::filesystem::path file = std::filesystem::temp_directory_path() / "mgsim-test-profile-trace.json";
  {
    std::ofstream out(file);
    out << format_trace_json(profile.trace, profile.provenance);
  }
  const Trace loaded = load_trace(file);
  std::filesystem::remove(file);
  CHECK(loaded.model == "toy");
  CHECK(loaded.batch_size == 32);
  CHECK(loaded.layers.size() == 2);
  CHECK(loaded.layers[1].params == std::vector<std::int64_t>{1000, 10});

  nlohmann::json wrong = description;
  wrong["params"][0]["elements"] = 0;
  CHECK_THROWS_WITH(parse_model_description(wrong, "model.json"), Catch::Contains("params[0].elements"));
}

TEST_CASE("profile: the helper's description, as it writes one, is read whole", "[profile]") {
  // tests/data/profile-model-fake.json: written by
  // profiler/mgsim_profile_model.py --model toy_model:build --batch 4
  // --warmup 1 --iterations 3 --optimizer momentum under tests/fake_torch
  // (tests/profile_cli_test.sh checks that a fresh run writes the same keys).
  const ModelDescription d = read_model_description(mgsim::test::kTestData + "profile-model-fake.json");
  CHECK(d.model == "toy_model:build");
  CHECK(d.batch_size == 4);
  CHECK(d.iterations == 3);
  REQUIRE(d.params.size() == 3);
  CHECK(d.params[2].name == "fc2.weight");
  CHECK(d.params[2].elements == 500);
  REQUIRE(d.optimizer);
  CHECK(*d.optimizer == Optimizer::momentum);
  CHECK(d.unrecorded_forward_backward_s >= 0.007);  // the stand-in sleeps 3 + 4 ms
  CHECK(d.unrecorded_optimizer_step_s >= 0.002);    // and 2 ms in the step
}

TEST_CASE("profile: recording overhead is scaled out to the unrecorded forward + backward", "[profile]") {
  nlohmann::json description = {
      {"format", "mgsim-profile-model"},
      {"version", 1},
      {"model", "toy"},
      {"batch_size", 32},
      {"precision", "fp32"},
      {"warmup", 2},
      {"iterations", 2},
      {"params",
       {{{"name", "fc1.weight"}, {"layer", "fc1"}, {"elements", 1000}, {"dtype_bytes", 4}},
        {{"name", "fc2.weight"}, {"layer", "fc2"}, {"elements", 500}, {"dtype_bytes", 4}}}},
      {"provenance", nlohmann::json::object()}};
  Records r;
  simple_iteration(r, 0, 1000);
  simple_iteration(r, 1, 5000);
  const auto profile_with = [&](const nlohmann::json& d) {
    return assemble_layer_profile(parse_model_description(d, "model.json"), {&r.set, 1}, "x");
  };
  const LayerProfile recorded = profile_with(description);
  const auto total = [](const Trace& t) {
    double s = t.forward_time_s;
    for (const Layer& layer : t.layers) s += layer.backward_time_s;
    return s;
  };
  const double recorded_s = total(recorded.trace);
  REQUIRE(recorded_s > 0);
  CHECK_FALSE(recorded.provenance.contains("recording_overhead"));

  SECTION("a slower recorded run is scaled down: every time by unrecorded / recorded") {
    description["unrecorded_forward_backward_s"] = recorded_s / 4;
    const LayerProfile scaled = profile_with(description);
    CHECK(total(scaled.trace) == Approx(recorded_s / 4));
    CHECK(scaled.trace.forward_time_s == Approx(recorded.trace.forward_time_s / 4));
    for (std::size_t l = 0; l < scaled.trace.layers.size(); ++l) {
      CHECK(scaled.trace.layers[l].backward_time_s == Approx(recorded.trace.layers[l].backward_time_s / 4));
      CHECK(scaled.trace.layers[l].grad_ready_s[0] == Approx(recorded.trace.layers[l].grad_ready_s[0] / 4));
    }
    CHECK(scaled.provenance["recording_overhead"]["scale_factor"].get<double>() == Approx(0.25));
    REQUIRE(scaled.warnings.size() == 1);
    CHECK_THAT(scaled.warnings[0], Catch::Contains("+300%") && Catch::Contains("scaled by 0.250"));
  }
  SECTION("a faster recorded run (noise) keeps its times, and says so") {
    description["unrecorded_forward_backward_s"] = recorded_s * 1.5;
    const LayerProfile kept = profile_with(description);
    CHECK(total(kept.trace) == Approx(recorded_s));
    CHECK(kept.provenance["recording_overhead"]["scale_factor"].get<double>() == 1.0);
    CHECK(kept.warnings.empty());
  }
  SECTION("the figure must be a positive number") {
    description["unrecorded_forward_backward_s"] = 0;
    CHECK_THROWS_WITH(profile_with(description), Catch::Contains("unrecorded_forward_backward_s"));
  }
  SECTION("the timed optimizer step becomes the trace's bandwidth, not scaled with the recording") {
    // SGD with momentum streams 20 bytes per element (weight, gradient and
    // momentum read, weight and momentum written, fp32): 1500 elements,
    // 30,000 bytes in the 1 ms step = 3e7 B/s, whatever the scaling.
    description["unrecorded_forward_backward_s"] = recorded_s / 4;
    description["optimizer"] = "momentum";
    description["unrecorded_optimizer_step_s"] = 1e-3;
    const LayerProfile timed = profile_with(description);
    CHECK(timed.trace.optimizer_bytes_per_s == Approx(3e7));
    CHECK(timed.provenance["optimizer_step"]["measured_step_s"].get<double>() == Approx(1e-3));
    CHECK(timed.provenance["optimizer_step"]["optimizer"] == "momentum");
    CHECK(trace_optimizer_step_s(timed.trace, Optimizer::adam, 0, 1) == Approx(1e-3 * 28 / 20));
  }
  SECTION("a step needs its optimizer, one of the three") {
    description["unrecorded_optimizer_step_s"] = 1e-3;
    CHECK_THROWS_WITH(profile_with(description), Catch::Contains("unrecorded_optimizer_step_s") &&
                                                     Catch::Contains("\"optimizer\""));
    description["optimizer"] = "lamb";
    CHECK_THROWS_WITH(profile_with(description), Catch::Contains("optimizer") && Catch::Contains("sgd, momentum or adam"));
  }
}

/// simple_iteration() under DDP: the comm hook marks a 4040-byte all-reduce
/// at t0+133 and launches its NCCL kernel at t0+135 from the autograd thread,
/// on stream 9, running [t0+150, t0+150+`kernel`].
void ddp_iteration(Records& r, int i, std::int64_t t0, std::int64_t kernel, std::int64_t bytes = 4040) {
  simple_iteration(r, i, t0);
  r.comm(bytes, t0 + 133);
  r.collective(kAutograd, t0 + 135, 9, t0 + 150, t0 + 150 + kernel);
}

TEST_CASE("profile: a collective kernel is never compute, and times the message its comm marker names", "[profile]") {
  Records r;
  ddp_iteration(r, 0, 1000, 250);
  AttributionNotes notes;
  const auto timings = attribute_iterations(r.set, 3, notes);
  REQUIRE(timings.size() == 1);
  // p1's marker (1140) follows the NCCL launch (1135, kernel ends 1400): were
  // it compute, p1 would be ready at 1400 - 1120 = 280 on stream 9. Without
  // it the last launch before the marker is still the one at 1130: 70.
  CHECK(timings[0].ready_ns[1] == 70);
  CHECK(timings[0].backward_ns == 80);
  REQUIRE(timings[0].messages.size() == 1);
  CHECK(timings[0].messages[0].bytes == 4040);
  CHECK(timings[0].messages[0].duration_ns == 250);

  // A comm marker whose thread launches no collective after it is counted, not timed.
  r.comm(8, 1180);
  AttributionNotes more;
  CHECK(attribute_iterations(r.set, 3, more)[0].messages.size() == 1);
  CHECK(more.comm_markers_without_kernel == 1);
}

TEST_CASE("profile: under DDP each all-reduce is observed in situ at its shortest rank's duration", "[profile]") {
  const nlohmann::json description = {
      {"format", "mgsim-profile-model"},
      {"version", 1},
      {"model", "toy"},
      {"batch_size", 8},
      {"precision", "fp32"},
      {"warmup", 1},
      {"iterations", 2},
      {"world_size", 2},
      {"params",
       {{{"name", "fc1.weight"}, {"layer", "fc1"}, {"elements", 1000}, {"dtype_bytes", 4}},
        {{"name", "fc1.bias"}, {"layer", "fc1"}, {"elements", 10}, {"dtype_bytes", 4}},
        {{"name", "fc2.weight"}, {"layer", "fc2"}, {"elements", 500}, {"dtype_bytes", 4}}}},
      {"provenance", {{"gpu", "none (synthetic records)"}}}};
  const ModelDescription model = parse_model_description(description, "model.json");
  std::vector<Records> ranks(2);
  ddp_iteration(ranks[0], 0, 1000, 250);  // rank 0 waited for rank 1: 250
  ddp_iteration(ranks[0], 1, 5000, 300);
  ddp_iteration(ranks[1], 0, 1000, 180);  // rank 1 arrived last: 180, the message's own cost
  ddp_iteration(ranks[1], 1, 5000, 310, 16);  // a different message: rank 0's 300 stands
  const std::vector<RecordSet> sets = {ranks[0].set, ranks[1].set};
  const LayerProfile profile = assemble_layer_profile(model, sets, "mgsim profile layers --model toy --gpus 2");
  REQUIRE(profile.trace.insitu_allreduce.size() == 2);
  CHECK(profile.trace.insitu_allreduce[0].gpus == 2);
  CHECK(profile.trace.insitu_allreduce[0].bytes == 4040);
  CHECK(profile.trace.insitu_allreduce[0].seconds == Approx(180e-9));
  CHECK(profile.trace.insitu_allreduce[1].seconds == Approx(300e-9));
  CHECK(profile.provenance["world_size"] == 2);
  // Rank 0's backward is the trace: p1 ready at 70, p2 at 80, as without DDP.
  CHECK(profile.trace.layers[0].backward_time_s == Approx(10e-9));
  // The observations are written with the trace and read back as a curve.
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "mgsim-test-ddp-profile-trace.json";
  {
    std::ofstream out(file);
    out << format_trace_json(profile.trace, profile.provenance);
  }
  const Trace loaded = load_trace(file);
  std::filesystem::remove(file);
  REQUIRE(loaded.insitu_allreduce.size() == 2);
  CHECK(loaded.insitu_allreduce[0].seconds == Approx(180e-9));

  // One process: the same records give no observations (an all-reduce needs two).
  nlohmann::json single = description;
  single.erase("world_size");
  CHECK(assemble_layer_profile(parse_model_description(single, "model.json"), {sets.data(), 1}, "x")
            .trace.insitu_allreduce.empty());
}

TEST_CASE("profile: NCCL kernels are told apart by name, mangled or not", "[profile]") {
  CHECK(is_collective_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  CHECK(is_collective_kernel("_Z40ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"));
  CHECK(is_collective_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
  CHECK_FALSE(is_collective_kernel("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE"));
  CHECK_FALSE(is_collective_kernel("volta_sgemm_128x64_nn"));
  CHECK_FALSE(is_collective_kernel("my_nccl_wrapper_kernel"));

  std::istringstream v2(
      "# mgsim-cupti-records 2\n"
      "A\t1\t0\t7\t10\t20\tK\t_Z40ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE\n"
      "A\t2\t0\t7\t20\t30\tK\tvolta_sgemm_128x64_nn\n"
      "A\t3\t0\t7\t30\t40\tC\n"
      "M\t5\t12\tmgsim:comm:1048576\n");
  const RecordSet r = read_record_file(v2, "rec.tsv");
  REQUIRE(r.activities.size() == 3);
  CHECK(r.activities[0].collective);
  CHECK_FALSE(r.activities[1].collective);
  CHECK_FALSE(r.activities[2].collective);
  REQUIRE(r.markers.size() == 1);
  CHECK(r.markers[0].kind == MarkerKind::comm_launch);
  CHECK(r.markers[0].bytes == 1048576);
  CHECK_FALSE(parse_marker_name("mgsim:comm:0"));
  CHECK_FALSE(parse_marker_name("mgsim:comm:12x"));
}

TEST_CASE("profile: all-reduce repetitions become a curve of medians and spreads", "[profile]") {
  std::istringstream raw(
      "# gpus: 2 x Example GPU\n"
      "# nccl_version: 2.28.9\n"
      "4\t2\t0\t2.0e-05\tncclDevKernel_AllReduce_Sum_f32_RING_LL\n"
      "4\t2\t1\t3.0e-05\tncclDevKernel_AllReduce_Sum_f32_RING_LL\n"
      "4\t2\t2\t2.2e-05\tncclDevKernel_AllReduce_Sum_f32_RING_LL\n"
      "8\t2\t0\t2.5e-05\tncclDevKernel_AllReduce_Sum_f32_RING_LL\n");
  const BenchOutput output = read_bench_output(raw, "bench.tsv");
  CHECK(output.info.at("nccl_version") == "2.28.9");
  const auto points = summarize_bench(output);
  REQUIRE(points.size() == 2);
  // 4 bytes: median of 20, 30, 22 us = 22 us; spread 30 - 20 = 10 us.
  CHECK(points[0].bytes == 4);
  CHECK(points[0].seconds == Approx(2.2e-5));
  CHECK(*points[0].spread_s == Approx(1.0e-5));
  CHECK(points[1].seconds == Approx(2.5e-5));
  std::istringstream bad("4\t1\t0\t2.0e-05\n");  // one GPU is no all-reduce
  CHECK_THROWS_WITH(read_bench_output(bad, "bench.tsv"), Catch::Contains("bench.tsv: line 1"));
}

TEST_CASE("profile: without a driver the probe says there is no CUDA GPU", "[profile]") {
  try {
    probe_cuda_devices("libmgsim-test-no-such-driver.so.1");
    FAIL("expected DeviceError");
  } catch (const DeviceError& error) {
    CHECK(std::string(error.what()).starts_with("no CUDA GPU found ("));
  }
}

}  // namespace
