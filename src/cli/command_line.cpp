#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "argument_checks.hpp"
#include "commands.hpp"

namespace mgsim::cli {
namespace {

std::string typed = "mgsim";

}  // namespace

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

void set_command_line(int argc, const char* const* argv, const CLI::App& app) {
  typed = "mgsim";
  const CLI::App* command = &app;  // the command named so far
  int values = 0;                  // words still to read as the last option's values
  bool first = false;              // the next word is its first value, whatever it looks like
  bool output = false;             // and whether they are the output's, left out
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    const bool option = word.size() > 1 && word.front() == '-' && (word[1] == '-' || std::isalpha(static_cast<unsigned char>(word[1])) != 0);
    if (values > 0 && (first || !option)) {  // red team: a --measured-by value "-only me" was left out as -o's
      --values;
      first = false;
      if (!output) typed += " " + shell_word(word);
      continue;
    }
    values = 0;
    if (!option) {
      if (const CLI::App* sub = subcommand_named(*command, word)) command = sub;
      typed += " " + shell_word(word);
      continue;
    }
    const OptionWord split = split_option(word);
    const CLI::Option* known = command->get_option_no_throw(split.name);
    // Where it wrote, not what: -o FILE and -o - write the same bytes.
    output = known != nullptr && known->check_lname("output");
    if (known != nullptr && !split.attached) values = std::min(known->get_expected_max(), 1 << 20);
    first = values > 0;
    if (!output) typed += " " + shell_word(word);
  }
}

const std::string& command_line() { return typed; }

}  // namespace mgsim::cli
