// `mgsim sweep`: every run of a grid of traces, GPU counts, networks,
// collectives and schedules, as one CSV written while the runs finish.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
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
  int threads = 0;
  bool resume = false;
};

/// A one-line progress bar on stderr (rows done, rate, ETA), redrawn at most
/// ten times a second; silent when stderr is not a terminal.
class ProgressBar {
 public:
  ProgressBar(std::size_t first, std::size_t total)
      : enabled_(::isatty(STDERR_FILENO) == 1), first_(first), total_(total), start_(Clock::now()) {}

  void update(std::size_t done) {
    if (!enabled_ || total_ == 0) return;
    const auto now = Clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done - first_) / elapsed : 0.0;
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
    constexpr int kWidth = 30;
    const auto filled = static_cast<int>(kWidth * static_cast<double>(done) / static_cast<double>(total_));
    fmt::print(stderr, "\r[{:=<{}}{:<{}}] {}/{} runs  {:.0f} runs/s  ETA {:.1f} s ", "", filled, "",
               kWidth - filled, done, total_, rate, eta);
    if (done == total_) fmt::print(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  std::size_t first_;
  std::size_t total_;
  Clock::time_point start_;
  Clock::time_point last_{};
};

void sweep(SweepOptions options) {
  const SweepShard shard = SweepShard::parse(options.shard);
  if (options.output == kStdout) options.output.clear();
  if (options.resume && options.output.empty()) throw ConfigError("--resume: needs --output FILE to resume");
  const Sweep grid(load_sweep_config(options.config));  // validates everything before any output
  const std::size_t total = shard.size(grid.size());
  std::optional<SweepFile> file;
  std::size_t first = 0;
  if (!options.output.empty()) {
    const auto key_of = [&](std::size_t k) { return k < total ? grid.key(shard.run(k)) : std::string(); };
    const std::filesystem::path csv = output_target(options.output);  // a regular file, through any link
    check_output(csv);
    check_output(fingerprint_file(csv));
    const std::string fingerprint = sweep_fingerprint(grid, shard);
    if (options.resume) check_fingerprint(csv, fingerprint);
    file.emplace(csv, Sweep::header(), options.resume, key_of);
    write_fingerprint(csv, fingerprint);
    first = file->rows_found();
  } else {
    write_stdout(Sweep::header());
  }
  ProgressBar progress(first, total);
  progress.update(first);
  run_sweep(grid, shard, first, options.threads, [&](std::string_view rows, std::size_t done) {
    if (file) {
      file->append(rows);
    } else {
      write_stdout(rows);
    }
    progress.update(done);
  });
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* command = app.add_subcommand("sweep", "run a grid of traces, GPU counts, networks, collectives and "
                                                  "schedules into one CSV (docs/sweeps.md)");
  command->add_option("-c,--config", options->config, "sweep config (JSON, see docs/sweeps.md)")->required();
  command->add_option("-o,--output", options->output, "CSV file, written as rows finish (default or -: stdout)");
  command->add_option("-j,--threads", options->threads, "worker threads (0: one per hardware thread)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->add_flag("--resume", options->resume, "keep the complete rows already in --output and run the rest");
  command->add_option("--shard", options->shard, "run only slice i of n (1 <= i <= n): every n-th run from run i-1")
      ->capture_default_str();
  add_examples(command, {"mgsim sweep -c configs/sweep-bench.json -o bench.csv",
                         "mgsim sweep -c configs/sweep-bench.json -o bench-1.csv --shard 1/4 --resume"});
  command->callback([options] { sweep(*options); });
}

}  // namespace mgsim::cli
