// nccl-tests `all_reduce_perf` output -> curve. The table is read through its
// column header, so both column sets work:
//   newer: size count type redop root time algbw busbw #wrong (out-of-place, then in-place)
//   older: size count type redop time algbw busbw error        (no root; error = max deviation)
// The rank count comes from the "# Rank N ..." device list (or --gpus).

#include <fmt/format.h>

#include <map>
#include <set>

#include "mgsim/error.hpp"
#include "mgsim/profile/importers.hpp"
#include "text_lines.hpp"

namespace mgsim::profile {
namespace {

/// Where the columns of the table are, from its "# size count type ..." line.
struct Columns {
  int line = 0;
  std::size_t count = 0;  ///< words per data row
  std::size_t size = 0;
  std::optional<std::size_t> type, redop;
  std::vector<std::size_t> time;   ///< out-of-place, in-place
  std::vector<std::size_t> check;  ///< "#wrong" or "error" after each time
  bool counts_wrong = false;       ///< "#wrong" (a count) rather than "error" (a deviation)
};

std::optional<Columns> parse_header(const std::vector<std::string_view>& words, int line) {
  if (words.empty() || (words[0] != "size" && words[0] != "bytes")) return std::nullopt;
  Columns c;
  c.line = line;
  c.count = words.size();
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "type") c.type = i;
    if (words[i] == "redop" || words[i] == "op") c.redop = i;
    if (words[i] == "time") c.time.push_back(i);
    if (words[i] == "#wrong" || words[i] == "error" || words[i] == "res") {
      c.check.push_back(i);
      c.counts_wrong = words[i] == "#wrong";
    }
  }
  if (c.time.empty()) return std::nullopt;
  return c;
}

struct Row {
  int line = 0;
  std::int64_t bytes = 0;
  double seconds = 0.0;
};

class NcclTestsReader {
 public:
  NcclTestsReader(const std::string& source, const NcclTestsOptions& options) : source_(source), options_(options) {}

  void read(std::istream& in) {
    for_each_line(
        in, [&](std::string_view text, int line) { comment(text, line); },
        [&](std::string_view text, int line) { row(split_words(text), line); });
  }

  ImportedCurve finish() const {
    if (!columns_)
      fail(0,
           "no column header (\"# size count type redop ... time algbw busbw ...\"): not an "
           "all_reduce_perf output");
    if (rows_.empty()) fail(0, "no result rows under the column header");
    const int gpus = ranks();
    ImportedCurve curve;
    for (const Row& r : rows_) curve.points.push_back({gpus, r.bytes, r.seconds, std::nullopt});
    curve.provenance = {
        {"kind", "measured"},
        {"tool", "nccl-tests all_reduce_perf"},
        {"source_file", source_},
        {"columns", options_.columns == NcclTestsColumns::in_place ? "in-place" : "out-of-place"},
        {"metric", "time column (us) of each size, converted to seconds"},
        {"ranks", gpus},
        {"ranks_from", options_.gpus > 0 ? "--gpus" : "the '# Rank' lines of the device list"},
    };
    if (!devices_.empty()) curve.provenance["hardware"] = std::vector<std::string>(devices_.begin(), devices_.end());
    if (!hosts_.empty()) curve.provenance["hosts"] = hosts_.size();
    if (!settings_.empty()) curve.provenance["run_settings"] = settings_;
    if (skipped_empty_ > 0) curve.provenance["rows_of_0_bytes_skipped"] = skipped_empty_;
    return curve;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const { fail_at(source_, line, what); }

  void comment(std::string_view body, int line) {
    const std::vector<std::string_view> words = split_words(body);
    if (words.empty()) return;
    if (words[0] == "Rank" && words.size() >= 2 && to_int(words[1])) return device(body, words);
    if (words[0] == "nThread") settings_ = std::string(trim(body));
    if (std::optional<Columns> header = parse_header(words, line)) {
      if (columns_ && columns_->count != header->count) fail(line, "a second column header with other columns");
      columns_ = header;
      const std::size_t group = options_.columns == NcclTestsColumns::in_place ? 1 : 0;
      if (columns_->time.size() <= group) fail(line, "the header has no in-place time column");
    }
  }

  void device(std::string_view body, const std::vector<std::string_view>& words) {
    ranks_.insert(*to_int(words[1]));
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "on") hosts_.insert(std::string(words[i + 1]));
    }
    const std::size_t bracket = body.find(']');
    if (bracket != std::string_view::npos) devices_.insert(std::string(trim(body.substr(bracket + 1))));
  }

  void row(const std::vector<std::string_view>& words, int line) {
    if (!all_digits(words[0])) return;  // a log line (NCCL INFO, host names), not a result
    if (!columns_) fail(line, "a result row before the column header");
    if (words.size() != columns_->count) {
      fail(line, fmt::format("expected {} columns as in the header (line {}), got {}", columns_->count, columns_->line,
                             words.size()));
    }
    if (!keep(words)) return;
    const std::size_t group = options_.columns == NcclTestsColumns::in_place ? 1 : 0;
    check_validation(words, group, line);
    const std::optional<std::int64_t> size = message_bytes(words[columns_->size]);
    if (!size) {
      fail(line, fmt::format("expected a size in [0, {}] bytes, got \"{}\"", kMaxMessageBytes, words[columns_->size]));
    }
    const std::int64_t bytes = *size;
    const std::optional<double> seconds = latency_seconds(words[columns_->time[group]]);
    if (!seconds) fail(line, fmt::format("expected {}, got \"{}\"", latency_range(), words[columns_->time[group]]));
    if (bytes == 0) {
      ++skipped_empty_;
      return;
    }
    if (const auto seen = first_line_.find(bytes); seen != first_line_.end()) {
      fail(line, fmt::format("size {} already given on line {} (several types or reductions? use --type and --redop)",
                             bytes, seen->second));
    }
    first_line_[bytes] = line;
    rows_.push_back({line, bytes, *seconds});
  }

  bool keep(const std::vector<std::string_view>& words) const {
    if (!options_.data_type.empty() && columns_->type && words[*columns_->type] != options_.data_type) return false;
    if (!options_.reduction.empty() && columns_->redop && words[*columns_->redop] != options_.reduction) return false;
    return true;
  }

  void check_validation(const std::vector<std::string_view>& words, std::size_t group, int line) const {
    if (!columns_->counts_wrong || columns_->check.size() <= group) return;
    const std::string_view wrong = words[columns_->check[group]];
    if (wrong == "N/A") return;
    const std::optional<std::int64_t> count = to_int(wrong);
    if (!count) fail(line, fmt::format("expected a #wrong count, got \"{}\"", wrong));
    if (*count > 0) fail(line, fmt::format("nccl-tests counted {} wrong results: this run did not validate", *count));
  }

  int ranks() const {
    const int gpus = options_.gpus > 0 ? options_.gpus : static_cast<int>(ranks_.size());
    if (gpus == 0) fail(0, "no device list (\"#  Rank 0 ... device ...\" lines) to count ranks from: give --gpus");
    if (gpus < 2) fail(0, fmt::format("{} rank: an all-reduce curve needs at least 2", gpus));
    return gpus;
  }

  std::string source_;
  NcclTestsOptions options_;
  std::optional<Columns> columns_;
  std::vector<Row> rows_;
  std::map<std::int64_t, int> first_line_;
  std::set<std::int64_t> ranks_;
  std::set<std::string> devices_, hosts_;
  std::string settings_;
  int skipped_empty_ = 0;
};

}  // namespace

ImportedCurve import_nccl_tests(std::istream& text, const std::string& source, const NcclTestsOptions& options) {
  NcclTestsReader reader(source, options);
  reader.read(text);
  return reader.finish();
}

}  // namespace mgsim::profile
