// SPDX-License-Identifier: Apache-2.0
#pragma once
// ExpF32CrThreshold(r): the smallest binary32 d with ExpF32Cr(d) >= r, so that the decision
// "ExpF32Cr(x) >= r", taken for many x against one r (min-p's keep rule, docs/spec/filters.md),
// is the one comparison "x >= ExpF32CrThreshold(r)" with the same outcome for every x.
//
// Contract (docs/spec/math.md "Threshold of exp"):
// - Why one comparison decides: ExpF32Cr is correctly rounded, hence monotone non-decreasing,
//   so {x : ExpF32Cr(x) >= r} is an up-set of the binary32 order; its least element is d and
//   x >= d holds exactly on it. NaN x fails both forms (ExpF32Cr(NaN) is NaN).
// - Domain: every r. r <= 0 (and -0): -inf (exp >= +0 >= r everywhere). NaN: r quieted (no x
//   passes either form). r in (0, +inf]: finite or, for r = +inf, 0x1.62e430p6 (the smallest
//   float whose exp rounds to +inf, exp.h); for r <= 1, d <= -0 (ExpF32Cr(0) = 1 >= r).
// - Where d lies: for x != 0, exp(x) is transcendental, never a binary32 midpoint, so
//   ExpF32Cr(x) >= r exactly when exp(x) > b, b the midpoint of r and its binary32
//   predecessor; d is therefore ln(b) rounded up to binary32 (ln b is never a float). The
//   code takes LogF64Dd(b) (b exact in binary64: 25 significant bits) rounded up to binary32
//   as its guess, then steps along the binary32 order while ExpF32Cr says the guess is wrong:
//   the steps make d exact whatever the guess, the guess only makes them few.
// - Cost: one LogF64Dd and two ExpF32Cr (the guess and its predecessor), against one ExpF32Cr
//   per decided x.
// - Bit-reproducible on host and device: LogF64Dd and ExpF32Cr are (exp.h, log.h), the rest
//   is integer and exact binary64 arithmetic.
// Example: ExpF32CrThreshold(1.0f) == -0x1p-25f; ExpF32CrThreshold(0.5f) == -0x1.62e43p-1f.

#include <cstdint>

#include "core/portability.h"
#include "reference/math/bits.h"
#include "reference/math/exp.h"
#include "reference/math/log.h"

namespace sampcheck::math {
namespace detail {

// The binary32 order as an unsigned order (-inf lowest, -0 just below +0); x not NaN.
SAMPCHECK_HOST_DEVICE constexpr std::uint32_t F32OrderBits(float x) {
  const std::uint32_t b = F32Bits(x);
  return (b & 0x80000000u) != 0 ? ~b : b | 0x80000000u;
}
SAMPCHECK_HOST_DEVICE constexpr float F32OfOrderBits(std::uint32_t o) {
  return F32FromBits((o & 0x80000000u) != 0 ? o & 0x7fffffffu : ~o);
}

}  // namespace detail

SAMPCHECK_HOST_DEVICE inline float ExpF32CrThreshold(float r) {
  if (r != r) return QuietF32(r);
  if (!(r > 0.0f)) return F32FromBits(0xff800000u);  // -inf
  // b: the midpoint below r (for r = +inf, the largest finite float is a guess close enough).
  const float below = detail::F32OfOrderBits(detail::F32OrderBits(r) - 1u);
  const double b = r == F32FromBits(0x7f800000u) ? static_cast<double>(below)
                                                  : 0.5 * (static_cast<double>(below) + static_cast<double>(r));
  const double log_b = LogF64Dd(b);
  std::uint32_t o = detail::F32OrderBits(static_cast<float>(log_b));
  if (static_cast<double>(detail::F32OfOrderBits(o)) < log_b) ++o;  // rounded up, as d is
  // The up-set's least element: step up while the guess fails, then down while its
  // predecessor passes. Both loops stop: ExpF32Cr(+inf) = +inf >= r and ExpF32Cr(-inf) = 0 < r.
  while (!(ExpF32Cr(detail::F32OfOrderBits(o)) >= r)) ++o;
  while (ExpF32Cr(detail::F32OfOrderBits(o - 1u)) >= r) --o;
  return detail::F32OfOrderBits(o);
}

}  // namespace sampcheck::math
