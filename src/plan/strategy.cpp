#include "mgsim/plan/strategy.hpp"

#include <array>

#include <fmt/format.h>

#include "mgsim/registry_lookup.hpp"
#include "mgsim/error.hpp"

namespace mgsim::plan {
namespace {

struct OptimizerInfo {
  std::string_view name;
  Optimizer optimizer;
  int state_copies;
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

}  // namespace

std::string format_strategy(const Strategy& s) {
  std::string out = fmt::format("b{}", s.batch);
  if (s.feature > 1) out += fmt::format(".f{}", s.feature);
  if (s.reduction > 1) out += fmt::format(".k{}", s.reduction);
  return out;
}

Optimizer parse_optimizer(std::string_view name) {
  return find_by_name<ConfigError>(std::span<const OptimizerInfo>(kOptimizers), name, "optimizer").optimizer;
}

std::string_view optimizer_name(Optimizer optimizer) { return info_of(optimizer).name; }

int optimizer_state_copies(Optimizer optimizer) { return info_of(optimizer).state_copies; }

}  // namespace mgsim::plan
