#include "mgsim/io/json_reader.hpp"

#include <cmath>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "mgsim/counted.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/registry_lookup.hpp"

namespace mgsim {
namespace {

/// A short, single-line rendering of a JSON value for error messages. Arrays
/// and objects are summarised, not dumped: a dump recurses as deep as the
/// value nests.
std::string show(const nlohmann::json& value) {
  if (value.is_array()) return "an array of " + counted(static_cast<std::int64_t>(value.size()), "element");
  if (value.is_object()) return "an object of " + counted(static_cast<std::int64_t>(value.size()), "key");
  return printable(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 40);
}

// The checks of the typed reads, apart from their messages: the hot path
// asks them first and builds a value's location only when one fails.
bool is_number_from(const nlohmann::json& value, double min, bool min_inclusive, double max) {
  return value.is_number() && std::isfinite(value.get<double>()) &&
         (min_inclusive ? value.get<double>() >= min : value.get<double>() > min) && value.get<double>() <= max;
}

bool is_integer_in(const nlohmann::json& value, std::int64_t min, std::int64_t max) {
  // Compared as integers: as doubles 2^53 + 1 passes for 2^53.
  if (value.is_number_unsigned()) {
    const std::uint64_t n = value.get<std::uint64_t>();
    return max >= 0 && n <= static_cast<std::uint64_t>(max) && (min <= 0 || n >= static_cast<std::uint64_t>(min));
  }
  if (value.is_number_float()) {  // 4.0 is 4, as a schedule's whole parameters read it; exact below 2^53 alone
    const double x = value.get<double>();
    constexpr double kExact = 9007199254740992.0;
    return std::isfinite(x) && x == std::floor(x) && std::fabs(x) <= kExact && x >= static_cast<double>(min) &&
           x <= static_cast<double>(max);
  }
  if (!value.is_number_integer()) return false;
  const std::int64_t n = value.get<std::int64_t>();
  return n >= min && n <= max;
}

/// A value is_integer_in passed, as an integer.
std::int64_t integer_of(const nlohmann::json& value) {
  return value.is_number_float() ? static_cast<std::int64_t>(value.get<double>()) : value.get<std::int64_t>();
}

bool is_text(const nlohmann::json& value) {
  if (!value.is_string()) return false;
  const std::string& text = value.get_ref<const std::string&>();
  return !text.empty() && text.find('\0') == std::string::npos;
}

}  // namespace

nlohmann::json parse_json_file(const std::filesystem::path& file, InputKind kind, const StreamedArray* streamed) {
  return parse_json_text(read_input_file(file, kind), file.string(), kind, streamed);
}

nlohmann::json parse_json_text(std::string text, const std::string& source, InputKind kind,
                               const StreamedArray* streamed) {
  std::istringstream in(std::move(text));
  try {
    return parse_json(in, streamed);
  } catch (const JsonSyntaxError& error) {  // syntax errors, numbers out of range, keys given twice
    throw_input_error(kind, error.located(source));
  }
}

JsonWhere JsonWhere::key(std::string_view name) const {
  const std::string shown = printable(name);  // a NUL or a line break in a key would cut the message (red team)
  if (path.empty()) return {file, shown.empty() ? "\"\"" : shown, kind};  // a top-level "" is not the top (red team)
  return {file, fmt::format("{}.{}", path, shown), kind};
}

JsonWhere JsonWhere::index(std::size_t i) const { return {file, fmt::format("{}[{}]", path, i), kind}; }

std::string JsonWhere::named() const { return fmt::format("{}: {}", file, path.empty() ? "(top level)" : path); }

void JsonWhere::fail(std::string_view message) const { throw_input_error(kind, fmt::format("{}: {}", named(), message)); }

void JsonWhere::expected(std::string_view what, const nlohmann::json& got) const {
  fail(fmt::format("expected {}, got {}", what, show(got)));
}

JsonReader::JsonReader(const nlohmann::json& value, JsonWhere where) : value_(value), where_(std::move(where)) {
  if (!value_.is_object()) where_.expected("an object", value_);
}

bool JsonReader::has(std::string_view key) {
  known_.emplace(key);
  return value_.contains(key);
}

const nlohmann::json& JsonReader::required(std::string_view key) {
  known_.emplace(key);
  const auto found = value_.find(key);
  if (found == value_.end()) {
    for (const auto& [given, value] : value_.items()) {  // a misspelt key is the likely cause
      if (near_name(given, key) && !known_.contains(given)) {  // a key read here is no misspelling of another
        where_.key(key).fail(fmt::format("missing; did you mean it by '{}'?", given));
      }
    }
    where_.key(key).fail("missing");
  }
  return *found;
}

std::string JsonReader::text(std::string_view key, std::size_t max_bytes) {
  const nlohmann::json& value = required(key);
  return read_text(value, where_.key(key), max_bytes);
}

std::string JsonReader::prose(std::string_view key, std::size_t max_bytes) {
  std::string value = text(key, max_bytes);
  if (is_blank(value)) where_.key(key).fail("expected text, got blanks");
  return value;
}

double JsonReader::number(std::string_view key, double min, bool min_inclusive, double max) {
  const nlohmann::json& value = required(key);
  return is_number_from(value, min, min_inclusive, max) ? value.get<double>()
                                                        : read_number(value, where_.key(key), min, min_inclusive, max);
}

bool JsonReader::one_of_two(std::string_view key, std::string_view first, std::string_view second) {
  if (!has(key)) return false;
  const nlohmann::json& value = required(key);
  if (value == second) return true;
  if (value != first) where().key(key).expected(fmt::format("\"{}\" or \"{}\"", first, second), value);
  return false;
}

std::int64_t JsonReader::integer(std::string_view key, std::int64_t min, std::int64_t max) {
  const nlohmann::json& value = required(key);
  return is_integer_in(value, min, max) ? integer_of(value) : read_integer(value, where_.key(key), min, max);
}

JsonReader JsonReader::object(std::string_view key) { return JsonReader(required(key), where_.key(key)); }

std::vector<std::pair<const nlohmann::json*, JsonWhere>> JsonReader::array(std::string_view key, bool allow_empty) {
  const nlohmann::json& value = required(key);
  const JsonWhere at = where_.key(key);
  if (!value.is_array() || (!allow_empty && value.empty())) {
    at.expected(allow_empty ? "an array" : "a non-empty array", value);
  }
  std::vector<std::pair<const nlohmann::json*, JsonWhere>> items;
  for (std::size_t i = 0; i < value.size(); ++i) items.emplace_back(&value[i], at.index(i));
  return items;
}

void JsonReader::reject_unknown() const {
  for (const auto& [key, value] : value_.items()) {
    if (known_.contains(key)) continue;
    std::string valid, nearest;
    for (const std::string& name : known_) {
      valid += fmt::format("{}{}", valid.empty() ? "" : ", ", name);
      if (nearest.empty() && near_name(key, name)) nearest = name;
    }
    const std::string hint = nearest.empty() ? "" : fmt::format("; did you mean '{}'?", nearest);
    where_.key(key).fail(fmt::format("unknown key{} (known here: {})", hint, valid));
  }
}

double read_number(const nlohmann::json& value, const JsonWhere& where, double min, bool min_inclusive, double max) {
  if (!is_number_from(value, min, min_inclusive, max)) {
    const std::string upper = std::isfinite(max) ? fmt::format(" and <= {}", max) : "";
    where.expected(fmt::format("a finite number {} {}{}", min_inclusive ? ">=" : ">", min, upper), value);
  }
  return value.get<double>();
}

std::optional<std::int64_t> whole_number(const nlohmann::json& value, std::int64_t min, std::int64_t max) {
  return is_integer_in(value, min, max) ? std::optional(integer_of(value)) : std::nullopt;
}

std::int64_t read_integer(const nlohmann::json& value, const JsonWhere& where, std::int64_t min, std::int64_t max) {
  if (!is_integer_in(value, min, max)) where.expected(fmt::format("an integer in [{}, {}]", min, max), value);
  return integer_of(value);
}

std::string read_text(const nlohmann::json& value, const JsonWhere& where, std::size_t max_bytes) {
  if (value.is_string() && value.get_ref<const std::string&>().find('\0') != std::string::npos) {
    where.fail("expected text without NUL characters (\\u0000)");
  }
  if (!is_text(value)) where.expected("a non-empty string", value);
  if (const std::size_t size = value.get_ref<const std::string&>().size(); size > max_bytes) {
    where.fail(fmt::format("expected text of at most {} bytes, got {}", max_bytes, size));
  }
  return value.get<std::string>();
}

std::filesystem::path read_file_name(const nlohmann::json& value, const JsonWhere& where,
                                     const std::filesystem::path& folder, bool standard_input) {
  const std::string name = read_text(value, where);
  if (name != "-") return folder / name;
  if (!standard_input) where.fail("expected a file name, got \"-\": standard input is for a trace alone");
  return name;
}

}  // namespace mgsim
