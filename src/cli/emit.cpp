#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "commands.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"

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

void emit(std::string_view text, const std::string& output, const std::vector<std::filesystem::path>& inputs) {
  if (output.empty() || output == kStdout) {
    write_stdout(text);
  } else {
    check_not_an_input(output, inputs);
    write_file_atomically(output, text);
  }
}

}  // namespace mgsim::cli
