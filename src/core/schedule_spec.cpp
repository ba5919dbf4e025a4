#include "mgsim/schedule_spec.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgsim/error.hpp"

namespace mgsim {
namespace {

/// A name or file a user wrote, as a label shows it: as written when it
/// holds none of the characters a label is built with (and no space or
/// control character), else quoted as a JSON string, so that no two texts
/// read alike ({"a=1,b": 0.5} is not {"a": 1, "b": 0.5}) and a table shows no
/// raw newline or terminal escape (red team).
std::string label_text(std::string_view text) {
  const auto control = [](char c) { return static_cast<unsigned char>(c) < ' ' || c == '\x7f'; };
  const bool plain = !text.empty() && std::none_of(text.begin(), text.end(), [&](char c) {
    return control(c) || std::string_view(" =,()\"\\").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += control(c) ? fmt::format("\\u{:04x}", static_cast<unsigned char>(c)) : std::string(1, c);
  }
  return quoted + '"';
}

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
  for (const auto& [key, value] : choices) {
    if (choice_value({}, texts, key) != value) parts.push_back(fmt::format("{}={}", key, label_text(value)));
  }
  for (const auto& [layer, density] : sparse.layer_density) {  // one at the schedule's density changes nothing
    if (!built.contains("density") || density != built.at("density")) {
      parts.push_back(fmt::format("{}={}", label_text(layer), density));
    }
  }
  if (!selection_curve_file.empty()) {
    parts.push_back(fmt::format("selection_curve={}", label_text(selection_curve_file)));
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
