#pragma once
// "1 GPU", "2 GPUs": a count and its noun, singular for exactly one. Every
// message that prints a count that may be 1 goes through counted().

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace mgsim {

/// `n` and `noun` for n == 1, else `n` and `plural`: counted(2, "entry", "entries").
inline std::string counted(std::int64_t n, std::string_view noun, std::string_view plural) {
  return fmt::format("{} {}", n, n == 1 ? noun : plural);
}

/// `n` and `noun`, with an "s" unless n is 1: counted(1, "GPU") == "1 GPU".
inline std::string counted(std::int64_t n, std::string_view noun) {
  return n == 1 ? counted(n, noun, noun) : fmt::format("{} {}s", n, noun);
}

}  // namespace mgsim
