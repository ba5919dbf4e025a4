// Running sweeps: rows come out in index order whatever the thread count, a
// failure keeps a clean prefix, shards split the grid into disjoint slices,
// the sweep's rows are `mgsim run`'s rows, and the CSV file resumes.

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mgsim/app/run_set.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/version.hpp"
#include "mgsim/app/sweep_fingerprint.hpp"
#include "mgsim/app/sweep_runner.hpp"
#include "mgsim/io/trace_io.hpp"
#include "test_data.hpp"
#include "test_sweep_support.hpp"

using namespace mgsim;
using namespace mgsim::test;
using nlohmann::json;
using Catch::Matchers::Contains;

namespace {

std::string fake_row(std::size_t k) {
  // Uneven work so that rows finish out of order on several threads.
  std::this_thread::sleep_for(std::chrono::microseconds((k * 7919) % 13 * 40));
  return "row " + std::to_string(k) + "\n";
}

std::string fake_rows(std::size_t first, std::size_t count) {
  std::string all;
  for (std::size_t k = first; k < count; ++k) all += "row " + std::to_string(k) + "\n";
  return all;
}

/// Runs run_ordered and returns what the sink saw, checking `done` each time.
std::string collect(std::size_t first, std::size_t count, int threads, const RowMaker& make = fake_row) {
  std::string seen;
  std::size_t rows = first;
  run_ordered(first, count, threads, make, [&](std::string_view text, std::size_t done) {
    seen += text;
    rows += static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    CHECK(done == rows);
  });
  return seen;
}

/// A sweep of the shipped GoogleNet trace: 2 collectives x 10 GPU counts x 4 schedules.
json googlenet_sweep() {
  return {{"trace", kGoogleNetTrace},
          {"collective", {"ring", "tree"}},
          {"network", {{"alpha_us", 45.25}, {"beta_s_per_byte", 1.2417634328e-10}, {"gamma_s_per_byte", 2.5e-9}}},
          {"schedules", {"wfbp", "single", "mgwfbp", json{{"name", "ddp"}, {"bucket_cap_mb", {1, 25}}}}}};
}

}  // namespace

TEST_CASE("sweep: rows reach the sink in index order whatever the thread count", "[sweep]") {
  const std::string expected = fake_rows(0, 200);
  for (int threads : {1, 2, 3, 8, 0}) {
    INFO("threads " << threads);
    CHECK(collect(0, 200, threads) == expected);
  }
  CHECK(collect(140, 200, 4) == fake_rows(140, 200));  // resuming at row 140
  CHECK(collect(200, 200, 4).empty());
}

TEST_CASE("sweep: failing rows stop the sweep at the first of them, whatever the thread count", "[sweep]") {
  const RowMaker failing = [](std::size_t k) -> std::string {
    if (k == 57 || k >= 150) throw std::runtime_error(fmt::format("row {} failed", k));
    return fake_row(k);
  };
  for (int threads : {1, 2, 4, 8, 32}) {
    INFO("threads " << threads);
    std::string seen;
    REQUIRE_THROWS_WITH(run_ordered(0, 200, threads, failing, [&](std::string_view text, std::size_t) { seen += text; }),
                        "row 57 failed");
    CHECK(seen == fake_rows(0, 57));  // every row before the first failure, in order, and none after
  }
  int calls = 0;
  REQUIRE_THROWS_WITH(run_ordered(0, 200, 4, fake_row,
                                  [&](std::string_view, std::size_t) {
                                    ++calls;
                                    throw OutputError("disk full");
                                  }),
                      "disk full");
  CHECK(calls == 1);
}

TEST_CASE("for_each_index calls each index once on any thread count, and stops at the first failure", "[sweep]") {
  for (int threads : {1, 3, 0}) {
    INFO("threads " << threads);
    std::vector<std::atomic<int>> calls(100);
    for_each_index(calls.size(), threads, [&](std::size_t k) { ++calls[k]; });
    CHECK(std::all_of(calls.begin(), calls.end(), [](const std::atomic<int>& c) { return c == 1; }));
  }
  for_each_index(0, 4, [](std::size_t) { FAIL("no index to call"); });
  // On one thread the indexes come in order: a failure at 7 leaves 8.. uncalled.
  std::vector<std::size_t> seen;
  REQUIRE_THROWS_WITH(for_each_index(20, 1,
                                     [&](std::size_t k) {
                                       seen.push_back(k);
                                       if (k == 7) throw std::runtime_error("index 7 failed");
                                     }),
                      "index 7 failed");
  CHECK(seen.size() == 8);
  std::atomic<int> failures = 0;
  REQUIRE_THROWS_WITH(for_each_index(1000, 4, [&](std::size_t) { throw std::runtime_error(std::to_string(++failures)); }),
                      Catch::Matchers::Predicate<std::string>([](const std::string& what) { return !what.empty(); }));
  CHECK(failures <= 4);  // each worker stops at its first failure, and the others take no more
}

TEST_CASE("sweep: shards are disjoint and together cover the grid", "[sweep]") {
  for (std::size_t total : {1u, 10u, 48u}) {
    for (int count : {1, 2, 3, 7, 50}) {
      std::multiset<std::size_t> runs;
      for (int index = 1; index <= count; ++index) {
        const SweepShard shard{index, count};
        for (std::size_t k = 0; k < shard.size(total); ++k) runs.insert(shard.run(k));
      }
      std::multiset<std::size_t> all;
      for (std::size_t i = 0; i < total; ++i) all.insert(i);
      CHECK(runs == all);
    }
  }
  CHECK(SweepShard::parse("2/5").index == 2);
  CHECK(SweepShard::parse("2/5").count == 5);
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "1/3x", "-1/3", ""}) {
    CHECK_THROWS_WITH(SweepShard::parse(bad), Contains("--shard: expected i/n"));
  }
}

TEST_CASE("sweep: the CSV is the same for one and for many threads, and for shards merged", "[sweep]") {
  SweepTempDir dir;
  WorkloadCache cache;
  const RunGrid sweep(load_scenario(dir.write_json("sweep.json", googlenet_sweep())), cache);
  REQUIRE(sweep.size() == 100);
  std::string sequential;  // each row on its own, in order, on this thread
  for (std::size_t i = 0; i < sweep.size(); ++i) sequential += sweep.csv_line(i);
  for (std::size_t i = 0; i < sweep.size(); ++i) CHECK(sweep.csv_line(i).starts_with(sweep.key(i)));
  for (int threads : {1, 2, 0}) {
    std::string out;
    run_sweep(sweep, {}, 0, threads, [&](std::string_view rows, std::size_t) { out += rows; });
    CHECK(out == sequential);
  }
  // Three shards, rows put back in `run` order, give the same lines.
  std::vector<std::string> lines(sweep.size());
  for (int index = 1; index <= 3; ++index) {
    const SweepShard shard{index, 3};
    std::size_t k = 0;
    run_sweep(sweep, shard, 0, 2, [&](std::string_view rows, std::size_t) {
      for (std::size_t at = 0, end; (end = rows.find('\n', at)) != std::string_view::npos; at = end + 1) {
        lines[shard.run(k++)] = std::string(rows.substr(at, end - at + 1));
      }
    });
  }
  std::string merged;
  for (const std::string& line : lines) merged += line;
  CHECK(merged == sequential);
}

TEST_CASE("sweep: a sweep's rows are the rows of `mgsim run` with the same settings", "[sweep]") {
  SweepTempDir dir;
  json config = googlenet_sweep();
  config["collective"] = "tree";
  config["gpus"] = {4, 64, 2048};
  const bool noisy = GENERATE(false, true);
  if (noisy) {
    config["variability"] = {{"law", "exponential"}, {"mean_s", 2e-3}, {"per", "layer"}, {"seed", 9}};
    config["iterations"] = 20;
  }
  WorkloadCache cache;
  const RunGrid sweep(load_scenario(dir.write_json("sweep.json", config)), cache);
  config["schedules"] = {"wfbp", "single", "mgwfbp", json{{"name", "ddp"}, {"bucket_cap_mb", 1}},
                         json{{"name", "ddp"}, {"bucket_cap_mb", 25}}};
  const std::vector<RunRow> rows = rows_of(execute_runs(RunGrid(load_scenario(dir.write_json("run.json", config)), cache), KeepIterations::no));
  REQUIRE(rows.size() == sweep.size());
  const std::string prefix_of_trace = "," + kGoogleNetTrace + ",net0,1,";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(sweep.csv_line(i) == std::to_string(i) + prefix_of_trace + csv_row(rows[i]));
    // 64 layers' noise of mean 2 ms on each of 4..2048 GPUs lengthens every iteration.
    CHECK((rows[i].metrics.mean_iteration > rows[i].metrics.iteration) == noisy);
  }
}

TEST_CASE("sweep: the CSV is written whole at the end; a resume continues after its last complete row", "[sweep]") {
  SweepTempDir dir;
  const auto file = dir.path() / "out.csv";
  const std::string header = "run,x\n";
  const std::string print = "0123456789abcdef";
  const auto same = [](std::size_t k) { return std::to_string(k) + ","; };
  dir.write("out.csv", "an older result\n");
  {
    SweepFile out(file, header, print, false, same);
    CHECK(out.rows_found() == 0);
    out.append("0,a\n1,b\n2,c\n3,par");  // interrupted in the middle of row 3
  }
  CHECK(dir.read("out.csv") == "an older result\n");  // an unfinished sweep leaves the CSV as it was
  CHECK(dir.read("out.csv.partial.fingerprint") == "mgsim-sweep-fingerprint " + print + "\n");
  {
    SweepFile out(file, header, print, true, same);
    CHECK(out.rows_found() == 3);
    CHECK(dir.read("out.csv.partial") == "run,x\n0,a\n1,b\n2,c\n");  // the unfinished line is dropped
    out.append("3,d\n");
    out.finish();
  }
  CHECK(dir.read("out.csv") == "run,x\n0,a\n1,b\n2,c\n3,d\n");
  CHECK(dir.read("out.csv.fingerprint") == "mgsim-sweep-fingerprint " + print + "\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "out.csv.partial"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "out.csv.partial.fingerprint"));
  {
    SweepFile out(file, header, print, true, same);  // no partial file: the finished CSV's rows are kept
    CHECK(out.rows_found() == 4);
    CHECK(dir.read("out.csv.partial") == "run,x\n0,a\n1,b\n2,c\n3,d\n");
    out.append("4,e\n");
  }
  CHECK(dir.read("out.csv") == "run,x\n0,a\n1,b\n2,c\n3,d\n");
  {
    SweepFile out(file, header, print, false, same);  // not resuming: a fresh file
    CHECK(out.rows_found() == 0);
    out.finish();
  }
  CHECK(dir.read("out.csv") == header);
}

TEST_CASE("sweep: a CSV of another sweep is not resumed, and is left as it was", "[sweep]") {
  SweepTempDir dir;
  const std::string print = "0123456789abcdef";
  const auto same = [](std::size_t k) { return std::to_string(k) + ","; };
  const auto resume = [&](const std::string& name, const std::string& text, const std::string& header,
                          const SweepFile::RowKey& key_of) {
    dir.write(name, text);
    write_fingerprint(dir.path() / name, print);
    const SweepFile file(dir.path() / name, header, print, true, key_of);
    return file.rows_found();
  };
  CHECK_THROWS_WITH(resume("other.csv", "run,y\n0,a\n", "run,x\n", same), Contains("header is not this sweep's"));
  CHECK(dir.read("other.csv") == "run,y\n0,a\n");
  CHECK_THROWS_WITH(resume("gap.csv", "run,x\n0,a\n2,c\n", "run,x\n", same), Contains("line 3 is not this sweep's"));
  CHECK(dir.read("gap.csv") == "run,x\n0,a\n2,c\n");
  const auto one_row = [](std::size_t k) { return k < 1 ? std::to_string(k) + "," : std::string(); };
  CHECK_THROWS_WITH(resume("long.csv", "run,x\n0,a\n1,b\n", "run,x\n", one_row), Contains("more rows than"));
  // Rows of another configuration: the sidecar holds another fingerprint.
  dir.write("changed.csv", "run,x\n0,a\n");
  write_fingerprint(dir.path() / "changed.csv", "fedcba9876543210");
  CHECK_THROWS_WITH(SweepFile(dir.path() / "changed.csv", "run,x\n", print, true, same),
                    Contains("rows were computed from another configuration"));
  // A shard's rows are every n-th run: shard 2/3 holds runs 1, 4, 7.
  const SweepShard shard{2, 3};
  CHECK(resume("shard.csv", "run,x\n1,a\n4,b\n7,", "run,x\n",
               [&](std::size_t k) { return std::to_string(shard.run(k)) + ","; }) == 2);
  // With the version columns last, every row must carry this mgsim's version and format.
  const std::string versioned = "run,mgsim_version,format_version\n";
  CHECK_THROWS_WITH(
      resume("old.csv", versioned + "0," + std::string(version()) + ",2\n1,0.0.1-gdeadbee,2\n", versioned, same),
      Contains("written by another mgsim version ('0.0.1-gdeadbee,2'"));
  CHECK(resume("new.csv", versioned + "0," + std::string(version()) + ",2\n", versioned, same) == 1);
}

TEST_CASE("sweep: a second writer of one output, a link as its partial file, a damaged row are refused", "[sweep]") {
  SweepTempDir dir;
  const std::string print = "0123456789abcdef";
  const auto same = [](std::size_t k) { return std::to_string(k) + ","; };
  const auto file = dir.path() / "out.csv";
  {
    const SweepFile first(file, "run,x\n", print, false, same);
    CHECK_THROWS_WITH(SweepFile(file, "run,x\n", print, false, same), Contains("another mgsim sweep is writing it"));
    CHECK(dir.read("out.csv.partial") == "run,x\n");  // the refused one cut nothing
  }
  std::filesystem::remove(dir.path() / "out.csv.partial");
  dir.write("elsewhere.csv", "kept\n");
  std::filesystem::create_symlink(dir.path() / "elsewhere.csv", dir.path() / "out.csv.partial");
  CHECK_THROWS_WITH(SweepFile(file, "run,x\n", print, false, same), Contains("is a symbolic link"));
  CHECK(dir.read("elsewhere.csv") == "kept\n");
  // A row with a field too many or too few, its key right: damaged, not resumed.
  dir.write("damaged.csv", "run,x\n0,a\n1,b,extra\n");
  write_fingerprint(dir.path() / "damaged.csv", print);
  CHECK_THROWS_WITH(SweepFile(dir.path() / "damaged.csv", "run,x\n", print, true, same),
                    Contains("line 3 has 3 fields, the header 2"));
  // A quoted comma is inside one field.
  dir.write("quoted.csv", "run,x\n0,\"a,b\"\n");
  write_fingerprint(dir.path() / "quoted.csv", print);
  CHECK(SweepFile(dir.path() / "quoted.csv", "run,x\n", print, true, same).rows_found() == 1);
  // A refused resume leaves no partial file it created.
  CHECK_FALSE(std::filesystem::exists(dir.path() / "damaged.csv.partial"));
}

TEST_CASE("sweep: an output folder that cannot be written fails before anything runs", "[sweep]") {
  SweepTempDir dir;
  const auto same = [](std::size_t k) { return std::to_string(k) + ","; };
  CHECK_THROWS_AS(SweepFile(dir.path() / "missing" / "out.csv", "run\n", "0", false, same), OutputError);
  dir.write("plain-file", "x");
  CHECK_THROWS_WITH(SweepFile(dir.path() / "plain-file" / "out.csv", "run\n", "0", true, same), Contains("cannot write"));
}
