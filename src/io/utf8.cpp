#include "mgsim/io/utf8.hpp"

#include <cstdint>

#include <fmt/format.h>

#include "mgsim/display_text.hpp"

namespace mgsim {
namespace {

/// Length of the well-formed UTF-8 sequence at the start of `text`, or 0
/// (the ranges of the Unicode standard, table 3-7).
std::size_t sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

std::optional<std::size_t> find_invalid_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = sequence_length(text.substr(at));
    if (length == 0) return at;
    at += length;
  }
  return std::nullopt;
}

std::string describe_byte(std::string_view text, std::size_t offset) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format("line {}, byte {}: 0x{:02x}", line, offset - line_start + 1, static_cast<unsigned char>(text[offset]));
}

namespace {

/// Whether `c` shows as blank space (Unicode's White_Space and the zero-width spaces).
constexpr bool blank(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200B) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

/// Whether every well-formed character of `text` is one `test` accepts (an invalid byte is none).
template <typename Test>
bool all_characters(std::string_view text, Test test) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = sequence_length(text.substr(at));
    if (length == 0 || !test(decode_utf8(text.substr(at, length)))) return false;
    at += length;
  }
  return true;
}

}  // namespace

bool is_blank(std::string_view text) { return all_characters(text, blank); }

bool hides_any(std::string_view text) {
  return !all_characters(text, [](char32_t c) { return !hides_text(c); });
}

std::string hidden_characters_refusal(std::string_view what, std::string_view text) {
  if (!hides_any(text)) return "";
  return fmt::format("expected {} without control characters (a newline, a tab, a bidirectional control), got '{}'",
                     what, printable(text));
}

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    if (out.size() >= max_bytes) return out + "...";
    const std::size_t length = sequence_length(text.substr(at));
    const auto lead = static_cast<unsigned char>(text[at]);
    if (length == 0 || lead < 0x20 || lead == 0x7F) {
      out += fmt::format("\\x{:02x}", lead);
      ++at;
      continue;
    }
    const char32_t code_point = decode_utf8(text.substr(at, length));
    if (hides_text(code_point)) {  // a C1 control, separator, bidi control
      out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(code_point));
    } else {
      out += text.substr(at, length);
    }
    at += length;
  }
  return out;
}

std::string ascii_lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

}  // namespace mgsim
