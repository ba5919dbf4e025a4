// Reading the input files of the importers (read_input_file: regular files or
// standard input, with a size limit): UTF-8 text for nccl-tests and OSU, JSON
// for Kineto traces (a gzip-compressed trace is refused with a hint).
#include "mgsim/profile/import_files.hpp"

#include <fmt/format.h>

#include <sstream>

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
  const std::string text = read_input_file(file, InputKind::trace);
  if (!text.empty() && text.front() == '\x1f') {
    throw TraceError(fmt::format("{}: is gzip-compressed: decompress it first (gunzip -k)", file.string()));
  }
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {  // syntax errors and numbers out of range (1e600)
    throw TraceError(fmt::format("{}: not valid JSON: {}", file.string(), error.what()));
  }
  return import_kineto(document, file.string(), options);
}

}  // namespace mgsim::profile
