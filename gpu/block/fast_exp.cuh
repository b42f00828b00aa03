// SPDX-License-Identifier: Apache-2.0
#pragma once
// An exponential in binary32 arithmetic within one ulp, for sums whose bits no rule rests on:
// gpu-fast's weights e_i = exp(s_i - m) that its reads of the whole row sum and draw from
// (docs/gpu.md "gpu-fast"), and the bit-exact partition's reach, an estimate of where top-p's
// walk ends that decides which buckets are stored first and no result
// (gpu/kernels/sampling_filters_on_partition.cuh, TopPReach). Not correctly rounded, which is
// gpu-fast's freedom; every decision of a rule (gpu-fast's min-p too) keeps the correctly rounded
// ExpF32Cr (reference/math/exp.h), whose monotonicity the order's rules need.
//
// Contract:
// - FastExpF32(x) is within 1 ulp of exp(x) (the ulp of the correctly rounded result, a
//   subnormal one included): measured against ExpF32Cr on every binary32 of [-104, 89] on
//   2026-12-04 (2.24e9 inputs, 99.2 % of them correctly rounded, 2,861 places where it is not
//   monotone), and in CI on every 61st and around every switch of k
//   (tests/gpu_fast_exp_test.cc).
// - FastExpF32(+-0) = 1 exactly (k = 0, r = 0: every Horner step adds to 0); x <= -104 (and
//   -inf) gives +0, since exp(-104) < 2^-150 rounds to 0; x >= 89 (and +inf) gives +inf; a
//   NaN gives a NaN (its payload as the hardware's arithmetic makes it: the host quiets the
//   input's, the device returns its canonical NaN). Not monotone by construction (the roundings of the reduction and of the
//   polynomial): no rule may rest on its order.
// - The same bits on the host and the device for every other input: + - * only, no fma (-ffp-contract=off on the
//   host, -fmad=false on the device), rounding to an integer by adding and subtracting
//   1.5 x 2^23, the power of two by its exponent bits.
// Why: ExpF32Cr's fast path is about 30 binary64 operations (half the rate of binary32 on the
// H100) and 40 others an entry, with branches to its slow path; FastExpF32 is 31 binary32 and
// integer instructions, no branch (the SASS of nvcc 13.0, sm_90). The rows whose reads take
// every entry's weight (top-k off or near V, flat rows) are the ones it bears on.
// Algorithm (Cody and Waite's reduction, Cephes' expf constants):
//   1. k = round(x log2(e)), |k| <= 151.
//   2. r = (x - k C1) - k C2, C1 = 0.693359375 (9 significant bits: k C1 is exact, and so is
//      x - k C1, a multiple of ulp(x) below 2^24 of them), C2 = -2.12194440e-4 (C1 + C2 = ln 2
//      to 2^-39: |k| 2^-39 < 2^-31 in r). |r| <= 0.35.
//   3. exp(r) by its Taylor polynomial of degree 7 in Horner's form; the truncation is below
//      r^8 / 8! x e^0.35 < 8e-9 relative (0.13 ulp).
//   4. exp(x) = exp(r) 2^k1 2^k2 (k1 = k / 2, k2 = k - k1, each a normal power of two): the
//      first product is exact, the second rounds once, to a subnormal or to +inf as it falls.
// Example: FastExpF32(0.0f) == 1.0f; FastExpF32(1.0f) is e = 0x1.5bf0a8p+1 or a neighbour
//   (tests/gpu_fast_exp_test.cc).

#include <cstdint>
#include <cstring>

#include "core/portability.h"

namespace sampcheck::gpu {

// 2^e for e in [-126, 127]; any other e gives some pattern, no undefined behaviour (a NaN's k).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float FastPow2F32(std::int32_t e) {
  const std::uint32_t bits = (static_cast<std::uint32_t>(e) + 127u) << 23;
  float y;
  std::memcpy(&y, &bits, sizeof y);
  return y;
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float FastExpF32(float x) {
  // A NaN passes both clamps and makes r, and so the result, a NaN: no branch.
  x = x < -104.0f ? -104.0f : x;
  x = x > 89.0f ? 89.0f : x;
  constexpr float kRound = 12582912.0f;  // 1.5 x 2^23: v + kRound has v's nearest integer in its low bits
  const float biased = x * 1.44269504088896341f + kRound;
  const float kf = biased - kRound;
  std::uint32_t biased_bits, round_bits;
  std::memcpy(&biased_bits, &biased, sizeof biased_bits);
  std::memcpy(&round_bits, &kRound, sizeof round_bits);
  const auto k = static_cast<std::int32_t>(biased_bits - round_bits);
  const float r = (x - kf * 0.693359375f) - kf * -2.12194440e-4f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const std::int32_t k1 = k / 2;
  return p * FastPow2F32(k1) * FastPow2F32(k - k1);
}

}  // namespace sampcheck::gpu
