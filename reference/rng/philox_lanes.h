// SPDX-License-Identifier: Apache-2.0
#pragma once
// Philox4x32-10 on many counters at once, in SIMD lanes: 16 (AVX-512F) or 8 (AVX2) blocks per
// call, bit-identical to Philox4x32_10 of reference/rng/philox.h (docs/spec/rng.md
// "Philox4x32-10"). Host only; the bulk noise of the reference's own draws
// (reference/count_draws.cc).
//
// Contract:
// - Lanes hold one 32-bit word of one block each: c0..c3 are ctr[0..3] of the lanes' counters
//   (structure of arrays), all under one key. Philox10x16 / Philox10x8 replace c0..c3 by the
//   output words v[0..3] of each lane's block.
// - One round in 32-bit lanes, no 64-bit lanes and no gathers: the 32 x 32 -> 64 products
//   come from two unsigned even-lane multiplies (_mm512_mul_epu32 / _mm256_mul_epu32: even
//   lanes as they are, odd lanes shifted down), whose high and low halves are put back in
//   place by shifts and a 0xAAAA lane blend; the counters stay in registers for all ten rounds.
// - PhiloxLanes (the span form, for tests and bulk use) picks the widest path the host has,
//   or the one named, and handles any count (the tail through the scalar Philox4x32_10).
// - Tested against the scalar Philox and Random123's known answers in every lane and across
//   carries of the 128-bit counter (tests/rng_test.cc, PhiloxLanes.*).
// Example: with c0 = {0, 1, ..., 15} and c1 = c2 = c3 = 0, key {0, 0}, lane 0 of the output
// is Philox4x32_10({0, 0, 0, 0}, {0, 0}) = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}.
#include <cstdint>
#include <span>

#include "reference/rng/philox.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sampcheck::rng {

enum class PhiloxIsa { kScalar, kAvx2, kAvx512 };

// The widest path this host runs (AVX-512F, then AVX2, then scalar).
PhiloxIsa BestPhiloxIsa();
// Whether this host can run `isa`.
bool HostRuns(PhiloxIsa isa);

// out[i] = Philox4x32_10(ctr[i], key) for every i (ctr.size() == out.size()), through `isa`
// (which the host must run).
void PhiloxLanes(std::span<const Philox4x32Block> ctr, Philox4x32Key key, std::span<Philox4x32Block> out,
                 PhiloxIsa isa);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

// K independent sets of 16 blocks, round by round (their products overlap in the pipeline):
// c[k][w] is word w of set k, replaced by the output words.
template <int K>
__attribute__((target("avx512f"))) inline void Philox10x16Sets(__m512i (&c)[K][4], Philox4x32Key key) {
  const __m512i m0 = _mm512_set1_epi64(detail::kPhiloxM0);  // mul_epu32 reads the low word
  const __m512i m1 = _mm512_set1_epi64(detail::kPhiloxM1);
  const __m512i w0 = _mm512_set1_epi32(static_cast<int>(detail::kPhiloxW0));
  const __m512i w1 = _mm512_set1_epi32(static_cast<int>(detail::kPhiloxW1));
  __m512i k0 = _mm512_set1_epi32(static_cast<int>(key.v[0]));
  __m512i k1 = _mm512_set1_epi32(static_cast<int>(key.v[1]));
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 = _mm512_add_epi32(k0, w0);
      k1 = _mm512_add_epi32(k1, w1);
    }
    for (int k = 0; k < K; ++k) {
      const __m512i e0 = _mm512_mul_epu32(c[k][0], m0);                         // even lanes' products
      const __m512i o0 = _mm512_mul_epu32(_mm512_srli_epi64(c[k][0], 32), m0);  // odd lanes' products
      const __m512i e1 = _mm512_mul_epu32(c[k][2], m1);
      const __m512i o1 = _mm512_mul_epu32(_mm512_srli_epi64(c[k][2], 32), m1);
      const __m512i hi0 = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(e0, 32), o0);
      const __m512i lo0 = _mm512_mask_blend_epi32(0xAAAA, e0, _mm512_slli_epi64(o0, 32));
      const __m512i hi1 = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(e1, 32), o1);
      const __m512i lo1 = _mm512_mask_blend_epi32(0xAAAA, e1, _mm512_slli_epi64(o1, 32));
      c[k][0] = _mm512_ternarylogic_epi32(hi1, c[k][1], k0, 0x96);  // hi1 ^ c1 ^ k0
      c[k][2] = _mm512_ternarylogic_epi32(hi0, c[k][3], k1, 0x96);  // hi0 ^ c3 ^ k1
      c[k][1] = lo1;
      c[k][3] = lo0;
    }
  }
}

// 16 blocks: c0..c3 in, output words out, in place.
__attribute__((target("avx512f"))) inline void Philox10x16(__m512i& c0, __m512i& c1, __m512i& c2, __m512i& c3,
                                                          Philox4x32Key key) {
  __m512i c[1][4] = {{c0, c1, c2, c3}};
  Philox10x16Sets<1>(c, key);
  c0 = c[0][0];
  c1 = c[0][1];
  c2 = c[0][2];
  c3 = c[0][3];
}

// 8 blocks, the same in AVX2.
__attribute__((target("avx2"))) inline void Philox10x8(__m256i& c0, __m256i& c1, __m256i& c2, __m256i& c3,
                                                      Philox4x32Key key) {
  const __m256i m0 = _mm256_set1_epi64x(detail::kPhiloxM0);
  const __m256i m1 = _mm256_set1_epi64x(detail::kPhiloxM1);
  const __m256i w0 = _mm256_set1_epi32(static_cast<int>(detail::kPhiloxW0));
  const __m256i w1 = _mm256_set1_epi32(static_cast<int>(detail::kPhiloxW1));
  __m256i k0 = _mm256_set1_epi32(static_cast<int>(key.v[0]));
  __m256i k1 = _mm256_set1_epi32(static_cast<int>(key.v[1]));
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 = _mm256_add_epi32(k0, w0);
      k1 = _mm256_add_epi32(k1, w1);
    }
    const __m256i e0 = _mm256_mul_epu32(c0, m0);
    const __m256i o0 = _mm256_mul_epu32(_mm256_srli_epi64(c0, 32), m0);
    const __m256i e1 = _mm256_mul_epu32(c2, m1);
    const __m256i o1 = _mm256_mul_epu32(_mm256_srli_epi64(c2, 32), m1);
    const __m256i hi0 = _mm256_blend_epi32(_mm256_srli_epi64(e0, 32), o0, 0xAA);
    const __m256i lo0 = _mm256_blend_epi32(e0, _mm256_slli_epi64(o0, 32), 0xAA);
    const __m256i hi1 = _mm256_blend_epi32(_mm256_srli_epi64(e1, 32), o1, 0xAA);
    const __m256i lo1 = _mm256_blend_epi32(e1, _mm256_slli_epi64(o1, 32), 0xAA);
    c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0);
    c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1);
    c1 = lo1;
    c3 = lo0;
  }
}

#endif

}  // namespace sampcheck::rng
