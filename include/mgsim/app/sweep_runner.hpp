#pragma once
// Executing a sweep: worker threads take runs by index, and the calling
// thread hands their CSV rows to a sink strictly in index order (buffering
// rows that finish early), so whatever has been written is at every moment a
// prefix of the full result, whatever the thread count. A shard is every
// n-th run of the grid, so n processes on n machines split one sweep; the
// `run` column lets their CSVs be merged back in order. SweepFile is the
// output: written as rows arrive, and resumable after an interruption.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "mgsim/app/run_grid.hpp"

namespace mgsim {

/// Slice `index` (1-based) of `count`: runs index-1, index-1+count, ...
struct SweepShard {
  int index = 1;
  int count = 1;

  /// Parses "i/n" with 1 <= i <= n; throws ConfigError.
  static SweepShard parse(std::string_view text);
  /// Runs of this shard in a grid of `total` runs.
  std::size_t size(std::size_t total) const;
  /// Grid index of the shard's k-th run.
  std::size_t run(std::size_t k) const { return k * static_cast<std::size_t>(count) + static_cast<std::size_t>(index - 1); }
};

/// Makes row `k` (any thread may call it, concurrently).
using RowMaker = std::function<std::string(std::size_t k)>;
/// Receives consecutive rows, concatenated, and how many rows are done in all
/// (`first` included). Called on the calling thread only.
using RowSink = std::function<void(std::string_view rows, std::size_t done)>;

/// Makes rows [first, count) on `threads` workers (0: one per hardware
/// thread) and passes them to `sink` in order. An exception from `make` or
/// `sink` stops the workers and is rethrown once they have finished; rows
/// already passed to the sink stay passed.
void run_ordered(std::size_t first, std::size_t count, int threads, const RowMaker& make, const RowSink& sink);

/// Runs a shard of a sweep from its `first`-th run on, rows to `sink`.
void run_sweep(const RunGrid& sweep, SweepShard shard, std::size_t first, int threads, const RowSink& sink);

/// A sweep's CSV file, appended to as rows arrive.
class SweepFile {
 public:
  /// What the k-th row of the file must start with (its run and grid
  /// columns), or "" when the sweep has no k-th row.
  using RowKey = std::function<std::string(std::size_t k)>;

  /// Opens `file` for writing. Fresh: truncates it and writes `header`.
  /// Resume: an absent or empty file starts fresh; otherwise the header must
  /// match, a trailing partial line is cut off, and the k-th complete row
  /// must start with `key_of(k)` (else the file is another sweep's). Throws
  /// OutputError (cannot write, another sweep's file), leaving the file as it
  /// was unless only a partial last line was cut.
  SweepFile(const std::filesystem::path& file, const std::string& header, bool resume, const RowKey& key_of);
  ~SweepFile();
  SweepFile(const SweepFile&) = delete;
  SweepFile& operator=(const SweepFile&) = delete;

  /// Complete rows found in the file when it was opened (0 unless resumed).
  std::size_t rows_found() const { return rows_found_; }
  /// Appends `text` with one write; throws OutputError.
  void append(std::string_view text);

 private:
  std::size_t resume(const std::string& header, const RowKey& key_of);

  std::filesystem::path file_;
  int fd_ = -1;
  std::size_t rows_found_ = 0;
};

}  // namespace mgsim
