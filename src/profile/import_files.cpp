// Reading the input files of the importers: plain text for nccl-tests and
// OSU, JSON for Kineto traces (a gzip-compressed trace is refused with a hint).
#include "mgsim/profile/import_files.hpp"

#include <fmt/format.h>

#include <fstream>

#include "mgsim/io/json_document.hpp"
#include "kineto_events.hpp"
#include "mgsim/error.hpp"

namespace mgsim::profile {
namespace {

template <typename Error>
std::ifstream open(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", file.string()));
  return in;
}

}  // namespace

ImportedCurve import_nccl_tests_file(const std::filesystem::path& file, const NcclTestsOptions& options) {
  std::ifstream in = open<CurveError>(file);
  return import_nccl_tests(in, file.string(), options);
}

ImportedCurve import_osu_file(const std::filesystem::path& file, const OsuOptions& options) {
  std::ifstream in = open<CurveError>(file);
  return import_osu(in, file.string(), options);
}

ImportedTrace import_kineto_file(const std::filesystem::path& file, const KinetoOptions& options) {
  std::ifstream in = open<TraceError>(file);
  if (in.peek() == 0x1f) {
    throw TraceError(fmt::format("{}: is gzip-compressed: decompress it first (gunzip -k)", file.string()));
  }
  // The events are read as they are parsed and dropped, so that a trace of
  // many megabytes is never held whole as a JSON tree.
  kineto::EventCollector events(file.string());
  const StreamedArray streamed{"traceEvents",
                               [&](const nlohmann::json& event, std::size_t i) { events.add(event, i); }};
  nlohmann::json document;
  try {
    document = parse_json(in, &streamed);
  } catch (const JsonSyntaxError& error) {
    throw TraceError(fmt::format("{}: not valid JSON: {}", file.string(), error.what()));
  }
  const auto listed = document.find("traceEvents");
  if (listed == document.end() || !listed->is_array()) {
    return import_kineto(document, file.string(), options);  // a bare event list, or no events at all (refused there)
  }
  return kineto::import_events(std::move(events).take(), kineto::top_level_facts(document), file.string(), options);
}

}  // namespace mgsim::profile
