#include "mgsim/profile/output.hpp"

#include <fmt/format.h>

#include <ctime>

#include "mgsim/limits.hpp"

namespace mgsim::profile {

nlohmann::json set_optimizer_step(Trace& trace, Optimizer optimizer, double step_s, const std::string& method,
                                  std::vector<std::string>& warnings) {
  const double bytes = trace_optimizer_step_bytes(trace, optimizer, 0, 1);
  const double rate = step_s > 0 ? bytes / step_s : 0;
  nlohmann::json entry = {{"measured_step_s", step_s},
                          {"optimizer", optimizer_name(optimizer)},
                          {"bytes", bytes},
                          {"method", method + "; optimizer_bytes_per_s = the optimizer's fused-step bytes over every "
                                              "parameter / that time, so a run of the same optimizer times the step "
                                              "as measured"}};
  if (rate >= kMinMemoryBytesPerS && rate <= kMaxMemoryBytesPerS) {
    trace.optimizer_bytes_per_s = rate;
  } else {
    entry["not_written"] = "the rate is outside what a trace may hold (docs/limits.md)";
    warnings.push_back(fmt::format("the optimizer step ({:.3f} ms for {:g} bytes) is not written: {:g} B/s is "
                                   "outside [{:g}, {:g}]",
                                   step_s * 1e3, bytes, rate, kMinMemoryBytesPerS, kMaxMemoryBytesPerS));
  }
  return entry;
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  return fmt::format("{:04}-{:02}-{:02}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
}

}  // namespace mgsim::profile
