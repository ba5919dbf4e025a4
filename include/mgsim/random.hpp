#pragma once
// The one random source of a simulation: the 64-bit Mersenne Twister
// (std::mt19937_64, whose output sequence the C++ standard fixes), seeded by
// the user. Integers and uniform() are bit-identical on every platform; laws
// built on std::log and friends are as reproducible as the C library's
// functions. Builders receive it by reference; nothing else draws numbers.

#include <cstdint>
#include <random>

namespace mgsim {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t next() { return engine_(); }
  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace mgsim
