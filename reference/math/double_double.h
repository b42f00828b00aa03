// SPDX-License-Identifier: Apache-2.0
#pragma once
// Double-double arithmetic (unevaluated sums hi + lo of two binary64) and the one-rounding
// narrowing of a double-double to binary32 through round-to-odd.
//
// Contract:
// - Error-free transforms (exact for finite inputs whose results do not overflow and whose
//   product error terms do not underflow; sampcheck's callers stay far from both):
//     TwoSum(a, b) = (s, e) with s = fl(a + b), s + e = a + b exactly (Knuth, 6 additions).
//     FastTwoSum(a, b) likewise, requires |a| >= |b| or a == 0 (Dekker, 3 additions).
//     TwoProd(a, b) = (p, e) with p = fl(a * b), p + e = a * b exactly (one fma).
// - DdAdd / DdMul / DdMulD follow the "sloppy" double-double algorithms of the QD library
//   (Hida, Li, Bailey 2001; Joldes, Muller, Popescu, ACM TOMS 44(2) 2017, Alg. 5 and 10/11):
//   relative error below 2^-100 except for DdAdd under heavy cancellation, where the bound is
//   absolute: 2^-104 * (|a| + |b|). Callers in reference/math only add terms that do not
//   cancel by more than a factor 2 (see each function's error budget).
// - Results are normalised: |lo| <= ulp(hi) / 2.
// - RoundDdToF32(v) rounds the exact value v.hi + v.lo to binary32 with one rounding
//   (roundTiesToEven, overflow to inf, gradual underflow): v.hi is first replaced by the
//   round-to-odd of hi + lo to 53 bits (hi's last bit is set when lo != 0 and hi is even, by
//   stepping hi one ulp towards lo), then converted. Rounding to odd at p + 2 or more bits
//   followed by round-to-nearest at p bits equals a single round-to-nearest (Boldo and
//   Melquiond, IEEE TC 57(4) 2008, Thm. 1); 53 >= 24 + 2, also for subnormal binary32 results.
//   RoundToOddF64(v) is that odd-rounded double; scaling it by a power of two into the
//   binary64 subnormal range (<= 52 bits kept) is likewise one correct rounding of hi + lo.
// - RoundF64ToF32IfSafe(y, &out) is the rounding test of the fast paths (Ziv's strategy): y
//   approximates some real v with |y - v| <= 2^-50 |y| (the caller's proven bound, see
//   exp.h / log.h; the test itself allows 2^-48, a factor 4 of margin). It returns true and
//   stores out = static_cast<float>(y) (one IEEE conversion, round-to-nearest-even, gradual
//   underflow, overflow to inf) only when no binary32 rounding boundary (midpoint between two
//   consecutive binary32, including 2^128 - 2^103, the overflow boundary) lies within
//   kRoundTestSlackUlps = 32 units of y's last place (ulp_d) of y, so that v rounds to out too.
//   Otherwise it returns false and out is untouched; the caller then evaluates v more
//   accurately (double-double). Derivation:
//     normal binary32 range, 2^-126 <= |y|: in y's binade [2^E, 2^(E+1)) the binary32 grid is
//     2^29 ulp_d and its midpoints are exactly the doubles whose low 29 significand bits are
//     2^28 (the largest midpoint below 2^E is 2^E - 2^(E-25), 2^27 ulp_d below the binade, and
//     the binade above starts with a binary32). So the distance from y to the nearest midpoint
//     is |low29 - 2^28| ulp_d when that is below 2^27, and 2^-48 |y| < 2^-48 2^(E+1) = 32 ulp_d:
//     |low29 - 2^28| > 32 means every v within 2^-48 |y| of y is on y's side of every midpoint.
//     subnormal binary32 range, |y| < 2^-126 (only exp reaches it): the grid is 2^-149
//     whatever y's binade, so the test is done on w = |y| 2^149 (exact scaling, w < 2^23):
//     n = RoundToIntF64(w), d = w - n (exact: |d| <= 1/2 and d is a multiple of ulp(w)), and
//     1/2 - |d| (exact) is the distance to the nearest midpoint (n +- 1/2, including 1/2, the
//     boundary between 0 and 2^-149) in units of 2^-149; it must exceed 2^-47 w (an exact
//     product), twice the 2^-48 w = 2^-48 |y| 2^149 that v may differ from y by.
//   The fraction of inputs that fail is about 2 * 32 / 2^29 = 2^-23 for results whose low bits
//   are uniformly distributed (measured: docs/spec/math.md).
// Example: RoundDdToF32({1 + 0x1p-24, 0x1p-80}) == 1 + 0x1p-23f (the value lies just above
// the midpoint 1 + 2^-24), whereas static_cast<float>(1 + 0x1p-24) == 1.0f (tie to even);
// RoundDdToF32({1 + 0x1p-24, -0x1p-80}) == 1.0f.

#include <cstdint>

#include "core/portability.h"
#include "reference/math/bits.h"
#include "reference/math/fma.h"

namespace sampcheck::math {

struct DoubleDouble {
  double hi;
  double lo;
};

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE DoubleDouble TwoSum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE DoubleDouble FastTwoSum(double a, double b) {
  const double s = a + b;
  const double e = b - (s - a);
  return {s, e};
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE DoubleDouble TwoProd(double a, double b) {
  const double p = a * b;
  return {p, FmaF64(a, b, -p)};
}

// (a.hi + a.lo) + (b.hi + b.lo).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE DoubleDouble DdAdd(DoubleDouble a, DoubleDouble b) {
  const DoubleDouble s = TwoSum(a.hi, b.hi);
  return FastTwoSum(s.hi, s.lo + (a.lo + b.lo));
}

// (a.hi + a.lo) * (b.hi + b.lo); the a.lo * b.lo term (< 2^-106 relative) is dropped.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE DoubleDouble DdMul(DoubleDouble a, DoubleDouble b) {
  const DoubleDouble p = TwoProd(a.hi, b.hi);
  return FastTwoSum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

// (a.hi + a.lo) * b.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE DoubleDouble DdMulD(DoubleDouble a, double b) {
  const DoubleDouble p = TwoProd(a.hi, b);
  return FastTwoSum(p.hi, p.lo + a.lo * b);
}

// The round-to-odd of hi + lo to binary64 (hi itself when lo == 0 or hi is odd).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE double RoundToOddF64(DoubleDouble v) {
  std::uint64_t bits = F64Bits(v.hi);
  if (v.lo != 0.0 && (bits & 1u) == 0u) {
    // hi + lo lies strictly between hi and its neighbour on lo's side; the odd one of the two
    // is that neighbour, one unit of the magnitude bits away (also across a binade edge:
    // 2^e has an even significand, its predecessor all-ones).
    const bool same_sign = (v.lo > 0.0) == (v.hi > 0.0);
    bits = same_sign ? bits + 1u : bits - 1u;
  }
  return F64FromBits(bits);
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float RoundDdToF32(DoubleDouble v) {
  return static_cast<float>(RoundToOddF64(v));
}

// Distance in ulp_d (of y) below which the fast paths' rounding test gives up: 2^-48 * 2^53.
inline constexpr std::uint64_t kRoundTestSlackUlps = 32;

// Precondition: y finite; |y| >= 2^-200 unless y == 0, which is accepted (as exact: log(1)).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool RoundF64ToF32IfSafe(double y, float* out) {
  const double a = y < 0.0 ? -y : y;
  if (a >= 0x1p-126 || a == 0.0) {
    constexpr std::uint64_t kLow29 = (std::uint64_t{1} << 29) - 1;
    constexpr std::uint64_t kHalf = std::uint64_t{1} << 28;  // a binary32 midpoint
    const std::uint64_t low = F64Bits(a) & kLow29;
    const std::uint64_t dist = low >= kHalf ? low - kHalf : kHalf - low;
    if (dist <= kRoundTestSlackUlps) return false;
  } else {
    const double w = a * 0x1p149;  // exact (power of two, no underflow), w < 2^23
    const double d = w - RoundToIntF64(w);
    const double to_midpoint = 0.5 - (d < 0.0 ? -d : d);
    if (to_midpoint <= w * 0x1p-47) return false;
  }
  *out = static_cast<float>(y);
  return true;
}

}  // namespace sampcheck::math
