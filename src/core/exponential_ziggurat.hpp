#pragma once
// Standard exponential variates, Exp(1), by the ziggurat method (Marsaglia
// and Tsang, "The Ziggurat Method for Generating Random Variables", J. Stat.
// Softw. 5(8), 2000) with 256 strips in double precision, as in Rust's
// rand_distr. The area under e^-x (and its tail beyond r) is cut into 256
// pieces of equal area v: the base, a rectangle [0, r] x [0, e^-r] plus the
// tail, and 255 horizontal strips [0, x_i] x [e^-x_i, e^-x_(i+1)]. One
// 64-bit output picks a piece (its low 8 bits) and a point across it (its
// high 53); the point lies under the curve outright in about 97.8% of draws
// (one output, no logarithm). Otherwise the base falls to the tail
// (r + Exp(1) by inversion) and a strip to its wedge (a uniform height
// against e^-x, else a new point), both exact: the result is Exp(1) up to
// the pieces' areas, equal to 2e-11 relative (tests/test_random.cpp).
//
// The table is built by the compiler (constexpr) with + - * / only, from
// Taylor and atanh series (fdlibm's argument reductions): the same bits on
// every platform, no C library involved. The wedge and tail (about 2.2% of
// draws) use std::exp and std::log, as reproducible as the C library.

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "mgsim/random.hpp"

namespace mgsim {
namespace ziggurat {

// ln 2 in two parts (fdlibm's): n ln2_hi is exact for |n| < 2^11.
inline constexpr double kLn2Hi = 6.93147180369123816490e-01;
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;

/// e^x for |x| <= 20: x = n ln 2 + r, |r| <= ln 2 / 2, e^r by its Taylor
/// series (terms below 2^-53 after 17), times 2^n exactly: a few ulps.
constexpr double exp_of(double x) {
  const int n = static_cast<int>(x / std::numbers::ln2 + (x < 0 ? -0.5 : 0.5));
  const double r = (x - n * kLn2Hi) - n * kLn2Lo;
  double term = 1.0;
  double sum = 1.0;
  for (int k = 1; k <= 20; ++k) {
    term *= r / k;
    sum += term;
  }
  for (int i = 0; i < n; ++i) sum *= 2;
  for (int i = 0; i > n; --i) sum /= 2;
  return sum;
}

/// ln y for y > 0: y = m 2^e with m in [1/sqrt 2, sqrt 2), ln m = 2 atanh(s),
/// s = (m - 1) / (m + 1), |s| < 0.172, by its series (|s|^41 < 1e-31).
constexpr double log_of(double y) {
  int e = 0;
  for (; y >= std::numbers::sqrt2; y /= 2) ++e;
  for (; y < std::numbers::sqrt2 / 2; y *= 2) --e;
  const double s = (y - 1) / (y + 1);
  double power = s;
  double sum = 0;
  for (int k = 1; k <= 41; k += 2) {
    sum += power / k;
    power *= s * s;
  }
  return e * kLn2Hi + (2 * sum + e * kLn2Lo);
}

inline constexpr int kStrips = 256;
/// The base's right edge r for 256 pieces (Marsaglia and Tsang).
inline constexpr double kR = 7.69711747013104972;

struct Table {
  std::array<double, kStrips + 1> x{};  ///< x_0 = v / e^-r (the base's pseudo-width), x_1 = r, ..., x_256 = 0
  std::array<double, kStrips + 1> f{};  ///< e^-x_i
};

/// x_(i+1) = -ln(e^-x_i + v / x_i): each strip has area v = e^-r (r + 1).
constexpr Table make_table() {
  Table table;
  const double f_r = exp_of(-kR);
  const double v = f_r * (kR + 1);
  table.x[0] = v / f_r;
  table.x[1] = kR;
  for (int i = 1; i < kStrips - 1; ++i) table.x[i + 1] = -log_of(exp_of(-table.x[i]) + v / table.x[i]);
  table.x[kStrips] = 0;
  for (int i = 0; i <= kStrips; ++i) table.f[i] = exp_of(-table.x[i]);
  return table;
}

inline constexpr Table kTable = make_table();

}  // namespace ziggurat

/// One Exp(1) variate: one output of `random` in about 97.8% of calls, more otherwise.
inline double standard_exponential(Random& random) {
  const auto& [x, f] = ziggurat::kTable;
  for (;;) {
    const std::uint64_t bits = random.next();
    const auto i = static_cast<std::size_t>(bits & 0xff);
    const double point = static_cast<double>(bits >> 11) * 0x1.0p-53 * x[i];
    if (point < x[i + 1]) return point;
    if (i == 0) return ziggurat::kR - std::log(1.0 - random.uniform());
    if (f[i] + (f[i + 1] - f[i]) * random.uniform() < std::exp(-point)) return point;
  }
}

}  // namespace mgsim
