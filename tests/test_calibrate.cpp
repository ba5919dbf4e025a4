// `mgsim calibrate`: recovering config values from measurements that mgsim
// itself generated, and refusing fits that cannot be answered.

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "test_data.hpp"

#include "mgsim/error.hpp"
#include "mgsim/app/calibrate.hpp"
#include "mgsim/io/trace_io.hpp"
#include "test_support.hpp"
#include "test_sweep_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {

using mgsim::test::kGoogleNetTrace;

/// The GoogleNet/K80 trace on a ring with the given link and schedules.
nlohmann::json ring_config(double alpha_us, double beta, const nlohmann::json& schedules) {
  return {{"trace", kGoogleNetTrace},
          {"gpus", {2}},
          {"collective", "ring"},
          {"network", {{"alpha_us", alpha_us}, {"beta_s_per_byte", beta}, {"gamma_s_per_byte", 2.5e-9}}},
          {"schedules", schedules}};
}

/// What mgsim predicts for `schedule` on `gpus` GPUs of that ring: the
/// measurements a perfect model would see.
RunMetrics truth(double alpha_us, double beta, const std::string& schedule, const ParamValues& params, int gpus) {
  const Workload workload(load_trace(kGoogleNetTrace));
  CollectiveSettings settings;
  settings.network.intra = settings.network.inter = Link{alpha_us * 1e-6, beta, 2.5e-9};
  const auto ring = find_collective("ring").make(settings);
  return simulate(workload, *ring, *make_schedule(schedule, params, {}, MessageUnit::tensor), gpus);
}

nlohmann::json time_row(const nlohmann::json& schedule, int gpus, double seconds) {
  return {{"gpus", gpus}, {"schedule", schedule}, {"iteration_time_s", seconds}};
}

}  // namespace

TEST_CASE("Calibrate recovers alpha and beta from times mgsim generated, to 1%") {
  // Truth: the MG-WFBP authors' 10GbE constants. Start: alpha 2.2x too small, beta 4x too large.
  const double alpha_us = 45.25, beta = 1.2417634328e-10;
  SweepTempDir dir;
  const auto config = dir.write_json("base.json", ring_config(20.0, 5e-10, {"wfbp", "single"}));
  nlohmann::json rows = nlohmann::json::array();
  for (int gpus : {2, 4, 8, 16, 64})
    rows.push_back(time_row("single", gpus, truth(alpha_us, beta, "single", {}, gpus).iteration_time_s()));
  for (int gpus : {8, 32})
    rows.push_back(time_row("wfbp", gpus, truth(alpha_us, beta, "wfbp", {}, gpus).iteration_time_s()));
  rows.push_back({{"gpus", 16},
                  {"schedule", "ddp"},
                  {"throughput_samples_per_s", truth(alpha_us, beta, "ddp", {}, 16).throughput()}});
  const auto measurements = dir.write_json("m.json", {{"measurements", rows}});

  const Calibration calibration =
      Calibration::from_files(config, measurements, {"network.alpha_us", "network.beta_s_per_byte"});
  const CalibrationResult result = calibration.fit();
  CHECK(result.values[0] == Approx(alpha_us).epsilon(0.01));
  CHECK(result.values[1] == Approx(beta).epsilon(0.01));
  for (std::size_t m = 0; m < rows.size(); ++m) {
    CHECK(result.predicted[m] == Approx(calibration.measurements()[m].value).epsilon(0.001));
  }
}

TEST_CASE("Calibrate fits a schedule parameter of the base config's entry by its path, from 0") {
  // Horovod's fusion-buffer copy cost: 1e-10 s/B truth, 0 at the start (so
  // the optimiser's unit comes from the perturbation search); alpha
  // alongside. Measurements name "horovod" alone, so they run the config's
  // entry (schedules.1) and its copy cost moves them.
  const double alpha_us = 45.25, beta = 1.2417634328e-10;
  SweepTempDir dir;
  const nlohmann::json schedules = {"single", {{"name", "horovod"}, {"copy_s_per_byte", 0.0}}};
  const auto config = dir.write_json("base.json", ring_config(30.0, beta, schedules));
  nlohmann::json rows = nlohmann::json::array();
  for (int gpus : {2, 8, 32}) {
    rows.push_back(time_row("horovod", gpus,
                            truth(alpha_us, beta, "horovod", {{"copy_s_per_byte", 1e-10}}, gpus).iteration_time_s()));
    rows.push_back(time_row("single", gpus, truth(alpha_us, beta, "single", {}, gpus).iteration_time_s()));
  }
  const auto measurements = dir.write_json("m.json", {{"measurements", rows}});
  const Calibration calibration =
      Calibration::from_files(config, measurements, {"network.alpha_us", "schedules.1.copy_s_per_byte"});
  const CalibrationResult result = calibration.fit();
  CHECK(result.values[0] == Approx(alpha_us).epsilon(0.01));
  CHECK(result.values[1] == Approx(1e-10).epsilon(0.01));
}

TEST_CASE("A schedule parameter listing one value is that value, in a measurement row and a config entry a row names") {
  // DDP's 10 MiB cap written 10 and [10] (as a config's schedules take it): one run, so one prediction, the
  // run's own (simulated directly); the config entry is named by "ddp".
  SweepTempDir dir;
  const double beta = 1.2417634328e-10;
  const auto config =
      dir.write_json("base.json", ring_config(45.25, beta, {{{"name", "ddp"}, {"bucket_cap_mb", {10}}}}));
  const auto measurements = dir.write_json(
      "m.json", {{"measurements",
                  {time_row({{"name", "ddp"}, {"bucket_cap_mb", 10}}, 4, 0.5),
                   time_row({{"name", "ddp"}, {"bucket_cap_mb", {10}}}, 8, 0.5), time_row("ddp", 16, 0.5)}}});
  const Calibration calibration = Calibration::from_files(config, measurements, {});
  const std::vector<double>& predicted = calibration.initial_prediction();
  REQUIRE(predicted.size() == 3);
  CHECK(predicted[0] == Approx(truth(45.25, beta, "ddp", {{"bucket_cap_mb", 10}}, 4).iteration_time_s()).epsilon(1e-12));
  CHECK(predicted[1] == Approx(truth(45.25, beta, "ddp", {{"bucket_cap_mb", 10}}, 8).iteration_time_s()).epsilon(1e-12));
  CHECK(predicted[2] == Approx(truth(45.25, beta, "ddp", {{"bucket_cap_mb", 10}}, 16).iteration_time_s()).epsilon(1e-12));
  CHECK(calibration.measurements()[1].schedule_label == calibration.measurements()[0].schedule_label);
}

TEST_CASE("A fitted value the fit stopped at because a row cannot run past it is not identifiable, and says why") {
  // Two layers on a ring: at 4096 GPUs each message pays 2 x 4095 alpha, past an hour (limits.md) above
  // alpha = 3600 / 8190 s = 439,560 us. The rows at 2-6 GPUs, 4 (P - 1) s, want alpha near 1 s (two
  // messages of 2 (P - 1) alpha), so the fit ends at the 4096-GPU row's edge, below the reader's bound
  // (alpha_us 1e6): not the answer.
  SweepTempDir dir;
  const auto config = dir.write_json(
      "base.json", {{"trace", kTestData + "bad/resume/trace.json"},
                    {"gpus", {2}},
                    {"network", {{"alpha_us", 1000}, {"beta_s_per_byte", 2e-12}}}});
  nlohmann::json rows = nlohmann::json::array({time_row("wfbp", 4096, 6000)});  // {row} alone is the row to clang
  for (int gpus = 2; gpus <= 6; ++gpus) rows.push_back(time_row("wfbp", gpus, 4.0 * (gpus - 1)));
  const auto measurements = dir.write_json("m.json", {{"measurements", rows}});
  const Calibration calibration = Calibration::from_files(config, measurements, {"network.alpha_us"});
  const CalibrationResult fit = calibration.fit();
  CHECK(fit.values[0] == Approx(3600.0 / 8190 * 1e6).epsilon(1e-3));
  REQUIRE(fit.edge[0]);
  CHECK_THAT(*fit.edge[0], Catch::StartsWith("measurements[0]: "));
  CHECK_THAT(identifiability_note(calibration, fit, 0), Catch::Contains("not identifiable: a measurement cannot run past it"));
}

TEST_CASE("Calibrate writes the base config with the fitted values in place") {
  SweepTempDir dir;
  const auto config = dir.write_json("base.json", ring_config(20.0, 5e-10, {"single"}));
  const auto measurements = dir.write_json("m.json", {{"measurements", {time_row("single", 4, 0.5)}}});
  const Calibration calibration = Calibration::from_files(config, measurements, {"network.alpha_us"});
  const nlohmann::json written =
      nlohmann::json::parse(calibration.config_text(std::vector<double>{33.0}, dir.path() / "out.json"));
  nlohmann::json expected = ring_config(33.0, 5e-10, {"single"});
  CHECK(written == expected);
}

TEST_CASE("Calibrate's written config keeps every relative input reachable from its own folder") {
  // tests/data/graphs/config-petersen.json names its trace and a graph file
  // (dpsgd's and matcha's topology) relative to its folder; written into
  // tests/, both are rewritten.
  const std::filesystem::path config = kTestData + "graphs/config-petersen.json";
  SweepTempDir dir;
  const auto measurements = dir.write_json("m.json", {{"measurements", {time_row("mgwfbp", 10, 0.5)}}});
  const Calibration calibration = Calibration::from_files(config, measurements, {"network.alpha_us"});
  const auto out = std::filesystem::path(MGSIM_SOURCE_DIR) / "tests" / "out.json";
  const nlohmann::json written = nlohmann::json::parse(calibration.config_text(std::vector<double>{33.0}, out));
  CHECK(written["trace"] == "../traces/googlenet-k80.json");
  CHECK(written["schedules"][1]["topology"] == "data/graphs/petersen.txt");
  CHECK(written["schedules"][2]["topology"] == "data/graphs/petersen.txt");
  CHECK(written["network"]["alpha_us"] == 33.0);
}

TEST_CASE("Calibrate's config written through a link is relative to the file the link names") {
  // Red team: out/link.json -> ../deep/a/real.json got paths for out/, and real.json could not run.
  const std::filesystem::path config = kTestData + "graphs/config-petersen.json";
  SweepTempDir dir;
  const auto measurements = dir.write_json("m.json", {{"measurements", {time_row("mgwfbp", 10, 0.5)}}});
  const Calibration calibration = Calibration::from_files(config, measurements, {"network.alpha_us"});
  std::filesystem::create_directories(dir.path() / "out");
  std::filesystem::create_directories(dir.path() / "deep" / "a");
  const auto real = dir.write_json("deep/a/real.json", nlohmann::json::object());
  std::filesystem::create_symlink("../deep/a/real.json", dir.path() / "out" / "link.json");
  const nlohmann::json written =
      nlohmann::json::parse(calibration.config_text(std::vector<double>{33.0}, dir.path() / "out" / "link.json"));
  const std::filesystem::path trace = real.parent_path() / written["trace"].get<std::string>();
  CHECK(std::filesystem::equivalent(trace, std::filesystem::path(MGSIM_SOURCE_DIR) / "traces" / "googlenet-k80.json"));
}

TEST_CASE("Calibrate refuses fits it cannot answer, naming file and key") {
  SweepTempDir dir;
  const nlohmann::json schedules = {"wfbp", {{"name", "ddp"}, {"bucket_cap_mb", 25.0}}};
  const auto config = dir.write_json("base.json", ring_config(45.25, 1.2e-10, schedules));
  const auto two =
      dir.write_json("two.json", {{"measurements", {time_row("single", 4, 0.5), time_row("wfbp", 8, 0.4)}}});
  const auto one = dir.write_json("one.json", {{"measurements", {time_row("single", 4, 0.5)}}});
  const auto fits = [&](const std::filesystem::path& m, std::vector<std::string> paths) {
    return Calibration::from_files(config, m, std::move(paths));
  };
  using Catch::Contains;
  // Fewer measurements than parameters.
  CHECK_THROWS_WITH(fits(one, {"network.alpha_us", "network.beta_s_per_byte"}),
                    Contains("one.json: measurements: expected at least 2 measurements"));
  // No measurement runs ddp, so its bucket cap moves nothing.
  CHECK_THROWS_WITH(fits(two, {"network.alpha_us", "schedules.1.bucket_cap_mb"}),
                    Contains("base.json: schedules[1].bucket_cap_mb: no measurement depends on this value"));
  CHECK_THROWS_WITH(fits(two, {"network.alpah_us"}), Contains("base.json: network.alpah_us: expected a number"));
  CHECK_THROWS_WITH(fits(two, {"collective"}),
                    Contains("base.json: collective: expected a number >= 0 at this --fit path, got \"ring\""));
  const auto unknown = dir.write_json("unknown.json", {{"measurements", {time_row("wfbq", 4, 0.5)}}});
  CHECK_THROWS_WITH(fits(unknown, {"network.alpha_us"}), Contains("unknown.json: measurements[0].schedule"));
  const auto both = dir.write_json(
      "both.json",
      {{"measurements",
        {{{"gpus", 4}, {"schedule", "wfbp"}, {"iteration_time_s", 1.0}, {"throughput_samples_per_s", 5.0}}}}});
  CHECK_THROWS_WITH(fits(both, {"network.alpha_us"}),
                    Contains("both.json: measurements[0]: expected exactly one of iteration_time_s"));
}

TEST_CASE("Calibrate's work is bounded: every fit of a calibration spends one budget, refused with a WorkError") {
  // Each prediction is charged its estimate_steps before it runs: a
  // closed-form run, kStepsPerRun and one step a message unit (WFBP sends
  // each of GoogleNet's tensors: message_unit tensor).
  SweepTempDir dir;
  const auto config = dir.write_json("base.json", ring_config(20.0, 5e-10, {"wfbp"}));
  const auto measurements = dir.write_json(
      "m.json", {{"measurements", {time_row("wfbp", 2, 0.3), time_row("wfbp", 4, 0.32), time_row("wfbp", 8, 0.35)}}});
  const double per_prediction =
      static_cast<double>(Workload(load_trace(kGoogleNetTrace)).layout.tensor_count()) + kStepsPerRun;
  // Less than one prediction: refused before any runs.
  auto tiny = std::make_shared<WorkBudget>(per_prediction / 2);
  CHECK_THROWS_AS(Calibration::from_files(config, measurements, {"network.alpha_us"}, {}, tiny), WorkError);
  CHECK_THROWS_WITH(Calibration::from_files(config, measurements, {"network.alpha_us"}, {}, tiny),
                    Catch::Contains("past --max-work"));
  // What building and fitting spend, whole predictions, then that budget
  // and ten predictions more: the same fit passes, its held-out fits (three
  // more fits) are refused, not reported as "n/a".
  auto ample = std::make_shared<WorkBudget>(kDefaultMaxWork);
  const CalibrationResult fit = Calibration::from_files(config, measurements, {"network.alpha_us"}, {}, ample).fit();
  const double spent = ample->spent();
  CHECK(std::fmod(spent, per_prediction) == 0.0);
  auto tight = std::make_shared<WorkBudget>(spent + 10 * per_prediction);
  const Calibration calibration = Calibration::from_files(config, measurements, {"network.alpha_us"}, {}, tight);
  CHECK(calibration.fit().values == fit.values);
  CHECK_THROWS_AS(calibration.leave_one_out(), WorkError);
  // Room for the fit and about two of its three held-out fits: refused once
  // the first is done, from its cost, not after the budget is spent.
  const double held_out_cost = [&] {
    auto budget = std::make_shared<WorkBudget>(kDefaultMaxWork);
    const Calibration full = Calibration::from_files(config, measurements, {"network.alpha_us"}, {}, budget);
    full.fit();
    const double fitted = budget->spent();
    full.leave_one_out();
    return budget->spent() - fitted;
  }();
  auto projected = std::make_shared<WorkBudget>(spent + 0.6 * held_out_cost);
  const Calibration short_of_held_out =
      Calibration::from_files(config, measurements, {"network.alpha_us"}, {}, projected);
  short_of_held_out.fit();
  CHECK_THROWS_WITH(short_of_held_out.leave_one_out(),
                    Catch::Contains("its 2 remaining held-out fits take about") &&
                        Catch::Contains("(projected from the 1 done), past --max-work"));
  INFO("spent " << spent << ", held-out fits " << held_out_cost);
  CHECK(projected->spent() < spent + 0.5 * held_out_cost);  // the first of three fits, under the 0.6 given
  // A budget too small for the fit: the search stops and says so.
  auto short_of_fit = std::make_shared<WorkBudget>(spent - 10 * per_prediction);
  CHECK_THROWS_AS(Calibration::from_files(config, measurements, {"network.alpha_us"}, {}, short_of_fit).fit(), WorkError);
}

TEST_CASE("Calibrate refuses a measurement at a GPU count the config's curves do not have") {
  SweepTempDir dir;
  const auto config =
      dir.write_json("base.json", {{"trace", kGoogleNetTrace},
                                   {"gpus", {2}},
                                   {"collective", "measured"},
                                   {"curves", {MGSIM_SOURCE_DIR "/traces/googlenet-k80-allreduce.json"}},
                                   {"description", "x"}});
  const auto m = dir.write_json("m.json", {{"measurements", {time_row("wfbp", 16, 0.5)}}});
  CHECK_THROWS_WITH(Calibration::from_files(config, m, {}),
                    Catch::Contains("m.json: measurements[0]: the config cannot run 16 GPUs with schedule 'wfbp'"));
}

TEST_CASE("Calibrate's leave-one-out error is each measurement predicted from the others' fit (by hand)") {
  // One layer: 10 ms of backward, 1e6 one-byte elements, no forward; ring
  // with alpha 0, so `single` takes 10 ms + 2(P-1)/P x 1e6 x beta.
  // Measured: 11 ms on 2 GPUs (beta 1e-9 fits it), 13 ms on 4 GPUs (beta 2e-9).
  // Held out: 2 GPUs from beta 2e-9: 12 ms (+9.09%); 4 GPUs from beta 1e-9: 11.5 ms (-11.5%).
  SweepTempDir dir;
  dir.write_json("t.json", trace_json(make_trace({0.01}, {1'000'000})));
  nlohmann::json config = {{"trace", "t.json"},
                           {"gpus", {2}},
                           {"network", {{"alpha_us", 0}, {"beta_s_per_byte", 1.5e-9}}},
                           {"schedules", {"single"}}};
  const auto file = dir.write_json("base.json", config);
  const auto measurements =
      dir.write_json("m.json", {{"measurements", {time_row("single", 2, 0.011), time_row("single", 4, 0.013)}}});
  const Calibration calibration = Calibration::from_files(file, measurements, {"network.beta_s_per_byte"});
  const CalibrationResult fit = calibration.fit();
  const std::vector<std::optional<double>> held_out = calibration.leave_one_out();
  REQUIRE(held_out.size() == 2);
  REQUIRE(held_out[0].has_value());
  REQUIRE(held_out[1].has_value());
  CHECK(*held_out[0] == Approx(0.012).epsilon(1e-5));
  CHECK(*held_out[1] == Approx(0.0115).epsilon(1e-5));
  // Two values from two measurements: one measurement left cannot fit both.
  config["network"]["alpha_us"] = 1.0;
  const Calibration two = Calibration::from_files(dir.write_json("base.json", config), measurements,
                                                  {"network.alpha_us", "network.beta_s_per_byte"});
  for (const auto& predicted : two.leave_one_out()) CHECK_FALSE(predicted.has_value());
}

TEST_CASE("Calibrate predicts no held-out measurement whose others tie two fitted values (by hand)") {
  // One layer: 10 ms of backward, 1e6 one-byte elements; ring, alpha 0, beta 1e-9: `single` on P GPUs takes
  // 10 ms + iteration_overhead_s + (P > 1: sync_overhead_s + 2(P-1)/P ms). Truth: 4 ms and 2 ms, so 14 ms on
  // one GPU, 17.5 ms on 4 and 17.75 ms on 8. Without the one-GPU row the others fix only the sum of the two
  // (red team: the held-out fit kept the split the fit on every row found, and predicted the row +0.00%).
  SweepTempDir dir;
  dir.write_json("t.json", trace_json(make_trace({0.01}, {1'000'000})));
  const auto config = dir.write_json("base.json", {{"trace", "t.json"},
                                                   {"gpus", {2}},
                                                   {"network", {{"alpha_us", 0}, {"beta_s_per_byte", 1e-9}}},
                                                   {"iteration_overhead_s", 0.001},
                                                   {"sync_overhead_s", 0.001},
                                                   {"schedules", {"single"}}});
  const auto measurements = dir.write_json(
      "m.json", {{"measurements", {time_row("single", 1, 0.014), time_row("single", 4, 0.0175), time_row("single", 8, 0.01775)}}});
  const Calibration calibration =
      Calibration::from_files(config, measurements, {"iteration_overhead_s", "sync_overhead_s"});
  const std::vector<std::optional<double>> held_out = calibration.leave_one_out();
  REQUIRE(held_out.size() == 3);
  CHECK_FALSE(held_out[0].has_value());
  REQUIRE(held_out[1].has_value());
  REQUIRE(held_out[2].has_value());
  CHECK(*held_out[1] == Approx(0.0175).epsilon(1e-5));  // 1 GPU fixes 4 ms, 8 GPUs then 2 ms
  CHECK(*held_out[2] == Approx(0.01775).epsilon(1e-5));
}

TEST_CASE("Calibrate's held-out fits answer the same on any number of threads") {
  // Two values, so each fit runs the multistart search and its random starts:
  // every fit seeds its own thread's generator, so no thread disturbs another.
  SweepTempDir dir;
  const auto config = dir.write_json("base.json", ring_config(20.0, 5e-10, {"wfbp"}));
  const auto measurements = dir.write_json(
      "m.json", {{"measurements",
                  {time_row("wfbp", 2, 0.3), time_row("wfbp", 4, 0.32), time_row("wfbp", 8, 0.35),
                   time_row("wfbp", 16, 0.37)}}});
  const Calibration calibration =
      Calibration::from_files(config, measurements, {"network.alpha_us", "network.beta_s_per_byte"});
  const CalibrationResult fit = calibration.fit();
  const std::vector<std::optional<double>> alone = calibration.leave_one_out(1);
  REQUIRE(alone.size() == 4);
  for (const auto& predicted : alone) CHECK(predicted.has_value());
  CHECK(calibration.leave_one_out(3) == alone);
}

TEST_CASE("Whether held-out fits pass --max-work, and the message when not, is the same on any number of threads") {
  SweepTempDir dir;
  const auto config = dir.write_json("base.json", ring_config(20.0, 5e-10, {"wfbp"}));
  const auto measurements = dir.write_json(
      "m.json", {{"measurements",
                  {time_row("wfbp", 2, 0.3), time_row("wfbp", 4, 0.32), time_row("wfbp", 8, 0.35),
                   time_row("wfbp", 16, 0.37)}}});
  const std::vector<std::string> paths = {"network.alpha_us", "network.beta_s_per_byte"};
  // What the fits take in all, on a budget far from binding.
  const auto unbounded = std::make_shared<WorkBudget>(1e15);
  const Calibration measured = Calibration::from_files(config, measurements, paths, {}, unbounded);
  measured.fit();
  const double before = unbounded->spent();
  measured.leave_one_out(1);
  const double held_out = unbounded->spent() - before;
  // Budgets that end inside the held-out fits: each outcome the same on 1 and 3 threads.
  // (The projection from the first fit may refuse a budget a little above the need: 3x passes.)
  for (const double fraction : {0.5, 0.95, 3.0}) {
    INFO("budget: the fits' steps and " << fraction << " of the held-out ones");
    std::vector<std::string> outcomes;
    for (const int threads : {1, 3}) {
      const auto budget = std::make_shared<WorkBudget>(before + fraction * held_out);
      const Calibration calibration = Calibration::from_files(config, measurements, paths, {}, budget);
      calibration.fit();
      try {
        calibration.leave_one_out(threads);
        outcomes.push_back("passed");
      } catch (const WorkError& error) {
        outcomes.push_back(error.what());
      }
    }
    CHECK(outcomes[1] == outcomes[0]);
    if (fraction < 1) CHECK(outcomes[0] != "passed");
    if (fraction > 2) CHECK(outcomes[0] == "passed");
  }
}
