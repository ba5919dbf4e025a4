#include "mgsim/model_memory.hpp"

#include <array>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/registry_lookup.hpp"

namespace mgsim {
namespace {

struct OptimizerInfo {
  std::string_view name;
  Optimizer optimizer;
  int state_copies;  ///< fp32 tensors per parameter tensor
};

constexpr std::array kOptimizers{
    OptimizerInfo{"sgd", Optimizer::sgd, 0},
    OptimizerInfo{"momentum", Optimizer::momentum, 1},
    OptimizerInfo{"adam", Optimizer::adam, 2},
};

const OptimizerInfo& info_of(Optimizer optimizer) {
  for (const OptimizerInfo& info : kOptimizers) {
    if (info.optimizer == optimizer) return info;
  }
  throw ConfigError("unknown optimizer");
}

/// Most parameter elements counted at once: at most 24 bytes each (8-byte
/// parameters and gradients, two 4-byte Adam moments) stay inside int64.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 56;

void check(const ModelStateSettings& s) {
  if (s.element_bytes < 1 || s.element_bytes > kMaxDtypeBytes) {
    throw ConfigError(fmt::format("model states: expected 1..{} bytes per parameter element, got {}", kMaxDtypeBytes,
                                  s.element_bytes));
  }
  if (s.zero_stage < 0 || s.zero_stage > kMaxZeroStage) {
    throw ConfigError(fmt::format("model states: expected a ZeRO stage in 0..{}, got {}", kMaxZeroStage, s.zero_stage));
  }
  if (s.data_parallel < 1) {
    throw ConfigError(fmt::format("model states: expected at least 1 data-parallel rank, got {}", s.data_parallel));
  }
}

}  // namespace

Optimizer parse_optimizer(std::string_view name) {
  return find_by_name<ConfigError>(std::span<const OptimizerInfo>(kOptimizers), name, "optimizer").optimizer;
}

std::string_view optimizer_name(Optimizer optimizer) { return info_of(optimizer).name; }

int optimizer_bytes_per_element(const ModelStateSettings& settings) {
  const int master = settings.element_bytes < 4 ? 1 : 0;
  return 4 * (info_of(settings.optimizer).state_copies + master);
}

std::int64_t shard_elements(std::int64_t elements, int ranks, int rank) {
  return elements / ranks + (rank < elements % ranks ? 1 : 0);
}

ModelStateBytes model_states(std::span<const std::int64_t> tensors, const ModelStateSettings& settings) {
  check(settings);
  std::int64_t whole = 0, largest_shard = 0;  // elements: all of them, and rank 0's shards
  for (const std::int64_t n : tensors) {
    if (n < 0 || n > kMaxElements - whole) {
      throw ConfigError(fmt::format("model states: expected 0..2^56 parameter elements in all, got a tensor of {}", n));
    }
    whole += n;
    largest_shard += shard_elements(n, settings.data_parallel, 0);
  }
  const int stage = settings.zero_stage;
  const auto held = [&](int sharded_from) { return stage >= sharded_from ? largest_shard : whole; };
  return {held(3) * settings.element_bytes, held(2) * settings.element_bytes,
          held(1) * optimizer_bytes_per_element(settings)};
}

ModelStateBytes trace_model_states(const Trace& trace, Optimizer optimizer, int zero_stage, int gpus) {
  ModelStateBytes sum;
  for (const Layer& layer : trace.layers) {
    const ModelStateBytes b = model_states(layer.params, {layer.dtype_bytes, optimizer, zero_stage, gpus});
    sum.parameters += b.parameters;
    sum.gradients += b.gradients;
    sum.optimizer += b.optimizer;
  }
  return sum;
}

int optimizer_step_bytes_per_element(int element_bytes, Optimizer optimizer) {
  const int parameter = element_bytes < 4 ? 8 + element_bytes : 2 * element_bytes;
  return element_bytes + parameter + 8 * info_of(optimizer).state_copies;
}

double optimizer_step_bytes(std::span<const std::int64_t> tensors, int element_bytes, Optimizer optimizer,
                            int zero_stage, int ranks) {
  std::int64_t elements = 0;
  for (const std::int64_t n : tensors) elements += zero_stage >= 1 ? shard_elements(n, ranks, 0) : n;
  return static_cast<double>(elements) * optimizer_step_bytes_per_element(element_bytes, optimizer);
}

double trace_optimizer_step_bytes(const Trace& trace, Optimizer optimizer, int zero_stage, int gpus) {
  double bytes = 0.0;
  for (const Layer& layer : trace.layers) {
    bytes += optimizer_step_bytes(layer.params, layer.dtype_bytes, optimizer, zero_stage, gpus);
  }
  return bytes;
}

double trace_optimizer_step_s(const Trace& trace, Optimizer optimizer, int zero_stage, int gpus) {
  if (trace.optimizer_bytes_per_s == 0.0) return 0.0;
  return trace_optimizer_step_bytes(trace, optimizer, zero_stage, gpus) / trace.optimizer_bytes_per_s;
}

}  // namespace mgsim
