#pragma once
// Linear-time JSON parsing for input files, on nlohmann's SAX interface. The
// document is built as nlohmann's own parser builds it, with two differences:
// a key given twice in one object is refused (the object being built already
// holds the keys seen, so the check is one lookup), and the elements of one
// big array can be handed out one by one as they complete instead of kept,
// so a trace of 100k layers is never held whole as a JSON tree.

#include <cstddef>
#include <functional>
#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mgsim {

/// Malformed JSON: a syntax error, a number out of range, a duplicate key or
/// a NUL byte. what() is nlohmann's message, "key \"K\" given twice in one
/// object" or "a NUL byte (0x00) at byte N: ..."; at() is the key path the
/// parser was in ("network.alpha_us", "gpus[2]"; empty at the top level).
class JsonSyntaxError : public std::runtime_error {
 public:
  explicit JsonSyntaxError(const std::string& message, std::string at = {})
      : std::runtime_error(message), at_(std::move(at)) {}
  const std::string& at() const { return at_; }
  /// "SOURCE: PATH: malformed JSON: WHAT", without PATH at the top level;
  /// "SOURCE: malformed JSON: the input ends inside PATH (cut short?): WHAT"
  /// where the input ends before the document does ("ends before the
  /// document does" at the top level).
  std::string located(std::string_view source) const;

 private:
  std::string at_;
};

/// The elements to hand out instead of keeping: those of the array at
/// top-level key `key`, or of the top-level value itself when it is an array
/// and `key` is empty. In the document that array stays, empty.
struct StreamedArray {
  std::string_view key;
  std::function<void(const nlohmann::json& element, std::size_t index)> take;
};

/// Parses the whole of `in`; throws JsonSyntaxError, or what `streamed.take` throws.
nlohmann::json parse_json(std::istream& in, const StreamedArray* streamed = nullptr);

}  // namespace mgsim
