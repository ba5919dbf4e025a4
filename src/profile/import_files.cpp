// Reading the input files of the importers (read_input_file, InputFile:
// regular files or standard input, with a size limit): UTF-8 text for
// nccl-tests and OSU, JSON for Kineto traces (.json, or gzip-compressed
// .json.gz), the latter streamed.
#include "mgsim/profile/import_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <optional>
#include <string_view>
#include <map>
#include <sstream>
#include <utility>

#include "mgsim/io/json_document.hpp"
#include "kineto_events.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/utf8.hpp"
#include "text_lines.hpp"

namespace mgsim::profile {
namespace {

std::istringstream read_text(const std::filesystem::path& file, InputKind kind = InputKind::curve) {
  std::string text = read_input_file(file, kind);
  check_utf8(text, file.string(), kind);
  return std::istringstream(std::move(text));
}

/// The rank a file name gives: "rank-N.json", "rank_N.json.gz" or
/// "rankN_step.json" give N (up to the first . or _), which must be written as a plain number (no sign,
/// no leading zero, no hex); other names give none. Throws TraceError.
std::optional<std::int64_t> rank_in_name(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (!name.starts_with("rank")) return std::nullopt;
  std::string_view digits = std::string_view(name).substr(4);
  if (digits.starts_with('-') || digits.starts_with('_')) digits.remove_prefix(1);
  digits = digits.substr(0, digits.find_first_of("._"));
  const bool plain = !digits.empty() && digits.size() <= 9 && (digits == "0" || digits.front() != '0') &&
                     digits.find_first_not_of("0123456789") == std::string_view::npos;
  if (!plain) {
    throw TraceError(fmt::format("{}: expected a rank number in the name (rank-0.json, rank-1.json, ...), got '{}'",
                                 file.string(), digits));
  }
  return std::stoll(std::string(digits));
}

/// A file's rank and where it comes from: its distributedInfo, its name, or its place in name order.
struct FileRank {
  int rank;
  std::string_view from;
};

/// The rank a trace of a folder of `count` files was recorded on (its
/// distributedInfo, else its file name, else its place in name order): one
/// of 0..count-1, so that the ranks have no gap (a missing file) and none is
/// negative or huge.
FileRank rank_of(const ImportedTrace& imported, const std::filesystem::path& file, std::size_t place, std::size_t count) {
  const auto given = imported.provenance.find("rank");
  std::optional<std::int64_t> rank = rank_in_name(file);
  std::string_view from = rank ? "its name" : "its place in file name order";
  if (given != imported.provenance.end() && given->is_number_integer()) {
    rank = given->get<std::int64_t>();
    from = "its distributedInfo";
  }
  const std::int64_t r = rank.value_or(static_cast<std::int64_t>(place));
  if (r < 0 || static_cast<std::uint64_t>(r) >= count) {
    throw TraceError(fmt::format("{}: rank {}: expected a rank in 0..{}, one file per rank of the {} in the folder "
                                 "(a missing rank's file?)",
                                 file.string(), r, count - 1, count));
  }
  return {static_cast<int>(r), from};
}

}  // namespace

ImportedCurve import_nccl_tests_file(const std::filesystem::path& file, const NcclTestsOptions& options) {
  std::istringstream in = read_text(file);
  return import_nccl_tests(in, file.string(), options);
}

ImportedCurve import_osu_file(const std::filesystem::path& file, const OsuOptions& options) {
  std::istringstream in = read_text(file);
  return import_osu(in, file.string(), options);
}

ImportedTrace import_kineto_file(const std::filesystem::path& file, const KinetoOptions& options) {
  // The file is read a buffer at a time (and decompressed so) and its events
  // are taken as they are parsed and dropped, so that a trace of many
  // megabytes is never held whole, as text or as a JSON tree.
  InputText raw(file, InputKind::trace);
  std::istream in(&raw.text());
  in.exceptions(std::ios::badbit);  // a read error, not the end of the input
  kineto::EventCollector events(file.string());
  const StreamedArray streamed{"traceEvents",
                               [&](const nlohmann::json& event, std::size_t i) { events.add(event, i); }};
  nlohmann::json document;
  try {
    document = parse_json(in, &streamed);
  } catch (const JsonSyntaxError& error) {  // syntax errors, numbers out of range (1e600), keys given twice
    throw TraceError(error.located(file.string()));
  }
  const auto listed = document.find("traceEvents");
  if (listed == document.end() || !listed->is_array()) {
    return import_kineto(document, file.string(), options);  // a bare event list, or no events at all (refused there)
  }
  return kineto::import_events(std::move(events).take(), kineto::top_level_facts(document, file.string()), file.string(), options);
}

std::vector<RankTrace> import_kineto_folder(const std::filesystem::path& folder, const KinetoOptions& options) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && (name.ends_with(".json") || name.ends_with(".json.gz"))) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw TraceError(fmt::format("{}: no .json or .json.gz trace in this folder", folder.string()));
  std::vector<RankTrace> ranks;
  // Each rank's file and where its rank came from, to name both of two (red team: one was named, and a file
  // whose rank came from its place was said to give it).
  std::map<int, std::pair<std::filesystem::path, std::string_view>> seen;
  for (std::size_t i = 0; i < files.size(); ++i) {
    ImportedTrace imported = import_kineto_file(files[i], options);
    const FileRank r = rank_of(imported, files[i], i, files.size());
    if (const auto [at, fresh] = seen.emplace(r.rank, std::pair(files[i], r.from)); !fresh) {
      throw TraceError(fmt::format("{}: rank {} ({}) is also that of {} ({}) in {}: one file per rank",
                                   files[i].string(), r.rank, r.from, at->second.first.filename().string(),
                                   at->second.second, folder.string()));
    }
    ranks.push_back({r.rank, files[i], std::move(imported)});
  }
  std::sort(ranks.begin(), ranks.end(), [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  return ranks;
}

std::vector<std::int64_t> read_param_sizes(const std::filesystem::path& file) {
  std::istringstream in = read_text(file, InputKind::trace);
  std::vector<std::int64_t> sizes;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    const std::string_view body = trim(std::string_view(text).substr(0, text.find('#')));
    if (body.empty()) continue;
    const std::vector<std::string_view> words = split_words(body);
    const std::optional<std::int64_t> elements = to_int(words.back());
    if (!elements || *elements < 1 || *elements > kMaxTensorElements) {
      throw TraceError(fmt::format("{}: line {}: expected a tensor's element count in [1, {}] at the end of the line, "
                                   "got \"{}\"",
                                   file.string(), line, kMaxTensorElements, printable(words.back(), 40)));
    }
    sizes.push_back(*elements);
  }
  if (sizes.empty()) throw TraceError(fmt::format("{}: no parameter sizes (one tensor per line)", file.string()));
  return sizes;
}

}  // namespace mgsim::profile
