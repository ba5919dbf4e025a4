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
#include <string>
#include <string_view>

#include "mgsim/error.hpp"

namespace mgsim::fuzz {

/// The scratch file of this process, rewritten with `data` on each call.
inline std::filesystem::path scratch_file(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("mgsim-fuzz-" + std::to_string(::getpid()) + ".input");
  std::FILE* out = std::fopen(file.c_str(), "wb");
  if (out == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, out) != size) std::abort();
  std::fclose(out);
  return file;
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

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace mgsim::fuzz
