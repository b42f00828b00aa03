// SPDX-License-Identifier: Apache-2.0
// The reference backend's own draws: a fast exponential race (reference/count_draws.h).
#include "reference/count_draws.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's avx512fintrin.h starts some results from _mm512_undefined_*(), which
// -Wmaybe-uninitialized (and, for the shifts and conversions, -Wuninitialized) reports once
// inlined at -O3 (GCC bug 105593); the code is correct.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "core/error.h"
#include "core/stage_catalogue.h"
#include "reference/exponential_race.h"
#include "reference/pipeline.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/streams.h"
#include "reference/rng/uniform.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {
namespace {

// 1 + 2^-22: the bound of count_draws.h; p * kMargin is exact in double for an f32 p.
constexpr double kMargin = 1.0 + 0x1p-22;
// The series coefficients of -log1p(-u) rounded to double (their 2^-53 relative errors are
// inside the brackets' budget, count_draws.h).
constexpr double kThird = 1.0 / 3.0, kSixth = 1.0 / 6.0, kTwoSevenths = 2.0 / 7.0;

// NegLog1pNegApprox (count_draws.h, docs/spec/count_draws.md): z in [11/16, 22/16) in 16
// buckets of x's bits (bucket i: bits [0x3f300000 + i 2^19, + 2^19); 10 buckets of width 1/32
// below 1, 6 of width 1/16 above); c_i = RN(1 / centre) (kInvC = 1 / c, kLogInvC = RN(log(1 /
// c)), from mpmath at 200 bits), 1 exactly for the buckets next to 1 so that r = z - 1 there.
constexpr float kInvC[16] = {0x1.6c16c2p+0f, 0x1.5c9882p+0f, 0x1.4e5e0ap+0f, 0x1.414142p+0f,
                             0x1.3521d0p+0f, 0x1.29e412p+0f, 0x1.1f7048p+0f, 0x1.15b1e6p+0f,
                             0x1.0c9714p+0f, 1.0f,           1.0f,           0x1.d41d42p-1f,
                             0x1.bacf92p-1f, 0x1.a41a42p-1f, 0x1.8f9c18p-1f, 0x1.7d05f4p-1f};
constexpr float kLogInvC[16] = {0x1.68ac86p-2f,  0x1.3c2526p-2f,  0x1.1178e6p-2f,  0x1.d10384p-3f,
                                0x1.823c18p-3f,  0x1.365fc6p-3f,  0x1.da7278p-4f,  0x1.4d3116p-4f,
                                0x1.894a84p-5f,  0.0f,            0.0f,            -0x1.6f0d28p-4f,
                                -0x1.29552cp-3f, -0x1.9525a8p-3f, -0x1.fb918cp-3f, -0x1.2e8e2cp-2f};
constexpr std::int32_t kZOffset = 0x3f300000;  // the bits of 11/16
constexpr float kLn2F = 0x1.62e430p-1f;        // RN(ln 2)
constexpr float kThirdF = 0x1.555556p-2f;      // RN(1/3)
// The band of a certain winner (docs/spec/count_draws.md "The certificate"). A key A = RN(Qa *
// RN(1 / p)) times the real ratio p / q lies in [L, U], L = (1 - 2^-15)(1 - 2^-24)^2 / (1 +
// 2^-24), U = (1 + 2^-15)(1 + 2^-24)^2 / (1 - 2^-24) (Qa's bound, RN(1 / p), the product, q's
// rounding); a2 > RN(a1 B) then gives every other f32 ratio strictly below the winner's when B
// >= U (1 + 2^-24) / (L (1 - 2^-24)^2) = 1 + 2^-14 + about 9 2^-24. 1 + 2^-13 leaves a factor of
// two; about 1 draw in 10^4 is redrawn.
constexpr float kBand = 1.0f + 0x1p-13f;
// Probabilities whose f32 ratios p / q (q in {0} u [2^-24, 24 ln2]) and keys stay normal and
// finite: the lanes' certificate needs strict inequalities to survive rounding.
constexpr float kLanesMinP = 0x1p-100f, kLanesMaxP = 0x1p100f;

float BitsToFloat(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
std::uint32_t FloatToBits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

rng::Philox4x32Block NoiseBlock(std::uint64_t seed, std::uint32_t row, std::uint32_t draw, std::uint32_t block) {
  return rng::StreamBlock(rng::Stream::kCountDraws, seed, block, draw, row);
}

// A prepared row as the draw paths read it.
struct RaceView {
  const std::int32_t* ids;
  const float* p;
  const double* p_margin;        // token order
  const double* p_margin_lanes;  // lane order (count_draws.h)
  std::size_t n;
};

// A token in the race: its f32 ratio p / q, either known exactly or only bracketed,
// lo <= ratio <= hi (count_draws.h "Lazy ratios"); both in double.
struct Entry {
  std::int64_t id = -1;
  std::size_t j = 0;
  float u = 0.0f;
  bool exact = false;
  double lo = 0.0, hi = 0.0;
};

void MakeExact(Entry& e, const RaceView& v) {
  if (e.exact) return;
  const float r = v.p[e.j] / rng::ExponentialNegLog1pNegF32(e.u);
  e.exact = true;
  e.lo = e.hi = static_cast<double>(r);
}

// Offers support token j, whose Philox word is `word`, to the race whose best entry is b
// (count_draws.h "Lazy ratios"): skipped when (u + u^2/2) * best.lo >= p (1 + 2^-22); for
// 0 < u <= 1/2, -log1p(-u) is bracketed by its series and the token is dropped or taken by
// products alone (no division, no logarithm) unless the brackets overlap; otherwise, and on an
// overlap, the logarithms are taken and the exact ratios compared (ties to the lower index).
inline void Offer(Entry& b, const RaceView& v, std::size_t j, std::uint32_t word) {
  const float u = rng::UniformClosedOpen24F32(word);
  const double ud = u;
  if (b.id >= 0 && (ud + ud * ud * 0.5) * b.lo >= v.p_margin[j]) return;  // cannot win
  const double p = v.p[j];
  Entry c{v.ids[j], j, u, false, 0.0, 0.0};
  if (ud > 0.0 && ud <= 0.5) {
    // q = sum u^k / k: a = the terms k <= 6, and the rest <= u^7 / (7 (1 - u)) <= 2 u^7 / 7.
    const double a =
        ud * (1.0 + ud * (0.5 + ud * (kThird + ud * (0.25 + ud * (0.2 + ud * kSixth)))));
    const double u2 = ud * ud;
    const double a_hi = a + (u2 * u2) * (u2 * ud) * kTwoSevenths;
    if (b.id >= 0) {
      if (p * (1.0 + 0x1p-22) < b.lo * a) return;  // certainly smaller
      if (!(p * (1.0 - 0x1p-22) > b.hi * a_hi)) {   // not certainly larger: compare exactly
        MakeExact(b, v);
        MakeExact(c, v);
        if (c.lo > b.lo || (c.lo == b.lo && c.id < b.id)) b = c;
        return;
      }
    }
    c.lo = p / a_hi * (1.0 - 0x1p-22);
    c.hi = p / a * (1.0 + 0x1p-22);
    b = c;
    return;
  }
  MakeExact(c, v);
  if (b.id < 0 || c.lo > b.hi) {
    b = c;
    return;
  }
  if (c.lo < b.lo) return;
  MakeExact(b, v);
  if (c.lo > b.lo || (c.lo == b.lo && c.id < b.id)) b = c;
}

std::int64_t DrawScalar(const RaceView& v, std::uint64_t seed, std::uint32_t row, std::uint32_t draw) {
  Entry b;
  for (std::size_t j0 = 0; j0 < v.n; j0 += 4) {
    const rng::Philox4x32Block words = NoiseBlock(seed, row, draw, static_cast<std::uint32_t>(j0 / 4));
    const std::size_t end = std::min(v.n, j0 + 4);
    for (std::size_t j = j0; j < end; ++j) Offer(b, v, j, words.v[j - j0]);
  }
  return b.id;
}

// Every q and every f32 ratio, the largest ratio winning (ties to the lower index): the rows
// whose ratios may be subnormal, zero or overflow (count_draws.h), where the brackets' relative
// bounds do not hold.
std::int64_t DrawExact(const RaceView& v, std::uint64_t seed, std::uint32_t row, std::uint32_t draw) {
  std::int64_t best = -1;
  float best_ratio = 0.0f;
  for (std::size_t j0 = 0; j0 < v.n; j0 += 4) {
    const rng::Philox4x32Block words = NoiseBlock(seed, row, draw, static_cast<std::uint32_t>(j0 / 4));
    for (std::size_t j = j0; j < std::min(v.n, j0 + 4); ++j) {
      const float r = v.p[j] / rng::ExponentialNegLog1pNegF32(rng::UniformClosedOpen24F32(words.v[j - j0]));
      if (best < 0 || r > best_ratio || (r == best_ratio && v.ids[j] < best)) best = v.ids[j], best_ratio = r;
    }
  }
  return best;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

// Words 0..3 of 16 blocks (lane l: block l) to token order (tokens[k] lane i: token 16 k + i,
// word i % 4 of block 4 k + i / 4): 32- and 64-bit unpacks, then two rounds of 128-bit lane
// shuffles.
__attribute__((target("avx512f"))) inline void ToTokenOrder(const __m512i (&x)[4], __m512i (&tokens)[4]) {
  const __m512i a = _mm512_unpacklo_epi32(x[0], x[1]), b = _mm512_unpackhi_epi32(x[0], x[1]);
  const __m512i c = _mm512_unpacklo_epi32(x[2], x[3]), d = _mm512_unpackhi_epi32(x[2], x[3]);
  // t_k's 128-bit lane m: block 4 m + k.
  const __m512i t0 = _mm512_unpacklo_epi64(a, c), t1 = _mm512_unpackhi_epi64(a, c);
  const __m512i t2 = _mm512_unpacklo_epi64(b, d), t3 = _mm512_unpackhi_epi64(b, d);
  const __m512i s0 = _mm512_shuffle_i32x4(t0, t1, 0x44), s1 = _mm512_shuffle_i32x4(t0, t1, 0xEE);
  const __m512i s2 = _mm512_shuffle_i32x4(t2, t3, 0x44), s3 = _mm512_shuffle_i32x4(t2, t3, 0xEE);
  tokens[0] = _mm512_shuffle_i32x4(s0, s2, 0x88);
  tokens[1] = _mm512_shuffle_i32x4(s0, s2, 0xDD);
  tokens[2] = _mm512_shuffle_i32x4(s1, s3, 0x88);
  tokens[3] = _mm512_shuffle_i32x4(s1, s3, 0xDD);
}

// The bound on 64 tokens (token order) against `best`: bit t set when token t may still win.
__attribute__((target("avx512f"))) inline std::uint64_t PassMask(const __m512i (&tokens)[4], const double* pm,
                                                                double best_lo) {
  const __m512d scale = _mm512_set1_pd(0x1p-24), half = _mm512_set1_pd(0.5), best = _mm512_set1_pd(best_lo);
  std::uint64_t pass = 0;
  for (int h = 0; h < 8; ++h) {
    const __m512i top = _mm512_srli_epi32(tokens[h / 2], 8);  // UniformClosedOpen24F32's 24 bits
    const __m256i half_top = h % 2 == 0 ? _mm512_castsi512_si256(top) : _mm512_extracti64x4_epi64(top, 1);
    const __m512d u = _mm512_mul_pd(_mm512_cvtepi32_pd(half_top), scale);
    const __m512d bound = _mm512_add_pd(u, _mm512_mul_pd(_mm512_mul_pd(u, u), half));
    // !(bound * best >= p_margin), NaN (0 * inf) included: the scalar rule's complement.
    const unsigned m = _mm512_cmp_pd_mask(_mm512_mul_pd(bound, best), _mm512_loadu_pd(pm + 8 * h), _CMP_NGE_UQ);
    pass |= static_cast<std::uint64_t>(m) << (8 * h);
  }
  return pass;
}

// 64 tokens per group (16 Philox blocks in lanes, two groups' blocks computed together), put
// in token order, the bound as one 64-bit mask per group against the best at the start of the
// group, and the passing tokens offered in order (Offer re-tests them against the current best).
__attribute__((target("avx512f"))) std::int64_t DrawLanes16(const RaceView& v, std::uint64_t seed,
                                                            std::uint32_t row, std::uint32_t draw) {
  const rng::Philox4x32Key key = rng::SeedKey(seed);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i c1 = _mm512_set1_epi32(static_cast<int>(draw));
  const __m512i c2 = _mm512_set1_epi32(static_cast<int>(row));
  const __m512i c3 = _mm512_set1_epi32(static_cast<int>(rng::Stream::kCountDraws));
  alignas(64) std::uint32_t words[2][64];  // token order within each group
  __m512i tokens[2][4];
  const std::size_t n = v.n;
  const double* pm = v.p_margin_lanes;  // token order, padded to a multiple of 64
  Entry b;
  for (std::size_t g0 = 0; 64 * g0 < n; g0 += 2) {
    const bool two = 64 * (g0 + 1) < n;
    if (two) {
      __m512i x[2][4] = {{_mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(16 * g0)), iota), c1, c2, c3},
                         {_mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(16 * g0 + 16)), iota), c1, c2, c3}};
      rng::Philox10x16Sets<2>(x, key);
      ToTokenOrder(x[0], tokens[0]);
      ToTokenOrder(x[1], tokens[1]);
    } else {
      __m512i x[1][4] = {{_mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(16 * g0)), iota), c1, c2, c3}};
      rng::Philox10x16Sets<1>(x, key);
      ToTokenOrder(x[0], tokens[0]);
    }
    for (int k = 0; k < (two ? 2 : 1); ++k) {
      const std::size_t g = g0 + static_cast<std::size_t>(k);
      for (int i = 0; i < 4; ++i) _mm512_store_si512(words[k] + 16 * i, tokens[k][i]);
      if (g == 0) Offer(b, v, 0, words[0][0]);
      std::uint64_t pass = PassMask(tokens[k], pm + 64 * g, b.lo);
      if (g == 0) pass &= ~std::uint64_t{1};  // token 0 was offered
      for (; pass != 0; pass &= pass - 1) {
        const auto t = static_cast<std::size_t>(__builtin_ctzll(pass));
        if (64 * g + t >= n) break;
        Offer(b, v, 64 * g + t, words[k][t]);
      }
    }
  }
  return b.id;
}

// The same in AVX2: 32 tokens per group, 8 Philox blocks, 2 x 4 double lanes per word.
__attribute__((target("avx2,bmi2"))) std::int64_t DrawLanes8(const RaceView& v, std::uint64_t seed,
                                                             std::uint32_t row, std::uint32_t draw) {
  const rng::Philox4x32Key key = rng::SeedKey(seed);
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i c1 = _mm256_set1_epi32(static_cast<int>(draw));
  const __m256i c2 = _mm256_set1_epi32(static_cast<int>(row));
  const __m256i c3 = _mm256_set1_epi32(static_cast<int>(rng::Stream::kCountDraws));
  const __m256d scale = _mm256_set1_pd(0x1p-24), half = _mm256_set1_pd(0.5);
  alignas(32) std::uint32_t words[4][8];
  Entry b;
  for (std::size_t g = 0; 32 * g < v.n; ++g) {
    __m256i x[4] = {_mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(8 * g)), iota), c1, c2, c3};
    rng::Philox10x8(x[0], x[1], x[2], x[3], key);
    for (int w = 0; w < 4; ++w) _mm256_store_si256(reinterpret_cast<__m256i*>(words[w]), x[w]);
    if (g == 0) Offer(b, v, 0, words[0][0]);
    const __m256d best = _mm256_set1_pd(b.lo);
    const double* pm = v.p_margin_lanes + 32 * g;
    std::uint32_t pass = 0;
    for (int w = 0; w < 4; ++w) {
      const __m256i top = _mm256_srli_epi32(x[w], 8);
      const __m256d ulo = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(top)), scale);
      const __m256d uhi = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(top, 1)), scale);
      const __m256d llo = _mm256_add_pd(ulo, _mm256_mul_pd(_mm256_mul_pd(ulo, ulo), half));
      const __m256d lhi = _mm256_add_pd(uhi, _mm256_mul_pd(_mm256_mul_pd(uhi, uhi), half));
      const auto mlo = static_cast<unsigned>(
          _mm256_movemask_pd(_mm256_cmp_pd(_mm256_mul_pd(llo, best), _mm256_loadu_pd(pm + 8 * w), _CMP_NGE_UQ)));
      const auto mhi = static_cast<unsigned>(
          _mm256_movemask_pd(_mm256_cmp_pd(_mm256_mul_pd(lhi, best), _mm256_loadu_pd(pm + 8 * w + 4), _CMP_NGE_UQ)));
      pass |= _pdep_u32(mlo | (mhi << 4), 0x11111111u << w);
    }
    if (g == 0) pass &= ~1u;
    for (; pass != 0; pass &= pass - 1) {
      const auto t = static_cast<unsigned>(__builtin_ctz(pass));
      const std::size_t j = 32 * g + t;
      if (j >= v.n) break;
      Offer(b, v, j, words[t & 3][t >> 2]);
    }
  }
  return b.id;
}


// NegLog1pNegApprox (count_draws.h) on 16 lanes of m = w >> 8: the scalar's operations in
// the same order, so the same bits.
__attribute__((target("avx512f"))) inline __m512 NegLog1pNegApprox16(__m512i m) {
  const __m512i ix = _mm512_castps_si512(_mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_set1_epi32(1 << 24), m)));
  const __m512i tmp = _mm512_sub_epi32(ix, _mm512_set1_epi32(kZOffset));
  const __m512i k = _mm512_srli_epi32(tmp, 23);
  const __m512 z = _mm512_castsi512_ps(_mm512_sub_epi32(ix, _mm512_slli_epi32(k, 23)));
  const __m512i i = _mm512_srli_epi32(tmp, 19);  // the permutes read the low 4 bits
  const __m512 inv_c = _mm512_permutexvar_ps(i, _mm512_loadu_ps(kInvC));
  const __m512 log_inv_c = _mm512_permutexvar_ps(i, _mm512_loadu_ps(kLogInvC));
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 r = _mm512_sub_ps(_mm512_mul_ps(z, inv_c), one);
  __m512 y = _mm512_add_ps(_mm512_mul_ps(r, _mm512_set1_ps(kThirdF)), _mm512_set1_ps(-0.5f));
  y = _mm512_add_ps(_mm512_mul_ps(y, r), one);
  const __m512 poly = _mm512_mul_ps(y, r);
  const __m512 kk = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_set1_epi32(24), k));
  return _mm512_sub_ps(_mm512_add_ps(_mm512_mul_ps(kk, _mm512_set1_ps(kLn2F)), log_inv_c), poly);
}

// The same on 8 lanes (AVX2: two 8-entry permutes and a blend on the index's bit 3).
__attribute__((target("avx2"))) inline __m256 NegLog1pNegApprox8(__m256i m) {
  const __m256i ix = _mm256_castps_si256(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_set1_epi32(1 << 24), m)));
  const __m256i tmp = _mm256_sub_epi32(ix, _mm256_set1_epi32(kZOffset));
  const __m256i k = _mm256_srli_epi32(tmp, 23);
  const __m256 z = _mm256_castsi256_ps(_mm256_sub_epi32(ix, _mm256_slli_epi32(k, 23)));
  const __m256i i = _mm256_srli_epi32(tmp, 19);
  const __m256 high = _mm256_castsi256_ps(_mm256_slli_epi32(i, 28));  // sign bit = bucket >= 8
  const __m256 inv_c = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(kInvC), i),
                                        _mm256_permutevar8x32_ps(_mm256_loadu_ps(kInvC + 8), i), high);
  const __m256 log_inv_c = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(kLogInvC), i),
                                            _mm256_permutevar8x32_ps(_mm256_loadu_ps(kLogInvC + 8), i), high);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 r = _mm256_sub_ps(_mm256_mul_ps(z, inv_c), one);
  __m256 y = _mm256_add_ps(_mm256_mul_ps(r, _mm256_set1_ps(kThirdF)), _mm256_set1_ps(-0.5f));
  y = _mm256_add_ps(_mm256_mul_ps(y, r), one);
  const __m256 poly = _mm256_mul_ps(y, r);
  const __m256 kk = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_set1_epi32(24), k));
  return _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(kk, _mm256_set1_ps(kLn2F)), log_inv_c), poly);
}

// NegLog1pNegApprox of 16 / 8 words (detail::NegLog1pNegApproxLanes).
__attribute__((target("avx512f"))) void ApproxLanes16(const std::uint32_t* words, float* out) {
  _mm512_storeu_ps(out, NegLog1pNegApprox16(_mm512_srli_epi32(_mm512_loadu_si512(words), 8)));
}
__attribute__((target("avx2"))) void ApproxLanes8(const std::uint32_t* words, float* out) {
  const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words));
  _mm256_storeu_ps(out, NegLog1pNegApprox8(_mm256_srli_epi32(w, 8)));
}

// A row as the draws-in-lanes paths read it (count_draws.h "Many draws at once").
struct LanesView {
  const float* inv_p;      // RN(1 / p)
  const float* inv_p_low;  // RN((1 / p) 2^-24 (1 - 2^-14))
  std::size_t n;
};

// The lanes' race state: least key a1, second least a2, a1's support position.
struct Race16 {
  __m512 a1, a2;
  __m512i at;
};

// Token j's word in every lane: the least two keys updated, unless the lower bound already
// reaches a2 in every lane (the update would then change nothing).
__attribute__((target("avx512f"))) inline void Offer16(Race16& race, const LanesView& v, std::size_t j, __m512i word) {
  const __m512i m = _mm512_srli_epi32(word, 8);
  const __m512 lower = _mm512_mul_ps(_mm512_cvtepi32_ps(m), _mm512_set1_ps(v.inv_p_low[j]));
  if (_mm512_cmp_ps_mask(lower, race.a2, _CMP_LT_OQ) == 0) return;
  const __m512 k = _mm512_mul_ps(NegLog1pNegApprox16(m), _mm512_set1_ps(v.inv_p[j]));
  const __mmask16 less = _mm512_cmp_ps_mask(k, race.a1, _CMP_LT_OQ);
  race.a2 = _mm512_min_ps(race.a2, _mm512_max_ps(race.a1, k));
  race.a1 = _mm512_min_ps(race.a1, k);
  race.at = _mm512_mask_mov_epi32(race.at, less, _mm512_set1_epi32(static_cast<int>(j)));
}

// Draws first .. first + 15 of `row` in lanes: win[l] = the support position of lane l's least
// key; bit l of the result set when that winner is certain (a2 > RN(a1 (1 + 2^-13))).
__attribute__((target("avx512f"))) std::uint32_t RaceLanes16(const LanesView& v, rng::Philox4x32Key key,
                                                             std::uint32_t row, std::uint32_t first,
                                                             std::int32_t (&win)[16]) {
  const __m512i c1 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(first)),
                                      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  const __m512i c2 = _mm512_set1_epi32(static_cast<int>(row));
  const __m512i c3 = _mm512_set1_epi32(static_cast<int>(rng::Stream::kCountDraws));
  Race16 race;
  race.a1 = race.a2 = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  race.at = _mm512_setzero_si512();
  const std::size_t n = v.n;
  const std::size_t blocks = (n + 3) / 4;
  std::size_t b = 0;
  for (; b + 2 <= blocks; b += 2) {
    __m512i x[2][4] = {{_mm512_set1_epi32(static_cast<int>(b)), c1, c2, c3},
                       {_mm512_set1_epi32(static_cast<int>(b + 1)), c1, c2, c3}};
    rng::Philox10x16Sets<2>(x, key);
    for (int h = 0; h < 2; ++h) {
      for (std::size_t w = 0; w < 4; ++w) {
        const std::size_t j = 4 * (b + static_cast<std::size_t>(h)) + w;
        if (j < n) Offer16(race, v, j, x[h][w]);
      }
    }
  }
  if (b < blocks) {
    __m512i x[1][4] = {{_mm512_set1_epi32(static_cast<int>(b)), c1, c2, c3}};
    rng::Philox10x16Sets<1>(x, key);
    for (std::size_t w = 0; w < 4; ++w) {
      if (4 * b + w < n) Offer16(race, v, 4 * b + w, x[0][w]);
    }
  }
  _mm512_storeu_si512(win, race.at);
  return _mm512_cmp_ps_mask(race.a2, _mm512_mul_ps(race.a1, _mm512_set1_ps(kBand)), _CMP_GT_OQ);
}

// The same in AVX2: draws first .. first + 7.
__attribute__((target("avx2"))) std::uint32_t RaceLanes8(const LanesView& v, rng::Philox4x32Key key,
                                                         std::uint32_t row, std::uint32_t first,
                                                         std::int32_t (&win)[16]) {
  const __m256i c1 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(first)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i c2 = _mm256_set1_epi32(static_cast<int>(row));
  const __m256i c3 = _mm256_set1_epi32(static_cast<int>(rng::Stream::kCountDraws));
  __m256 a1 = _mm256_set1_ps(std::numeric_limits<float>::infinity()), a2 = a1;
  __m256 at = _mm256_setzero_ps();  // int32 positions, blended as floats
  const std::size_t n = v.n;
  for (std::size_t b = 0; 4 * b < n; ++b) {
    __m256i x[4] = {_mm256_set1_epi32(static_cast<int>(b)), c1, c2, c3};
    rng::Philox10x8(x[0], x[1], x[2], x[3], key);
    for (std::size_t w = 0; w < 4 && 4 * b + w < n; ++w) {
      const std::size_t j = 4 * b + w;
      const __m256i m = _mm256_srli_epi32(x[w], 8);
      const __m256 lower = _mm256_mul_ps(_mm256_cvtepi32_ps(m), _mm256_set1_ps(v.inv_p_low[j]));
      if (_mm256_movemask_ps(_mm256_cmp_ps(lower, a2, _CMP_LT_OQ)) == 0) continue;
      const __m256 k = _mm256_mul_ps(NegLog1pNegApprox8(m), _mm256_set1_ps(v.inv_p[j]));
      const __m256 less = _mm256_cmp_ps(k, a1, _CMP_LT_OQ);
      a2 = _mm256_min_ps(a2, _mm256_max_ps(a1, k));
      a1 = _mm256_min_ps(a1, k);
      at = _mm256_blendv_ps(at, _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(j))), less);
    }
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(win), _mm256_castps_si256(at));
  return static_cast<std::uint32_t>(
      _mm256_movemask_ps(_mm256_cmp_ps(a2, _mm256_mul_ps(a1, _mm256_set1_ps(kBand)), _CMP_GT_OQ)));
}

#endif

int Lanes(rng::PhiloxIsa isa) {
  switch (isa) {
    case rng::PhiloxIsa::kAvx512: return 16;
    case rng::PhiloxIsa::kAvx2: return 8;
    case rng::PhiloxIsa::kScalar: return 0;
  }
  return 0;
}

}  // namespace

bool RaceRow::Runs(rng::PhiloxIsa isa) {
  if (isa == rng::PhiloxIsa::kScalar) return true;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return rng::HostRuns(isa) && __builtin_cpu_supports("bmi2");
#else
  return false;
#endif
}

RaceRow::RaceRow(std::span<const float> probs)
    : RaceRow(probs, Runs(rng::PhiloxIsa::kAvx512) ? rng::PhiloxIsa::kAvx512
                     : Runs(rng::PhiloxIsa::kAvx2) ? rng::PhiloxIsa::kAvx2
                                                   : rng::PhiloxIsa::kScalar) {}

RaceRow::RaceRow(std::span<const float> probs, rng::PhiloxIsa isa)
    : isa_(isa), vocab_(static_cast<std::int64_t>(probs.size())) {
  if (!Runs(isa)) throw std::invalid_argument("RaceRow: this host cannot run the requested vector path");
  for (std::size_t i = 0; i < probs.size(); ++i) {
    if (probs[i] > 0.0f) ids_.push_back(static_cast<std::int32_t>(i));
  }
  std::stable_sort(ids_.begin(), ids_.end(), [&](std::int32_t a, std::int32_t b) {
    return probs[static_cast<std::size_t>(a)] > probs[static_cast<std::size_t>(b)];
  });
  for (std::int32_t i : ids_) {
    p_.push_back(probs[static_cast<std::size_t>(i)]);
    p_margin_.push_back(static_cast<double>(probs[static_cast<std::size_t>(i)]) * kMargin);
  }
  normal_ratios_ = true;
  for (const float p : p_) {
    normal_ratios_ = normal_ratios_ && p >= kLanesMinP && p <= kLanesMaxP;
    inv_p_.push_back(1.0f / p);
    inv_p_low_.push_back(static_cast<float>(1.0 / static_cast<double>(p) * 0x1p-24 * (1.0 - 0x1p-14)));
  }
  if (isa == rng::PhiloxIsa::kAvx512) {  // token order, padded
    p_margin_lanes_ = p_margin_;
    p_margin_lanes_.resize((ids_.size() + 63) / 64 * 64, -std::numeric_limits<double>::infinity());
  } else if (const std::size_t w = static_cast<std::size_t>(Lanes(isa)); w > 0) {
    const std::size_t group = 4 * w, groups = (ids_.size() + group - 1) / group;
    p_margin_lanes_.assign(groups * group, -std::numeric_limits<double>::infinity());
    for (std::size_t j = 0; j < ids_.size(); ++j) {
      const std::size_t g = j / group, t = j % group;  // token t of group g: lane t / 4, word t % 4
      p_margin_lanes_[g * group + (t % 4) * w + t / 4] = p_margin_[j];
    }
  }
}

std::int64_t RaceRow::Draw(std::uint64_t seed, std::uint32_t row, std::uint32_t draw) const {
  const std::size_t n = ids_.size();
  if (n == 0) return -1;
  if (n == 1) return ids_[0];
  const RaceView v{ids_.data(), p_.data(), p_margin_.data(), p_margin_lanes_.data(), n};
  if (!normal_ratios_) return DrawExact(v, seed, row, draw);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (isa_ == rng::PhiloxIsa::kAvx512) return DrawLanes16(v, seed, row, draw);
  if (isa_ == rng::PhiloxIsa::kAvx2) return DrawLanes8(v, seed, row, draw);
#endif
  return DrawScalar(v, seed, row, draw);
}

std::int64_t RaceRow::DrawMany(std::uint64_t seed, std::uint32_t row, std::uint32_t first_draw,
                               std::span<std::int64_t> out) const {
  const std::size_t n = ids_.size();
  if (n <= 1) {
    std::fill(out.begin(), out.end(), n == 0 ? std::int64_t{-1} : std::int64_t{ids_[0]});
    return 0;
  }
  std::int64_t redrawn = 0;
  const auto lanes = normal_ratios_ ? static_cast<std::size_t>(Lanes(isa_)) : std::size_t{0};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (lanes > 0) {
    const LanesView v{inv_p_.data(), inv_p_low_.data(), n};
    const rng::Philox4x32Key key = rng::SeedKey(seed);
    for (std::size_t i = 0; i < out.size(); i += lanes) {
      const auto first = static_cast<std::uint32_t>(first_draw + i);
      std::int32_t win[16];
      const std::uint32_t certain = isa_ == rng::PhiloxIsa::kAvx512 ? RaceLanes16(v, key, row, first, win)
                                                                     : RaceLanes8(v, key, row, first, win);
      const std::size_t count = std::min(lanes, out.size() - i);
      for (std::size_t l = 0; l < count; ++l) {
        // An uncertain lane (a tie or a near tie of keys) is drawn again exactly.
        if ((certain >> l & 1u) != 0) {
          out[i + l] = ids_[static_cast<std::size_t>(win[l])];
        } else {
          out[i + l] = Draw(seed, row, first + static_cast<std::uint32_t>(l));
          ++redrawn;
        }
      }
    }
    return redrawn;
  }
#endif
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Draw(seed, row, first_draw + static_cast<std::uint32_t>(i));
  return 0;
}

namespace detail {

float NegLog1pNegApprox(std::uint32_t word) {
  const std::uint32_t m = word >> 8;
  const auto x = static_cast<float>(static_cast<std::int32_t>((1u << 24) - m));  // exact
  const std::uint32_t ix = FloatToBits(x);
  const std::uint32_t tmp = ix - static_cast<std::uint32_t>(kZOffset);  // > 0: x >= 1
  const std::uint32_t k = tmp >> 23;
  const float z = BitsToFloat(ix - (k << 23));
  const std::uint32_t i = (tmp >> 19) & 15u;
  const float r = z * kInvC[i] - 1.0f;
  float y = r * kThirdF + -0.5f;
  y = y * r + 1.0f;
  const float poly = y * r;
  const auto kk = static_cast<float>(24 - static_cast<std::int32_t>(k));
  return (kk * kLn2F + kLogInvC[i]) - poly;
}

void NegLog1pNegApproxLanes(std::span<const std::uint32_t> words, std::span<float> out, rng::PhiloxIsa isa) {
  if (words.size() != out.size()) throw std::invalid_argument("NegLog1pNegApproxLanes: words and out differ in size");
  if (!RaceRow::Runs(isa)) throw std::invalid_argument("NegLog1pNegApproxLanes: this host cannot run the requested path");
  std::size_t i = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (isa == rng::PhiloxIsa::kAvx512) {
    for (; i + 16 <= words.size(); i += 16) {
      ApproxLanes16(words.data() + i, out.data() + i);
    }
  } else if (isa == rng::PhiloxIsa::kAvx2) {
    for (; i + 8 <= words.size(); i += 8) {
      ApproxLanes8(words.data() + i, out.data() + i);
    }
  }
#endif
  for (; i < words.size(); ++i) out[i] = NegLog1pNegApprox(words[i]);
}

}  // namespace detail

std::int64_t RaceRow::DrawNaive(std::uint64_t seed, std::uint32_t row, std::uint32_t draw) const {
  const std::size_t n = ids_.size();
  if (n == 0) return -1;
  std::vector<float> probs(static_cast<std::size_t>(vocab_), 0.0f);
  std::vector<float> q(static_cast<std::size_t>(vocab_), 1.0f);
  for (std::size_t j = 0; j < n; ++j) {
    const rng::Philox4x32Block words = NoiseBlock(seed, row, draw, static_cast<std::uint32_t>(j / 4));
    const auto id = static_cast<std::size_t>(ids_[j]);
    probs[id] = p_[j];
    q[id] = rng::ExponentialNegLog1pNegF32(rng::UniformClosedOpen24F32(words.v[j % 4]));
  }
  return ExponentialRaceRow(probs, q, /*all_tokens=*/false);
}

Tensor CountRaceDraws(std::span<const float> probs, std::int64_t rows, std::int64_t vocab,
                      const std::vector<std::int64_t>& greedy, std::int64_t draws, std::uint64_t seed,
                      std::int64_t first_draw) {
  if (draws < 0 || draws > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("CountDraws: draws = " + std::to_string(draws) + " must be in [0, 2^32)");
  }
  if (first_draw < 0 || first_draw + draws > std::int64_t{1} << 32) {
    throw std::invalid_argument("CountDraws: draws [" + std::to_string(first_draw) + ", " +
                                std::to_string(first_draw + draws) + ") must lie in [0, 2^32)");
  }
  Tensor counts(DType::kI64, {rows, vocab});
  auto out = counts.data<std::int64_t>();
  for (std::int64_t b = 0; b < rows; ++b) {
    auto row_counts = out.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
    if (!greedy.empty() && greedy[static_cast<std::size_t>(b)] >= 0) {
      row_counts[static_cast<std::size_t>(greedy[static_cast<std::size_t>(b)])] = draws;
      continue;
    }
    const RaceRow race(probs.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab)));
    if (race.support() == 0) {
      throw InputError("CountDraws: row " + std::to_string(b) + " has no positive probability: nothing can be drawn");
    }
    std::vector<std::int64_t> winners(static_cast<std::size_t>(std::min<std::int64_t>(draws, 4096)));
    for (std::int64_t d = first_draw; d < first_draw + draws; d += static_cast<std::int64_t>(winners.size())) {
      const auto chunk = std::span<std::int64_t>(winners).first(
          static_cast<std::size_t>(std::min<std::int64_t>(first_draw + draws - d, static_cast<std::int64_t>(winners.size()))));
      race.DrawMany(seed, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(d), chunk);
      for (const std::int64_t t : chunk) ++row_counts[static_cast<std::size_t>(t)];
    }
  }
  return counts;
}

bool SupportsCountDrawsStage(const std::string& stage) {
  const StageInfo* info = FindStage(stage);
  return info != nullptr && info->draw.reference_count_draws;
}

Tensor ReferenceCountDraws(const Case& c, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw) {
  const StageInfo& info = RequireStage(c.stage);
  if (!info.draw.reference_count_draws) {
    throw InputError("backend 'reference' cannot draw stage '" + c.stage + "' with its own randomness");
  }
  const Profile profile = c.profile;
  switch (info.draw.target) {
    case ExactTargetKind::kNormalisedProbs: {
      StageInputs in(c, c.stage);
      const Tensor probs = in.Probabilities();
      return CountRaceDraws(probs.data<float>(), probs.dim(0), probs.dim(1), {}, draws, seed, first_draw);
    }
    case ExactTargetKind::kSoftmaxScores: {
      StageInputs in(c, c.stage);
      const Tensor scores = in.FloatRows(info.InputWithRole(Role::kScores)->name);
      const std::int64_t rows = scores.dim(0), vocab = scores.dim(1);
      std::vector<float> probs(static_cast<std::size_t>(rows * vocab));
      for (std::int64_t b = 0; b < rows; ++b) {
        const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
        SoftmaxRow(scores.data<float>().subspan(at, n), std::span<float>(probs).subspan(at, n));
      }
      return CountRaceDraws(probs, rows, vocab, {}, draws, seed, first_draw);
    }
    case ExactTargetKind::kPipeline: break;
    default:
      throw std::logic_error("stage catalogue: stage '" + c.stage + "' claims reference CountDraws for target kind " +
                             std::string(ExactTargetKindName(info.draw.target)));
  }
  // The distribution the pipeline defines (reference/pipeline.h): greedy rows always give their
  // greedy token; random rows race on the probabilities they draw from.
  const PipelineDistribution d = ComposePipeline(c, profile, ReferencePipelineStages());
  std::vector<std::int64_t> pinned(static_cast<std::size_t>(d.rows()));
  for (std::int64_t b = 0; b < d.rows(); ++b) pinned[static_cast<std::size_t>(b)] = d.Pinned(b);
  return CountRaceDraws(d.probs.data<float>(), d.rows(), d.vocab(), pinned, draws, seed, first_draw);
}

}  // namespace sampcheck::reference
