#include "mgsim/limits.hpp"

#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim {

void refuse_step(double seconds, std::string_view what) {
  throw ConfigError(fmt::format("{} takes {:g} s: expected a finite time in [0, {:g}] s (an hour, the longest step "
                                "mgsim simulates: docs/limits.md)",
                                what, seconds, kMaxStepSeconds));
}

}  // namespace mgsim
