#include "mgsim/schedule.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

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
    ParamSpec{"bucket_cap_mb", 25.0, false, "bucket capacity in MiB (PyTorch DDP bucket_cap_mb)", kMaxBufferMiB},
    ParamSpec{"first_bucket_cap_mb", 1.0, false,
              "capacity of the first bucket in MiB; when left out it is 1 MiB with the default bucket_cap_mb and "
              "equal to bucket_cap_mb otherwise",
              kMaxBufferMiB},
};

constexpr std::array kHorovodParams{
    ParamSpec{"fusion_threshold_mb", 128.0, false, "fusion buffer size in MiB (HOROVOD_FUSION_THRESHOLD)",
              kMaxBufferMiB},
    ParamSpec{"cycle_time_ms", 1.0, false, "background cycle time in ms (HOROVOD_CYCLE_TIME)", kMaxStepSeconds * 1e3},
    ParamSpec{"copy_s_per_byte", 0.0, true,
              "seconds per byte to copy a fused tensor into and out of the fusion buffer (0: not modelled)", 1.0},
};

constexpr std::array kSparseParams{
    ParamSpec{"density", 0.001, false, "fraction rho of each gradient's elements kept by top-k", 1.0},
    ParamSpec{"selection_s", 2.19e-10, true,
              "top-k selection cost s in t_s(d) = s d log2(d) seconds for d elements (the authors' P102-100 fit)",
              1.0},
    ParamSpec{"value_bytes", 4.0, false, "bytes per kept value", 16.0},
    ParamSpec{"index_bytes", 4.0, true, "bytes per kept index", 16.0},
};

constexpr std::array kSchedules{
    ScheduleInfo{"wfbp", "wait-free backprop: one all-reduce per message unit (tensor or layer) as soon as it is ready",
                 kNoParams, false, make_wfbp, true},
    ScheduleInfo{"single", "single-layer (SyncEASGD): one all-reduce of all gradients after backward", kNoParams, false,
                 make_single},
    ScheduleInfo{"mgwfbp", "MG-WFBP: the authors' published merge rule (Shi et al., INFOCOM'19)", kNoParams, false,
                 make_mgwfbp, true},
    ScheduleInfo{"optimal", "exact minimum over all contiguous groupings of message units (O(n^2) dynamic program)",
                 kNoParams, false, make_optimal, true},
    ScheduleInfo{"ddp", "PyTorch DistributedDataParallel gradient buckets", kDdpParams, false, make_ddp},
    ScheduleInfo{"horovod", "Horovod tensor fusion on a background cycle", kHorovodParams, false, make_horovod},
    ScheduleInfo{"topk", "TopK-SGD: top-k of all gradients after backward, one sparse all-gather", kSparseParams, true,
                 make_topk},
    ScheduleInfo{"lags", "LAGS-SGD: per-layer top-k and sparse all-gather, pipelined with backward", kSparseParams, true,
                 make_lags},
    ScheduleInfo{"omgs", "OMGS-SGD, exact: optimal merge of consecutive layers before top-k (Pareto DP)",
                 kSparseParams, true, make_omgs},
    ScheduleInfo{"omgs-rule", "OMGS-SGD: the authors' published greedy merge test (Shi et al., INFOCOM'20)",
                 kSparseParams, true, make_omgs_rule},
};

void check_sparse_options(const ScheduleInfo& info, const SparseOptions& options) {
  if (!info.sparse && (!options.layer_density.empty() || !options.selection_curve.empty())) {
    throw ConfigError(fmt::format("schedule '{}': layer_density and selection_curve are for sparse schedules only",
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

std::unique_ptr<Schedule> make_schedule(std::string_view name, const ParamValues& given, const SparseOptions& sparse,
                                        MessageUnit unit) {
  const ScheduleInfo& info = find_schedule(name);
  check_params(fmt::format("schedule '{}'", info.name), info.params, given);
  check_sparse_options(info, sparse);
  std::unique_ptr<Schedule> schedule = info.make(given, sparse);
  return unit == MessageUnit::tensor && info.groups_units ? per_tensor(std::move(schedule)) : std::move(schedule);
}

void check_params(std::string_view owner, std::span<const ParamSpec> specs, const ParamValues& given) {
  for (const auto& [name, value] : given) {
    const auto spec =
        std::find_if(specs.begin(), specs.end(), [&key = name](const ParamSpec& p) { return p.name == key; });
    if (spec == specs.end()) {
      std::string valid;
      for (const ParamSpec& p : specs) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", p.name);
      throw ConfigError(
          fmt::format("{}: unknown parameter '{}' (valid: {})", owner, name, valid.empty() ? "none" : valid));
    }
    const bool ok = std::isfinite(value) && (value > 0 || (spec->zero_allowed && value == 0)) &&
                    value <= spec->max_value;
    if (!ok) {
      const std::string upper = std::isfinite(spec->max_value) ? fmt::format(" and <= {}", spec->max_value) : "";
      throw ConfigError(fmt::format("{}: parameter '{}' must be a finite number {} 0{}, got {}", owner, name,
                                    spec->zero_allowed ? ">=" : ">", upper, value));
    }
  }
}

double param_value(const ParamValues& given, const ParamSpec& spec) {
  const auto found = given.find(spec.name);
  return found == given.end() ? spec.default_value : found->second;
}

}  // namespace mgsim
