#pragma once
// Name lookup shared by the registries (collectives, schedules, builders,
// laws, models, GPUs), the parameter tables, the config reader's keys and
// the subcommands: one place that turns an unknown name into an error
// listing the valid ones and suggesting the nearest (as ninja's ChooseTool
// and SimGrid's module lookup do).

#include <algorithm>
#include <cctype>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace mgsim {

/// Levenshtein distance: single-character insertions, deletions and substitutions.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// Whether `typed` is close enough to `valid` to suggest it: within a third
/// of the valid name's length, at least 2 edits. The one rule of every "did you mean".
inline bool near_name(std::string_view typed, std::string_view valid) {
  return edit_distance(typed, valid) <= std::max<std::size_t>(2, valid.size() / 3);
}

/// `text` in ASCII lower case.
inline std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

/// "unknown <what> '<name>'; did you mean '<nearest>'? (valid: a, b)": the
/// nearest valid name is suggested when it is near_name() to `name`, case
/// aside (red team: H100 was offered p100).
template <typename Names>
std::string unknown_name(std::string_view what, std::string_view name, const Names& names) {
  std::string valid, nearest;
  std::size_t best = 0;
  const std::string typed = lowercase(name);
  for (const auto& candidate : names) {
    const std::string_view text = candidate;
    valid += fmt::format("{}{}", valid.empty() ? "" : ", ", text);
    const std::string lower = lowercase(text);
    const std::size_t distance = edit_distance(typed, lower);
    if (near_name(typed, lower) && (nearest.empty() || distance < best)) {
      nearest = text;
      best = distance;
    }
  }
  const std::string hint = nearest.empty() ? "" : fmt::format("; did you mean '{}'?", nearest);
  return fmt::format("unknown {} '{}'{} (valid: {})", what, name, hint, valid.empty() ? "none" : valid);
}

template <typename Error, typename Info>
const Info& find_by_name(std::span<const Info> table, std::string_view name, std::string_view what) {
  const auto found = std::find_if(table.begin(), table.end(), [&](const Info& info) { return info.name == name; });
  if (found != table.end()) return *found;
  std::vector<std::string_view> names;
  for (const Info& info : table) names.push_back(info.name);
  throw Error(unknown_name(what, name, names));
}

}  // namespace mgsim
