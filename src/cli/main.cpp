// The mgsim command line: a thin front end over mgsim::core. Subcommands come
// from one table; library errors become one-line messages and exit code 2.

#include <array>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "mgsim/error.hpp"

namespace {

constexpr std::array kCommands{
    mgsim::cli::add_run_command,
    mgsim::cli::add_list_command,
    mgsim::cli::add_zoo_command,
    mgsim::cli::add_sweep_command,
    mgsim::cli::add_advise_command,
    mgsim::cli::add_profile_command,
    mgsim::cli::add_import_command,
    mgsim::cli::add_fit_command,
    mgsim::cli::add_plan_command,
    mgsim::cli::add_calibrate_command,
    mgsim::cli::add_validate_command,
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mgsim: trace-driven simulator of data-parallel training on GPU clusters"};
  app.require_subcommand(1);
  for (const auto add_command : kCommands) add_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return mgsim::cli::kBadInput;
  } catch (const mgsim::Error& error) {
    std::fprintf(stderr, "mgsim: error: %s\n", error.what());
    return mgsim::cli::kBadInput;
  }
  return 0;
}
