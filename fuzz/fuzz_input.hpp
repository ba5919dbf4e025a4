#pragma once
// What every fuzz target shares: the loaders read files, so each input is
// written to one scratch file per process; the project's own errors
// (mgsim::Error) are the expected answer to bad input, and anything else
// escaping a parser (another exception, a crash, a sanitizer report) is a
// finding.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mgsim/error.hpp"
#include "mgsim/io/json_reader.hpp"

namespace mgsim::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A folder of this process's scratch files.
inline std::filesystem::path scratch_folder() {
  static const std::filesystem::path folder = [] {
    auto path = std::filesystem::temp_directory_path() / ("mgsim-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path;
  }();
  return folder;
}

/// The scratch file of this process, rewritten with `data` on each call.
inline std::filesystem::path scratch_file(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file = scratch_folder() / "input";
  std::FILE* out = std::fopen(file.c_str(), "wb");
  if (out == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, out) != size) std::abort();
  std::fclose(out);
  return file;
}

/// A two-layer trace in the scratch folder, written once: what the
/// structure-aware targets (fuzz_run, fuzz_sweep) run their configs on.
inline std::string tiny_trace() {
  static const std::filesystem::path file = [] {
    const auto path = scratch_folder() / "tiny-trace.json";
    std::ofstream(path) << R"({"format": "mgsim-trace", "version": 1, "model": "tiny", "batch_size": 8,
      "forward_time_s": 0.001, "provenance": {"kind": "synthetic", "note": "fuzz target"},
      "layers": [{"name": "a", "params": [1000], "dtype_bytes": 4, "backward_time_s": 0.001},
                 {"name": "b", "params": [5000, 10], "dtype_bytes": 4, "backward_time_s": 0.002}]})";
    return path;
  }();
  return file.string();
}

/// Whether `value` nests arrays or objects more than `depth` deep (checked
/// without recursion: the loaders take 100,000 levels, the stack does not).
inline bool deeper_than(const nlohmann::json& value, int depth) {
  std::vector<std::pair<const nlohmann::json*, int>> open{{&value, 0}};
  while (!open.empty()) {
    const auto [node, level] = open.back();
    open.pop_back();
    if (level > depth) return true;
    if (node->is_structured()) {
      for (const nlohmann::json& child : *node) open.emplace_back(&child, level + 1);
    }
  }
  return false;
}

/// The scratch file holding the input as a config whose `key` is set to
/// `value` (the tiny trace), or nothing when the input is not a JSON object
/// (the parsers have their own targets: here, whole configs) or nests past
/// 64 levels (dump() recurses).
inline std::optional<std::filesystem::path> whole_config(const std::uint8_t* data, std::size_t size,
                                                         const std::string& key, const nlohmann::json& value) {
  nlohmann::json config;
  try {  // mgsim's parser, with its limits
    config = parse_json_text(std::string(as_text(data, size)), "fuzz", InputKind::config);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!config.is_object() || deeper_than(config, 64)) return std::nullopt;
  config[key] = value;
  const std::string text = config.dump();
  return scratch_file(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

/// Runs `parse`; a mgsim::Error is a correct refusal, anything else escapes to libFuzzer.
template <typename Parse>
int refuse_or_accept(Parse parse) {
  try {
    parse();
  } catch (const Error&) {
  }
  return 0;
}


}  // namespace mgsim::fuzz
