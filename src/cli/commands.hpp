#pragma once
// Subcommands of the mgsim executable. Each file in src/cli adds one
// subcommand to the app; main.cpp lists them once, in kCommands.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "mgsim/limits.hpp"

namespace mgsim::cli {

/// `word` as a POSIX shell reads it back: as it is when it holds only characters no shell treats
/// specially, else in single quotes (a quote inside as '\'').
std::string shell_word(std::string_view word);

/// Records the command as typed (main does, before parsing).
void set_command_line(int argc, const char* const* argv, const CLI::App& app);
/// The command as typed, "mgsim" and every argument but the output (-o, the
/// same bytes wherever they go), each quoted for a POSIX shell where it needs
/// it: what a file it writes says made it (provenance).
const std::string& command_line();

/// Exit code for bad input: a file, a key, a value or a name.
inline constexpr int kBadInput = 2;

/// The `-o` value that means standard output, as an input named "-" means standard input.
inline constexpr std::string_view kStdout = "-";

/// Writes `text` to stdout when `output` is empty or "-", else to that file,
/// whole or not at all; refuses an `output` that is a file the command read (check_output).
void emit(std::string_view text, const std::string& output);

/// A command's text and where it goes: a file, or stdout when "" or "-".
struct Output {
  std::string_view text;
  std::string_view output;
};

/// Writes each text to its output after check_output of every file: stdout's
/// first, then the files (each whole or not at all), so that a failing
/// stdout leaves every file as it was.
void emit_all(std::initializer_list<Output> outputs);

/// check_output of each output file, so that a command with several outputs
/// refuses before writing any; and refuses two of them that name the same
/// file (by any path), or "-" (stdout) twice. Unlike emit's, an empty output
/// here is one the user did not ask for, and is skipped: a caller whose
/// empty output means stdout passes "-" for it.
void check_outputs(std::initializer_list<std::string_view> outputs);

/// Warns on stderr of the rank files `file_of(ranks)`, `file_of(ranks + 1)`,
/// ... that exist beside the `ranks` a command wrote: "mgsim: warning: FILES
/// left from an earlier `earlier`" (an export or import of more ranks).
void warn_left_ranks(const std::function<std::string(std::int64_t)>& file_of, std::int64_t ranks,
                     std::string_view earlier);

/// Writes `text` to stdout and flushes it; throws OutputError when it fails (a full disk, a closed pipe).
void write_stdout(std::string_view text);

/// Flushes stdout at the end of a command; throws OutputError when an earlier write failed.
void finish_stdout();

/// Ends a subcommand's --help with "Examples:" and these command lines;
/// every subcommand has at least one (tests/cli_test.sh checks it).
void add_examples(CLI::App* command, std::initializer_list<std::string_view> command_lines);

/// A flag's check: a finite number in [min, max], or (min, max] when
/// `min_inclusive` is false; NaN and infinities are refused.
CLI::Validator finite_in(double min, double max, bool min_inclusive);
/// A whole number in [min, max], written in decimal digits alone (CLI11's
/// Range calls 8.5 "not in range" and reads 010 as 8).
CLI::Validator whole_in(long long min, long long max);

/// A name option's check (a model, a GPU, a file to read): `what`, neither
/// empty (which would read as "not given") nor holding control characters,
/// of at most `max_bytes` (kMaxProseBytes for a citation).
CLI::Validator name_text(std::string_view what, std::size_t max_bytes = kMaxNameBytes);

/// Name options' checks against the zoo's catalogues (a model, a GPU, a
/// precision): name_text's, then the catalogue's own lookup, so that "unknown
/// gpu 'x'; did you mean ..." comes with the option's name.
CLI::Validator zoo_model_name();
/// A choice among `names`: "unknown <what> 'x'; did you mean ...? (valid: ...)".
CLI::Validator one_of(std::string_view what, std::vector<std::string> names);
CLI::Validator zoo_gpu_name();
CLI::Validator zoo_precision_name();

/// Why `text` is no file name ("" where it is one): empty (which would read
/// as "not given"), or an option such as -f, taken as the name where the name
/// was left out. "-" is `dash` (standard input or output).
std::string file_name_refusal(const std::string& text, std::string_view dash);
/// An output option's check: a file name or "-" (file_name_refusal).
CLI::Validator output_name();
/// An input file argument's check: a file name or "-" (file_name_refusal).
CLI::Validator input_name();

/// An input path as given when it exists (or is absolute, or "-"), else the
/// same relative path in mgsim's data folder when it is there: the shipped
/// configs/, traces/, validation/ and scripts/, from any folder
/// ($MGSIM_DATA_DIR, else the installed share/mgsim, else the source tree of a
/// build-tree binary; docs/install.md). A path found nowhere is returned as
/// given, so that the error names it.
std::string shipped_or_given(const std::string& path);
/// shipped_or_given as an option's transform (a file option that reads input).
CLI::Validator shipped_data();

void add_run_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_zoo_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_advise_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_import_command(CLI::App& app);
/// `mgsim import chakra`, a subcommand of `import` (chakra_command.cpp).
void add_import_chakra(CLI::App& import_command);
void add_export_command(CLI::App& app);
void add_fit_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_validate_command(CLI::App& app);

}  // namespace mgsim::cli
