// `sweep --resume` keeps finished rows only when the whole configuration that
// computed them is unchanged: the fingerprint covers every value a row
// depends on, and the sidecar check refuses a CSV from another configuration.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <functional>

#include "mgsim/error.hpp"
#include "mgsim/app/sweep_fingerprint.hpp"
#include "test_support.hpp"
#include "test_sweep_support.hpp"

namespace {

using mgsim::test::SweepTempDir;
using nlohmann::json;

json fingerprint_config() {
  return {{"trace", "t.json"},
          {"gpus", {2, 4}},
          {"network", {{"alpha_us", 10.0}, {"beta_s_per_byte", 1e-9}}},
          {"schedules", {"wfbp", {{"name", "ddp"}, {"bucket_cap_mb", {25, 50}}}}}};
}

/// The fingerprint of the sweep after `edit` changes its config or its trace.
std::string fingerprint(const std::function<void(json&, mgsim::Trace&)>& edit, const char* shard = "1/1") {
  SweepTempDir dir;
  json config = fingerprint_config();
  mgsim::Trace trace = mgsim::test::make_trace({1e-3, 2e-3}, {1000, 2000}, 1e-3);
  edit(config, trace);
  dir.write_json("t.json", mgsim::test::trace_json(trace));
  mgsim::WorkloadCache cache;
  const mgsim::RunGrid grid(mgsim::load_scenario(dir.write_json("sweep.json", config)), cache);
  return mgsim::sweep_fingerprint(grid, mgsim::SweepShard::parse(shard));
}

}  // namespace

TEST_CASE("the fingerprint changes with every value a row depends on, and only with them", "[sweep][resume]") {
  const std::string base = fingerprint([](json&, mgsim::Trace&) {});
  CHECK(base.size() == 16);
  // Same values written differently: the same fingerprint.
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["network"]["alpha_us"] = 1e1; }) == base);
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["description"] = "a note"; }) == base);
  // Any value of the grid or the trace: another one (the stale rows of the issue came from a network edit).
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["network"]["beta_s_per_byte"] = 1.0000001e-9; }) != base);
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["gpus"] = {2, 8}; }) != base);
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["schedules"][1]["bucket_cap_mb"] = {25, 51}; }) != base);
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["collective"] = "tree"; }) != base);
  CHECK(fingerprint([](json&, mgsim::Trace& t) { t.layers[1].backward_time_s = 2.001e-3; }) != base);
  CHECK(fingerprint([](json&, mgsim::Trace& t) { t.layers[0].params[0] = 1001; }) != base);
  CHECK(fingerprint([](json&, mgsim::Trace& t) { t.batch_size = 2; }) != base);
  CHECK(fingerprint([](json&, mgsim::Trace&) {}, "1/2") != base);
  // Every other key of a scenario, each in turn (the stale rows of issue 22 came from message_unit).
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["message_unit"] = "layer"; }) != base);
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["message_unit"] = "tensor"; }) != base);  // conservative: as written
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["overlap"] = {{"compute_slowdown", 0.1}}; }) != base);
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["speed_classes"] = {{{"fraction", 0.5}, {"speed", 0.5}}}; }) != base);
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["message_overhead_s"] = 1e-5; }) != base);
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["gpus_per_node"] = 2; }) != base);
  CHECK(fingerprint([](json& c, mgsim::Trace&) { c["iterations"] = 50; }) != base);  // conservative: as written
  // Variability: each of its values.
  const auto noisy = [](json& c) { c["variability"] = {{"law", "exponential"}, {"mean_s", 1e-3}}; };
  const std::string with_noise = fingerprint([&](json& c, mgsim::Trace&) { noisy(c); });
  CHECK(with_noise != base);
  CHECK(fingerprint([&](json& c, mgsim::Trace&) { noisy(c), c["iterations"] = 50; }) != with_noise);
  CHECK(fingerprint([&](json& c, mgsim::Trace&) { noisy(c), c["variability"]["seed"] = 2; }) != with_noise);
  CHECK(fingerprint([&](json& c, mgsim::Trace&) { noisy(c), c["variability"]["mean_s"] = 2e-3; }) != with_noise);
  CHECK(fingerprint([&](json& c, mgsim::Trace&) { noisy(c), c["variability"]["per"] = "layer"; }) != with_noise);
  CHECK(fingerprint([&](json& c, mgsim::Trace&) {
          noisy(c), c["variability"]["stragglers"] = {{"ranks", {1}}, {"speed", 0.5}};
        }) != with_noise);
}

TEST_CASE("resuming a CSV needs its sidecar to hold this sweep's fingerprint", "[sweep][resume]") {
  SweepTempDir dir;
  const auto csv = dir.path() / "out.csv";
  CHECK_NOTHROW(mgsim::check_fingerprint(csv, "0123456789abcdef"));  // no file: nothing to keep
  dir.write("out.csv", "run,trace\n0,t\n");
  CHECK_THROWS_AS(mgsim::check_fingerprint(csv, "0123456789abcdef"), mgsim::OutputError);  // no sidecar
  mgsim::write_fingerprint(csv, "0123456789abcdef");
  CHECK(dir.read("out.csv.fingerprint") == "mgsim-sweep-fingerprint 0123456789abcdef\n");
  CHECK_NOTHROW(mgsim::check_fingerprint(csv, "0123456789abcdef"));
  try {
    mgsim::check_fingerprint(csv, "fedcba9876543210");
    FAIL("a stale CSV was accepted");
  } catch (const mgsim::OutputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("cannot resume: its rows were computed from another configuration"));
  }
}

TEST_CASE("the fingerprint covers the builders' text parameters, graphs, iterations and seed", "[sweep][resume]") {
  const auto matcha = [](json& c) {
    c["schedules"] = {"wfbp", {{"name", "matcha"}, {"budget", 0.5}, {"barrier", true}}};
  };
  const std::string base = fingerprint([&](json& c, mgsim::Trace&) { matcha(c); });
  CHECK(fingerprint([&](json& c, mgsim::Trace&) { matcha(c), c["schedules"][1]["barrier"] = false; }) != base);
  CHECK(fingerprint([&](json& c, mgsim::Trace&) { matcha(c), c["schedules"][1]["topology"] = "torus"; }) != base);
  // MATCHA draws from the seed and averages the iterations even without variability.
  CHECK(fingerprint([&](json& c, mgsim::Trace&) { matcha(c), c["iterations"] = 50; }) != base);
  CHECK(fingerprint([&](json& c, mgsim::Trace&) { matcha(c), c["variability"] = {{"seed", 2}}; }) != base);
}
