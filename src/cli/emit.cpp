#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "commands.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"

namespace mgsim::cli {
namespace {

[[noreturn]] void stdout_failed() {
  throw OutputError(fmt::format("standard output: cannot write: {}", std::strerror(errno)));
}

}  // namespace

void write_stdout(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) stdout_failed();
}

void finish_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) stdout_failed();
}

void emit(std::string_view text, const std::string& output) {
  if (output.empty() || output == kStdout) {
    write_stdout(text);
  } else {
    write_file_atomically(output, text);
  }
}

void check_outputs(std::initializer_list<std::string_view> outputs) {
  for (const std::string_view output : outputs) {
    if (!output.empty() && output != kStdout) check_output(std::filesystem::path(output));
  }
}

}  // namespace mgsim::cli
