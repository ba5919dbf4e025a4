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
#include <string_view>

#include <nlohmann/json.hpp>

namespace mgsim {

/// Malformed JSON: a syntax error, a number out of range, a duplicate key or
/// a NUL byte. what() is nlohmann's message, "key \"K\" given twice in one
/// object" or "a NUL byte (0x00) at byte N: ...".
class JsonSyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
