// OSU Micro-Benchmarks osu_allreduce, osu_allgather or osu_reduce_scatter
// output -> curve of that collective (the title says which). Read through its
// column header ("# Size  Avg Latency(us)" and, with -f, "Min Latency(us)
// Max Latency(us) Iterations"); the table ends at the first line that is not
// a row (a blank line, the shell's "real 0m3s", a prompt; a line of numbers
// under a size that is none, "nan", is a damaged row), and what follows is
// not read. OSU does not print the rank count: it comes from --gpus, or
// from a "N," prefix on every row (as in the B-Caffe logs shipped with mgsim).

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/profile/importers.hpp"
#include "text_lines.hpp"

namespace mgsim::profile {
namespace {

/// Splits an OSU column header on runs of two or more spaces.
std::vector<std::string> header_columns(std::string_view body) {
  std::vector<std::string> columns;
  std::string current;
  std::size_t spaces = 0;
  for (const char c : trim(body)) {
    if (c == ' ' || c == '\t') {
      ++spaces;
      continue;
    }
    if (spaces >= 2 || (spaces > 0 && c == '\t')) {
      columns.push_back(current);
      current.clear();
    } else if (spaces == 1) {
      current += ' ';
    }
    spaces = 0;
    current += c;
  }
  if (!current.empty()) columns.push_back(current);
  return columns;
}

class OsuReader {
 public:
  OsuReader(const std::string& source, const OsuOptions& options) : source_(source), options_(options) {}

  void read(std::istream& in) {
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
      const std::string_view view = trim(text);
      // A row starts with its size; a sign before it is a damaged row, not the table's end.
      const std::string_view number = !view.empty() && (view.front() == '-' || view.front() == '+') ? view.substr(1) : view;
      const bool is_row = (!number.empty() && number.front() >= '0' && number.front() <= '9') || damaged_row(view);
      if (ended_ != 0) {
        if (is_row || (view.starts_with('#') && trim(view.substr(1)).starts_with("OSU "))) {
          fail(line, fmt::format("the table ended at line {}: one table per file (split the log)", ended_));
        }
        continue;
      }
      if (!points_.empty() && !is_row) {
        ended_ = line;
      } else if (view.starts_with('#')) {
        comment(view.substr(1), line);
      } else if (is_row && size_column_) {
        row(view, line);
      } else if (is_row && title_line_ != 0) {  // red team: rows under the title, above the header, were dropped
        fail(line, "a result row before the column header (\"# Size  Avg Latency(us) ...\"): a damaged log");
      }
    }
  }

  ImportedCurve finish() const {
    if (title_.empty()) {
      fail(0, "no \"# OSU ... Allreduce|Allgather|Reduce_scatter Latency Test\" title: not an osu_allreduce, "
              "osu_allgather or osu_reduce_scatter output");
    }
    if (!size_column_) fail(0, "no column header (\"# Size  Avg Latency(us) ...\")");
    if (points_.empty()) fail(0, "no result rows under the column header");
    const int gpus = options_.gpus > 0 ? options_.gpus : prefix_gpus_;
    if (gpus == 0) {
      const std::string_view test =
          collective_ == CurveCollective::reducescatter ? "reduce_scatter" : curve_collective_name(collective_);
      fail(0, fmt::format("osu_{} does not print the number of ranks: give --gpus", test));
    }
    if (gpus < 2) fail(0, fmt::format("{} rank: a collective curve needs at least 2", gpus));
    ImportedCurve curve;
    curve.collective = collective_;
    for (CurveSample point : points_) {
      point.gpus = gpus;
      curve.points.push_back(point);
    }
    curve.provenance = {
        {"kind", "measured"},
        {"tool", title_},
        {"source_file", source_},
        {"metric",
         "average latency per operation (us), converted to seconds; spread = max - min latency "
         "when the output has them (-f)"},
        {"bytes", collective_ == CurveCollective::allgather ? "per rank (OSU's size)" : "OSU's size"},
        {"ranks", gpus},
        {"ranks_from", options_.gpus > 0 ? "--gpus" : "the \"N,\" prefix of the rows"},
    };
    return curve;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const { fail_at(source_, line, what); }

  /// A line of the header's width whose first word is no size ("nan",
  /// "N/A") but whose others are numbers: a damaged row, not the table's
  /// end nor a line before it.
  bool damaged_row(std::string_view text) const {
    if (!size_column_) return false;
    const std::vector<std::string_view> words = split_words(text);
    return words.size() == columns_ && std::all_of(words.begin() + 1, words.end(), [](std::string_view word) {
             return to_double(word).has_value();
           });
  }

  void comment(std::string_view body, int line) {
    const std::string_view text = trim(body);
    if (text.starts_with("OSU ")) {
      if (title_line_ != 0) {
        fail(line, fmt::format("a second title, after line {}'s: one table per file (split the log)", title_line_));
      }
      title_line_ = line;
      const std::vector<std::string_view> words = split_words(text);
      const std::string_view operation = words.size() > 2 ? words[2] : std::string_view();
      // "Latency Test", then at most a version ("v7.1"): a bandwidth or
      // non-blocking test prints other figures under the same columns.
      const bool latency_test = words.size() >= 5 && words.size() <= 6 && words[3] == "Latency" && words[4] == "Test" &&
                                (words.size() == 5 || words[5].starts_with('v'));
      if (!latency_test) {
        fail(line, fmt::format("\"{}\" is not an OSU latency test (\"# OSU <library> <collective> Latency Test "
                               "[vX]\")",
                               text));
      }
      if (operation == "Allreduce") {
        collective_ = CurveCollective::allreduce;
      } else if (operation == "Allgather") {
        collective_ = CurveCollective::allgather;
      } else if (operation == "Reduce_scatter") {
        collective_ = CurveCollective::reducescatter;
      } else {
        fail(line, fmt::format("\"{}\" is not osu_allreduce, osu_allgather or osu_reduce_scatter", text));
      }
      title_ = std::string(text);
      return;
    }
    const std::vector<std::string> columns = header_columns(text);
    if (columns.empty() || columns[0] != "Size") return;
    columns_ = columns.size();
    // A later header replaces an earlier one whole: no column index may outlive it.
    size_column_.reset();
    avg_.reset();
    min_.reset();
    max_.reset();
    iterations_.reset();
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == "Size") size_column_ = i;
      if (columns[i] == "Avg Latency(us)") avg_ = i;
      if (columns[i] == "Min Latency(us)") min_ = i;
      if (columns[i] == "Max Latency(us)") max_ = i;
      if (columns[i] == "Iterations") iterations_ = i;
    }
    if (!avg_) fail(line, "the column header has no \"Avg Latency(us)\"");
  }

  /// Strips a leading "N," (rank count) and checks that it is the same on every row.
  std::string_view strip_prefix(std::string_view text, int line) {
    const std::size_t comma = text.find(',');
    if (comma == std::string_view::npos) return text;
    const std::optional<std::int64_t> gpus = to_int(text.substr(0, comma));
    if (!gpus || *gpus < 1 || *gpus > kMaxGpus) fail(line, fmt::format("expected \"<ranks>,<size> <latency>...\", got \"{}\"", text));
    if (prefix_gpus_ != 0 && prefix_gpus_ != *gpus)
      fail(line, fmt::format("rank prefix {} after {}", *gpus, prefix_gpus_));
    if (options_.gpus > 0 && options_.gpus != *gpus) {
      fail(line, fmt::format("rank prefix {} contradicts --gpus {}", *gpus, options_.gpus));
    }
    prefix_gpus_ = static_cast<int>(*gpus);
    return text.substr(comma + 1);
  }

  void row(std::string_view text, int line) {
    const std::vector<std::string_view> words = split_words(strip_prefix(text, line));
    if (words.size() != columns_) {
      fail(line, fmt::format("expected {} columns as in the header, got {}: \"{}\"", columns_, words.size(), text));
    }
    const std::optional<std::int64_t> bytes = message_bytes(words[*size_column_]);
    if (!bytes || *bytes < 1) {
      fail(line, fmt::format("expected a size in [1, {}] bytes, got \"{}\"", kMaxMessageBytes, words[*size_column_]));
    }
    const std::optional<double> avg = latency_seconds(words[*avg_]);
    if (!avg) fail(line, fmt::format("expected {}, got \"{}\"", latency_range(), words[*avg_]));
    if (const auto seen = first_line_.find(*bytes); seen != first_line_.end()) {
      fail(line, fmt::format("size {} already given on line {}", *bytes, seen->second));
    }
    first_line_[*bytes] = line;
    if (iterations_) {
      const std::optional<std::int64_t> iterations = to_int(words[*iterations_]);
      if (!iterations || *iterations < 1) {
        fail(line, fmt::format("expected Iterations, a whole number >= 1, got \"{}\"", words[*iterations_]));
      }
    }
    if (points_.size() == kMaxCurveSizes) {
      fail(line, fmt::format("more than {} sizes: a latency sweep has a few dozen", kMaxCurveSizes));
    }
    CurveSample sample{0, *bytes, *avg, std::nullopt};
    if (min_ && max_) {
      const std::optional<double> lo = latency_seconds(words[*min_]), hi = latency_seconds(words[*max_]);
      if (!lo || !hi || *lo > *hi) fail(line, fmt::format("expected min latency <= max latency, each {}", latency_range()));
      // The average over the ranks lies between their min and max (to the 0.01 us printed).
      if (*avg < *lo - 1e-8 || *avg > *hi + 1e-8) {
        fail(line, fmt::format("the average latency {} us lies outside min {} and max {} us: a damaged row",
                               words[*avg_], words[*min_], words[*max_]));
      }
      sample.spread_s = *hi - *lo;
    }
    points_.push_back(sample);
  }

  std::string source_;
  OsuOptions options_;
  std::string title_;
  CurveCollective collective_ = CurveCollective::allreduce;
  int ended_ = 0;  ///< the line that ended the table, 0 while it goes on
  std::size_t columns_ = 0;
  std::optional<std::size_t> size_column_, avg_, min_, max_, iterations_;
  int title_line_ = 0;
  int prefix_gpus_ = 0;
  std::map<std::int64_t, int> first_line_;
  std::vector<CurveSample> points_;
};

}  // namespace

ImportedCurve import_osu(std::istream& text, const std::string& source, const OsuOptions& options) {
  OsuReader reader(source, options);
  reader.read(text);
  return reader.finish();
}

}  // namespace mgsim::profile
