#pragma once
// Name lookup shared by the registries of collectives and schedules: one
// place that turns an unknown name into an error listing the valid ones.

#include <algorithm>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace mgsim {

template <typename Error, typename Info>
const Info& find_by_name(std::span<const Info> table, std::string_view name, std::string_view what) {
  const auto found = std::find_if(table.begin(), table.end(), [&](const Info& info) { return info.name == name; });
  if (found != table.end()) return *found;
  std::string valid;
  for (const Info& info : table) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", info.name);
  throw Error(fmt::format("unknown {} '{}' (valid: {})", what, name, valid));
}

}  // namespace mgsim
