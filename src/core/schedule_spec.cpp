#include "mgsim/schedule_spec.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgsim/display_text.hpp"
#include "mgsim/error.hpp"

namespace mgsim {
namespace {

/// `text` (UTF-8, as JSON gives it) quoted as a JSON string, with every
/// character that hides_text escaped as \uXXXX: no two texts read alike and
/// a table shows no raw newline, terminal escape or reversed text (red team).
std::string quoted_text(std::string_view text) {
  std::string quoted = "\"";
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = utf8_length(static_cast<unsigned char>(text[at]));
    const char32_t code_point = decode_utf8(text.substr(at, length));
    if (hides_text(code_point)) {
      quoted += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(code_point));
    } else {
      if (code_point == '"' || code_point == '\\') quoted += '\\';
      quoted += text.substr(at, length);
    }
    at += length;
  }
  return quoted + '"';
}

/// A text parameter or file a user wrote, as a label shows it: as written
/// when it holds nothing a label is built with (no space, none of =,()"\ and
/// only ASCII), else quoted_text.
std::string label_text(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c > ' ' && c < '\x7f' && std::string_view("=,()\"\\").find(c) == std::string_view::npos;
  });
  return plain ? std::string(text) : quoted_text(text);
}

/// A file as the config names it, one spelling of it: "./g.txt" and
/// "sub/../g.txt" are "g.txt" (red team: two labels for one run).
std::string file_text(const std::string& file) { return std::filesystem::path(file).lexically_normal().string(); }

}  // namespace

std::string ScheduleSpec::label() const {
  const ScheduleChoice choice = find_schedule_or_builder(name);
  const std::span<const ParamSpec> numbers = choice.schedule ? choice.schedule->params : choice.builder->params;
  const std::span<const ChoiceSpec> texts = choice.builder ? choice.builder->choices : std::span<const ChoiceSpec>{};
  // The label is a function of the values the run is built with, however they are written: a parameter is
  // shown when its value is not the one its absence would give (the parameters before it shown as decided),
  // or when a later one defaults from it (default_from) and takes its value that way. So {"bucket_cap_mb": 25}
  // (its first bucket 25 MiB too) and {"first_bucket_cap_mb": 25} both read "ddp(bucket_cap_mb=25)", and
  // {"bucket_cap_mb": 25, "first_bucket_cap_mb": 1} reads "ddp": one run, one label (red team).
  ParamValues built;
  for (const ParamSpec& p : numbers) built[std::string(p.name)] = param_value(params, numbers, p.name) + 0.0;  // -0 is 0
  ParamValues shown;
  for (const ParamSpec& p : numbers) {
    const double value = built.at(std::string(p.name));
    const bool feeds = std::any_of(numbers.begin(), numbers.end(), [&](const ParamSpec& q) {
      return q.default_from == p.name && built.at(std::string(q.name)) == value && value != q.default_value;
    });
    if (feeds || value != param_value(shown, numbers, p.name)) shown[std::string(p.name)] = value;
  }
  std::vector<std::string> parts;
  for (const auto& [key, value] : shown) parts.push_back(fmt::format("{}={}", key, value));
  for (const auto& choice : choices) {  // not a structured binding: clang 14 cannot capture one
    const auto& [key, value] = choice;
    if (choice_value({}, texts, key) == value) continue;
    const auto spec =
        std::find_if(texts.begin(), texts.end(), [&](const ChoiceSpec& c) { return c.name == choice.first; });
    const bool file = spec != texts.end() && spec->names_file(value);
    parts.push_back(fmt::format("{}={}", key, label_text(file ? file_text(value) : value)));
  }
  // A layer's name always quoted: no layer named "density" reads as the parameter (red team). One at the
  // schedule's own density changes nothing.
  for (const auto& [layer, density] : sparse.layer_density) {
    if (!built.contains("density") || density != built.at("density")) {
      parts.push_back(fmt::format("{}={}", quoted_text(layer), density));
    }
  }
  if (!selection_curve_file.empty()) {
    parts.push_back(fmt::format("selection_curve={}", label_text(file_text(selection_curve_file))));
  }
  return parts.empty() ? name : fmt::format("{}({})", name, fmt::join(parts, ","));
}

std::unique_ptr<Schedule> ScheduleSpec::build() const {
  if (builder()) {
    throw ConfigError(fmt::format("'{}' is an iteration builder, not a plan-based schedule: it has no plan", name));
  }
  return make_schedule(name, params, sparse, unit);
}

}  // namespace mgsim
