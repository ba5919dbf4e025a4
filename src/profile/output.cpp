#include "mgsim/profile/output.hpp"

#include <fmt/format.h>

#include <ctime>

namespace mgsim::profile {

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  return fmt::format("{:04}-{:02}-{:02}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
}

}  // namespace mgsim::profile
