// Reading the input files of the importers (read_input_file: regular files or
// standard input, with a size limit): UTF-8 text for nccl-tests and OSU, JSON
// for Kineto traces (a gzip-compressed trace is refused with a hint).
#include "mgsim/profile/import_files.hpp"

#include <fmt/format.h>

#include <sstream>
#include <utility>

#include "mgsim/io/json_document.hpp"
#include "kineto_events.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"

namespace mgsim::profile {
namespace {

std::istringstream read_text(const std::filesystem::path& file) {
  std::string text = read_input_file(file, InputKind::curve);
  check_utf8(text, file.string(), InputKind::curve);
  return std::istringstream(std::move(text));
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
  std::string text = read_input_file(file, InputKind::trace);
  if (!text.empty() && text.front() == '\x1f') {
    throw TraceError(fmt::format("{}: is gzip-compressed: decompress it first (gunzip -k)", file.string()));
  }
  // The events are read as they are parsed and dropped, so that a trace of
  // many megabytes is never held whole as a JSON tree.
  kineto::EventCollector events(file.string());
  const StreamedArray streamed{"traceEvents",
                               [&](const nlohmann::json& event, std::size_t i) { events.add(event, i); }};
  nlohmann::json document;
  try {
    std::istringstream in(std::move(text));
    document = parse_json(in, &streamed);
  } catch (const JsonSyntaxError& error) {  // syntax errors, numbers out of range (1e600), keys given twice
    throw TraceError(fmt::format("{}: not valid JSON: {}", file.string(), error.what()));
  }
  const auto listed = document.find("traceEvents");
  if (listed == document.end() || !listed->is_array()) {
    return import_kineto(document, file.string(), options);  // a bare event list, or no events at all (refused there)
  }
  return kineto::import_events(std::move(events).take(), kineto::top_level_facts(document), file.string(), options);
}

}  // namespace mgsim::profile
