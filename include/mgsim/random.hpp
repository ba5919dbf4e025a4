#pragma once
// The one random source of a simulation: xoshiro256++ (Blackman and Vigna,
// "Scrambled linear pseudorandom number generators", 2021), its 256-bit
// state filled from the user's seed by four outputs of SplitMix64, as its
// authors recommend. Both are a few integer operations fixed here, so the
// integers and uniform() are bit-identical on every platform; laws built on
// std::log and friends are as reproducible as the C library's functions.
// Builders receive it by reference; nothing else draws numbers.

#include <array>
#include <bit>
#include <cstdint>

namespace mgsim {

/// One step of SplitMix64 (Steele, Lea and Flood, 2014): advances `state`
/// by the golden gamma and returns its mix.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15U);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9U;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebU;
  return z ^ (z >> 31);
}

class Random {
 public:
  explicit Random(std::uint64_t seed) {
    for (std::uint64_t& word : state_) word = splitmix64(seed);
  }
  /// A generator in the given state (not all zero): the reference vectors' way in.
  static Random from_state(const std::array<std::uint64_t, 4>& state) {
    Random random(0);
    random.state_ = state;
    return random;
  }
  std::uint64_t next() {
    auto& s = state_;
    const std::uint64_t result = std::rotl(s[0] + s[3], 23) + s[0];
    const std::uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = std::rotl(s[3], 45);
    return result;
  }
  /// Uniform in [0, 1), the 53 high bits of next().
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::array<std::uint64_t, 4> state_{};
};

}  // namespace mgsim
