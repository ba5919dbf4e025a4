// Checks of the command line that CLI11 leaves out or words its own way:
// numbers as typed, values that are options, flags given twice or given a
// value, unknown words beside missing options, and parse errors in the
// project's wording (red teams). main calls them around CLI::App::parse.

#include "argument_checks.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgsim/error.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/registry_lookup.hpp"

namespace mgsim::cli {
namespace {

/// Why a number as typed would be read as another one, or nullptr: the
/// option parser reads a leading 0 as octal (010 is 8) and 0x as hexadecimal.
const char* misread_number(std::string_view value) {
  if (!value.empty() && (value.front() == '+' || value.front() == '-')) value.remove_prefix(1);
  if (value.size() < 2 || value.front() != '0') return nullptr;
  if (value[1] == 'x' || value[1] == 'X') return "a hexadecimal number: write it in decimal";
  const bool digits = value.find_first_not_of("0123456789") == std::string_view::npos;
  return digits ? "a whole number with a leading zero, which would be read as octal: write it without the zero"
                : nullptr;
}

/// Whether all of `text` reads as a T in decimal, nothing around it.
template <typename T>
std::errc read_whole(std::string_view text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end != text.data() + text.size() ? std::errc::invalid_argument : error;
}

/// Why `value`, given to a numeric option of type `type` ("INT", "UINT",
/// "FLOAT"), is not that number as written, or "": besides misread_number's,
/// the option parser reads '' as 0, ' 8' and '+8' as 8, clamps a 20-digit
/// whole number, and takes nan and inf (red team).
std::string number_refusal(std::string_view value, std::string_view type) {
  if (const char* why = type != "FLOAT" ? misread_number(value) : nullptr) return fmt::format("'{}': {}", value, why);
  long long whole = 0;
  unsigned long long count = 0;
  double number = 0;
  const std::errc error = type == "INT"    ? read_whole(value, whole)
                          : type == "UINT" ? read_whole(value, count)
                                           : read_whole(value, number);
  if (error == std::errc() && (type != "FLOAT" || std::isfinite(number))) return {};
  return fmt::format("expected {}, got '{}'{}",
                     type == "INT" ? "a whole number" : type == "UINT" ? "a whole number >= 0" : "a finite number",
                     value, error == std::errc::result_out_of_range ? ": out of range" : "");
}

/// Refuses an argument (a flag's value, a file name) that is not UTF-8.
void check_utf8_arguments(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (const auto bad = mgsim::find_invalid_utf8(argument)) {
      throw mgsim::ConfigError(fmt::format("argument {} ('{}'): byte {}: 0x{:02x}: expected UTF-8 text", i,
                                             mgsim::printable(argument), *bad + 1,
                                             static_cast<unsigned char>(argument[*bad])));
    }
  }
}

/// Whether `value`, given to an option, reads as another option (--aux-heads,
/// -c): the option before it lacks its value (red team: --measured-by
/// --aux-heads wrote a trace measured by "--aux-heads", exit 0). -1, -.5,
/// -inf and a text with blanks ('--help me, table 3') are values.
bool option_like(std::string_view value) {
  if (value.find_first_of(" \t") != std::string_view::npos) return false;
  const auto letter = [&](std::size_t at) {
    return value.size() > at && std::isalpha(static_cast<unsigned char>(value[at])) != 0;
  };
  return value.starts_with("--") ? letter(2) : value.size() == 2 && value[0] == '-' && letter(1);
}

/// Why a value given to an option is none, or "": another option, or the
/// "--" that ends the options (red team: a model named "--").
std::string value_refusal(std::string_view value) {
  if (option_like(value)) return fmt::format("expected a value after it, got the option '{}'", value);
  if (value == "--") return "expected a value after it, got '--', which ends the options";
  return {};
}

/// The commands named at the start of the command line: the last one, how
/// messages name it ("mgsim zoo trace"), and the index of the word after them.
struct NamedCommand {
  const CLI::App* command;
  std::string path;
  int next;
};

NamedCommand named_command(int argc, char** argv, const CLI::App& app) {
  NamedCommand named{&app, "mgsim", 1};
  for (; named.next < argc; ++named.next) {
    const CLI::App* next = subcommand_named(*named.command, argv[named.next]);
    if (next == nullptr) break;
    named.path += " " + next->get_name();
    named.command = next;
  }
  return named;
}

/// Refuses a word that names no subcommand where one is expected (mgsim
/// WORD, mgsim import WORD), suggesting the nearest, and an option or
/// nothing there (CLI11 would only say that a subcommand is required).
void check_subcommand(int argc, char** argv, const CLI::App& app) {
  const auto [level, path, i] = named_command(argc, argv, app);
  std::vector<std::string> names;
  for (const CLI::App* command : level->get_subcommands({})) names.push_back(command->get_name());
  if (names.empty()) return;  // a command's own arguments
  const std::string_view word = i < argc ? argv[i] : "";
  if (word == "-h" || word == "--help" || (level == &app && word == "--version")) return;
  if (i >= argc || word.starts_with('-')) {  // red team: mgsim --bogus, mgsim zoo: "A subcommand is required"
    throw mgsim::ConfigError(fmt::format("{}: expected a command ({}), got {} ({} --help lists them)", path,
                                         fmt::join(names, ", "),
                                         i < argc ? fmt::format("'{}'", mgsim::printable(word)) : "none", path));
  }
  throw mgsim::ConfigError(fmt::format("{} ({} --help lists them)", mgsim::unknown_name("command", argv[i], names), path));
}

/// The option of `app` or one of its commands named `name` ("--gpus"), or nullptr.
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->check_name(name)) return option;
  }
  for (const CLI::App* command : app.get_subcommands({})) {
    if (const CLI::Option* option = find_option(*command, name)) return option;
  }
  return nullptr;
}

/// The first word after the named commands that their last does not take,
/// or "": an option it lacks (--bogus, --bogus=1, -q), or a word that is no
/// option's value where it takes no positional argument (zoo trace resnet50,
/// run -- x). CLI11 reports a missing required option before it (red team:
/// run --bogus said "--config is required"). A value such as -, -1 or -.5 is
/// no option.
std::string unknown_option(int argc, char** argv, const CLI::App& app) {
  const NamedCommand named = named_command(argc, argv, app);
  const std::vector<const CLI::Option*> options = named.command->get_options();
  const bool positional = std::any_of(options.begin(), options.end(), [](const CLI::Option* o) { return !o->nonpositional(); });
  int values = 0;  // words still to read as the last option's values
  for (int i = named.next; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return positional || i + 1 >= argc ? std::string() : std::string(argv[i + 1]);
    const bool option = word.size() >= 2 && word.front() == '-' && word[1] != '.' &&
                        std::isdigit(static_cast<unsigned char>(word[1])) == 0;
    if (!option) {
      if (values > 0) {
        --values;
      } else if (!positional) {
        return std::string(word);
      }
      continue;
    }
    const OptionWord split = split_option(word);
    const CLI::Option* known = named.command->get_option_no_throw(split.name);
    if (known == nullptr) return std::string(word);  // --version is mgsim's alone
    values = split.attached ? 0 : known->get_expected_max();  // at most: a list takes the words up to the next option
  }
  return {};
}

/// Refuses what CLI11 would misread in an option's word, before it acts on
/// it (red team): a flag given a value (--aux-heads=false, read as off;
/// --resume=, read as on; --help=1, -h=1, -hx), a short option's value
/// after '=' (-o=x, read as "=x"), and words after --version.
void check_attached_values(int argc, char** argv, const CLI::App& app) {
  const NamedCommand named = named_command(argc, argv, app);
  const auto refuse = [&](std::string_view what) {
    throw mgsim::ConfigError(fmt::format("{} ({} --help lists its options)", what, named.path));
  };
  for (int i = named.next; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") break;
    if (named.command == &app && word == "--version" && i + 1 < argc) {
      throw mgsim::ConfigError(fmt::format("--version takes nothing after it, got '{}'", mgsim::printable(argv[i + 1])));
    }
    const bool is_long = word.starts_with("--");
    if (word.size() < 3 || word.front() != '-' || (!is_long && std::isalpha(static_cast<unsigned char>(word[1])) == 0)) {
      continue;  // no option with something attached: a value, -1, -.5
    }
    const auto [name, given] = split_option(word);
    if (!given) continue;
    const CLI::Option* option = named.command->get_option_no_throw(name);
    if (option == nullptr) continue;  // unknown: reported as such
    const bool short_equals = !is_long && given->starts_with('=');
    const std::string_view attached = given->substr(short_equals ? 1 : 0);
    if (option->get_expected_max() == 0) {
      refuse(fmt::format("{}: a flag takes no value, got '{}': give {} alone to set it, leave it out to leave it "
                         "unset", name, mgsim::printable(attached), name));
    }
    if (short_equals) {
      refuse(fmt::format("{}: got '{}': a short option takes its value after a space ({} {}), not after '='", name,
                         mgsim::printable(*given), name, mgsim::printable(attached)));
    }
  }
}

/// Why `command` does not take `words`; `after_dashes`: they came after "--", where every word is an argument
/// (red team: `sweep -- --resume` was called misspelt, `fit A -- B` a value without its option).
std::string takes_no_argument(const std::string& command, const std::string& words, bool after_dashes) {
  const std::string_view why = after_dashes         ? "after '--' every word is an argument, and it takes none there "
                                                      "(a list goes in one piece, before or after '--')"
                               : words.starts_with('-') ? "an option of another command, or misspelt?"
                                                        : "a value without its option?";
  return fmt::format("{} takes no argument '{}': {}", command, words, why);
}

/// Whether the first of `words` (as CLI11 lists them, space-separated) comes after a "--" on the command line.
bool after_double_dash(int argc, char** argv, std::string_view words) {
  const std::string_view first = words.substr(0, words.find(' '));
  bool dashes = false;
  for (int i = 1; i < argc; ++i) {
    if (dashes && first == argv[i]) return true;
    if (std::string_view(argv[i]) == "--") dashes = true;
  }
  return false;
}

/// CLI11's message for a parse error, in this project's words where CLI11's
/// say less (red team): "--zero: At Most 1 required but received 2" (an
/// option given twice), "Could not convert: --frontier-bound = 2.5", "--batch:
/// 1 required INT missing" and "The following argument was not expected: --bogus".
std::string parse_message(int argc, char** argv, const CLI::App& app, const CLI::ParseError& error,
                          const std::string& command) {
  const std::string what = error.what();
  for (const std::string_view extra : {"The following argument was not expected: ",
                                       "The following arguments were not expected: "}) {
    if (what.starts_with(extra)) {  // CLI11 lists them last first
      std::vector<std::string> words;
      std::istringstream listed(what.substr(extra.size()));
      for (std::string word; listed >> word;) words.insert(words.begin(), word);
      const std::string listed_words = fmt::format("{}", fmt::join(words, " "));
      return takes_no_argument(command, listed_words, after_double_dash(argc, argv, listed_words));
    }
  }
  constexpr std::string_view kMissing = " missing";
  if (const std::size_t colon = what.find(": "); what.ends_with(kMissing) && colon != std::string::npos &&
                                                  what.find(" required ", colon) != std::string::npos) {
    return fmt::format("{}: expected a value after it, got none", what.substr(0, colon));
  }
  constexpr std::string_view kAtMost = ": At Most ";
  constexpr std::string_view kReceived = " required but received ";
  const std::size_t at = what.find(kAtMost);
  const std::size_t received = what.find(kReceived);
  int most = 0, got = 0;  // CLI11 counts values: a pair (--second-figure) given twice is "At Most 2 ... received 4"
  if (at != std::string::npos && received != std::string::npos && received > at &&
      std::from_chars(what.data() + at + kAtMost.size(), what.data() + received, most).ec == std::errc() &&
      std::from_chars(what.data() + received + kReceived.size(), what.data() + what.size(), got).ec == std::errc() &&
      most > 0 && got % most == 0) {
    return fmt::format("{}: given {} times: give it once", what.substr(0, at), got / most);
  }
  constexpr std::string_view kConvert = "Could not convert: ";
  const std::size_t equals = what.find(" = ");
  if (what.starts_with(kConvert) && equals != std::string::npos) {
    const std::string name = what.substr(kConvert.size(), equals - kConvert.size());
    const CLI::Option* option = find_option(app, name);
    const std::string type = option == nullptr ? "" : option->get_type_name();
    const char* expected = type.starts_with("INT")     ? "a whole number"
                           : type.starts_with("UINT")  ? "a whole number >= 0"
                           : type.starts_with("FLOAT") ? "a number"
                                                       : "a value of another kind (see --help)";
    return fmt::format("{}: expected {}, got '{}'", name, expected, what.substr(equals + 3));
  }
  return what;
}

}  // namespace

const CLI::App* subcommand_named(const CLI::App& parent, std::string_view name) {
  for (const CLI::App* command : parent.get_subcommands({})) {
    if (command->get_name() == name) return command;
  }
  return nullptr;
}

OptionWord split_option(std::string_view word) {
  if (word.starts_with("--")) {
    const std::size_t equals = word.find('=');
    if (equals == std::string_view::npos) return {std::string(word), std::nullopt};
    return {std::string(word.substr(0, equals)), word.substr(equals + 1)};
  }
  if (word.size() > 2) return {std::string(word.substr(0, 2)), word.substr(2)};
  return {std::string(word), std::nullopt};
}

/// Gives every option of `app` and its commands that takes a value a check
/// that refuses what is no value (value_refusal) and, on a numeric option,
/// a value that is not the number it looks like (number_refusal). Numbers
/// on numeric options only: a file named 0123 or a model named 007 is no
/// number (red team).
void check_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_expected_max() == 0) continue;  // a flag
    option->check(CLI::Validator([](std::string& value) { return value_refusal(value); }, ""));
    const std::string full = option->get_type_name();  // "INT", "INT:INT in [1, 8]", "INT FLOAT"
    const std::string type = full.substr(0, full.find_first_of(" :"));
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    const CLI::Validator as_typed([type](std::string& value) { return number_refusal(value, type); }, "");
    // A pair ("INT FLOAT": --second-figure): its first value alone.
    option->check(full.find(' ') == std::string::npos ? as_typed : CLI::Validator(as_typed).application_index(0));
  }
  for (CLI::App* command : app.get_subcommands({})) check_values(*command);
}

/// Refuses a flag of a command run that was given twice (--resume --resume): CLI11 takes it.
void check_flags(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_expected_max() != 0 || option->count() < 2) continue;
    throw CLI::ArgumentMismatch(
        fmt::format("{}: given {} times: give it once", option->get_name(false, true), option->count()));
  }
  for (const CLI::App* used : command.get_subcommands()) check_flags(*used);
}

void check_command_line(int argc, char** argv, const CLI::App& app) {
  check_utf8_arguments(argc, argv);
  check_subcommand(argc, argv, app);
  check_attached_values(argc, argv, app);
}

std::string parse_error_message(int argc, char** argv, const CLI::App& app, const CLI::ParseError& error) {
  const std::string command = named_command(argc, argv, app).path;
  const std::string unknown =
      dynamic_cast<const CLI::RequiredError*>(&error) != nullptr ? unknown_option(argc, argv, app) : std::string();
  return fmt::format("{} ({} --help lists {})",
                     unknown.empty() ? parse_message(argc, argv, app, error, command)
                                     : takes_no_argument(command, unknown, after_double_dash(argc, argv, unknown)),
                     command,
                     command == "mgsim" ? "the commands and options" : "its options");
}

}  // namespace mgsim::cli
