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
  /// About how many steps plan() and the replay of its plan take on `layout`
  /// grouped in `units` (its layers, or its tensors where each is a message
  /// unit) (estimate_steps, docs/limits.md): by default one a unit, what
  /// most schedules plan and send in a pass; more where a plan searches pairs
  /// of units (`affine`: the all-reduce is a line at this GPU count, which
  /// some searches follow instead) or cuts tensors into many messages.
  virtual double plan_steps(int units, const TensorLayout& layout, bool affine) const;
  /// About how many messages its plan sends an iteration on `layout`: by
  /// default at most one a tensor; more where it cuts tensors into chunks.
  /// Each iteration replays them under variability (estimate_steps).
  virtual double replay_steps(const TensorLayout& layout) const;
};

/// A tunable number of a schedule. Every value must be finite, > 0 (or >= 0
/// where `zero_allowed`) and <= `max_value`. Left out, it is `default_value`,
/// or the value given to the earlier parameter `default_from` when that one
/// is given (DDP's first bucket is its bucket cap once a cap is given).
struct ParamSpec {
  std::string_view name;
  double default_value;
  bool zero_allowed;
  std::string_view description;
  double max_value = std::numeric_limits<double>::infinity();
  std::string_view default_from = {};
  bool whole = false;  ///< a count: whole numbers only
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

/// What the layer-grouping schedules (wfbp, mgwfbp, optimal) send as their
/// smallest message: every parameter tensor on its own, as PyTorch, DDP and
/// Horovod do, or a layer's tensors together, as Caffe does. DDP and Horovod
/// always bucket tensors; the sparse schedules always select per layer.
enum class MessageUnit { tensor, layer };

/// "tensor" or "layer".
std::string_view to_string(MessageUnit unit);

struct ScheduleInfo {
  std::string_view name;
  std::string_view description;
  std::span<const ParamSpec> params;
  bool sparse;  ///< accepts SparseOptions
  std::unique_ptr<Schedule> (*make)(const ParamValues& given, const SparseOptions& sparse);
  bool groups_units = false;  ///< groups whole message units (layers or tensors, MessageUnit)
  /// Reduce-scatters gradients and all-gathers parameters (dear, zero1..3,
  /// fsdp): needs the cost model's all-gather.
  bool sharded = false;
  /// The ZeRO stage whose memory it has (Rajbhandari et al., SC'20): 1
  /// optimizer state, 2 and gradients, 3 and parameters sharded (fsdp: 3);
  /// 0 for every unsharded schedule and dear.
  int zero_stage = 0;
};

/// Every schedule, in the order `mgsim list` shows them.
std::span<const ScheduleInfo> schedule_registry();

/// Looks a schedule up by name; throws ConfigError listing the valid names.
const ScheduleInfo& find_schedule(std::string_view name);

/// Validates the parameters (names and ranges) and sparse options (densities
/// in (0, 1], selection points positive) against the schedule and builds it.
/// `unit` matters only to schedules that group units. Throws ConfigError
/// naming the schedule and the parameter.
std::unique_ptr<Schedule> make_schedule(std::string_view name, const ParamValues& given,
                                        const SparseOptions& sparse = {}, MessageUnit unit = MessageUnit::layer);

/// Throws ConfigError "<owner>: ..." when `given` names a parameter not in
/// `specs` or a value outside its range. Shared by schedules and delay laws.
void check_params(std::string_view owner, std::span<const ParamSpec> specs, const ParamValues& given);
/// The same for the name alone: "<owner>: unknown parameter 'x' (valid: ...)".
void check_param_name(std::string_view owner, std::span<const ParamSpec> specs, std::string_view name);

/// The given value of the parameter `name` of `specs`, or its default
/// (ParamSpec::default_from). A name not among `specs` is a programming
/// error (std::logic_error).
double param_value(const ParamValues& given, std::span<const ParamSpec> specs, std::string_view name);

}  // namespace mgsim
