#pragma once
// Schedules: who decides which gradients travel together and when. A schedule
// turns a CommProblem into a Plan and never looks at the clock itself. Each
// schedule is listed once in schedule_registry() with its parameters and their
// defaults; `mgsim list` prints that table. The rules and their sources are in
// docs/schedules.md.

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mgsim/plan.hpp"

namespace mgsim {

class Schedule {
 public:
  virtual ~Schedule() = default;
  virtual Plan plan(const CommProblem& problem) const = 0;
};

/// A tunable number of a schedule. Every value must be finite, > 0 (or >= 0
/// where `zero_allowed`) and <= `max_value`.
struct ParamSpec {
  std::string_view name;
  double default_value;
  bool zero_allowed;
  std::string_view description;
  double max_value = std::numeric_limits<double>::infinity();
};

/// Parameter values a user gave, by name; absent ones take their default.
using ParamValues = std::map<std::string, double, std::less<>>;

/// A measured top-k selection time: `seconds` to select from `elements`.
struct SelectionPoint {
  std::int64_t elements = 0;
  double seconds = 0.0;
};

/// What only sparse schedules take besides their parameters.
struct SparseOptions {
  std::map<std::string, double, std::less<>> layer_density;  ///< layer name -> density, overriding `density`
  std::vector<SelectionPoint> selection_curve;               ///< replaces s d log2 d when not empty
};

struct ScheduleInfo {
  std::string_view name;
  std::string_view description;
  std::span<const ParamSpec> params;
  bool sparse;  ///< accepts SparseOptions
  std::unique_ptr<Schedule> (*make)(const ParamValues& given, const SparseOptions& sparse);
};

/// Every schedule, in the order `mgsim list` shows them.
std::span<const ScheduleInfo> schedule_registry();

/// Looks a schedule up by name; throws ConfigError listing the valid names.
const ScheduleInfo& find_schedule(std::string_view name);

/// Validates the parameters (names and ranges) and sparse options (densities
/// in (0, 1], selection points positive) against the schedule and builds it.
/// Throws ConfigError naming the schedule and the parameter.
std::unique_ptr<Schedule> make_schedule(std::string_view name, const ParamValues& given,
                                        const SparseOptions& sparse = {});

/// The given value of `spec`, or its default.
double param_value(const ParamValues& given, const ParamSpec& spec);

}  // namespace mgsim
