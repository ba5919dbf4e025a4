#pragma once
// Subcommands of the mgsim executable. Each file in src/cli adds one
// subcommand to the app; main.cpp lists them once, in kCommands.

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace mgsim::cli {

/// Exit code for bad input: a file, a key, a value or a name.
inline constexpr int kBadInput = 2;

/// Writes `text` to stdout when `output` is empty, else to that file, whole or not at all.
void emit(std::string_view text, const std::string& output);

void add_run_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_zoo_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_advise_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_import_command(CLI::App& app);
void add_fit_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_validate_command(CLI::App& app);

}  // namespace mgsim::cli
