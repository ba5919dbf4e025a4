#include "mgsim/plan/strategy.hpp"

#include <fmt/format.h>

namespace mgsim::plan {

std::string format_strategy(const Strategy& s) {
  std::string out = fmt::format("b{}", s.batch);
  if (s.feature > 1) out += fmt::format(".f{}", s.feature);
  if (s.reduction > 1) out += fmt::format(".k{}", s.reduction);
  return out;
}

}  // namespace mgsim::plan
