#include "mgsim/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/registry_lookup.hpp"
#include "schedules.hpp"

namespace mgsim {
namespace {

constexpr std::array<ParamSpec, 0> kNoParams{};

/// Largest DDP bucket or Horovod fusion buffer: 1 TiB, past any trace's gradients worth merging.
constexpr double kMaxBufferMiB = 1 << 20;

constexpr std::array kDdpParams{
    ParamSpec{.name = "bucket_cap_mb",
              .default_value = 25.0,
              .zero_allowed = false,
              .description = "bucket capacity in MiB (PyTorch DDP bucket_cap_mb)",
              .max_value = kMaxBufferMiB},
    ParamSpec{.name = "first_bucket_cap_mb",
              .default_value = 1.0,
              .zero_allowed = false,
              .description =
                  "capacity of the first bucket in MiB; when left out it is 1 MiB with the default bucket_cap_mb and "
                  "equal to bucket_cap_mb otherwise",
              .max_value = kMaxBufferMiB,
              .default_from = "bucket_cap_mb"},
};

constexpr std::array kHorovodParams{
    ParamSpec{.name = "fusion_threshold_mb",
              .default_value = 128.0,
              .zero_allowed = false,
              .description = "fusion buffer size in MiB (HOROVOD_FUSION_THRESHOLD)",
              .max_value = kMaxBufferMiB},
    ParamSpec{.name = "cycle_time_ms",
              .default_value = 1.0,
              .zero_allowed = false,
              .description = "background cycle time in ms (HOROVOD_CYCLE_TIME)",
              .max_value = kMaxStepSeconds * 1e3},
    ParamSpec{
        .name = "copy_s_per_byte",
        .default_value = 0.0,
        .zero_allowed = true,
        .description = "seconds per byte to copy a fused tensor into and out of the fusion buffer (0: not modelled)",
        .max_value = 1.0},
};

constexpr std::array kSparseParams{
    ParamSpec{.name = "density",
              .default_value = 0.001,
              .zero_allowed = false,
              .description = "fraction rho of each gradient's elements kept by top-k",
              .max_value = 1.0},
    ParamSpec{.name = "selection_s",
              .default_value = 2.19e-10,
              .zero_allowed = true,
              .description =
                  "top-k selection cost s in t_s(d) = s d log2(d) seconds for d elements (the authors' P102-100 fit)",
              .max_value = 1.0},
    ParamSpec{.name = "value_bytes",
              .default_value = 4.0,
              .zero_allowed = false,
              .description = "bytes per kept value",
              .max_value = 16.0,
              .whole = true},
    ParamSpec{.name = "index_bytes",
              .default_value = 4.0,
              .zero_allowed = true,
              .description = "bytes per kept index",
              .max_value = 16.0,
              .whole = true},
};

/// Most elements in one chunk or in flight: past any trace's gradients.
constexpr double kMaxChunkElements = 1e15;

constexpr std::array kP3Params{
    ParamSpec{.name = "slice_params",
              .default_value = 50000.0,
              .zero_allowed = false,
              .description = "elements per slice: each gradient tensor is sliced into pieces of at most this many",
              .max_value = kMaxChunkElements,
              .whole = true},
};

constexpr std::array kByteSchedulerParams{
    ParamSpec{.name = "partition_params",
              .default_value = 1e6,
              .zero_allowed = false,
              .description = "elements per partition (BYTESCHEDULER_PARTITION, whose default is 1e6)",
              .max_value = kMaxChunkElements,
              .whole = true},
    ParamSpec{.name = "credit_params",
              .default_value = 4e6,
              .zero_allowed = true,
              .description = "elements in flight before the next partition is chosen (BYTESCHEDULER_CREDIT, whose "
                             "default is 4e6; 0: chosen when the channel is free)",
              .max_value = kMaxChunkElements,
              .whole = true},
};

constexpr std::array kDearParams{
    ParamSpec{.name = "threshold_mb",
              .default_value = 25.0,
              .zero_allowed = false,
              .description = "tensor fusion threshold in MiB: layers in forward order join a group while it stays "
                             "below it (DeAR's THRESHOLD, whose default is 25)",
              .max_value = kMaxBufferMiB},
};

/// Most elements in a DeepSpeed bucket: past any trace's gradients.
constexpr double kMaxBucketElements = 1e15;

constexpr std::array kZeroParams{
    ParamSpec{.name = "reduce_bucket_size",
              .default_value = 5e8,
              .zero_allowed = false,
              .description = "elements per reduce-scatter bucket (DeepSpeed's zero_optimization.reduce_bucket_size, "
                             "whose default is 5e8)",
              .max_value = kMaxBucketElements,
              .whole = true},
};

constexpr std::array kSchedules{
    ScheduleInfo{
        .name = "wfbp",
        .description = "wait-free backprop: one all-reduce per message unit (tensor or layer) as soon as it is ready",
        .params = kNoParams,
        .sparse = false,
        .make = make_wfbp,
        .groups_units = true},
    ScheduleInfo{.name = "single",
                 .description = "single-layer (SyncEASGD): one all-reduce of all gradients after backward",
                 .params = kNoParams,
                 .sparse = false,
                 .make = make_single},
    ScheduleInfo{.name = "mgwfbp",
                 .description = "MG-WFBP: the authors' published merge rule (Shi et al., INFOCOM'19)",
                 .params = kNoParams,
                 .sparse = false,
                 .make = make_mgwfbp,
                 .groups_units = true},
    ScheduleInfo{.name = "optimal",
                 .description = "exact minimum over all contiguous groupings of message units (O(n^2) dynamic program)",
                 .params = kNoParams,
                 .sparse = false,
                 .make = make_optimal,
                 .groups_units = true},
    ScheduleInfo{.name = "ddp",
                 .description = "PyTorch DistributedDataParallel gradient buckets",
                 .params = kDdpParams,
                 .sparse = false,
                 .make = make_ddp},
    ScheduleInfo{.name = "horovod",
                 .description = "Horovod tensor fusion on a background cycle",
                 .params = kHorovodParams,
                 .sparse = false,
                 .make = make_horovod},
    ScheduleInfo{.name = "p3",
                 .description = "P3: gradients sliced, each slice sent when the channel is free, most urgent layer "
                                "for the next forward first (Jayarajan et al., SysML'19)",
                 .params = kP3Params,
                 .sparse = false,
                 .make = make_p3},
    ScheduleInfo{.name = "bytescheduler",
                 .description = "ByteScheduler: gradients partitioned, sent by priority for the next forward within "
                                "a credit window (Peng et al., SOSP'19)",
                 .params = kByteSchedulerParams,
                 .sparse = false,
                 .make = make_bytescheduler},
    ScheduleInfo{.name = "dear",
                 .description = "DeAR: reduce-scatter of fused layer groups during backward, all-gather of each "
                                "group overlapped with the next forward (Zhang et al., ICDCS'23)",
                 .params = kDearParams,
                 .sparse = false,
                 .make = make_dear,
                 .sharded = true},
    ScheduleInfo{.name = "zero1",
                 .description = "ZeRO stage 1: gradient buckets reduce-scattered after backward, then one all-gather "
                                "of the parameters before the next forward (DeepSpeed, Rajbhandari et al., SC'20)",
                 .params = kZeroParams,
                 .sparse = false,
                 .make = make_zero1,
                 .sharded = true,
                 .zero_stage = 1},
    ScheduleInfo{.name = "zero2",
                 .description = "ZeRO stage 2: gradient buckets reduce-scattered during backward (overlap_comm), "
                                "then one all-gather of the parameters before the next forward",
                 .params = kZeroParams,
                 .sparse = false,
                 .make = make_zero2,
                 .sharded = true,
                 .zero_stage = 2},
    ScheduleInfo{.name = "zero3",
                 .description = "ZeRO stage 3: parameters all-gathered per layer before its forward and backward, "
                                "gradient buckets reduce-scattered during backward",
                 .params = kZeroParams,
                 .sparse = false,
                 .make = make_zero3,
                 .sharded = true,
                 .zero_stage = 3},
    ScheduleInfo{.name = "fsdp",
                 .description = "PyTorch FSDP (FULL_SHARD, one unit per layer, BACKWARD_PRE prefetch): parameters "
                                "all-gathered before forward and backward, gradients reduce-scattered per layer "
                                "(Zhao et al., VLDB'23)",
                 .params = kNoParams,
                 .sparse = false,
                 .make = make_fsdp,
                 .sharded = true,
                 .zero_stage = 3},
    ScheduleInfo{.name = "topk",
                 .description = "TopK-SGD: top-k of all gradients after backward, one sparse all-gather",
                 .params = kSparseParams,
                 .sparse = true,
                 .make = make_topk},
    ScheduleInfo{.name = "lags",
                 .description = "LAGS-SGD: per-layer top-k and sparse all-gather, pipelined with backward",
                 .params = kSparseParams,
                 .sparse = true,
                 .make = make_lags},
    ScheduleInfo{.name = "omgs",
                 .description = "OMGS-SGD, exact: optimal merge of consecutive layers before top-k (Pareto DP)",
                 .params = kSparseParams,
                 .sparse = true,
                 .make = make_omgs},
    ScheduleInfo{.name = "omgs-rule",
                 .description = "OMGS-SGD: the authors' published greedy merge test (Shi et al., INFOCOM'20)",
                 .params = kSparseParams,
                 .sparse = true,
                 .make = make_omgs_rule},
};

void check_sparse_options(const ScheduleInfo& info, const ParamValues& given, const SparseOptions& options) {
  if (!info.sparse && (!options.layer_density.empty() || !options.selection_curve.empty())) {
    throw ConfigError(fmt::format("schedule '{}': layer_density and selection_curve are for sparse schedules only",
                                  info.name));
  }
  if (!options.selection_curve.empty() && given.contains("selection_s")) {  // once ignored in silence (red team)
    throw ConfigError(fmt::format("schedule '{}': selection_s and selection_curve both price the top-k selection "
                                  "(the curve replaces s d log2 d): give one",
                                  info.name));
  }
  for (const auto& [layer, density] : options.layer_density) {
    if (!(density > 0 && density <= 1)) {
      throw ConfigError(fmt::format("schedule '{}': layer_density of '{}' must be in (0, 1], got {}", info.name,
                                    layer, density));
    }
  }
  for (const SelectionPoint& point : options.selection_curve) {
    if (point.elements < 1 || !(point.seconds >= 0) || !std::isfinite(point.seconds)) {
      throw ConfigError(fmt::format("schedule '{}': selection_curve points need elements >= 1 and seconds >= 0",
                                    info.name));
    }
  }
}

}  // namespace

std::string_view to_string(MessageUnit unit) { return unit == MessageUnit::tensor ? "tensor" : "layer"; }

std::span<const ScheduleInfo> schedule_registry() { return kSchedules; }

const ScheduleInfo& find_schedule(std::string_view name) {
  return find_by_name<ConfigError>(schedule_registry(), name, "schedule");
}

double Schedule::plan_steps(int units, const TensorLayout&, bool) const { return units; }

double Schedule::replay_steps(const TensorLayout& layout) const { return static_cast<double>(layout.tensor_count()); }

std::unique_ptr<Schedule> make_schedule(std::string_view name, const ParamValues& given, const SparseOptions& sparse,
                                        MessageUnit unit) {
  const ScheduleInfo& info = find_schedule(name);
  check_params(fmt::format("schedule '{}'", info.name), info.params, given);
  check_sparse_options(info, given, sparse);
  std::unique_ptr<Schedule> schedule = info.make(given, sparse);
  return unit == MessageUnit::tensor && info.groups_units ? per_tensor(std::move(schedule)) : std::move(schedule);
}

void check_param_name(std::string_view owner, std::span<const ParamSpec> specs, std::string_view name) {
  if (std::any_of(specs.begin(), specs.end(), [&](const ParamSpec& p) { return p.name == name; })) return;
  std::vector<std::string_view> names;
  for (const ParamSpec& p : specs) names.push_back(p.name);
  throw ConfigError(fmt::format("{}: {}", owner, unknown_name("parameter", name, names)));
}

void check_params(std::string_view owner, std::span<const ParamSpec> specs, const ParamValues& given) {
  for (const auto& [name, value] : given) {
    check_param_name(owner, specs, name);
    const auto spec =
        std::find_if(specs.begin(), specs.end(), [&key = name](const ParamSpec& p) { return p.name == key; });
    const bool ok = std::isfinite(value) && (value > 0 || (spec->zero_allowed && value == 0)) &&
                    value <= spec->max_value && (!spec->whole || value == std::floor(value));
    if (!ok) {
      const std::string upper = std::isfinite(spec->max_value) ? fmt::format(" and <= {}", spec->max_value) : "";
      throw ConfigError(fmt::format("{}: parameter '{}' must be a finite {} {} 0{}, got {}", owner, name,
                                    spec->whole ? "whole number" : "number", spec->zero_allowed ? ">=" : ">", upper,
                                    value));
    }
  }
}

double param_value(const ParamValues& given, std::span<const ParamSpec> specs, std::string_view name) {
  const auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == name; });
  if (spec == specs.end()) throw std::logic_error(fmt::format("no parameter '{}' in this table", name));
  if (const auto found = given.find(name); found != given.end()) return found->second;
  if (const auto from = given.find(spec->default_from); !spec->default_from.empty() && from != given.end()) {
    return from->second;
  }
  return spec->default_value;
}

std::int64_t whole_param(std::string_view schedule, const ParamValues& given, std::string_view name) {
  return static_cast<std::int64_t>(param_value(given, find_schedule(schedule).params, name));
}

}  // namespace mgsim
