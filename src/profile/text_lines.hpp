#pragma once
// Small helpers for the text importers: whitespace splitting and strict
// number parsing (the whole token must be the number).

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/limits.hpp"

namespace mgsim::profile {

inline std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t from = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > from) words.push_back(line.substr(from, i - from));
  }
  return words;
}

inline std::optional<std::int64_t> to_int(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

inline std::optional<double> to_double(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// A latency in microseconds, as seconds: a number in [kMinMeasuredSeconds, kMaxStepSeconds] s, the range a
/// curve file holds (red team: 1e-4 us passed here, then the curve writer refused it naming neither file nor
/// line), or nothing.
inline std::optional<double> latency_seconds(std::string_view microseconds) {
  const std::optional<double> us = to_double(microseconds);
  if (!us || !(*us * 1e-6 >= kMinMeasuredSeconds) || !(*us * 1e-6 <= kMaxStepSeconds)) return std::nullopt;
  return *us * 1e-6;
}

/// What latency_seconds accepts, for messages.
inline std::string latency_range() {
  return fmt::format("a time in [{:g}, {:g}] us", kMinMeasuredSeconds * 1e6, kMaxStepSeconds * 1e6);
}

/// A message size in bytes: an integer in [0, kMaxMessageBytes], or nothing.
inline std::optional<std::int64_t> message_bytes(std::string_view text) {
  const std::optional<std::int64_t> bytes = to_int(text);
  if (!bytes || *bytes < 0 || *bytes > kMaxMessageBytes) return std::nullopt;
  return bytes;
}

inline bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

/// "inf", "-nan", "Infinity" ...: a number printed as no finite value.
inline bool not_a_number(std::string_view text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  const std::string lower = ascii_lower(text);
  return lower == "inf" || lower == "infinity" || lower == "nan" || lower.starts_with("nan(");
}

inline std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

/// Throws CurveError "<source>: line <n>: <what>" ("<source>: <what>" for
/// line 0), `what` made printable: the words it quotes from the line may hold
/// a NUL or control bytes (red team: "got \"10.5" for "10.5\x000").
[[noreturn]] inline void fail_at(const std::string& source, int line, const std::string& what) {
  const std::string shown = printable(what, 1000);
  throw CurveError(line > 0 ? fmt::format("{}: line {}: {}", source, line, shown) : fmt::format("{}: {}", source, shown));
}

}  // namespace mgsim::profile
