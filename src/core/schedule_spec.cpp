#include "mgsim/schedule_spec.hpp"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgsim/error.hpp"

namespace mgsim {

std::string ScheduleSpec::label() const {
  std::vector<std::string> parts;
  for (const auto& [key, value] : params) parts.push_back(fmt::format("{}={}", key, value));
  for (const auto& [key, value] : choices) parts.push_back(fmt::format("{}={}", key, value));
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
