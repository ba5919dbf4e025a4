#include "mgsim/io/json_document.hpp"

#include <array>
#include <optional>
#include <cstring>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mgsim/io/utf8.hpp"
#include "mgsim/limits.hpp"

namespace mgsim {
namespace {

using nlohmann::json;

/// nlohmann's message without its exception id ("[json.exception.parse_error.101] ",
/// the library's, not the user's: red team) and with the token it last read
/// cut to its first and last 24 bytes, on character boundaries: the cause
/// comes before it, and a 100 kB string would push the cause out of a
/// shortened line (red team).
std::string short_token(std::string message) {
  if (message.starts_with("[json.exception.")) {
    const std::size_t id_end = message.find("] ");
    if (id_end != std::string::npos) message.erase(0, id_end + 2);
  }
  constexpr std::string_view kLastRead = "; last read: '";
  constexpr std::size_t kEnds = 24;
  const std::size_t at = message.find(kLastRead);
  if (at == std::string::npos) return message;
  const std::size_t start = at + kLastRead.size();
  std::size_t end = message.rfind("'; expected ");  // the token, then what the parser expected, if it says
  if (end == std::string::npos || end < start) end = message.size() - 1;  // the closing quote
  if (end < start || end - start <= 2 * kEnds + 3) return message;
  const auto continuation = [&](std::size_t i) { return (static_cast<unsigned char>(message[i]) & 0xC0) == 0x80; };
  std::size_t head = start + kEnds, tail = end - kEnds;
  while (head > start && continuation(head)) --head;
  while (tail < end && continuation(tail)) ++tail;
  return message.substr(0, head) + "..." + message.substr(tail);
}

/// nlohmann's SAX events -> a document. Open containers sit on a stack of
/// pointers; they stay valid because a container only grows while it is the
/// innermost open one (map nodes never move, an array's last element is the
/// only one open).
class DocumentBuilder {
 public:
  explicit DocumentBuilder(const StreamedArray* streamed) : streamed_(streamed) {}

  bool null() { return scalar(nullptr); }
  bool boolean(bool value) { return scalar(value); }
  bool number_integer(json::number_integer_t value) { return scalar(value); }
  bool number_unsigned(json::number_unsigned_t value) { return scalar(value); }
  bool number_float(json::number_float_t value, const json::string_t&) { return scalar(value); }
  bool string(json::string_t& value) { return scalar(std::move(value)); }
  bool binary(json::binary_t& value) { return scalar(json::binary(std::move(value))); }

  bool start_object(std::size_t) {
    check_depth();
    open_.push_back(place(json::object()));
    keys_.emplace_back(std::nullopt);
    return true;
  }
  bool start_array(std::size_t) {
    check_depth();
    const bool streamed = streamed_ != nullptr &&
                          (streamed_->key.empty() ? open_.empty() : open_.size() == 1 && top_key_ == streamed_->key);
    open_.push_back(place(json::array()));
    keys_.emplace_back(std::nullopt);
    if (streamed) {
      stream_ = open_.back();
      held_before_stream_ = held_;
    }
    return true;
  }
  bool key(json::string_t& name) {
    json& object = *open_.back();
    keys_.back() = name;
    if (object.contains(name)) {  // printable: a NUL in the key cut the message (red team)
      throw JsonSyntaxError(fmt::format("key \"{}\" given twice in one object", printable(name)), path());
    }
    if (open_.size() == 1) top_key_ = name;
    slot_ = &object[name];
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
    throw JsonSyntaxError(short_token(error.what()), path());
  }

  json take_document() { return std::move(root_); }

 private:
  /// Red team: a provenance nested 300,000 deep crashed where a value was copied (a copy recurses).
  void check_depth() const {
    if (open_.size() >= kMaxJsonDepth) {
      throw JsonSyntaxError(fmt::format("arrays and objects nested deeper than {} (docs/limits.md)", kMaxJsonDepth),
                            path());
    }
  }

  /// Where the parser is, as JsonWhere writes it: the key whose value is
  /// being read at each open object (up to one that waits for its next key),
  /// the index of the element being read at each open array (red team: 1e400
  /// in a config was refused without its key); "..." past kShownLevels.
  std::string path() const {
    constexpr std::size_t kShownLevels = 8;
    std::string at;
    for (std::size_t level = 0; level < open_.size(); ++level) {
      if (level == kShownLevels) return at + "...";
      const json& container = *open_[level];
      if (container.is_object()) {
        if (!keys_[level]) break;  // between keys: the object itself ("" is a key: red team)
        if (level > 0) at += '.';  // not "at.empty()": a key "" before it writes nothing
        at += level == 0 && keys_[level]->empty() ? "\"\"" : printable(*keys_[level]);  // not the top (JsonWhere::key)
        continue;
      }
      const bool innermost = level + 1 == open_.size();
      const std::size_t index = open_[level] == stream_ ? handed_out_
                                : innermost            ? container.size()
                                                       : container.size() - 1;
      at += fmt::format("[{}]", index);
    }
    return at;
  }

  /// Puts a new value where the parser is: the root, the end of the open
  /// array, or the slot of the last key of the open object.
  json* place(json&& value) {
    if (++held_ > kMaxJsonValues) {
      throw JsonSyntaxError(fmt::format("more than {} values in one document (docs/limits.md)", kMaxJsonValues), path());
    }
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *open_.back();
    if (!parent.is_array()) return &(*slot_ = std::move(value));
    parent.push_back(std::move(value));
    return &parent.back();
  }

  bool scalar(json&& value) {
    place(std::move(value));
    element_done();
    return true;
  }

  bool close() {
    if (open_.back() == stream_) stream_ = nullptr;  // the streamed array stays, empty
    open_.pop_back();
    keys_.pop_back();
    element_done();
    return true;
  }

  /// A value just completed; hands it out when it is an element of the streamed array.
  void element_done() {
    if (!keys_.empty()) keys_.back().reset();  // an object's value read: the object waits for a key
    if (stream_ == nullptr || open_.back() != stream_) return;
    streamed_->take(stream_->back(), handed_out_++);
    stream_->clear();
    held_ = held_before_stream_;
  }

  const StreamedArray* streamed_;
  json root_;
  std::vector<json*> open_;
  /// Of each open object, the key whose value is being read (none between keys).
  std::vector<std::optional<std::string>> keys_;
  json* slot_ = nullptr;
  std::string top_key_;      ///< the last key of the top-level object
  json* stream_ = nullptr;   ///< the streamed array while it is open
  std::size_t handed_out_ = 0;
  std::size_t held_ = 0;                ///< values in the document now (kMaxJsonValues)
  std::size_t held_before_stream_ = 0;  ///< ... when the streamed array opened
};

/// `source`'s bytes, refusing a NUL byte: JSON allows none (a string
/// escapes one as \u0000), and nlohmann's lexer takes one for the end of the
/// input, so without this a NUL would end a document early and whatever
/// followed it would pass unread.
class NulGuard : public std::streambuf {
 public:
  explicit NulGuard(std::streambuf* source) : source_(source) {}

 protected:
  int_type underflow() override {
    const std::streamsize got = source_->sgetn(buffer_.data(), std::ssize(buffer_));
    if (got <= 0) return traits_type::eof();
    const auto size = static_cast<std::size_t>(got);
    if (const void* nul = std::memchr(buffer_.data(), 0, size)) {
      const auto at = read_ + static_cast<std::size_t>(static_cast<const char*>(nul) - buffer_.data()) + 1;
      throw JsonSyntaxError(fmt::format("a NUL byte (0x00) at byte {}: JSON allows none (a string writes it \\u0000)", at));
    }
    read_ += size;
    setg(buffer_.data(), buffer_.data(), buffer_.data() + size);
    return traits_type::to_int_type(buffer_[0]);
  }

 private:
  std::streambuf* source_;
  std::size_t read_ = 0;  ///< bytes handed out so far
  std::array<char, 1 << 16> buffer_{};
};

}  // namespace

std::string JsonSyntaxError::located(std::string_view source) const {
  const std::string_view message = what();  // nlohmann's words for input that stops inside a token, or between
  if (message.find("unexpected end of input") != std::string_view::npos ||
      message.find("missing closing quote") != std::string_view::npos) {  // red team: read as
    return fmt::format("{}: malformed JSON: the input ends {}: {}", source,  // the key's fault
                       at_.empty() ? "before the document does (empty or cut short?)"
                                   : fmt::format("inside {} (cut short?)", at_), what());
  }
  return at_.empty() ? fmt::format("{}: malformed JSON: {}", source, what())
                     : fmt::format("{}: {}: malformed JSON: {}", source, at_, what());
}

nlohmann::json parse_json(std::istream& in, const StreamedArray* streamed) {
  NulGuard guard(in.rdbuf());
  std::istream guarded(&guard);
  DocumentBuilder builder(streamed);
  json::sax_parse(guarded, &builder);
  return builder.take_document();
}

}  // namespace mgsim
