// UTF-8 validation where text enters, and safe rendering of text in messages.

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "mgsim/io/report.hpp"
#include "mgsim/io/utf8.hpp"

namespace {

/// An independent decoder (code points, then re-encoding): a sequence is
/// well-formed exactly when decoding it as the shortest form of a scalar
/// value and encoding that value back gives the same bytes.
std::string encode(std::uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

}  // namespace

TEST_CASE("every scalar value's encoding is valid UTF-8, and so is ASCII", "[utf8]") {
  for (std::uint32_t cp = 0; cp <= 0x10FFFF; cp += cp < 0x1000 ? 1 : 97) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;  // surrogates are not scalar values
    INFO("U+" << std::hex << cp);
    CHECK_FALSE(mgsim::find_invalid_utf8(encode(cp)));
  }
  CHECK_FALSE(mgsim::find_invalid_utf8(encode(0x10FFFF)));
}

TEST_CASE("every two-byte string is valid exactly when it encodes one or two scalar values", "[utf8]") {
  // Exhaustive over 65,536 strings: valid iff both bytes are ASCII, or it is
  // a two-byte sequence C2..DF followed by 80..BF (table 3-7 of the Unicode
  // standard; C0 and C1 would be overlong).
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string text{static_cast<char>(a), static_cast<char>(b)};
      const bool valid = (a < 0x80 && b < 0x80) || (a >= 0xC2 && a <= 0xDF && b >= 0x80 && b <= 0xBF);
      INFO(a << " " << b);
      CHECK(!mgsim::find_invalid_utf8(text) == valid);
    }
  }
}

TEST_CASE("overlong forms, surrogates, code points past U+10FFFF and cut sequences are refused at their first byte",
          "[utf8]") {
  CHECK(mgsim::find_invalid_utf8("ab\xC0\xAF") == std::optional<std::size_t>(2));      // overlong '/'
  CHECK(mgsim::find_invalid_utf8("\xE0\x80\xAF") == std::optional<std::size_t>(0));    // overlong, 3 bytes
  CHECK(mgsim::find_invalid_utf8("x\xED\xA0\x80") == std::optional<std::size_t>(1));   // U+D800
  CHECK(mgsim::find_invalid_utf8("\xF4\x90\x80\x80") == std::optional<std::size_t>(0));  // U+110000
  CHECK(mgsim::find_invalid_utf8("\xE2\x82") == std::optional<std::size_t>(0));        // cut euro sign
  CHECK(mgsim::find_invalid_utf8("r\xff") == std::optional<std::size_t>(1));
}

TEST_CASE("describe_byte counts lines and bytes from 1", "[utf8]") {
  // "ab\ncd\xe9": the bad byte is the third of line 2.
  CHECK(mgsim::describe_byte("ab\ncd\xe9", 5) == "line 2, byte 3: 0xe9");
}

TEST_CASE("printable escapes invalid bytes and control characters and cuts long text", "[utf8]") {
  CHECK(mgsim::printable("r\xff") == "r\\xff");
  CHECK(mgsim::printable("a\nb") == "a\\x0ab");
  CHECK(mgsim::printable("caf\xC3\xA9") == "caf\xC3\xA9");  // valid UTF-8 stays
  // A C1 control (U+009B, a terminal escape), a line separator (U+2028) and a right-to-left override (U+202E)
  // are escaped too (red team: printed raw, a line break to some tools, text shown reversed).
  CHECK(mgsim::printable("a\xC2\x9B" "b\xE2\x80\xA8" "c\xE2\x80\xAE" "d") == "a\\u009bb\\u2028c\\u202ed");
  CHECK(mgsim::printable(std::string(500, 'x'), 10) == std::string(10, 'x') + "...");
}

TEST_CASE("a CSV field stays on one line: names escaped, then quoted", "[utf8][csv]") {
  CHECK(mgsim::csv_field("10GbE") == "10GbE");
  CHECK(mgsim::csv_field("a,b") == "\"a,b\"");
  CHECK(mgsim::csv_field("say \"x\"") == "\"say \"\"x\"\"\"");
  // A newline once made a quoted field over two lines, which `sweep --resume` could not read back (red team).
  CHECK(mgsim::csv_field("10GbE\nrack A") == "10GbE\\x0arack A");
  // A backslash is doubled, so a name written with the escape itself reads apart from the character.
  CHECK(mgsim::csv_field("10GbE\\x0arack A") == "10GbE\\\\x0arack A");
  CHECK(mgsim::csv_field("C:\\t") == "C:\\\\t");
  CHECK(mgsim::csv_field("a\xE2\x80\xAE,b") == "\"a\\u202e,b\"");
}
