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

}  // namespace sampcheck::math
