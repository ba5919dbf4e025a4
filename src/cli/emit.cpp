#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/utf8.hpp"

namespace mgsim::cli {
namespace {

[[noreturn]] void stdout_failed() {
  throw OutputError(fmt::format("standard output: cannot write: {}", std::strerror(errno)));
}

/// Refuses `output`, a file, when it is the regular file standard output is
/// redirected to while text goes there too: one of the two would be lost.
void check_not_stdout_file(std::string_view output) {
  struct stat terminal {}, info {};
  if (::fstat(STDOUT_FILENO, &terminal) == 0 && S_ISREG(terminal.st_mode) &&
      ::stat(std::string(output).c_str(), &info) == 0 && info.st_dev == terminal.st_dev &&
      info.st_ino == terminal.st_ino) {
    throw OutputError(fmt::format("{} is the file standard output goes to: give each output its own", output));
  }
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
  const bool to_stdout = std::any_of(outputs.begin(), outputs.end(), on_stdout);
  StagedFiles files;  // every file written before any is in place, or none (StagedFiles)
  for (const Output& out : outputs) {
    if (on_stdout(out)) continue;
    if (to_stdout) check_not_stdout_file(out.output);
    files.add(std::string(out.output), out.text);
  }
  for (const Output& out : outputs) {
    if (on_stdout(out)) write_stdout(out.text);
  }
  files.commit();
}

void warn_left_ranks(const std::function<std::string(std::int64_t)>& file_of, std::int64_t ranks,
                     std::string_view earlier) {
  std::int64_t left = ranks;
  for (std::error_code error; std::filesystem::exists(file_of(left), error);) ++left;
  if (left == ranks) return;
  const std::string first = printable(file_of(ranks));
  const std::string files = left == ranks + 1 ? first + " is" : first + " .. " + printable(file_of(left - 1)) + " are";
  fmt::print(stderr, "mgsim: warning: {} left from an earlier {}\n", files, earlier);
}

void check_outputs(std::initializer_list<std::string_view> outputs) {
  const bool to_stdout = std::find(outputs.begin(), outputs.end(), kStdout) != outputs.end();
  std::vector<std::pair<std::string_view, std::filesystem::path>> seen;  // each output and the file it replaces
  for (const std::string_view output : outputs) {
    if (output.empty()) continue;
    if (to_stdout && output != kStdout) check_not_stdout_file(output);
    std::filesystem::path file = output == kStdout ? std::filesystem::path() : std::filesystem::path(output);
    if (!file.empty()) {
      check_output(file);
      std::error_code error;
      const std::filesystem::path target = output_target(file);
      file = std::filesystem::weakly_canonical(std::filesystem::absolute(target), error);
      if (error) file = std::filesystem::absolute(target);
    }
    for (const auto& [other, other_file] : seen) {
      if (other_file == file && file.empty()) {  // red team: "- and - are the same standard output", - given once
        throw OutputError("two outputs go to standard output (-, where a report goes when -o is not given): give "
                          "each but one a file");
      }
      if (other_file == file) {
        throw OutputError(fmt::format("{} and {} are the same file: give each output its own", other, output));
      }
    }
    seen.emplace_back(output, std::move(file));
  }
}

}  // namespace mgsim::cli
