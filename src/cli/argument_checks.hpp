#pragma once
// Checks of the command line around CLI::App::parse (argument_checks.cpp).

#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace mgsim::cli {

/// A word of the command line that names an option, split: "--name=value"
/// into "--name" and "value", "-xvalue" (or "-x=value") into "-x" and
/// "value" ("=value"); nothing attached to "--name" or "-x".
struct OptionWord {
  std::string name;
  std::optional<std::string_view> attached;
};
OptionWord split_option(std::string_view word);

/// The command of `parent` named `name` ("sweep" of mgsim, "nccl-tests" of import), or nullptr.
const CLI::App* subcommand_named(const CLI::App& parent, std::string_view name);

/// Gives every option of `app` and its commands that takes a value a check
/// that refuses what is no value (another option: --measured-by --aux-heads;
/// "--") and, on a numeric option, a value that is not the number it looks
/// like (010, 0x10, '', ' 8', '+8', 20 digits, nan).
void check_values(CLI::App& app);

/// Refuses a flag of a command run that was given twice (CLI11 takes it):
/// `app`'s parse_complete_callback, before any command's callback.
void check_flags(const CLI::App& command);

/// Before parsing: refuses an argument that is not UTF-8, a missing or
/// unknown command where one is expected, a flag given a value
/// (--aux-heads=false, -h=1), a short option's value after '=' (-o=x) and
/// words after --version.
void check_command_line(int argc, char** argv, const CLI::App& app);

/// The one-line message for CLI11's parse error `error`, in the project's
/// words, naming the command run and its --help; an unknown word is
/// reported before a missing required option.
std::string parse_error_message(int argc, char** argv, const CLI::App& app, const CLI::ParseError& error);

}  // namespace mgsim::cli
