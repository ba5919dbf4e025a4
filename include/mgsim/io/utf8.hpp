#pragma once
// Text that enters mgsim (files, flags, file names) must be UTF-8: the JSON
// writer cannot encode anything else. These helpers find the first byte that
// is not well-formed UTF-8 and render any text safely inside a one-line
// error message.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mgsim {

/// Offset of the first byte that is not part of a well-formed UTF-8 sequence
/// (overlong forms, surrogates and code points past U+10FFFF included).
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

/// Where `offset` lies in `text`, for a message: "line 3, byte 17: 0xff".
std::string describe_byte(std::string_view text, std::size_t offset);

/// `text` made safe for a one-line message: invalid UTF-8 and control
/// characters become \xNN, the other characters hides_text names \uXXXX
/// (mgsim/display_text.hpp), and text past `max_bytes` becomes "...".
std::string printable(std::string_view text, std::size_t max_bytes = 200);

/// Whether `text` holds nothing but blank space (or nothing): spaces, tabs
/// and line ends, and Unicode's (no-break, em and ideographic spaces, zero
/// width ones, NEL, line and paragraph separators).
bool is_blank(std::string_view text);

/// Whether `text` holds a character that hides_text names (a control, a
/// line separator, a bidirectional control: mgsim/display_text.hpp).
bool hides_any(std::string_view text);

/// Why `text`, given as `what` ("a name"), is refused for a character that
/// hides_any finds; empty when it holds none: a name printed on a line of its
/// own must not break or reverse it (red team: a newline printed a fake
/// "mgsim: error:" line).
std::string hidden_characters_refusal(std::string_view what, std::string_view text);

/// `text` with A-Z lowered to a-z (other bytes as they are), to compare names
/// whatever their case.
std::string ascii_lower(std::string_view text);

}  // namespace mgsim
