// Reading the input files of the importers: plain text for nccl-tests and
// OSU, JSON for Kineto traces (a gzip-compressed trace is refused with a hint).
#include "mgsim/profile/import_files.hpp"

#include <fmt/format.h>

#include <fstream>

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
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& error) {
    throw TraceError(fmt::format("{}: not valid JSON: {}", file.string(), error.what()));
  }
  return import_kineto(document, file.string(), options);
}

}  // namespace mgsim::profile
