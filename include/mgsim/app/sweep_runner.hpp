#pragma once
// Executing a sweep: worker threads take runs by index, and the calling
// thread hands their CSV rows to a sink strictly in index order (buffering
// rows that finish early), so whatever has been written is at every moment a
// prefix of the full result, whatever the thread count. A shard is every
// n-th run of the grid, so n processes on n machines split one sweep; the
// `run` column lets their CSVs be merged back in order. SweepFile is the
// output: written whole at the end, its rows kept for a resume on the way.

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
/// thread) and passes them to `sink` in order. Where `make` throws, every row
/// before the lowest run that threw is passed, none after, and that run's
/// exception is rethrown once the workers have finished: the same rows and
/// error for any thread count. An exception from `sink` stops the workers
/// and is rethrown; rows already passed to the sink stay passed.
void run_ordered(std::size_t first, std::size_t count, int threads, const RowMaker& make, const RowSink& sink);

/// Calls work(k) once for each k in [0, count), k taken in rising order by
/// `threads` workers (0: one per hardware thread). The first exception stops
/// the workers taking more and is rethrown once they have finished.
void for_each_index(std::size_t count, int threads, const std::function<void(std::size_t k)>& work);

/// Runs a shard of a sweep from its `first`-th run on, rows to `sink`.
void run_sweep(const RunGrid& sweep, SweepShard shard, std::size_t first, int threads, const RowSink& sink);

/// A sweep's CSV, written whole or not at all: rows are appended to
/// "<csv>.partial" as they arrive, beside its fingerprint sidecar, and
/// finish() renames both over the CSV and its sidecar. A sweep interrupted or
/// refused part way leaves the CSV as it was and its finished rows in the
/// partial file, which --resume continues.
class SweepFile {
 public:
  /// What the k-th row of the file must start with (its run and grid
  /// columns), or "" when the sweep has no k-th row.
  using RowKey = std::function<std::string(std::size_t k)>;

  /// Opens and locks the partial file of `csv` (another sweep writing it, or
  /// a link there, is refused). Fresh: truncates it and
  /// writes `header`. Resume: the rows come from the partial file, or from
  /// `csv` when there is none; an absent or empty one starts fresh; otherwise
  /// its fingerprint sidecar must hold `fingerprint`, the header must match,
  /// a trailing unfinished line is dropped, and the k-th complete row must
  /// start with `key_of(k)` (else the file is another sweep's). Throws
  /// OutputError (cannot write, another sweep's file), leaving the CSV as it
  /// was.
  SweepFile(const std::filesystem::path& csv, const std::string& header, const std::string& fingerprint, bool resume,
            const RowKey& key_of);
  ~SweepFile();
  SweepFile(const SweepFile&) = delete;
  SweepFile& operator=(const SweepFile&) = delete;

  /// "<csv>.partial": where the rows of an unfinished sweep are.
  static std::filesystem::path partial_file(const std::filesystem::path& csv);
  /// Complete rows found when it was opened (0 unless resumed).
  std::size_t rows_found() const { return rows_found_; }
  /// Appends `text` with one write; throws OutputError.
  void append(std::string_view text);
  /// Every row is written: the partial file and its sidecar replace the CSV
  /// and its sidecar. Throws OutputError.
  void finish();
  /// A sweep refused before its first row: the partial file (its header
  /// alone) and its sidecar go, for nothing could resume from them.
  void discard();

 private:
  /// Cuts or rewrites the opened, locked partial file and writes its sidecar.
  void start(const std::string& header, const std::string& fingerprint, bool resume, const RowKey& key_of);

  std::filesystem::path csv_;
  std::filesystem::path partial_;
  int fd_ = -1;
  std::size_t rows_found_ = 0;
};

}  // namespace mgsim
