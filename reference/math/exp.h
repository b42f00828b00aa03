// SPDX-License-Identifier: Apache-2.0
#pragma once
// Owned exponential: ExpF32Cr (correctly rounded binary32 exp) and ExpF64Dd (binary64 exp
// evaluated in double-double, error <= 0.5 + 2^-11 ulp), from IEEE + - * / and fma only.
//
// Contract (docs/spec/math.md):
// - Domain: every input. Special values (IEEE 754 9.2 / C Annex F.10.3.1):
//     exp(+-0) = 1 exactly; exp(+inf) = +inf; exp(-inf) = +0;
//     NaN in -> the same NaN with its quiet bit set (payload and sign kept, bit-exact on host
//     and device);
//     ExpF32Cr: 0x1.62e42ep6 (88.7228317) is the largest float with a finite result;
//       from 0x1.62e430p6 on, exp(x) >= (2 - 2^-24) 2^127 and the result is +inf.
//       -0x1.9fe368p6 (-103.972084) is the smallest float with a nonzero result (2^-149);
//       from -0x1.9fe36ap6 down, exp(x) < 2^-150 and the result is +0. Results in
//       [2^-149, 2^-126) are subnormal, rounded once (no flush to zero). All four checked
//       against MPFR in tests/owned_math_test.cc.
//     ExpF64Dd: x > 0x1.62e42fefa39efp9 (709.78) -> +inf; x < -0x1.74910d52d3052p9 (-745.13)
//       -> +0; subnormal results rounded once.
// - Rounding: ExpF32Cr returns exp(x) rounded to nearest-even: measured over all 2^32 inputs
//   (tests/owned_math_accuracy_test.cc, ExhaustiveF32: 0 mismatches, max 0.499999998 ulp). ExpF64Dd returns
//   the double-double hi, error <= 0.5 ulp + 2^-65 relative (bound below); measured max
//   0.500031 ulp over 10^7 MPFR points (docs/spec/math.md).
// - Algorithm (same core for both, input widened exactly to double):
//   1. k = round(x / ln2) (RoundToIntF64(x * kInvLn2); |k| <= 1076).
//   2. r = x - k ln2 as a double-double rh + rl, ln2 = kLn2Hi + kLn2Mid + d (|d| < 2^-101):
//      s = x - k*kLn2Hi is exact (k*kLn2Hi has <= 11 + 42 bits; Sterbenz for k != 0 since
//      x / (k*kLn2Hi) lies in [2/3, 2]); rh + rl = s - k*kLn2Mid by TwoProd/TwoSum with one
//      rounding of size <= 2^-108. Reduction error |k d| + 2^-108 < 2^-90. |r| <= 0.3466 + 2^-40.
//   3. exp(r) = 1 + r + r^2/2 + r^3/6 + r^4/24 + r^5 Q(r): Q evaluated in double by Horner
//      at rh (degree-9 Chebyshev fit, max |Q - q| = 2^-62.02 on |r| <= 0.35,
//      reference/math/gen_coefficients.py); the five low-order steps in double-double
//      (coefficients 1/6 and 1/24 as double-doubles).
//   4. exp(x) = 2^k exp(r): scaling by exact powers of two.
//   5. ExpF32Dd: one rounding to binary32 through round-to-odd (RoundDdToF32).
//      ExpF64Dd: hi scaled by 2^k (in two exact steps when 2^k is not a normal double);
//      a subnormal result is hi + lo rounded once to the subnormal grid (see the code).
// - Error budget of hi + lo against exp(x), relative (exp(r) >= 0.7): reduction 2^-90;
//   approximation |r|^5 2^-62.02 <= 2^-69.6 (|r|^5 <= 0.35^5 = 2^-7.57); Horner of Q in
//   double: q ~ 1/120 = 2^-6.9 with relative error <= 2^-51 (10 roundings on geometrically
//   decreasing terms), so 2^-57.9 absolute, times |r|^5: <= 2^-65.5; rl ignored in the tail
//   and the rounding of q * rh: <= 2^-67; double-double steps (4 DdMul + 5 DdAdd, each <= 2^-100 relative, no cancellation since
//   every partial sum is dominated by its constant) <= 2^-96. Total < 2^-65. ExpF32Cr is
//   therefore correctly rounded unless exp(x) lies within 2^-65 relative of a binary32
//   midpoint; the exhaustive test shows no binary32 input does.
// - ExpF32Cr = fast path, else ExpF32Dd (Ziv's strategy): detail::ExpF32Fast evaluates exp(x)
//   in plain binary64 (no fma: cheap without hardware FMA, same bits on a GPU with
//   --fmad=false) with a proven relative error < 2^-50 (derivation at ExpF32Fast), and
//   returns its binary32 rounding only when RoundF64ToF32IfSafe (double_double.h) proves it is
//   the rounding of exp(x) too; otherwise (about 2^-23 of the inputs, plus NaN and
//   x outside [-104, 88.75]) detail::ExpF32Dd, the double-double algorithm below, decides.
//   Both give the correctly rounded result, so ExpF32Cr's bits are those of ExpF32Dd
//   (tested bit for bit in tests/owned_math_test.cc and over all 2^32 inputs in
//   tests/owned_math_accuracy_test.cc).
// - Bit-reproducible on any IEEE-754 host/device: only + - * / and fma in round-to-nearest,
//   no tables beyond the constexpr coefficient array, no libm. Requires -ffp-contract=off on
//   the host and --fmad=false on the device (the Horner steps are written as separate * and +).
//   Not constexpr (std::fma is constexpr only from C++23).
// Example: ExpF32Cr(0.0f) == 1.0f; ExpF32Cr(1.0f) == 0x1.5bf0a8p1f (e = 2.71828182845904..,
// whose binary32 round-to-nearest is 0x1.5bf0a8p+1 = 2.71828174591064453125).

#include <cstdint>

#include "core/portability.h"
#include "reference/math/bits.h"
#include "reference/math/double_double.h"

namespace sampcheck::math {
namespace detail {

// Nearest double to 1/ln2 (gen_coefficients.py). Only selects k: any k with |r| <= 0.35 is
// correct, so its own error does not enter the budget.
inline constexpr double kInvLn2 = 0x1.71547652b82fep+0;
// ln2 truncated to 42 significant bits (so k * kLn2Hi is exact for |k| < 2^11) and the nearest
// double to the rest; ln2 - kLn2Hi - kLn2Mid = 1.95e-31 (gen_coefficients.py, mpmath 60 digits).
inline constexpr double kLn2Hi = 0x1.62e42fefa3800p-1;
inline constexpr double kLn2Mid = 0x1.ef35793c76730p-45;

// Q(r) = (exp(r) - 1 - r - r^2/2 - r^3/6 - r^4/24) / r^5 = sum_j r^j / (j + 5)!, degree-9
// Chebyshev interpolant on [-0.35, 0.35], coefficients rounded to nearest double, lowest degree
// first; max |Q - q| = 2^-62.02 measured at 60 digits (gen_coefficients.py / .out).
inline constexpr double kExpTail[] = {
    0x1.1111111111111p-7,   // r^0 (Taylor: 1/120)
    0x1.6c16c16c16c17p-10,  // r^1 (Taylor: 1/720)
    0x1.a01a01a019dadp-13,  // r^2 (Taylor: 1/5040)
    0x1.a01a01a019ee3p-16,  // r^3 (Taylor: 1/40320)
    0x1.71de3a57e638dp-19,  // r^4 (Taylor: 1/362880)
    0x1.27e4fb78c6cefp-22,  // r^5 (Taylor: 1/3628800)
    0x1.ae643a34faa2ap-26,  // r^6 (Taylor: 1/39916800)
    0x1.1eed80dac41b6p-29,  // r^7 (Taylor: 1/479001600)
    0x1.61a850e8d8603p-33,  // r^8 (Taylor: 1/6227020800)
    0x1.941b377b252ecp-37,  // r^9 (Taylor: 1/87178291200)
};
// 1/24 and 1/6 as double-doubles (hi = nearest double, lo = nearest double to the rest;
// gen_coefficients.py). 1/2 and 1 are exact doubles.
inline constexpr DoubleDouble kInv24 = {0x1.5555555555555p-5, 0x1.5555555555555p-59};
inline constexpr DoubleDouble kInv6 = {0x1.5555555555555p-3, 0x1.5555555555555p-57};

// Fast path (ExpF32Fast): q(r) = (exp(r) - 1 - r) / r^2 = sum_j r^j / (j + 2)!, degree-9
// Chebyshev interpolant on [-0.35, 0.35], coefficients rounded to nearest double, lowest degree
// first; max |q - p| = 2^-52.92 measured at 60 digits; sum |c_i| 0.35^i = 0.5638, q >= 0.4464
// on the interval (gen_coefficients.py --fast / .out).
inline constexpr double kExpFastTail[] = {
    0x1.0000000000001p-1,   // r^0 (Taylor: 1/2)
    0x1.5555555555556p-3,   // r^1 (Taylor: 1/6)
    0x1.5555555553b72p-5,   // r^2 (Taylor: 1/24)
    0x1.111111111091ap-7,   // r^3 (Taylor: 1/120)
    0x1.6c16c1794bd5cp-10,  // r^4 (Taylor: 1/720)
    0x1.a01a01a83a3a3p-13,  // r^5 (Taylor: 1/5040)
    0x1.a019b62aaa671p-16,  // r^6 (Taylor: 1/40320)
    0x1.71de0be80e7e8p-19,  // r^7 (Taylor: 1/362880)
    0x1.2894eb03786e2p-22,  // r^8 (Taylor: 1/3628800)
    0x1.af3cd7b3560d9p-26,  // r^9 (Taylor: 1/39916800)
};

struct ScaledDoubleDouble {
  DoubleDouble value;  // exp(r), in [0.70, 1.42]
  int k;               // exp(x) = 2^k * value
};

// Precondition: x finite, -746 <= x <= 710.
SAMPCHECK_HOST_DEVICE inline ScaledDoubleDouble ExpReducedDd(double x) {
  const double kd = RoundToIntF64(x * kInvLn2);
  const double s = x - kd * kLn2Hi;  // exact, see contract step 2
  const DoubleDouble p = TwoProd(kd, kLn2Mid);
  const DoubleDouble t = TwoSum(s, -p.hi);
  const DoubleDouble r = FastTwoSum(t.hi, t.lo - p.lo);

  SAMPCHECK_CONST_TABLE(tail, kExpTail);
  double q = tail[9];
  for (int i = 8; i >= 0; --i) q = q * r.hi + tail[i];
  DoubleDouble acc = DdAdd(kInv24, DoubleDouble{q * r.hi, 0.0});
  acc = DdAdd(DdMul(acc, r), kInv6);
  acc = DdAdd(DdMul(acc, r), DoubleDouble{0.5, 0.0});
  acc = DdAdd(DdMul(acc, r), DoubleDouble{1.0, 0.0});
  acc = DdAdd(DdMul(acc, r), DoubleDouble{1.0, 0.0});
  return {acc, static_cast<int>(kd)};
}

// The double-double evaluation alone (the pre-fast-path ExpF32Cr, kept as the fallback of the
// fast path and as the reference it is tested against): every input, special values included.
SAMPCHECK_HOST_DEVICE inline float ExpF32Dd(float x) {
  if (x != x) return QuietF32(x);
  // 88.75 is above the overflow threshold ln((2 - 2^-24) 2^127) = 88.72283911..; with
  // k = 128 the scaled value still fits a double and the final rounding overflows to inf for
  // every x in (0x1.62e42ep6, 88.75].
  if (x > 0x1.63p6f) return F32FromBits(0x7f800000u);
  // exp(-104) = 6.8e-46 < 2^-150 = 7.0e-46 (half the smallest subnormal): rounds to +0.
  if (x < -0x1.ap6f) return 0.0f;
  const ScaledDoubleDouble e = ExpReducedDd(static_cast<double>(x));
  const double scale = Pow2F64(e.k);  // k in [-150, 128]: 2^k is a normal double
  return RoundDdToF32(DoubleDouble{e.value.hi * scale, e.value.lo * scale});
}

// Fast path (plain binary64 + - *, no fma): returns true and stores exp(x) correctly rounded
// in *out, or returns false when x is outside [-104, 88.75] or NaN (the special cases, left to
// ExpF32Dd) or when the rounding test cannot decide (about 2^-23 of the inputs).
// Error of y (before the rounding test), relative to exp(x), u = 2^-53 (contract above):
//   reduction: r~ = fl(s - fl(k kLn2Mid)), s exact; |r~ - r| <= u |r~| + |k| (u 2^-44 +
//     1.95e-31) <= u |r~| + 2^-89 (|k| <= 150), so exp(r) = exp(r~) (1 + d), |d| <= 0.35 u + 2^-89;
//   approximation: exp(r~) = 1 + r~ + r~^2 q(r~) and |q - p| = 2^-52.92 on |r| <= 0.35, times
//     r~^2 <= 0.1225 over exp(r~) >= exp(-0.35) = 0.7047: <= 2^-55.45 = 0.18 u;
//   evaluation of p by Estrin's scheme (below): the computed value is sum c_i r^i (1 + th_i)
//     with |th_i| <= gamma_{k_i}, k_i the roundings on term i's path (products, powers r2, r4,
//     r8 = r4 r4, sums); the longest, c7 r^7, has k = 10 (c7 r, + c6, r2, * r2, + .., r4 (2),
//     * r4, + .., final +), so |fl(p) - p| <= gamma_10 sum |c_i| |r|^i <= 10.0 u * 0.5638, over
//     p >= 0.4464: 12.7 u relative; t = fl(r2 p~) with r2 = fl(r r): 14.7 u relative on
//     |t| <= 0.0691, i.e. 1.02 u absolute; fl(r + t): 0.42 u (|r + t| <= 0.42); fl(1 + w):
//     u |y|. Over exp(r~) >= 0.7047: (1.02 + 0.42) u / 0.7047 + u = 3.05 u;
//   scaling by 2^k: exact (the result stays a normal double, >= 2^-151).
//   Total <= (0.35 + 0.18 + 3.05) u + 2^-89 < 3.6 u = 2^-51.1 < 2^-50: RoundF64ToF32IfSafe's
//   precondition, with its 2^-48 giving a factor 4 of margin.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool ExpF32Fast(float x, float* out) {
  if (!(x >= -0x1.ap6f && x <= 0x1.63p6f)) return false;  // NaN, overflow, underflow to 0
  const double xd = static_cast<double>(x);
  const double kd = RoundToIntF64(xd * kInvLn2);
  const double r = (xd - kd * kLn2Hi) - kd * kLn2Mid;  // first difference exact (step 2 above)
  // Estrin's scheme (shorter dependency chain than Horner: 4 levels instead of 10).
  SAMPCHECK_CONST_TABLE(c, kExpFastTail);
  const double r2 = r * r;
  const double r4 = r2 * r2;
  const double p = ((c[0] + c[1] * r) + (c[2] + c[3] * r) * r2) +
                   ((c[4] + c[5] * r) + (c[6] + c[7] * r) * r2) * r4 + (c[8] + c[9] * r) * (r4 * r4);
  const double y = 1.0 + (r + r2 * p);
  return RoundF64ToF32IfSafe(y * Pow2F64(static_cast<int>(kd)), out);  // k in [-150, 128]
}

}  // namespace detail

SAMPCHECK_HOST_DEVICE inline float ExpF32Cr(float x) {
  float y;
  if (detail::ExpF32Fast(x, &y)) return y;
  return detail::ExpF32Dd(x);
}

SAMPCHECK_HOST_DEVICE inline double ExpF64Dd(double x) {
  if (x != x) return QuietF64(x);
  // exp(710) > DBL_MAX (ln DBL_MAX = 709.7827); exp(-746) = 1.0e-324 < 2^-1075 = 2.5e-324.
  if (x > 710.0) return F64FromBits(kF64ExponentMask);
  if (x < -746.0) return 0.0;
  const detail::ScaledDoubleDouble e = detail::ExpReducedDd(x);
  const double hi = e.value.hi;
  if (e.k > -1022 && e.k <= 1023) return hi * Pow2F64(e.k);  // exact scaling
  const int k1 = e.k / 2;  // 2^k = 2^k1 * 2^(k - k1), both factors normal
  // k = 1024, or k in [-1076, -1022] with hi 2^k >= 2^-1022: the result is the scaling of hi,
  // exact or (k = 1024) overflowing to inf with one rounding.
  const double shifter = e.k < 0 ? Pow2F64(-1022 - e.k) : 0.0;  // 2^-1022 in hi's frame
  if (e.k > 0 || hi >= shifter) return (hi * Pow2F64(k1)) * Pow2F64(e.k - k1);
  // Subnormal result: round hi + lo to the subnormal grid, whose spacing in hi's frame is
  // g = 2^(-1074 - k) in [2^-52, 4]. (hi + shifter) - shifter rounds hi to a multiple of g
  // (shifter = 2^52 g and 0 <= hi < shifter keep the sum in [2^52 g, 2^53 g)). hi's grid is
  // 2^-53, only one bit finer than g when k = -1022, too coarse for round-to-odd; instead the
  // exact remainder d = hi - y tells the single case where lo matters: hi exactly halfway
  // (|d| = g/2), where the sign of lo decides (|lo| <= 2^-54 cannot cross otherwise, since
  // |d| < g/2 implies |d| <= g/2 - 2^-53).
  const double g = Pow2F64(-1074 - e.k);
  double y = (hi + shifter) - shifter;
  const double d = hi - y;
  if (d == 0.5 * g && e.value.lo > 0.0) y += g;
  if (d == -0.5 * g && e.value.lo < 0.0) y -= g;
  return (y * Pow2F64(k1)) * Pow2F64(e.k - k1);  // exact: y is a multiple of g
}

}  // namespace sampcheck::math
