#include "mgsim/app/sweep_runner.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mgsim/app/sweep_fingerprint.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/version.hpp"

namespace mgsim {
namespace {

/// Rows of consecutive runs [first, end), made by one worker in one go.
struct Batch {
  std::size_t end = 0;
  std::string rows;
};

/// The batches that finished, by first index (a failed one up to its
/// failure), and the failure of the lowest run.
struct Results {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::size_t, Batch> finished;
  std::exception_ptr failure;
  std::size_t failed_at = std::numeric_limits<std::size_t>::max();
};

/// Moves the rows from `next` on that are finished into one string.
std::string take_in_order(Results& results, std::size_t& next) {
  std::string rows;
  auto it = results.finished.begin();
  while (it != results.finished.end() && it->first == next) {
    rows += it->second.rows;
    next = it->second.end;
    it = results.finished.erase(it);
  }
  return rows;
}

/// Runs a worker makes before handing their rows to the writer: enough that
/// the hand-off (a lock, a map node, a wake-up) is rare next to the runs,
/// few enough that every thread gets about 8 batches and rows reach the file
/// steadily.
std::size_t batch_size(std::size_t runs, int threads) {
  return std::clamp<std::size_t>(runs / (static_cast<std::size_t>(threads) * 8), 1, 256);
}

[[noreturn]] void throw_output(const std::filesystem::path& file, std::string_view what) {
  throw OutputError(fmt::format("{}: {}", file.string(), what));
}

[[noreturn]] void refuse_other_version(const std::filesystem::path& file, std::string_view written_by) {
  throw_output(file, fmt::format("cannot resume: written by another mgsim version ('{}'; this is '{},{}'): its rows "
                                 "and new ones would mix (remove the file or write elsewhere)",
                                 printable(written_by, 80), version(), kReportFormatVersion));
}

/// A row's last two fields, "VERSION,FORMAT": which mgsim wrote it.
std::string_view version_of(std::string_view row) {
  const std::size_t format = row.rfind(',');
  if (format == std::string_view::npos || format == 0) return row;
  const std::size_t version = row.rfind(',', format - 1);
  return version == std::string_view::npos ? row : row.substr(version + 1);
}

/// The fields of a CSV line, commas inside quotes not counted.
std::size_t csv_fields(std::string_view line) {
  std::size_t fields = 1;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++fields;
  }
  return fields;
}

/// The header and complete rows of a sweep's CSV `file`, and how many rows:
/// ("", 0) when it holds no more than a start of the header (interrupted
/// while writing it). Throws OutputError when a row is not the k-th row of
/// this sweep (`key_of`), the header differs or another mgsim wrote a row.
std::pair<std::string, std::size_t> complete_rows(const std::filesystem::path& file, const std::string& header,
                                                  const SweepFile::RowKey& key_of) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw_output(file, fmt::format("cannot read to resume: {}", std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  if (header.starts_with(text)) return {};
  if (text.starts_with("# mgsim ")) refuse_other_version(file, text.substr(0, text.find('\n')));  // format 1's first line
  if (!text.starts_with(header)) {
    throw_output(file, "cannot resume: its header is not this sweep's (remove the file or write elsewhere)");
  }
  const auto header_lines = static_cast<std::size_t>(std::count(header.begin(), header.end(), '\n'));
  const std::size_t fields = csv_fields(std::string_view(header).substr(0, header.size() - 1));
  const bool versioned = header.ends_with(fmt::format("{}\n", kCsvVersionColumns));  // rows end with their version
  std::size_t rows = 0;
  std::size_t at = header.size();
  for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1, ++rows) {
    const std::string key = key_of(rows);
    if (key.empty()) throw_output(file, "cannot resume: it holds more rows than this sweep has");
    const std::string_view line = std::string_view(text).substr(at, end - at);
    if (const std::size_t found = csv_fields(line); found != fields) {
      throw_output(file, fmt::format("cannot resume: line {} has {} fields, the header {}: a damaged row (remove the "
                                     "file or write elsewhere)",
                                     header_lines + rows + 1, found, fields));
    }
    if (versioned && !line.ends_with(csv_version_fields())) refuse_other_version(file, version_of(line));
    if (!line.starts_with(key)) {
      throw_output(file, fmt::format("cannot resume: line {} is not this sweep's (it should start with \"{}\"): "
                                     "another sweep's or shard's file?",
                                     header_lines + rows + 1, key));
    }
  }
  text.resize(at);
  return {std::move(text), rows};
}

/// The workers for `jobs` jobs on `threads` threads (<= 0: one per hardware thread).
int workers_for(std::size_t jobs, int threads) {
  const std::size_t wanted =
      threads > 0 ? static_cast<std::size_t>(threads) : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::min(wanted, jobs));
}

}  // namespace

SweepShard SweepShard::parse(std::string_view text) {
  SweepShard shard;
  const auto slash = text.find('/');
  const char* end = text.data() + text.size();
  bool ok = slash != std::string_view::npos;
  if (ok) {
    const auto first = std::from_chars(text.data(), text.data() + slash, shard.index);
    const auto second = std::from_chars(text.data() + slash + 1, end, shard.count);
    ok = first.ec == std::errc{} && first.ptr == text.data() + slash && second.ec == std::errc{} && second.ptr == end &&
         shard.count >= 1 && shard.index >= 1 && shard.index <= shard.count;
  }
  // As written, or 01/4 would run slice 1/4 under another name (red team).
  ok = ok && text == fmt::format("{}/{}", shard.index, shard.count);
  if (!ok) throw ConfigError(fmt::format("--shard: expected i/n with 1 <= i <= n, in digits without leading zeros, got '{}'", text));
  return shard;
}

std::size_t SweepShard::size(std::size_t total) const {
  const auto skip = static_cast<std::size_t>(index - 1);
  return total <= skip ? 0 : (total - skip + static_cast<std::size_t>(count) - 1) / static_cast<std::size_t>(count);
}

void run_ordered(std::size_t first, std::size_t count, int threads, const RowMaker& make, const RowSink& sink) {
  if (first >= count) return;
  threads = workers_for(count - first, threads);
  Results results;
  std::atomic<std::size_t> next_run{first};
  // Runs from here on are not started: the lowest that failed, or every one once the sink failed. Every run
  // below the lowest failure is made and written, so what a failed sweep leaves and the error it reports are
  // those of its first failing run whatever the thread count (red team: they changed with -j).
  std::atomic<std::size_t> stop_at{count};
  const std::size_t batch = batch_size(count - first, threads);
  const auto work = [&] {
    for (std::size_t begin; (begin = next_run.fetch_add(batch)) < stop_at;) {
      const std::size_t end = std::min(begin + batch, count);
      std::string rows;
      std::size_t k = begin;
      std::exception_ptr failure;
      try {
        for (; k < end; ++k) rows += make(k);
      } catch (...) {
        failure = std::current_exception();
      }
      const std::lock_guard lock(results.mutex);
      if (k > begin) results.finished.emplace(begin, Batch{k, std::move(rows)});
      if (failure && k < results.failed_at) {
        results.failure = failure;
        results.failed_at = k;
        stop_at = std::min<std::size_t>(stop_at, k);
      }
      results.changed.notify_one();
    }
  };
  std::exception_ptr sink_failure;
  {
    std::vector<std::jthread> workers;  // joined before `results` goes away
    for (int t = 0; t < threads; ++t) workers.emplace_back(work);
    for (std::size_t written = first; written < count;) {
      std::unique_lock lock(results.mutex);
      results.changed.wait(lock, [&] { return written == results.failed_at || results.finished.contains(written); });
      if (written == results.failed_at) break;
      const std::string rows = take_in_order(results, written);
      lock.unlock();
      try {
        sink(rows, written);
      } catch (...) {
        sink_failure = std::current_exception();
        stop_at = 0;
        break;
      }
    }
  }
  if (sink_failure) std::rethrow_exception(sink_failure);
  if (results.failure) std::rethrow_exception(results.failure);
}

void for_each_index(std::size_t count, int threads, const std::function<void(std::size_t k)>& work) {
  if (count == 0) return;
  threads = workers_for(count, threads);
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  const auto worker = [&] {
    for (std::size_t k; (k = next.fetch_add(1)) < count;) {
      try {
        work(k);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        next = count;
      }
    }
  };
  {
    std::vector<std::jthread> workers;
    for (int t = 0; t < threads; ++t) workers.emplace_back(worker);
  }
  if (failure) std::rethrow_exception(failure);
}

void run_sweep(const RunGrid& sweep, SweepShard shard, std::size_t first, int threads, const RowSink& sink) {
  run_ordered(first, shard.size(sweep.size()), threads, [&](std::size_t k) { return sweep.csv_line(shard.run(k)); }, sink);
}

SweepFile::SweepFile(const std::filesystem::path& csv, const std::string& header, const std::string& fingerprint,
                     bool resume, const RowKey& key_of)
    : csv_(csv), partial_(partial_file(csv)) {
  for (const std::filesystem::path& own : {partial_, fingerprint_file(partial_)}) {
    std::error_code error;
    if (std::filesystem::is_symlink(own, error)) {
      throw_output(own, "is a symbolic link: a sweep's working file is its own (remove the link)");
    }
  }
  // Opened and locked before anything is read or cut: a second sweep to the
  // same output is refused, not interleaved with this one.
  bool created = false;
  fd_ = ::open(partial_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0 && errno == ENOENT) {
    fd_ = ::open(partial_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    created = fd_ >= 0;
  }
  if (fd_ < 0) throw_output(partial_, fmt::format("cannot write: {}", std::strerror(errno)));
  try {
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      throw_output(partial_, errno == EWOULDBLOCK ? "another mgsim sweep is writing it (wait for it, or write elsewhere)"
                                                  : fmt::format("cannot lock: {}", std::strerror(errno)));
    }
    start(header, fingerprint, resume, key_of);
  } catch (...) {
    if (created) ::unlink(partial_.c_str());
    ::close(std::exchange(fd_, -1));
    throw;
  }
}

void SweepFile::start(const std::string& header, const std::string& fingerprint, bool resume, const RowKey& key_of) {
  const auto has_rows = [](const std::filesystem::path& file) {
    std::error_code error;
    return std::filesystem::file_size(file, error) > 0 && !error;
  };
  std::string kept;  // the source's header and complete rows
  const bool from_partial = resume && has_rows(partial_);
  if (resume && (from_partial || has_rows(csv_))) {
    const std::filesystem::path& source = from_partial ? partial_ : csv_;
    check_fingerprint(source, fingerprint);
    std::tie(kept, rows_found_) = complete_rows(source, header, key_of);
  }
  const bool continued = rows_found_ > 0 && from_partial;
  if (continued) {
    struct stat info {};
    if (::fstat(fd_, &info) != 0 ||
        (static_cast<std::size_t>(info.st_size) > kept.size() && ::ftruncate(fd_, static_cast<off_t>(kept.size())) != 0)) {
      throw_output(partial_, fmt::format("cannot cut the unfinished last line: {}", std::strerror(errno)));
    }
    if (::lseek(fd_, 0, SEEK_END) < 0) throw_output(partial_, fmt::format("cannot write: {}", std::strerror(errno)));
  } else if (::ftruncate(fd_, 0) != 0) {
    throw_output(partial_, fmt::format("cannot write: {}", std::strerror(errno)));
  }
  // The partial's first line and its fingerprint together (red team: a signal between them left a header that
  // --resume refused for want of its fingerprint).
  const SignalsHeld held;
  if (!continued) append(rows_found_ > 0 ? kept : header);  // the CSV's rows are continued in the partial file
  write_fingerprint(partial_, fingerprint);
}

SweepFile::~SweepFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::filesystem::path SweepFile::partial_file(const std::filesystem::path& csv) { return csv.string() + ".partial"; }

void SweepFile::finish() {
  if (::fsync(fd_) != 0) throw_output(partial_, fmt::format("cannot write: {}", std::strerror(errno)));
  // The old sidecar goes first: a CSV whose sidecar is missing is not
  // resumed, while one beside the sidecar of other rows would be. A signal
  // waits for the last rename (red team: one between them left the new CSV
  // without its sidecar).
  const SignalsHeld held;
  const std::filesystem::path sidecar = fingerprint_file(csv_);
  if (::unlink(sidecar.c_str()) != 0 && errno != ENOENT) {
    throw_output(sidecar, fmt::format("cannot replace it: {}", std::strerror(errno)));
  }
  const std::pair<std::filesystem::path, std::filesystem::path> renames[] = {{partial_, csv_},
                                                                             {fingerprint_file(partial_), sidecar}};
  for (const auto& [from, to] : renames) {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      throw_output(to, fmt::format("cannot replace it by {}: {}", from.string(), std::strerror(errno)));
    }
  }
  ::close(std::exchange(fd_, -1));  // the lock held until both are in place
}

void SweepFile::discard() {
  ::unlink(fingerprint_file(partial_).c_str());
  ::unlink(partial_.c_str());
  ::close(std::exchange(fd_, -1));  // the lock held until both are gone
}

void SweepFile::append(std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd_, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) throw_output(partial_, fmt::format("cannot write: {}", std::strerror(errno)));
    text.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace mgsim
