// nccl-tests output -> curve. A log may hold several collectives, each in its
// section ("# Collective test starting: all_gather_perf"); the one asked for
// (all_reduce_perf by default) is imported. Lines tagged by the launcher
// ("[1,0]<stdout>:" from mpirun --tag-output, " 0: " from srun -l) are read
// without the tag. The table is read through its column header, so both
// column sets work:
//   newer: size count type redop root time algbw busbw #wrong (out-of-place, then in-place)
//   older: size count type redop time algbw busbw error        (no root; error = max deviation)
// Ranks: NCCL's "nranks N" (NCCL_DEBUG=INFO), else the "# Rank N ..." device
// list, else the header's nThread x nGpus (one process), or --gpus. The rows
// must be those of the collective named (count x type size against size,
// busbw / algbw against the rank count), so that a curve never carries the
// label of another operation.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/profile/importers.hpp"
#include "text_lines.hpp"

namespace mgsim::profile {
namespace {

/// Where the columns of the table are, from its "# size count type ..." line.
struct Columns {
  int line = 0;
  std::size_t count = 0;  ///< words per data row
  std::size_t size = 0;
  std::optional<std::size_t> elements, type, redop, root;
  std::vector<std::size_t> time;   ///< out-of-place, in-place
  std::vector<std::size_t> algbw;  ///< after each time
  std::vector<std::size_t> busbw;
  std::vector<std::size_t> check;  ///< "#wrong" or "error" after each time
  bool counts_wrong = false;       ///< "#wrong" (a count) rather than "error" (a deviation)
};

std::optional<Columns> parse_header(const std::vector<std::string_view>& words, int line) {
  if (words.empty() || (words[0] != "size" && words[0] != "bytes")) return std::nullopt;
  Columns c;
  c.line = line;
  c.count = words.size();
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "count") c.elements = i;
    if (words[i] == "type") c.type = i;
    if (words[i] == "redop" || words[i] == "op") c.redop = i;
    if (words[i] == "root") c.root = i;
    if (words[i] == "time") c.time.push_back(i);
    if (words[i] == "algbw") c.algbw.push_back(i);
    if (words[i] == "busbw") c.busbw.push_back(i);
    if (words[i] == "#wrong" || words[i] == "error" || words[i] == "res") {
      c.check.push_back(i);
      c.counts_wrong = words[i] == "#wrong";
    }
  }
  if (c.time.empty()) return std::nullopt;
  return c;
}

/// The launcher's tag in front of a line: "[1,0]<stdout>:" or "[1,0]<stderr>:"
/// (mpirun --tag-output), "0: " (srun -l). The line without it.
std::string_view strip_tag(std::string_view text) {
  text = trim(text);
  if (text.starts_with('[')) {
    const std::size_t close = text.find("]<");
    const std::size_t colon = close == std::string_view::npos ? close : text.find(">:", close);
    if (colon != std::string_view::npos) return trim(text.substr(colon + 2));
  }
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits > 0 && digits < text.size() && text[digits] == ':') return trim(text.substr(digits + 1));
  return text;
}

/// nccl-tests' binary name for a collective.
std::string_view binary_of(CurveCollective collective) {
  switch (collective) {
    case CurveCollective::allgather:
      return "all_gather_perf";
    case CurveCollective::reducescatter:
      return "reduce_scatter_perf";
    case CurveCollective::allreduce:
      break;
  }
  return "all_reduce_perf";
}

/// Bytes of one element of each nccl-tests type name (built on first use).
const std::map<std::string_view, std::int64_t, std::less<>>& type_bytes() {
  static const std::map<std::string_view, std::int64_t, std::less<>> kBytes = {
      {"int8", 1},    {"uint8", 1},  {"char", 1},   {"f8e4m3", 1},  {"f8e5m2", 1},   {"half", 2},
      {"float16", 2}, {"bfloat16", 2}, {"float", 4}, {"float32", 4}, {"int32", 4},  {"uint32", 4},
      {"int", 4},     {"double", 8}, {"float64", 8}, {"int64", 8},  {"uint64", 8}};
  return kBytes;
}

struct RawRow {
  int line = 0;
  std::vector<std::string> words;
};

/// One collective's part of the log.
struct Section {
  std::string name;  ///< from "# Collective test starting: <name>"; empty before any
  int line = 0;
  std::optional<Columns> columns;
  std::vector<RawRow> rows;
  std::set<std::int64_t> ranks;          ///< "# Rank N" lines
  std::optional<std::int64_t> nranks;    ///< NCCL INFO "... nranks N ..."
  std::optional<std::int64_t> per_process;  ///< header nThread x nGpus
  std::set<std::string> devices, hosts;
  std::string settings;
};

/// Where the rank count came from, when the device list gave it.
constexpr std::string_view kDeviceList = "the '# Rank' lines of the device list";

class NcclTestsReader {
 public:
  NcclTestsReader(const std::string& source, const NcclTestsOptions& options) : source_(source), options_(options) {
    sections_.emplace_back();
  }

  void read(std::istream& in) {
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
      const std::string_view body = strip_tag(text);
      if (body.empty()) continue;
      if (body.front() == '#') {
        comment(body.substr(1), line);
      } else {
        log_line(body, line);
      }
    }
  }

  ImportedCurve finish() const {
    const Section& section = chosen();
    if (!section.columns) {
      fail(0, fmt::format("no column header (\"# size count type redop ... time algbw busbw ...\"){}: not an {} output",
                          where(section), binary_of(options_.collective)));
    }
    const std::size_t group = options_.columns == NcclTestsColumns::in_place ? 1 : 0;
    if (section.columns->time.size() <= group) fail(section.columns->line, "the header has no in-place time column");
    const auto [gpus, ranks_from] = ranks(section);
    ImportedCurve curve;
    curve.collective = options_.collective;
    int skipped_empty = 0;
    int filtered = 0;
    std::map<std::int64_t, int> first_line;
    for (const RawRow& raw : section.rows) {
      std::vector<std::string_view> words(raw.words.begin(), raw.words.end());
      if (!keep(*section.columns, words)) {
        ++filtered;
        continue;
      }
      const std::optional<CurveSample> point = row(*section.columns, words, raw.line, group, gpus);
      if (!point) {
        ++skipped_empty;
        continue;
      }
      if (const auto seen = first_line.find(point->bytes); seen != first_line.end()) {
        // Red team: the hint named --type and --redop where both were given: two runs appended to one log.
        const bool filtered_both = !options_.data_type.empty() && !options_.reduction.empty();
        fail(raw.line, fmt::format("size {} already given on line {} ({})", point->bytes, seen->second,
                                   filtered_both ? "two runs in one log? import each from its own file"
                                                 : "several types or reductions? use --type and --redop"));
      }
      first_line[point->bytes] = raw.line;
      curve.points.push_back(*point);
    }
    if (curve.points.empty() && filtered > 0) {  // red team: once "no result rows", the rows there
      fail(0, fmt::format("none of the {} result rows{} is of --type {} and --redop {}", filtered, where(section),
                          options_.data_type.empty() ? "(any)" : options_.data_type,
                          options_.reduction.empty() ? "(any)" : options_.reduction));
    }
    if (curve.points.empty()) fail(0, fmt::format("no result rows under the column header{}", where(section)));
    check_rank_count(section, group, gpus, ranks_from);
    curve.provenance = {
        {"kind", "measured"},
        {"tool", fmt::format("nccl-tests {}", section.name.empty() ? binary_of(options_.collective) : section.name)},
        {"source_file", source_},
        {"columns", options_.columns == NcclTestsColumns::in_place ? "in-place" : "out-of-place"},
        {"metric", "time column (us) of each size, converted to seconds"},
        {"ranks", gpus},
        {"ranks_from", ranks_from},
    };
    if (options_.collective == CurveCollective::allgather) {
      curve.provenance["bytes"] = "per rank: nccl-tests' size (the gathered whole) / ranks";
    }
    if (!section.devices.empty()) {
      curve.provenance["hardware"] = std::vector<std::string>(section.devices.begin(), section.devices.end());
    }
    // The hosts of every rank, or none said (red team: the one rank line a cut 128-GPU log kept read as 1 host,
    // and `fit` then suggested 128 GPUs a node).
    if (!section.hosts.empty() && std::ssize(section.ranks) == gpus) curve.provenance["hosts"] = section.hosts.size();
    if (!section.settings.empty()) curve.provenance["run_settings"] = section.settings;
    if (skipped_empty > 0) curve.provenance["rows_of_0_bytes_skipped"] = skipped_empty;
    return curve;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const { fail_at(source_, line, what); }

  static std::string where(const Section& section) {
    return section.name.empty() ? std::string() : fmt::format(" in the {} section (line {})", section.name, section.line);
  }

  /// The section of the collective asked for.
  const Section& chosen() const {
    const std::string_view binary = binary_of(options_.collective);
    std::vector<const Section*> named, found;
    for (const Section& s : sections_) {
      if (s.name.empty()) continue;
      named.push_back(&s);
      if (s.name == binary || s.name.starts_with(std::string(binary) + "_")) found.push_back(&s);
    }
    if (named.empty()) return sections_.front();  // an older log: one table, checked against the rows
    if (found.size() > 1) {
      fail(found[1]->line, fmt::format("a second {} section (the first at line {}): split the log", found[1]->name,
                                       found[0]->line));
    }
    if (found.empty()) {
      std::vector<std::string> names;
      for (const Section* s : named) names.push_back(s->name);
      fail(0, fmt::format("no {} section (the log holds {}): choose one with --collective", binary,
                          fmt::join(names, ", ")));
    }
    return *found.front();
  }

  void comment(std::string_view body, int line) {
    const std::vector<std::string_view> words = split_words(body);
    if (words.empty()) return;
    const std::string_view text = trim(body);
    if (text.starts_with("Collective test starting:")) {
      Section next;
      next.name = std::string(trim(text.substr(std::string_view("Collective test starting:").size())));
      next.line = line;
      sections_.push_back(std::move(next));
      return;
    }
    Section& s = sections_.back();
    if (words[0] == "Rank" && words.size() >= 2 && to_int(words[1])) return device(s, body, words);
    if (words[0] == "nThread") header_settings(s, body, words);
    if (std::optional<Columns> header = parse_header(words, line)) {
      if (s.columns && s.columns->count != header->count) fail(line, "a second column header with other columns");
      s.columns = header;
    }
  }

  static void header_settings(Section& s, std::string_view body, const std::vector<std::string_view>& words) {
    s.settings = std::string(trim(body));
    std::optional<std::int64_t> threads, gpus;
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "nThread") threads = to_int(words[i + 1]);
      if (words[i] == "nGpus") gpus = to_int(words[i + 1]);
    }
    if (threads && gpus && *threads >= 1 && *gpus >= 1 && *threads <= kMaxGpus && *gpus <= kMaxGpus) {
      s.per_process = *threads * *gpus;
    }
  }

  static void device(Section& s, std::string_view body, const std::vector<std::string_view>& words) {
    s.ranks.insert(*to_int(words[1]));
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "on") s.hosts.insert(std::string(words[i + 1]));
    }
    const std::size_t bracket = body.find(']');
    if (bracket != std::string_view::npos) s.devices.insert(std::string(trim(body.substr(bracket + 1))));
  }

  /// A line that is not a comment: a result row, or a log line (NCCL INFO,
  /// host names, the shell) whose "nranks N" is kept.
  void log_line(std::string_view body, int line) {
    const std::vector<std::string_view> words = split_words(body);
    Section& s = sections_.back();
    if (!all_digits(words[0]) && s.columns && words.size() == s.columns->count &&
        (words[0].find_first_of("0123456789") != std::string_view::npos || not_a_number(words[0]))) {
      // A row of the table (its column count, a number-like first word) whose size is not a whole number of
      // bytes, such as 16.0, 0x20 or 8e0: refused, never dropped as if it were a log line.
      fail(line, fmt::format("expected a size in whole bytes as the row's first column, got \"{}\"", words[0]));
    }
    if (!all_digits(words[0])) {
      for (std::size_t i = 0; i + 1 < words.size(); ++i) {
        if (words[i] != "nranks") continue;
        const std::optional<std::int64_t> n = to_int(words[i + 1]);
        if (!n && !all_digits(words[i + 1])) continue;  // a digit string past 64 bits is a count out of range
        if (!n || *n < 1 || *n > kMaxGpus) {
          fail(line, fmt::format("expected \"nranks\" in [1, {}], got {}", kMaxGpus, words[i + 1]));
        }
        if (s.nranks && *s.nranks != *n) fail(line, fmt::format("nranks {} after nranks {}", *n, *s.nranks));
        s.nranks = n;
      }
      return;
    }
    if (!s.columns) fail(line, "a result row before the column header");
    if (words.size() != s.columns->count) {
      fail(line, fmt::format("expected {} columns as in the header (line {}), got {}", s.columns->count,
                             s.columns->line, words.size()));
    }
    if (s.rows.size() == kMaxCurveSizes) {
      fail(line, fmt::format("more than {} rows in a section: a size sweep has a few dozen", kMaxCurveSizes));
    }
    s.rows.push_back({line, std::vector<std::string>(words.begin(), words.end())});
  }

  bool keep(const Columns& c, const std::vector<std::string_view>& words) const {
    if (!options_.data_type.empty() && c.type && words[*c.type] != options_.data_type) return false;
    if (!options_.reduction.empty() && c.redop && words[*c.redop] != options_.reduction) return false;
    return true;
  }

  /// One row as a curve point from its column `group` (out-of-place or
  /// in-place); nothing for a row of 0 bytes. Both groups are checked: a
  /// damaged column the curve does not take is a damaged row all the same.
  std::optional<CurveSample> row(const Columns& c, const std::vector<std::string_view>& words, int line,
                                 std::size_t group, int gpus) const {
    const std::optional<std::int64_t> size = message_bytes(words[c.size]);
    if (!size) fail(line, fmt::format("expected a size in [0, {}] bytes, got \"{}\"", kMaxMessageBytes, words[c.size]));
    std::optional<double> seconds;
    for (std::size_t g = 0; g < c.time.size(); ++g) {
      check_validation(c, words, g, line);
      const std::optional<double> time = latency_seconds(words[c.time[g]]);
      if (!time) fail(line, fmt::format("expected {}, got \"{}\"", latency_range(), words[c.time[g]]));
      if (*size == 0) continue;
      check_time(c, words, line, g, *size, *time);
      check_collective(c, words, line, g, *size, gpus);
      if (g == group) seconds = time;
    }
    if (*size == 0) return std::nullopt;
    std::int64_t bytes = *size;
    if (options_.collective == CurveCollective::allgather) {
      if (*size % gpus != 0) {
        fail(line, fmt::format("all-gather size {} is not a multiple of {} ranks: the rank count is wrong", *size, gpus));
      }
      bytes = *size / gpus;
    }
    return CurveSample{gpus, bytes, *seconds, std::nullopt};
  }

  /// A row's algbw or busbw in GB/s: a finite number >= 0, else the row is
  /// damaged (a bandwidth that is not a number would skip the checks below).
  double bandwidth(std::string_view word, std::string_view column, int line) const {
    const std::optional<double> value = to_double(word);
    if (!value || !std::isfinite(*value) || *value < 0) {
      fail(line, fmt::format("expected {} in GB/s, a number >= 0, got \"{}\"", column, word));
    }
    return *value;
  }

  /// The row's time must give its own algbw (size / time in GB/s, printed
  /// to two decimals): a time that does not is a damaged row.
  void check_time(const Columns& c, const std::vector<std::string_view>& words, int line, std::size_t group,
                  std::int64_t size, double seconds) const {
    if (c.algbw.size() <= group) return;
    const double algbw = bandwidth(words[c.algbw[group]], "algbw", line);
    const double implied = static_cast<double>(size) / seconds * 1e-9;
    if (std::abs(algbw - implied) > 0.02 * std::max(algbw, implied) + 0.006) {
      fail(line, fmt::format("time {} us moves {} B at {:.3g} GB/s, but the row's algbw is {}: the time or the "
                             "algbw is damaged",
                             words[c.time[group]], size, implied, words[c.algbw[group]]));
    }
  }

  /// The row's own numbers must fit the collective and the rank count:
  /// count x type size = size (all-reduce) or size / ranks (all-gather,
  /// reduce-scatter), and busbw / algbw = bus_bandwidth's factor.
  void check_collective(const Columns& c, const std::vector<std::string_view>& words, int line, std::size_t group,
                        std::int64_t size, int gpus) const {
    const std::string_view binary = binary_of(options_.collective);
    if (c.elements && c.type) check_count(words[*c.elements], words[*c.type], line, size, gpus);
    if (c.algbw.size() <= group || c.busbw.size() <= group) return;
    const double algbw = bandwidth(words[c.algbw[group]], "algbw", line);
    const double busbw = bandwidth(words[c.busbw[group]], "busbw", line);
    const double factor = bus_factor(gpus);
    // 2% for nccl-tests' own rounding.
    if (!printed_ratio_allows(algbw, busbw, factor, 0.02)) {
      fail(line, fmt::format("busbw / algbw is {:.3f}, but {} over {} ranks gives {:.3f}: wrong rank count or "
                             "collective (--gpus, --collective)",
                             busbw / algbw, binary, gpus, factor));
    }
  }

  /// Half a unit of the bandwidths' last printed digit, in GB/s.
  static constexpr double kHalfDigit = 0.005;

  /// busbw / algbw of the collective imported on `gpus` ranks, as nccl-tests computes it.
  double bus_factor(int gpus) const {
    return bus_bandwidth(options_.collective, 1.0, 1.0, gpus) /
           (options_.collective == CurveCollective::allgather ? gpus : 1.0);
  }

  /// Whether `factor`, give or take `slack` (relative), is among the ratios busbw / algbw that the two printed
  /// figures allow (each +-kHalfDigit).
  static bool printed_ratio_allows(double algbw, double busbw, double factor, double slack) {
    const double least = std::max(0.0, busbw - kHalfDigit) / (algbw + kHalfDigit);
    const double most = algbw > kHalfDigit ? (busbw + kHalfDigit) / (algbw - kHalfDigit)
                                           : std::numeric_limits<double>::infinity();
    return factor * (1 + slack) >= least && factor * (1 - slack) <= most;
  }

  /// The bus bandwidth over the algorithm bandwidth of the row with the
  /// largest algbw, to their printed digits alone, must allow the rank count,
  /// wherever it came from (red team: a 16-rank log without its "# Rank 15"
  /// line, which still numbers its ranks from 0 without a gap, imported as 15
  /// GPUs, and so did --gpus 15; 338.82 / 180.71 gives 2 x 15 / 16, where 15
  /// ranks give 2 x 14 / 15, 0.44% less). A log of small sizes only cannot
  /// tell near counts apart.
  void check_rank_count(const Section& section, std::size_t group, int gpus, const std::string& from) const {
    const Columns& c = *section.columns;
    if (c.algbw.size() <= group || c.busbw.size() <= group) return;
    std::optional<std::pair<double, double>> widest;  // (algbw, busbw)
    for (const RawRow& raw : section.rows) {
      const std::vector<std::string_view> words(raw.words.begin(), raw.words.end());
      if (!keep(c, words) || words.size() <= std::max(c.algbw[group], c.busbw[group])) continue;
      const std::optional<double> algbw = to_double(words[c.algbw[group]]), busbw = to_double(words[c.busbw[group]]);
      if (algbw && busbw && (!widest || *algbw > widest->first)) widest = {{*algbw, *busbw}};
    }
    if (!widest || widest->first <= kHalfDigit) return;
    const auto [algbw, busbw] = *widest;
    const double factor = bus_factor(gpus);
    if (!printed_ratio_allows(algbw, busbw, factor, 0.0)) {
      fail(0, fmt::format("{} ranks from {}, but busbw / algbw at {} GB/s, {:.5f}, is not that of {} ranks ({:.5f}): "
                          "{}",
                          gpus, from, algbw, busbw / algbw, gpus, factor,
                          from == kDeviceList ? "a rank's line is missing (a cut log?); give --gpus"
                                              : "another rank count ran"));
    }
  }

  /// count x element size = size (all-reduce), x ranks (all-gather, reduce-scatter).
  void check_count(std::string_view count_word, std::string_view type, int line, std::int64_t size, int gpus) const {
    const auto element = type_bytes().find(type);
    if (element == type_bytes().end()) {
      std::vector<std::string_view> names;
      for (const auto& [name, bytes] : type_bytes()) names.push_back(name);
      fail(line, fmt::format("expected an nccl-tests data type ({}), got \"{}\"", fmt::join(names, ", "), type));
    }
    const std::optional<std::int64_t> count = to_int(count_word);
    if (!count) fail(line, fmt::format("expected a whole count of elements, got \"{}\"", count_word));
    const bool whole = options_.collective == CurveCollective::allreduce;
    const std::int64_t bytes = *count * element->second;
    if ((whole ? bytes : bytes * gpus) == size) return;
    fail(line, fmt::format("count {} of {} is {} bytes{}, not the size {}: these are not {} rows of {} ranks "
                           "(--collective, --gpus)",
                           *count, type, bytes, whole ? "" : fmt::format(" x {} ranks", gpus), size,
                           binary_of(options_.collective), gpus));
  }

  void check_validation(const Columns& c, const std::vector<std::string_view>& words, std::size_t group,
                        int line) const {
    if (c.check.size() <= group) return;
    const std::string_view word = words[c.check[group]];
    if (word == "N/A") return;
    if (!c.counts_wrong) {  // older logs: the largest deviation from the expected sums
      const std::optional<double> deviation = to_double(word);
      if (!deviation || !std::isfinite(*deviation) || *deviation < 0) {
        fail(line, fmt::format("expected an error (the largest deviation, a number >= 0), got \"{}\"", word));
      }
      return;
    }
    const std::optional<std::int64_t> count = to_int(word);
    if (!count || *count < 0) {
      fail(line, fmt::format("expected a #wrong count (a whole number >= 0), got \"{}\"", word));
    }
    if (*count > 0) fail(line, fmt::format("nccl-tests counted {} wrong results: this run did not validate", *count));
  }

  std::pair<int, std::string> ranks(const Section& s) const {
    std::pair<std::int64_t, std::string> found{0, ""};
    if (options_.gpus > 0) {
      found = {options_.gpus, "--gpus"};
    } else if (s.nranks) {
      found = {*s.nranks, "NCCL's \"nranks\" (NCCL_DEBUG=INFO lines)"};
    } else if (!s.ranks.empty()) {
      found = {static_cast<std::int64_t>(s.ranks.size()), std::string(kDeviceList)};
      if (*s.ranks.begin() != 0 || *s.ranks.rbegin() + 1 != found.first) {
        fail(0, fmt::format("the '# Rank' lines list {} ranks numbered {} to {}, not 0 to {}: a rank's line is "
                            "missing (a cut log?); give --gpus",
                            found.first, *s.ranks.begin(), *s.ranks.rbegin(), found.first - 1));
      }
    } else if (s.per_process) {
      found = {*s.per_process, "the header's nThread x nGpus (one process)"};
    } else {
      fail(0, "no rank count: no \"nranks\", no device list (\"#  Rank 0 ... device ...\"), no \"# nThread .. nGpus "
              "..\" header: give --gpus");
    }
    if (found.first > kMaxGpus) {
      fail(0, fmt::format("{} ranks (from {}): expected at most {}", found.first, found.second, kMaxGpus));
    }
    if (found.first < 2) {
      fail(0, fmt::format("{} rank (from {}): a collective curve needs at least 2", found.first, found.second));
    }
    return {static_cast<int>(found.first), found.second};
  }

  std::string source_;
  NcclTestsOptions options_;
  std::vector<Section> sections_;
};

}  // namespace

ImportedCurve import_nccl_tests(std::istream& text, const std::string& source, const NcclTestsOptions& options) {
  NcclTestsReader reader(source, options);
  reader.read(text);
  return reader.finish();
}

}  // namespace mgsim::profile
