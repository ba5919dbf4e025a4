// The mgsim command line: a thin front end over mgsim::core. Subcommands come
// from one table. main is the one error boundary: every failure, the
// library's typed errors, the command-line parser's and any other exception,
// becomes one line "mgsim: error: ..." on stderr and exit code 2, and so does
// a failed write to stdout.

#include <array>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "argument_checks.hpp"
#include "commands.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/version.hpp"

namespace {

constexpr std::array kCommands{
    mgsim::cli::add_run_command,
    mgsim::cli::add_list_command,
    mgsim::cli::add_zoo_command,
    mgsim::cli::add_sweep_command,
    mgsim::cli::add_advise_command,
    mgsim::cli::add_profile_command,
    mgsim::cli::add_import_command,
    mgsim::cli::add_export_command,
    mgsim::cli::add_fit_command,
    mgsim::cli::add_plan_command,
    mgsim::cli::add_calibrate_command,
    mgsim::cli::add_validate_command,
};

/// Longest error message printed, in bytes: past it, its middle becomes
/// "...", keeping the start (the file and key) and the end (the reason),
/// whatever a long path between them.
constexpr std::size_t kMaxMessageBytes = 400;
constexpr std::size_t kKeptStartBytes = 150;

/// `text`, a message made printable (valid UTF-8, bytes it cannot show as
/// "\xNN"), cut to its first `head` bytes and its last `tail` ones, at
/// character boundaries and never inside an escape, "..." between.
std::string shortened(const std::string& text, std::size_t head, std::size_t tail) {
  if (text.size() <= head + tail + 3) return text;
  const auto continuation = [&](std::size_t at) { return (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80; };
  // Where the escape "\xNN" holding byte `at` starts, if one does.
  const auto escape_start = [&](std::size_t at) -> std::optional<std::size_t> {
    for (std::size_t back = 1; back <= 3 && back <= at; ++back) {
      if (text.compare(at - back, 2, "\\x") == 0) return at - back;
    }
    return std::nullopt;
  };
  while (head > 0 && continuation(head)) --head;
  if (const auto escape = escape_start(head)) head = *escape;
  std::size_t from = text.size() - tail;
  while (from < text.size() && continuation(from)) ++from;
  if (const auto escape = escape_start(from)) from = std::min(text.size(), *escape + 4);
  return text.substr(0, head) + "..." + text.substr(from);
}

int fail(std::string_view message) {
  const std::string text = shortened(mgsim::printable(message, std::string::npos), kKeptStartBytes,
                                     kMaxMessageBytes - kKeptStartBytes - 3);
  std::fprintf(stderr, "mgsim: error: %s\n", text.c_str());
  return mgsim::cli::kBadInput;
}

/// Prints --help or --version; a failed write to stdout (a full disk) is an error, not success.
int help_or_version(CLI::App& app, const CLI::ParseError& request) {
  const int status = app.exit(request);
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0) return fail("standard output: cannot write");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  mgsim::remove_temporaries_on_signal();
  CLI::App app{"mgsim: trace-driven simulator of data-parallel training on GPU clusters", "mgsim"};
  app.set_version_flag("--version", fmt::format("mgsim {}", mgsim::version()), "print mgsim's version and exit");
  app.require_subcommand(1);
  for (const auto add_command : kCommands) add_command(app);
  mgsim::cli::check_values(app);
  app.parse_complete_callback([&app] { mgsim::cli::check_flags(app); });
  mgsim::ReadSet inputs;  // every file the command reads; its outputs are checked against them
  const mgsim::ReadSetScope recording(inputs);
  mgsim::cli::set_command_line(argc, argv, app);
  try {
    mgsim::cli::check_command_line(argc, argv, app);
    app.parse(argc, argv);
    mgsim::cli::finish_stdout();
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return help_or_version(app, error);
    return fail(mgsim::cli::parse_error_message(argc, argv, app, error));
  } catch (const std::system_error& error) {  // fmt::print's failed write: stdout, as write_stdout says it
    const std::string_view what = error.what();
    if (what.starts_with("cannot write to file")) {
      return fail(fmt::format("standard output: cannot write: {}", error.code().message()));
    }
    return fail(error.what());
  } catch (const std::exception& error) {  // mgsim::Error, and anything a library let escape
    return fail(error.what());
  } catch (...) {
    return fail("unknown failure");
  }
  return 0;
}
