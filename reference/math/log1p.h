// SPDX-License-Identifier: Apache-2.0
#pragma once
// Owned log(1 + x): Log1pF32Cr (correctly rounded binary32) and Log1pF64Dd (binary64 in
// double-double, error <= 0.5 + 2^-10 ulp), from IEEE + - * / and fma only; accurate for
// x near 0 and near -1 (exponential noise -log1p(-u), Gumbel noise).
//
// Contract (docs/spec/math.md):
// - Domain: every input. Special values (IEEE 754 9.2 / C Annex F.10.3.9):
//     log1p(+-0) = +-0 (sign kept); log1p(-1) = -inf; log1p(+inf) = +inf; log1p(x < -1) =
//     log1p(-inf) = the default NaN (positive, quiet); NaN in -> the same NaN, quiet bit set;
//     |x| < 2^-54 (subnormals included) -> x exactly: log1p(x) = x (1 - x/2 + ..) differs from
//     x by less than |x| 2^-55, below half the spacing on either side of x (for both formats).
// - Rounding: Log1pF32Cr returns log1p(x) rounded to nearest-even (measured over all 2^32
//   inputs, tests/owned_math_accuracy_test.cc); Log1pF64Dd returns the double-double hi (measured
//   max 0.500115 ulp over 10^7 MPFR points, docs/spec/math.md).
// - Algorithm (input widened exactly to double):
//   a. 2^-54 <= |x| < 2^-20: log1p(x) = x - x^2/2 + x^3 (1/3 - x/4) with x - x^2/2 in
//      double-double (TwoProd; halving exact). Truncation x^5/5: relative <= x^4/5 < 2^-82;
//      the x^3 term (relative size <= 2^-41.6) in double: < 2^-93. Total < 2^-80.
//   b. otherwise: 1 + x = ah + al exactly (TwoSum); ah = 2^e m as in LogF32Cr (ah >= 2^-53 > 0
//      because 1 + x is exact for x in [-1, -1/2]); f = (m - 1) + al 2^-e, where m - 1 is exact
//      and |al 2^-e| <= 2^-53, while |m - 1| >= 2^-21 since |x| >= 2^-20, so the preconditions
//      of LogOnePlusScaledDd hold (al 2^-e is dropped when e > 1000: < 2^-1000). Then the log.h
//      core: error < 2^-63 relative as budgeted in log.h, plus the al term (exact).
//   Final rounding as in log.h (detail::Log1pF32Dd).
// - Log1pF32Cr = fast path (detail::Log1pF32Fast: plain binary64, no fma, relative error
//   < 2^-50, derivation there) accepted by the rounding test RoundF64ToF32IfSafe, else
//   detail::Log1pF32Dd (about 2^-23 of the inputs, and x <= -1, +inf, NaN): same bits.
// - Bit-reproducible as log.h. Not constexpr.
// Example: Log1pF32Cr(-0.0f) is -0.0f; Log1pF32Cr(1.0f) == LogF32Cr(2.0f) == 0x1.62e43p-1f.

#include <cstdint>

#include "core/portability.h"
#include "reference/math/bits.h"
#include "reference/math/double_double.h"
#include "reference/math/log.h"

namespace sampcheck::math {
namespace detail {

// log1p(x) as a double-double. Precondition: x finite, x > -1, |x| >= 2^-54.
SAMPCHECK_HOST_DEVICE inline DoubleDouble Log1pDd(double x) {
  if (x > -0x1p-20 && x < 0x1p-20) {
    const DoubleDouble sq = TwoProd(x, x);
    const DoubleDouble head = DdAdd(DoubleDouble{x, 0.0}, DoubleDouble{-0.5 * sq.hi, -0.5 * sq.lo});
    // 1/3 rounded to double: its error 2^-54 relative on a term < 2^-41.6 |x| is negligible.
    const double cube_term = (sq.hi * x) * (0x1.5555555555555p-2 - 0.25 * x);
    return DdAdd(head, DoubleDouble{cube_term, 0.0});
  }
  const DoubleDouble a = TwoSum(1.0, x);
  const SplitLog split = SplitForLog(a.hi);
  const double lo = split.e <= 1000 ? a.lo * Pow2F64(-split.e) : 0.0;
  return LogOnePlusScaledDd(DoubleDouble{split.m - 1.0, lo}, split.e);
}

// The double-double evaluation alone (the pre-fast-path Log1pF32Cr, kept as the fallback of
// the fast path and as the reference it is tested against): every input.
SAMPCHECK_HOST_DEVICE inline float Log1pF32Dd(float x) {
  if (x != x) return QuietF32(x);
  if (x < -1.0f) return F32FromBits(kF32DefaultNaNBits);
  if (x == -1.0f) return F32FromBits(0xff800000u);  // -inf
  if (x == F32FromBits(0x7f800000u)) return x;
  if (x > -0x1p-54f && x < 0x1p-54f) return x;  // +-0, subnormals, tiny normals
  return RoundDdToF32(Log1pDd(static_cast<double>(x)));
}

// Fast path (plain binary64, no fma). Returns true and stores log1p(x) correctly rounded in
// *out, or false for x <= -1, +inf, NaN (left to Log1pF32Dd) and when the rounding test cannot
// decide (about 2^-23 of the inputs). Relative error of y, u = 2^-53:
//   |x| < 2^-54: y = x, returned as is (as Log1pF32Dd does; argument in the contract).
//   2^-54 <= |x| < 2^-29: y = x + x^2 (x fl(1/3) - 1/2): truncation x^4/4 (relative < 2^-89),
//     fl(1/3) (2^-54 on a term < 2^-30 |x|), the correction term x^2 (..) (< 2^-29.9 |x|)
//     with <= 3 u + 2^-29 relative error, the final sum u: total < 1.01 u.
//   otherwise: a = fl(1 + x) is exact for 2^-29 <= |x| < 2^53 (x's bits lie between 2^52 and
//     2^-52; for x in (-1, -1/2] by Sterbenz), else (x >= 2^53) a = (1 + x)(1 + d), |d| <= u
//     and log a - log1p x <= u, relative to log1p x > 36: < 2^-58; then LogFastF64 (log.h,
//     e in [-24, 128]): < 5.4 u. Total < 5.5 u < 2^-50, as RoundF64ToF32IfSafe requires.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Log1pF32Fast(float x, float* out) {
  if (!(x > -1.0f && x < F32FromBits(0x7f800000u))) return false;
  const double xd = static_cast<double>(x);
  if (xd > -0x1p-29 && xd < 0x1p-29) {
    if (xd > -0x1p-54 && xd < 0x1p-54) {
      *out = x;
      return true;
    }
    return RoundF64ToF32IfSafe(xd + (xd * xd) * (xd * 0x1.5555555555555p-2 - 0.5), out);
  }
  return RoundF64ToF32IfSafe(LogFastF64(1.0 + xd), out);
}

}  // namespace detail

SAMPCHECK_HOST_DEVICE inline float Log1pF32Cr(float x) {
  float y;
  if (detail::Log1pF32Fast(x, &y)) return y;
  return detail::Log1pF32Dd(x);
}

SAMPCHECK_HOST_DEVICE inline double Log1pF64Dd(double x) {
  if (x != x) return QuietF64(x);
  if (x < -1.0) return F64FromBits(kF64DefaultNaNBits);
  if (x == -1.0) return F64FromBits(kF64SignMask | kF64ExponentMask);  // -inf
  if (x == F64FromBits(kF64ExponentMask)) return x;
  if (x > -0x1p-54 && x < 0x1p-54) return x;
  return detail::Log1pDd(x).hi;
}

}  // namespace sampcheck::math
