// Checks of flag values and help text shared by the subcommands.

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/registry_lookup.hpp"
#include "mgsim/zoo/gpus.hpp"
#include "mgsim/zoo/models.hpp"

namespace mgsim::cli {

void add_examples(CLI::App* command, std::initializer_list<std::string_view> command_lines) {
  std::string text = "Examples:";
  for (const std::string_view line : command_lines) text += fmt::format("\n  {}", line);
  command->footer(text);
}

CLI::Validator finite_in(double min, double max, bool min_inclusive) {
  return CLI::Validator(
      [min, max, min_inclusive](const std::string& text) -> std::string {
        double value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool whole = error == std::errc() && end == text.data() + text.size();
        if (whole && std::isfinite(value) && (min_inclusive ? value >= min : value > min) && value <= max) return {};
        return fmt::format("expected a finite number in {}{}, {}], got '{}'", min_inclusive ? "[" : "(", min, max, text);
      },
      fmt::format("NUMBER in {}{}, {}]", min_inclusive ? "[" : "(", min, max));
}

CLI::Validator whole_in(long long min, long long max) {
  return CLI::Validator(
      [min, max](const std::string& text) -> std::string {
        long long value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool whole = !text.empty() && error == std::errc() && end == text.data() + text.size();
        if (whole && value >= min && value <= max) return {};
        return fmt::format("expected a whole number in [{}, {}], got '{}'", min, max, text);
      },
      fmt::format("INT in [{}, {}]", min, max));
}

namespace {

/// name_text(what), then `find` (which throws mgsim::Error for an unknown name).
CLI::Validator known_name(std::string_view what, void (*find)(std::string_view)) {
  const CLI::Validator text = name_text(what);
  return CLI::Validator(
      [text, find](std::string& value) -> std::string {
        if (std::string why = text(value); !why.empty()) return why;
        try {
          find(value);
        } catch (const Error& error) {
          return error.what();
        }
        return {};
      },
      "NAME");
}

}  // namespace

CLI::Validator one_of(std::string_view what, std::vector<std::string> names) {
  const std::string description = fmt::format("{{{}}}", fmt::join(names, ","));
  return CLI::Validator(
      [what = std::string(what), names = std::move(names)](const std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return {};
        return unknown_name(what, printable(value), names);
      },
      description);
}

CLI::Validator zoo_model_name() {
  return known_name("a zoo model", [](std::string_view name) { static_cast<void>(zoo::find_model(name)); });
}

CLI::Validator zoo_gpu_name() {
  return known_name("a GPU name", [](std::string_view name) { static_cast<void>(zoo::find_gpu(name)); });
}

CLI::Validator zoo_precision_name() {
  return known_name("a precision", [](std::string_view name) { static_cast<void>(zoo::parse_precision(name)); });
}

std::string file_name_refusal(const std::string& text, std::string_view dash) {
  if (text.empty()) return fmt::format("expected a file name, or - for {}, got an empty name", dash);
  if (is_blank(text)) return fmt::format("expected a file name, or - for {}, got blanks", dash);  // red team
  if (text.size() > 1 && text.front() == '-') {  // red team: -o -f wrote a file named -f
    return fmt::format("expected a file name, got the option '{}': is the name missing before it? (write ./{} for a "
                       "file of that name)", printable(text), printable(text));
  }
  return "";
}

CLI::Validator output_name() {
  return CLI::Validator([](const std::string& text) { return file_name_refusal(text, "standard output"); }, "FILE");
}

CLI::Validator input_name() {
  return CLI::Validator([](const std::string& text) { return file_name_refusal(text, "standard input"); }, "FILE");
}

CLI::Validator name_text(std::string_view what, std::size_t max_bytes) {
  return CLI::Validator(
      [what = std::string(what), max_bytes](const std::string& text) -> std::string {
        if (is_blank(text)) return fmt::format("expected {}, got {}", what, text.empty() ? "an empty value" : "blanks");
        if (text.size() > max_bytes) return fmt::format("expected {} of at most {} bytes, got {}", what, max_bytes, text.size());
        return hidden_characters_refusal(what, text);  // red team: U+0085 and U+202E passed
      },
      "NAME");
}

}  // namespace mgsim::cli
