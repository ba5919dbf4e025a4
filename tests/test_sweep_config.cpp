// Sweep configs (docs/sweeps.md): lists expand into their product in a fixed
// order, defaults fill what is left out, and every bad grid is refused with
// a message naming the file and the key before anything runs.

#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mgsim/error.hpp"
#include "mgsim/app/run_grid.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/version.hpp"
#include "test_support.hpp"
#include "test_sweep_support.hpp"

using namespace mgsim;
using namespace mgsim::test;
using nlohmann::json;
using Catch::Matchers::Contains;

namespace {

const json kLinkJson = {{"alpha_us", 10}, {"beta_s_per_byte", 1e-9}};

/// Two small traces, alpha (a.json) and beta (b.json), next to `config`.
std::filesystem::path write_sweep(const SweepTempDir& dir, const json& config) {
  Trace alpha = make_trace({0.001, 0.002}, {1000, 2000}, 0.001);
  alpha.model = "alpha";
  Trace beta = make_trace({0.003}, {500});
  beta.model = "beta";
  dir.write_json("a.json", trace_json(alpha));
  dir.write_json("b.json", trace_json(beta));
  return dir.write_json("sweep.json", config);
}

/// A grid with the cache its traces live in.
struct Loaded {
  explicit Loaded(const std::filesystem::path& file) : grid(load_scenario(file), cache) {}
  WorkloadCache cache;
  RunGrid grid;
};

json base_config() { return {{"trace", "a.json"}, {"network", kLinkJson}, {"gpus", {2, 4}}, {"schedules", {"wfbp"}}}; }

/// The message of the error loading (and building) the sweep with `key` set to `value`.
std::string error_with(const std::string& key, const json& value) {
  SweepTempDir dir;
  json config = base_config();
  if (value.is_null()) {
    config.erase(key);
  } else {
    config[key] = value;
  }
  const auto file = write_sweep(dir, config);
  try {
    const Loaded loaded(file);
  } catch (const Error& error) {
    const std::string message = error.what();
    CHECK_THAT(message, Contains(file.string()));
    return message;
  }
  FAIL("no error for " << key << " = " << value.dump());
  return "";
}

}  // namespace

TEST_CASE("sweep: the grid is the product of the lists, trace outermost and schedule innermost", "[sweep]") {
  SweepTempDir dir;
  const json config = {{"trace", {"a.json", "b.json"}},
                       {"gpus", {2, 8}},
                       {"collective", {"ring", "tree"}},
                       {"network", {json{{"name", "slow"}, {"alpha_us", 100}, {"beta_s_per_byte", 1e-8}}, kLinkJson}},
                       {"schedules", {"wfbp", json{{"name", "ddp"}, {"bucket_cap_mb", {1, 4}}}}}};
  const Loaded loaded(write_sweep(dir, config));
  const RunGrid& sweep = loaded.grid;
  // 2 traces x (2 collectives x 2 networks) x 2 GPU counts x 3 schedules.
  REQUIRE(sweep.size() == 48);
  REQUIRE(sweep.links().size() == 4);
  CHECK(sweep.links()[1].collective == "ring");
  CHECK(sweep.links()[1].network == "net1");  // unnamed networks are numbered from 0
  CHECK(sweep.links()[2].collective == "tree");
  CHECK(sweep.links()[2].network == "slow");
  CHECK(sweep.scenario().schedules[2].label() == "ddp(bucket_cap_mb=4)");
  const std::string header = RunGrid::header();  // the columns, the version columns last
  CHECK(header.starts_with("run,trace,network,gpus_per_node,model,schedule,collective,gpus,"));
  CHECK(header.ends_with(",message_unit,mgsim_version,format_version\n"));
  CHECK(sweep.csv_line(0).ends_with(fmt::format(",tensor,{},2\n", version())));
  // 41 = 1 * 24 (trace b) + 2 * 6 (tree on slow) + 1 * 3 (8 GPUs) + 2 (the 4 MiB cap).
  CHECK(sweep.csv_line(41).starts_with("41,b.json,slow,1,beta,ddp(bucket_cap_mb=4),tree,8,"));
  CHECK(sweep.csv_line(0).starts_with("0,a.json,slow,1,alpha,wfbp,ring,2,"));
  CHECK(sweep.csv_line(47).starts_with("47,b.json,net1,1,beta,ddp(bucket_cap_mb=4),tree,8,"));
}

TEST_CASE("sweep: two list parameters give every combination, the first name outermost", "[sweep]") {
  SweepTempDir dir;
  json config = base_config();
  config["schedules"] = json::array({json{{"name", "horovod"}, {"fusion_threshold_mb", {1, 2}}, {"cycle_time_ms", {0.5, 5}}}});
  const Scenario loaded = load_scenario(write_sweep(dir, config));
  REQUIRE(loaded.schedules.size() == 4);
  CHECK(loaded.schedules[0].label() == "horovod(cycle_time_ms=0.5,fusion_threshold_mb=1)");
  CHECK(loaded.schedules[1].label() == "horovod(cycle_time_ms=0.5,fusion_threshold_mb=2)");
  CHECK(loaded.schedules[3].label() == "horovod(cycle_time_ms=5,fusion_threshold_mb=2)");
}

TEST_CASE("sweep: a collective parameter at its fixed default is left out of the label", "[sweep]") {
  // nvls_tree 0 is what its absence gives: "nccl", one run (red team: "nccl(nvls_tree=0)" beside "nccl").
  SweepTempDir dir;
  json config = base_config();
  config["collective"] = json::array({json{{"name", "nccl"}, {"nvls_tree", {0, 1}}}});
  const Scenario loaded = load_scenario(write_sweep(dir, config));
  REQUIRE(loaded.collectives.size() == 2);
  CHECK(loaded.collectives[0].label() == "nccl");
  CHECK(loaded.collectives[1].label() == "nccl(nvls_tree=1)");
  CHECK_THAT(error_with("collective", {"nccl", {{"name", "nccl"}, {"nvls_tree", 0}}}),
             Contains("collective[1]: 'nccl' given twice"));
}

TEST_CASE("sweep: left-out keys take the defaults (4..2048 GPUs, ring, every dense schedule)", "[sweep]") {
  SweepTempDir dir;
  const Scenario loaded = load_scenario(write_sweep(dir, {{"trace", "a.json"}, {"network", kLinkJson}}));
  CHECK(loaded.gpus == std::vector<int>{4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048});
  CHECK(loaded.gpus_per_node == std::vector<int>{1});
  REQUIRE(loaded.collectives.size() == 1);
  CHECK(loaded.collectives[0].label() == "ring");
  REQUIRE(loaded.schedules.size() == 8);  // wfbp, single, mgwfbp, optimal, ddp, horovod, p3, bytescheduler
  CHECK(loaded.schedules[2].label() == "mgwfbp");
  REQUIRE(loaded.networks.size() == 1);
  CHECK(loaded.networks[0].label == "net0");
  CHECK(loaded.networks[0].network.inter.alpha_s == Approx(10e-6));
}

TEST_CASE("sweep: a count written 4.0 is 4, as a whole schedule parameter written 2.0 is 2", "[sweep]") {
  // Red team: "gpus": [4.0] was refused while "slice_params": 2.0 ran (Python writes whole floats so).
  SweepTempDir dir;
  json config = base_config();
  config["gpus"] = {2.0, 4.0};
  config["gpus_per_node"] = 2.0;
  config["collective"] = {{{"name", "ps-colocated"}, {"servers", 2.0}}};
  const Scenario loaded = load_scenario(write_sweep(dir, config));
  CHECK(loaded.gpus == std::vector<int>{2, 4});
  CHECK(loaded.gpus_per_node == std::vector<int>{2});
  CHECK(loaded.collectives[0].label() == "ps-colocated(servers=2)");
  CHECK_THAT(error_with("gpus", {4.5}), Contains("gpus[0]: expected an integer in [1, 1048576], got 4.5"));
  CHECK_THAT(error_with("gpus", {4.0, 4}), Contains("gpus[1]: '4' given twice"));
  CHECK_THAT(error_with("gpus", {1e300}), Contains("gpus[0]: expected an integer in [1, 1048576]"));
}

TEST_CASE("sweep: bad grids are refused naming the file and the key", "[sweep]") {
  CHECK_THAT(error_with("trace", json::array()), Contains("trace: expected a trace file or a non-empty array"));
  CHECK_THAT(error_with("trace", nullptr), Contains("trace: missing"));
  CHECK_THAT(error_with("gpus", json::array()), Contains("gpus: expected a non-empty array"));
  CHECK_THAT(error_with("gpus", {4, 0}), Contains("gpus[1]: expected an integer in [1,"));
  CHECK_THAT(error_with("gpus", {4, 4}), Contains("gpus[1]: '4' given twice"));
  CHECK_THAT(error_with("gpus_per_node", json::array()), Contains("gpus_per_node: expected an integer or"));
  CHECK_THAT(error_with("collective", {"ring", "butterfly"}), Contains("collective[1]"));
  CHECK_THAT(error_with("collective", {"ring", "butterfly"}), Contains("butterfly"));
  CHECK_THAT(error_with("network", json::array()), Contains("network: expected a network object or"));
  CHECK_THAT(error_with("network", {{{"alpha_us", 1}, {"beta_s_per_byte", 1e-9}, {"colour", 1}}}),
             Contains("network[0].colour: unknown key"));
  const json named = {{"name", "x"}, {"alpha_us", 1}, {"beta_s_per_byte", 1e-9}};
  CHECK_THAT(error_with("network", {named, named}), Contains("network[1]: 'x' given twice"));
  CHECK_THAT(error_with("network", nullptr), Contains("network: missing"));
  CHECK_THAT(error_with("schedules", json::array()), Contains("schedules: expected a non-empty array"));
  CHECK_THAT(error_with("schedules", {{{"name", "ddp"}, {"bucket_cap_mb", json::array()}}}),
             Contains("schedules[0].bucket_cap_mb: expected a number or a non-empty array"));
  // An element out of its parameter's range, by its index and with that range (red team: once ">= 0").
  CHECK_THAT(error_with("schedules", {{{"name", "ddp"}, {"bucket_cap_mb", {1, -2}}}}),
             Contains("schedules[0].bucket_cap_mb[1]: expected a finite number > 0 and <= 1048576, got -2"));
  CHECK_THAT(error_with("schedules", {{{"name", "ddp"}, {"bucket_cap_mb", {-2, 1}}}}),  // the first too
             Contains("schedules[0].bucket_cap_mb[0]: expected a finite number > 0 and <= 1048576, got -2"));
  CHECK_THAT(error_with("schedules", {{{"name", "ddp"}, {"colour", {-2, 1}}}}),  // an unknown key, whatever its values
             Contains("schedules[0]: schedule 'ddp': unknown parameter 'colour'"));
  CHECK_THAT(error_with("collective", {{{"name", "ps-colocated"}, {"servers", {1, 0}}}}),
             Contains("collective[0].servers[1]: expected an integer in [1, 1048576], got 0"));
  CHECK_THAT(error_with("schedules", {"wfbp", "gpipe"}), Contains("schedules[1]"));
  CHECK_THAT(error_with("schedules", {"wfbp", {{"name", "wfbp"}}}), Contains("schedule 'wfbp' given twice"));
  CHECK_THAT(error_with("traces", "a.json"), Contains("traces: unknown key"));
  CHECK_THAT(error_with("curves", {"c.json"}), Contains("curves: only collective 'measured'"));
}

TEST_CASE("sweep: a measured curve lacking a GPU count of the grid is refused before any run", "[sweep]") {
  SweepTempDir dir;
  dir.write_json("c.json", json{{"format", "mgsim-curve"},
                           {"version", 1},
                           {"collective", "allreduce"},
                           {"provenance", {{"kind", "synthetic"}}},
                           {"points", {{{"gpus", 2}, {"bytes", 4}, {"seconds", 1e-5}},
                                       {{"gpus", 2}, {"bytes", 4096}, {"seconds", 1e-4}}}}});
  json config = base_config();
  config["collective"] = {"ring", "measured"};
  config["curves"] = {"c.json"};
  const auto file = write_sweep(dir, config);
  REQUIRE_THROWS_WITH(Loaded(file),
                      Contains(file.string() + ": gpus[1]: 4 GPUs with collective 'measured' on network 'measured'"));
  config["gpus"] = {2};  // the curve has 2 GPUs: ring on net0 and the measured curve
  const Loaded loaded(write_sweep(dir, config));
  const RunGrid& sweep = loaded.grid;
  REQUIRE(sweep.links().size() == 2);
  CHECK(sweep.links()[1].network == "measured");
  // Sparse schedules exchange by all-gather, which a measured all-reduce curve cannot cost.
  config["schedules"] = {"wfbp", "topk"};
  REQUIRE_THROWS_WITH(Loaded(write_sweep(dir, config)),
                      Contains("gpus[0]: 2 GPUs with collective 'measured' on network 'measured', 1 GPU per node: ") &&
                          Contains("no measured all-gather curve"));
}

TEST_CASE("sweep: a node size that does not divide a GPU count is refused before any run", "[sweep]") {
  SweepTempDir dir;
  json config = base_config();
  config["collective"] = "hierarchical";
  config["gpus_per_node"] = {1, 4};
  config["gpus"] = {4, 6};  // 6 GPUs fill no whole number of 4-GPU nodes
  const auto file = write_sweep(dir, config);
  REQUIRE_THROWS_WITH(Loaded(file), Contains(file.string() + ": gpus[1]: 6 GPUs"));
}

TEST_CASE("The budget a refusal suggests, rounded up to two digits, runs what it refused") {
  // 1.84e7 steps: to the nearest two digits 1.8e7, which --max-work would refuse again.
  CHECK_THROWS_WITH(check_work(1.84e7, 1e7), Catch::Contains("past --max-work 1e+07") &&
                                                 Catch::Contains("give --max-work 1.9e+07 to run them anyway"));
  CHECK_THROWS_WITH(check_work(1.8e7, 1e7), Catch::Contains("give --max-work 1.8e+07 to run"));
  CHECK_NOTHROW(check_work(1.9e7, 1.9e7));
}
