#include "mgsim/schedule_spec.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgsim/error.hpp"

namespace mgsim {

std::string ScheduleSpec::label() const {
  const ScheduleChoice choice = find_schedule_or_builder(name);
  const std::span<const ParamSpec> numbers = choice.schedule ? choice.schedule->params : choice.builder->params;
  const std::span<const ChoiceSpec> texts = choice.builder ? choice.builder->choices : std::span<const ChoiceSpec>{};
  // A parameter whose absence builds the same values (at its default, or its default_from's value) names no
  // other run: left out, so that one run has one label. Dependents first: "bucket_cap_mb=25" stays, since
  // without it the first bucket would go back to 1 MiB.
  const auto same_values = [&](const ParamValues& a, const ParamValues& b) {
    return std::all_of(numbers.begin(), numbers.end(), [&](const ParamSpec& p) {
      return param_value(a, numbers, p.name) == param_value(b, numbers, p.name);
    });
  };
  ParamValues shown = params;
  for (auto spec = numbers.rbegin(); spec != numbers.rend(); ++spec) {
    ParamValues without = shown;
    if (without.erase(std::string(spec->name)) == 1 && same_values(without, shown)) shown = std::move(without);
  }
  std::vector<std::string> parts;
  for (const auto& [key, value] : shown) parts.push_back(fmt::format("{}={}", key, value));
  for (const auto& [key, value] : choices) {
    if (choice_value({}, texts, key) != value) parts.push_back(fmt::format("{}={}", key, value));
  }
  for (const auto& [layer, density] : sparse.layer_density) parts.push_back(fmt::format("{}={}", layer, density));
  if (!selection_curve_file.empty()) {
    parts.push_back(fmt::format("selection_curve={}", selection_curve_file));
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
