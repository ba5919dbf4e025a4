#pragma once
// Characters that change what a terminal or a line-based tool shows instead
// of showing themselves. Labels (ScheduleSpec::label) and messages
// (printable, mgsim/io/utf8.hpp) escape them.

#include <cstddef>
#include <string_view>

namespace mgsim {

/// The bytes of the UTF-8 sequence that `lead` starts (1 to 4).
constexpr std::size_t utf8_length(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

/// The code point of the well-formed UTF-8 sequence `sequence` (utf8_length bytes).
constexpr char32_t decode_utf8(std::string_view sequence) {
  const auto lead = static_cast<unsigned char>(sequence.front());
  const std::size_t length = utf8_length(lead);
  char32_t code_point = length == 1 ? lead : lead & (0x7Fu >> length);
  for (std::size_t i = 1; i < length && i < sequence.size(); ++i) {
    code_point = (code_point << 6) | (static_cast<unsigned char>(sequence[i]) & 0x3Fu);
  }
  return code_point;
}

/// Whether `code_point` is a C0 or C1 control, DEL, a line or paragraph
/// separator (U+2028, U+2029) or a bidirectional control (U+200E, U+200F,
/// U+202A..U+202E, U+2066..U+2069): a line break to some tools, a terminal
/// escape, or text shown reversed (red team).
constexpr bool hides_text(char32_t code_point) {
  return code_point < 0x20 || (code_point >= 0x7F && code_point <= 0x9F) || code_point == 0x2028 ||
         code_point == 0x2029 || code_point == 0x200E || code_point == 0x200F ||
         (code_point >= 0x202A && code_point <= 0x202E) || (code_point >= 0x2066 && code_point <= 0x2069);
}

}  // namespace mgsim
