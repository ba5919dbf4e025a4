// `mgsim sweep`: every run of a grid of traces, GPU counts, networks,
// collectives and schedules, as one CSV: on stdout while the runs finish, or
// in a file written whole when the last one has.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "progress_bar.hpp"
#include "mgsim/error.hpp"
#include "mgsim/app/sweep_runner.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/app/sweep_fingerprint.hpp"

namespace mgsim::cli {
namespace {

struct SweepOptions {
  std::string config;
  std::string output;
  std::string shard = "1/1";
  int threads = 0;  ///< not given: one per hardware thread (run_sweep's 0)
  bool resume = false;
  double max_work = kDefaultMaxWork;
};

void sweep(SweepOptions options) {
  const SweepShard shard = SweepShard::parse(options.shard);
  if (options.output == kStdout) options.output.clear();
  for (const std::string_view own : {".partial", ".fingerprint"}) {
    if (options.output.ends_with(own)) {
      throw ConfigError(fmt::format("--output: expected a CSV file name, got '{}': a name ending {} is a sweep's "
                                    "working file",
                                    options.output, own));
    }
  }
  if (options.resume && options.output.empty()) throw ConfigError("--resume: needs --output FILE to resume");
  WorkloadCache cache;
  const RunGrid grid(load_scenario(options.config), cache);  // validates everything before any output
  const std::size_t total = shard.size(grid.size());
  double steps = 0;
  for (std::size_t k = 0; k < total; ++k) steps += grid.estimate_steps(shard.run(k));
  check_work(steps, options.max_work);
  std::optional<SweepFile> file;
  std::size_t first = 0;
  if (!options.output.empty()) {
    const auto key_of = [&](std::size_t k) { return k < total ? grid.key(shard.run(k)) : std::string(); };
    const std::filesystem::path csv = output_target(options.output);  // a regular file, through any link
    for (const std::filesystem::path& out : {csv, SweepFile::partial_file(csv)}) {
      check_output(out);
      check_output(fingerprint_file(out));
    }
    file.emplace(csv, RunGrid::header(), sweep_fingerprint(grid, shard), options.resume, key_of);
    first = file->rows_found();
  } else {
    write_stdout(RunGrid::header());
  }
  ProgressBar progress(first, total, std::chrono::milliseconds(0));
  progress.update(first);
  bool rows = first > 0;  // in the partial file
  try {
    run_sweep(grid, shard, first, options.threads, [&](std::string_view text, std::size_t done) {
      if (file) {
        file->append(text);
        rows = true;
      } else {
        write_stdout(text);
      }
      progress.update(done);
    });
  } catch (const Error&) {
    if (file && !rows) file->discard();  // red team: a header-only partial file and its sidecar were left
    throw;
  }
  if (file) file->finish();
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* command = app.add_subcommand("sweep", "run a grid of traces, GPU counts, networks, collectives and "
                                                  "schedules into one CSV (docs/sweeps.md)");
  command->add_option("-c,--config", options->config, "sweep config (JSON, see docs/sweeps.md)")
      ->required()
      ->transform(shipped_data());
  command->add_option("-o,--output", options->output, "CSV file, written whole at the end; rows so far in FILE.partial (default or -: stdout)")
      ->check(output_name());
  command->add_option("-j,--threads", options->threads, "worker threads, 1..1024 (default: one per hardware thread)")
      ->check(whole_in(1, 1024));
  command->add_option("--max-work", options->max_work, "most steps to simulate (an estimate, checked before running)")
      ->capture_default_str()
      ->check(finite_in(1, 1e15, true));
  command->add_flag("--resume", options->resume, "keep the complete rows already in FILE.partial (or FILE) and run the rest");
  command->add_option("--shard", options->shard, "run only slice i of n (1 <= i <= n): every n-th run from run i-1")
      ->capture_default_str();
  add_examples(command, {"mgsim sweep -c configs/sweep-bench.json -o bench.csv",
                         "mgsim sweep -c configs/sweep-bench.json -o bench-1.csv --shard 1/4 --resume"});
  command->callback([options] { sweep(*options); });
}

}  // namespace mgsim::cli
