#include <algorithm>
#include <string>
#include <string_view>

#include "commands.hpp"

namespace mgsim::cli {
namespace {

std::string typed = "mgsim";

/// `word` as a POSIX shell reads it back: as it is when it holds only characters no shell treats
/// specially, else in single quotes (a quote inside as '\'').
std::string shell_word(std::string_view word) {
  const auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./=:,+@%-").find(c) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return std::string(word);
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

void set_command_line(int argc, const char* const* argv) {
  typed = "mgsim";
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "-o" || word == "--output") {  // where it wrote, not what: -o FILE and -o - write the same bytes
      ++i;
      continue;
    }
    if (word.starts_with("--output=") || (word.starts_with("-o") && !word.starts_with("--"))) continue;
    typed += " " + shell_word(word);
  }
}

const std::string& command_line() { return typed; }

}  // namespace mgsim::cli
