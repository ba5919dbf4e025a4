// Checks of flag values shared by the subcommands.

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "commands.hpp"

namespace mgsim::cli {

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

}  // namespace mgsim::cli
