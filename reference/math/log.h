// SPDX-License-Identifier: Apache-2.0
#pragma once
// Owned natural logarithm: LogF32Cr (correctly rounded binary32 log) and LogF64Dd (binary64
// log evaluated in double-double, error <= 0.5 + 2^-10 ulp), from IEEE + - * / and fma only.
//
// Contract (docs/spec/math.md):
// - Domain: every input. Special values (IEEE 754 9.2 / C Annex F.10.3.7):
//     log(+-0) = -inf; log(1) = +0 exactly; log(+inf) = +inf; log(x < 0) = log(-inf) = the
//     default NaN (0x7fc00000 / 0x7ff8000000000000, positive, quiet); NaN in -> the same NaN
//     with its quiet bit set. Subnormal inputs are handled exactly (no flush to zero).
// - Rounding: LogF32Cr returns log(x) rounded to nearest-even: measured over all 2^32 inputs
//   (tests/owned_math_accuracy_test.cc, ExhaustiveF32); max error 0.5 ulp. LogF64Dd returns the
//   double-double hi; measured max 0.500076 ulp over 10^7 MPFR points (docs/spec/math.md).
// - Algorithm (input widened exactly to double; binary64 subnormals first scaled by 2^54):
//   1. x = 2^e m with m in [sqrt(1/2), sqrt 2) by exponent-field manipulation: the significand
//      1.f is kept when its fraction field is below that of sqrt2 = 0x1.6a09e667f3bcdp0, else
//      halved (e + 1). f = m - 1 is exact (Sterbenz), f in [-0.2929, 0.4143).
//   2. log(m) = log((1 + s)/(1 - s)) = 2 atanh(s), s = f / (2 + f), |s| <= 3 - 2 sqrt2 =
//      0.17157. s as a double-double: sh = f / dh, then the exact remainder fma(-sh, dh, f)
//      (plus the low parts) divided once more (error < 2^-104 relative).
//   3. 2 atanh(s) = 2s + s^3 (2/3 + z P1(z)), z = s^2 <= 0.02944: z P1(z) in double by
//      Horner (degree-7 Chebyshev fit of P1 on [0, 0.0295], max |P1 - p| = 2^-55.06,
//      reference/math/gen_coefficients.py); s, z, s^3, (2/3 + ..) and the products in
//      double-double.
//   4. log(x) = e ln2 + log(m): e * kLn2Hi is exact (|e| <= 1075 < 2^11), e * kLn2Mid by
//      TwoProd, the rest of ln2 (< 2^-101) times e is < 2^-90 absolute; one double-double sum.
//   5. LogF32Dd: one rounding to binary32 through round-to-odd (RoundDdToF32). LogF64Dd: hi.
// - Error budget, relative to log(x) (worst when e = 0, where log(x) = 2 atanh(s) ~ 2s): the
//   tail z P1(z) ~ 0.4 z has relative error <= 2^-51 (8 roundings) + 2^-55.06 / 0.4, so its
//   absolute error is <= z 2^-52.2; it is multiplied by s^3 and compared with 2s: relative
//   s^4 / 2 * 2^-52.2 <= 2^-11.2 * 2^-52.2 = 2^-63.4 (s^4 <= 8.7e-4). Double-double steps
//   (s: 2^-104; 4 DdMul/DdAdd: 2^-100 each; the final sum e ln2 + log(m) does not cancel by
//   more than a factor 2, as |log(m)| <= ln2 / 2): < 2^-97. e ln2 rounding: < 2^-90 / (ln2/2).
//   Total < 2^-63. LogF32Cr is therefore correctly rounded unless log(x) lies within 2^-63
//   relative of a binary32 midpoint; the exhaustive test shows no binary32 input does.
// - LogF32Cr = fast path, else LogF32Dd (Ziv's strategy, as ExpF32Cr in exp.h):
//   detail::LogFastF64 evaluates the same s = f / (2 + f) reduction in plain binary64 (no fma)
//   with a proven relative error < 2^-50.5 (derivation there); RoundF64ToF32IfSafe
//   (double_double.h) accepts its binary32 rounding when it is provably that of log(x), else
//   (about 2^-23 of the inputs, and x <= 0, +inf, NaN) detail::LogF32Dd, the double-double
//   algorithm above, decides. Same bits as LogF32Dd (both correctly rounded; tested).
// - Bit-reproducible on any IEEE-754 host/device: only + - * / and fma in round-to-nearest,
//   integer bit manipulation, no libm; -ffp-contract=off on the host, --fmad=false on the
//   device. Not constexpr (std::fma is constexpr only from C++23).
// Example: LogF32Cr(1.0f) == +0.0f; LogF32Cr(2.0f) == 0x1.62e43p-1f (ln2 = 0.6931471805..,
// rounded to binary32: 0.693147182464599609375).

#include <cstdint>

#include "core/portability.h"
#include "reference/math/bits.h"
#include "reference/math/double_double.h"
#include "reference/math/exp.h"  // detail::kLn2Hi, detail::kLn2Mid

namespace sampcheck::math {
namespace detail {

// Fraction field of the nearest double to sqrt2 (0x1.6a09e667f3bcdp0, gen_coefficients.py).
inline constexpr std::uint64_t kSqrt2Fraction = 0x6a09e667f3bcdull;

// P1(z) = sum_j 2 z^j / (2j + 5), so that 2 atanh(s) = 2s + s^3 (2/3 + z P1(z)); degree-7
// Chebyshev interpolant on [0, 0.0295], coefficients rounded to nearest double, lowest degree
// first; max |P1 - p| = 2^-55.06 measured at 60 digits (gen_coefficients.py / .out).
inline constexpr double kLogTail[] = {
    0x1.999999999999ap-2,  // z^0 (Taylor: 2/5)
    0x1.2492492492524p-2,  // z^1 (Taylor: 2/7)
    0x1.c71c71c6ea01fp-3,  // z^2 (Taylor: 2/9)
    0x1.745d177b22bcfp-3,  // z^3 (Taylor: 2/11)
    0x1.3b1395976d2f0p-3,  // z^4 (Taylor: 2/13)
    0x1.1118d458653bcp-3,  // z^5 (Taylor: 2/15)
    0x1.df7a2eafecf14p-4,  // z^6 (Taylor: 2/17)
    0x1.e0499f72e39b9p-4,  // z^7 (Taylor: 2/19)
};
// 2/3 as a double-double (gen_coefficients.py).
inline constexpr DoubleDouble kTwoThirds = {0x1.5555555555555p-1, 0x1.5555555555555p-55};

// Fast path (LogFastF64): R(z) = sum_j 2 z^j / (2j + 3), so that 2 atanh(s) = 2s + s^3 R(s^2);
// degree-6 Chebyshev interpolant on [0, 0.0295], coefficients rounded to nearest double, lowest
// degree first; max |R - p| = 2^-51.45 measured at 60 digits; sum |c_i| 0.0295^i = 0.6788
// (gen_coefficients.py --fast / .out).
inline constexpr double kLogFastTail[] = {
    0x1.5555555555558p-1,  // z^0 (Taylor: 2/3)
    0x1.99999999951f5p-2,  // z^1 (Taylor: 2/5)
    0x1.2492492e0b70cp-2,  // z^2 (Taylor: 2/7)
    0x1.c71c62c42db89p-3,  // z^3 (Taylor: 2/9)
    0x1.7462be245eae3p-3,  // z^4 (Taylor: 2/11)
    0x1.39fd25d62ab23p-3,  // z^5 (Taylor: 2/13)
    0x1.2b6776a1bf0b9p-3,  // z^6 (Taylor: 2/15)
};

struct SplitLog {
  double m;  // in [sqrt(1/2), sqrt2): fraction field compared with sqrt2's
  int e;     // a = 2^e * m
};

// Precondition: a positive, finite and normal.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE SplitLog SplitForLog(double a) {
  const std::uint64_t bits = F64Bits(a);
  const std::uint64_t fraction = bits & kF64FractionMask;
  int e = static_cast<int>(bits >> kF64FractionBits) - kF64ExponentBias;
  std::uint64_t exponent_field = static_cast<std::uint64_t>(kF64ExponentBias);
  if (fraction >= kSqrt2Fraction) {
    exponent_field -= 1;  // m = 1.f / 2
    e += 1;
  }
  return {F64FromBits((exponent_field << kF64FractionBits) | fraction), e};
}

// e ln2 + log1p(f.hi + f.lo) as a double-double.
// Preconditions: f.hi + f.lo in [sqrt(1/2) - 1, sqrt2 - 1] up to 2^-50; |f.lo| <= 2^-30 |f.hi|
// unless f.lo == 0 or f.hi == 0; |e| <= 1100.
SAMPCHECK_HOST_DEVICE inline DoubleDouble LogOnePlusScaledDd(DoubleDouble f, int e) {
  // s = f / (2 + f) as sh + sl.
  const DoubleDouble d = FastTwoSum(2.0, f.hi);
  const double d_lo = d.lo + f.lo;
  const double sh = f.hi / d.hi;
  const double rem = (FmaF64(-sh, d.hi, f.hi) + f.lo) - sh * d_lo;  // fma term exact
  const DoubleDouble s = FastTwoSum(sh, rem / d.hi);

  const DoubleDouble z = DdMul(s, s);
  SAMPCHECK_CONST_TABLE(coeff, kLogTail);
  double p = coeff[7];
  for (int i = 6; i >= 0; --i) p = p * z.hi + coeff[i];
  const DoubleDouble poly = DdAdd(kTwoThirds, DoubleDouble{p * z.hi, 0.0});
  const DoubleDouble tail = DdMul(DdMul(z, s), poly);                            // s^3 (2/3 + z P1)
  const DoubleDouble log_m = DdAdd(DoubleDouble{2.0 * s.hi, 2.0 * s.lo}, tail);  // exact doubling

  const double ed = static_cast<double>(e);
  const DoubleDouble e_mid = TwoProd(ed, kLn2Mid);
  const DoubleDouble e_ln2 = FastTwoSum(ed * kLn2Hi, e_mid.hi);  // ed * kLn2Hi exact
  return DdAdd(DoubleDouble{e_ln2.hi, e_ln2.lo + e_mid.lo}, log_m);
}

// The double-double evaluation alone (the pre-fast-path LogF32Cr, kept as the fallback of the
// fast path and as the reference it is tested against): every input, special values included.
SAMPCHECK_HOST_DEVICE inline float LogF32Dd(float x) {
  if (x != x) return QuietF32(x);
  if (x < 0.0f) return F32FromBits(kF32DefaultNaNBits);
  if (x == 0.0f) return F32FromBits(0xff800000u);  // -inf for +-0
  if (x == F32FromBits(0x7f800000u)) return x;
  // Every binary32 (subnormals included) is a normal binary64.
  const SplitLog split = SplitForLog(static_cast<double>(x));
  return RoundDdToF32(LogOnePlusScaledDd(DoubleDouble{split.m - 1.0, 0.0}, split.e));
}

// Fast path: log(a) in plain binary64 (+ - * /, no fma) for a positive normal double
// a = 2^e m with |e| <= 200, relative error < 5.4 u = 2^-50.5 (u = 2^-53):
//   s~ = fl(f / fl(2 + f)) = s (1 + th), |th| <= 2u + u^2 (f = m - 1 exact). log m = L(s) =
//     2 atanh(s) and s L'(s) / L(s) <= 1 / (1 - s^2) <= 1.031, so L(s~) = L(s) (1 + 2.07 u);
//   at s~: z = fl(s~ s~) (u); p at z by Estrin's scheme: sum c_i z^i (1 + th_i), |th_i| <=
//     gamma_{k_i}, k_i <= 7 (the longest path, c6 z^6: z2, * z2, + .., z4 = z2 z2 (2), * z4,
//     final +), so gamma_7 sum |c_i| z^i <= 7.0 u * 0.6788 over p >= 2/3: 7.2 u; fl(z s~),
//     fl(. p~): 2 u; so t = s~^3 p has relative error <= 10.3 u (+ 0.02 u from z's rounding
//     through p' z / p), and |t| / |2 s~| <= z p / 2 <= 0.0100: 0.11 u of log m; approximation |R - p| = 2^-51.45 times s^3 over 2 s: <= 2^-57.5
//     = 0.05 u; fl(2 s~ + t): u. log m: <= (2.07 + 0.11 + 0.05 + 1) u < 3.3 u relative;
//   e = 0: y = fl(0 + fl(0 + log m)) = log m exactly from the above;
//   e != 0: |log a| >= |e| ln2 - ln2/2 >= max(ln2/2, |log m|); e kLn2Hi exact (42 + 8 bits),
//     fl(e kLn2Mid) off by <= u 200 2^-44 < 2^-88, ln2 - kLn2Hi - kLn2Mid = 1.95e-31 (times
//     |e| <= 200: < 2^-94); fl(lo + log m): u (|log m| + 2^-36); fl(hi + .): u |y|. Relative:
//     3.3 u + u + 2^-86 + u (1 + 6 u) < 5.4 u.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE double LogFastF64(double a) {
  const SplitLog split = SplitForLog(a);
  const double f = split.m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  SAMPCHECK_CONST_TABLE(c, kLogFastTail);  // Estrin's scheme: 3 levels instead of 6 Horner steps
  const double z2 = z * z;
  const double p = ((c[0] + c[1] * z) + (c[2] + c[3] * z) * z2) +
                   ((c[4] + c[5] * z) + c[6] * z2) * (z2 * z2);
  const double log_m = 2.0 * s + (z * s) * p;
  const double ed = static_cast<double>(split.e);
  return ed * kLn2Hi + (ed * kLn2Mid + log_m);
}

// Returns true and stores log(x) correctly rounded in *out, or false for x <= 0, +inf, NaN
// (left to LogF32Dd) and when the rounding test cannot decide (about 2^-23 of the inputs).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool LogF32Fast(float x, float* out) {
  if (!(x > 0.0f && x < F32FromBits(0x7f800000u))) return false;
  // Every binary32 is a normal binary64 with e in [-149, 128]; error <= 2^-50.5 relative.
  return RoundF64ToF32IfSafe(LogFastF64(static_cast<double>(x)), out);
}

}  // namespace detail

SAMPCHECK_HOST_DEVICE inline float LogF32Cr(float x) {
  float y;
  if (detail::LogF32Fast(x, &y)) return y;
  return detail::LogF32Dd(x);
}

SAMPCHECK_HOST_DEVICE inline double LogF64Dd(double x) {
  if (x != x) return QuietF64(x);
  if (x < 0.0) return F64FromBits(kF64DefaultNaNBits);
  if (x == 0.0) return F64FromBits(kF64SignMask | kF64ExponentMask);  // -inf
  if (x == F64FromBits(kF64ExponentMask)) return x;
  int bias = 0;
  if ((F64Bits(x) & kF64ExponentMask) == 0) {  // subnormal: scale into the normal range
    x *= 0x1p54;                               // exact
    bias = -54;
  }
  const detail::SplitLog split = detail::SplitForLog(x);
  return detail::LogOnePlusScaledDd(DoubleDouble{split.m - 1.0, 0.0}, split.e + bias).hi;
}

}  // namespace sampcheck::math
