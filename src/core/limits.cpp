#include "mgsim/limits.hpp"

#include <cmath>

#include <fmt/format.h>

#include "mgsim/error.hpp"

namespace mgsim {

void refuse_step(double seconds, std::string_view what) {
  throw ConfigError(fmt::format("{} takes {:.10g} s: expected a finite time in [0, {:g}] s (an hour, the longest step "
                                "mgsim simulates: docs/limits.md)",
                                what, seconds, kMaxStepSeconds));
}

SimTime scaled_ns(SimTime time, double speed) {
  const double scaled = static_cast<double>(time) / speed;
  if (!(speed > 0) || !(scaled <= kMaxComputeSeconds * 1e9)) {
    throw ConfigError(fmt::format("a compute time of {:g} s at relative speed {:g} takes {:g} s: expected at most {:g} s "
                                  "(speed_classes and stragglers speeds multiply; docs/limits.md)",
                                  static_cast<double>(time) * 1e-9, speed, scaled * 1e-9, kMaxComputeSeconds));
  }
  return std::llround(scaled);
}

}  // namespace mgsim
