#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <utility>
#include <vector>

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

void emit(std::string_view text, const std::string& output) { emit_all({{text, output}}); }

void emit_all(std::initializer_list<Output> outputs) {
  const auto on_stdout = [](const Output& out) { return out.output.empty() || out.output == kStdout; };
  for (const Output& out : outputs) {
    if (!on_stdout(out)) check_output(std::string(out.output));
  }
  for (const Output& out : outputs) {
    if (on_stdout(out)) write_stdout(out.text);
  }
  for (const Output& out : outputs) {
    if (!on_stdout(out)) write_file_atomically(std::string(out.output), out.text);
  }
}

void check_outputs(std::initializer_list<std::string_view> outputs) {
  // Standard output redirected to a file that another output names would lose one of them: refused.
  struct stat terminal {};
  const bool stdout_file = std::find(outputs.begin(), outputs.end(), kStdout) != outputs.end() &&
                           ::fstat(STDOUT_FILENO, &terminal) == 0 && S_ISREG(terminal.st_mode);
  std::vector<std::pair<std::string_view, std::filesystem::path>> seen;  // each output and the file it replaces
  for (const std::string_view output : outputs) {
    if (output.empty()) continue;
    struct stat info {};
    if (stdout_file && output != kStdout && ::stat(std::string(output).c_str(), &info) == 0 &&
        info.st_dev == terminal.st_dev && info.st_ino == terminal.st_ino) {
      throw OutputError(fmt::format("{} is the file standard output goes to: give each output its own", output));
    }
    std::filesystem::path file = output == kStdout ? std::filesystem::path() : std::filesystem::path(output);
    if (!file.empty()) {
      check_output(file);
      std::error_code error;
      const std::filesystem::path target = output_target(file);
      file = std::filesystem::weakly_canonical(std::filesystem::absolute(target), error);
      if (error) file = std::filesystem::absolute(target);
    }
    for (const auto& [other, other_file] : seen) {
      if (other_file == file) {
        throw OutputError(fmt::format("{} and {} are the same {}: give each output its own", other, output,
                                      file.empty() ? "standard output" : "file"));
      }
    }
    seen.emplace_back(output, std::move(file));
  }
}

}  // namespace mgsim::cli
