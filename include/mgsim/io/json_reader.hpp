#pragma once
// Strict reading of JSON input files. A JsonReader walks one object, knows the
// file and the key path it is at, hands out typed values with range checks,
// and rejects keys nobody asked for. Every failure throws the error type of
// the file kind (trace, curve, config) with a one-line message:
//   "<file>: <key path>: expected <what>, got <value>".

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/json_document.hpp"
#include "mgsim/limits.hpp"

namespace mgsim {

/// Reads (read_input_file: the size limit, a regular file or "-") and parses
/// a whole JSON file, refusing keys given twice; throws on unreadable or
/// malformed input. `streamed`: see parse_json.
nlohmann::json parse_json_file(const std::filesystem::path& file, InputKind kind,
                               const StreamedArray* streamed = nullptr);

/// Parses `text`, the content of `source`, as parse_json_file does.
nlohmann::json parse_json_text(std::string text, const std::string& source, InputKind kind,
                               const StreamedArray* streamed = nullptr);

/// A position in an input file: its name and the key path inside it.
struct JsonWhere {
  std::string file;
  std::string path;  ///< e.g. "layers[3].backward_time_s"; empty at the top
  InputKind kind;

  JsonWhere key(std::string_view name) const;
  JsonWhere index(std::size_t i) const;
  /// "file: path" ("file: (top level)" at the top): how a message names it.
  std::string named() const;
  [[noreturn]] void fail(std::string_view message) const;
  [[noreturn]] void expected(std::string_view what, const nlohmann::json& got) const;
  /// Runs `check` and returns what it returns; a ConfigError it throws (a
  /// lookup by name, a check of parameters) is reported here instead.
  template <class Check>
  decltype(auto) reporting(Check&& check) const {
    try {
      return check();
    } catch (const ConfigError& error) {
      fail(error.what());
    }
  }
  /// Runs `read`, which reads the input file of kind `file_kind` named at
  /// this key, and returns what it returns; the file's own errors are
  /// reported after this key, as errors of that kind.
  template <class Read>
  decltype(auto) reading_file(InputKind file_kind, Read&& read) const {
    try {
      return read();
    } catch (const Error& error) {
      JsonWhere{file, path, file_kind}.fail(error.what());
    }
  }
};

class JsonReader {
 public:
  /// Fails unless `value` is an object.
  JsonReader(const nlohmann::json& value, JsonWhere where);

  /// Whether an optional key is present (asking makes the key known).
  bool has(std::string_view key);
  /// The raw value of a key (marking it known); fails when it is missing.
  const nlohmann::json& required(std::string_view key);

  /// A non-empty string of at most `max_bytes` (kMaxNameBytes: a name).
  std::string text(std::string_view key, std::size_t max_bytes = kMaxNameBytes);
  /// Text that is not all blanks, of at most `max_bytes` (a description, a source; a name that may hold spaces).
  std::string prose(std::string_view key, std::size_t max_bytes = kMaxProseBytes);
  /// A finite number above `min` (or equal, when `min_inclusive`) and at most `max`.
  double number(std::string_view key, double min, bool min_inclusive,
                double max = std::numeric_limits<double>::infinity());
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);
  /// An optional key that holds one of two words: false for `first` (the
  /// default, when the key is absent), true for `second`.
  bool one_of_two(std::string_view key, std::string_view first, std::string_view second);
  JsonReader object(std::string_view key);
  /// The elements of an array key; fails when it is empty and `allow_empty` is false.
  std::vector<std::pair<const nlohmann::json*, JsonWhere>> array(std::string_view key, bool allow_empty = false);

  /// Fails on the first key that no call above asked for.
  void reject_unknown() const;
  const JsonWhere& where() const { return where_; }

 private:
  const nlohmann::json& value_;
  JsonWhere where_;
  std::set<std::string, std::less<>> known_;
};

/// Typed reads of a value that is not an object member (array elements).
double read_number(const nlohmann::json& value, const JsonWhere& where, double min, bool min_inclusive,
                   double max = std::numeric_limits<double>::infinity());
std::int64_t read_integer(const nlohmann::json& value, const JsonWhere& where, std::int64_t min, std::int64_t max);
/// `value` as an integer when it is a whole number in [min, max] (4, or 4.0
/// below 2^53, where a double is exact), else none.
std::optional<std::int64_t> whole_number(const nlohmann::json& value, std::int64_t min, std::int64_t max);
/// A non-empty string without NUL, of at most `max_bytes`.
std::string read_text(const nlohmann::json& value, const JsonWhere& where, std::size_t max_bytes = kMaxNameBytes);
/// The input file a config names at `where`, relative to `folder` (the
/// config's): "-" is standard input wherever the config lies, and only where
/// `standard_input` allows it (a trace, read once).
std::filesystem::path read_file_name(const nlohmann::json& value, const JsonWhere& where,
                                     const std::filesystem::path& folder, bool standard_input);

}  // namespace mgsim
