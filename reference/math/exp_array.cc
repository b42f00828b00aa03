// SPDX-License-Identifier: Apache-2.0
// ExpF32CrArray (reference/math/exp_array.h, docs/spec/math.md "Vectorised exp"): the lanes of
// detail::ExpF32Fast in AVX-512F or AVX2 intrinsics (GCC's generic vectors scalarised the
// lane compares), chosen at run time; the scalar loop elsewhere.
#include "reference/math/exp_array.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's avx512fintrin.h starts some results from _mm512_undefined_*(), which
// -Wmaybe-uninitialized reports once inlined at -O3 (GCC bug 105593); the code is correct.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "reference/math/bits.h"
#include "reference/math/double_double.h"
#include "reference/math/exp.h"

namespace sampcheck::math {

namespace {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SAMPCHECK_EXP_X86 1

constexpr double kShifter = 0x1.8p52;  // RoundToIntF64's 1.5 * 2^52
constexpr double kLow = -0x1.ap6;     // ExpF32Fast's domain [kLow, kHigh]
constexpr double kHigh = 0x1.63p6;
constexpr std::int64_t kLow29 = (std::int64_t{1} << 29) - 1;
constexpr std::int64_t kHalf = std::int64_t{1} << 28;
constexpr std::int64_t kAbs = static_cast<std::int64_t>(~kF64SignMask);

// Eight lanes of detail::ExpF32Fast (exp.h) and RoundF64ToF32IfSafe (double_double.h), each
// IEEE operation spelled as its intrinsic in the scalar code's order. Returns the lanes left
// to the scalar code (bit j: lane j).
__attribute__((target("avx512f"))) inline unsigned ExpBlock8(const float* in, float shift, float* out) {
  const __m256 xf = _mm256_sub_ps(_mm256_loadu_ps(in), _mm256_set1_ps(shift));
  const __m512d xw = _mm512_cvtps_pd(xf);  // exact
  const __mmask8 below = _mm512_cmp_pd_mask(xw, _mm512_set1_pd(kLow), _CMP_LT_OQ);
  const __mmask8 above = _mm512_cmp_pd_mask(xw, _mm512_set1_pd(kHigh), _CMP_GT_OQ);
  const __mmask8 in_domain = static_cast<__mmask8>(_mm512_cmp_pd_mask(xw, _mm512_set1_pd(kLow), _CMP_GE_OQ) &
                                                   _mm512_cmp_pd_mask(xw, _mm512_set1_pd(kHigh), _CMP_LE_OQ));
  const __m512d xd = _mm512_maskz_mov_pd(in_domain, xw);  // 0 in the other lanes: finite work
  const __m512d shifter = _mm512_set1_pd(kShifter);
  const __m512d shifted = _mm512_add_pd(_mm512_mul_pd(xd, _mm512_set1_pd(detail::kInvLn2)), shifter);
  const __m512d kd = _mm512_sub_pd(shifted, shifter);
  const __m512i k = _mm512_sub_epi64(_mm512_castpd_si512(shifted), _mm512_set1_epi64(static_cast<std::int64_t>(F64Bits(kShifter))));
  const __m512d r = _mm512_sub_pd(_mm512_sub_pd(xd, _mm512_mul_pd(kd, _mm512_set1_pd(detail::kLn2Hi))),
                                  _mm512_mul_pd(kd, _mm512_set1_pd(detail::kLn2Mid)));
  const double* c = detail::kExpFastTail;
  auto lin = [c, r](int i) __attribute__((target("avx512f"))) {  // c[i] + c[i + 1] * r
    return _mm512_add_pd(_mm512_set1_pd(c[i]), _mm512_mul_pd(_mm512_set1_pd(c[i + 1]), r));
  };
  const __m512d r2 = _mm512_mul_pd(r, r);
  const __m512d r4 = _mm512_mul_pd(r2, r2);
  const __m512d a = _mm512_add_pd(lin(0), _mm512_mul_pd(lin(2), r2));
  const __m512d b = _mm512_add_pd(lin(4), _mm512_mul_pd(lin(6), r2));
  const __m512d p = _mm512_add_pd(_mm512_add_pd(a, _mm512_mul_pd(b, r4)), _mm512_mul_pd(lin(8), _mm512_mul_pd(r4, r4)));
  const __m512d y = _mm512_add_pd(_mm512_set1_pd(1.0), _mm512_add_pd(r, _mm512_mul_pd(r2, p)));
  const __m512d scale = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(k, _mm512_set1_epi64(kF64ExponentBias)), kF64FractionBits));
  const __m512d z = _mm512_mul_pd(y, scale);
  // Rounding test.
  const __m512i za = _mm512_and_si512(_mm512_castpd_si512(z), _mm512_set1_epi64(kAbs));
  const __m512i dist = _mm512_abs_epi64(_mm512_sub_epi64(_mm512_and_si512(za, _mm512_set1_epi64(kLow29)), _mm512_set1_epi64(kHalf)));
  const __mmask8 normal_ok = _mm512_cmpgt_epi64_mask(dist, _mm512_set1_epi64(static_cast<std::int64_t>(kRoundTestSlackUlps)));
  const __m512d za_d = _mm512_castsi512_pd(za);
  const __m512d w = _mm512_mul_pd(za_d, _mm512_set1_pd(0x1p149));
  const __m512d d = _mm512_sub_pd(w, _mm512_sub_pd(_mm512_add_pd(w, shifter), shifter));
  const __m512d abs_d = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(d), _mm512_set1_epi64(kAbs)));
  const __mmask8 sub_ok = _mm512_cmp_pd_mask(_mm512_sub_pd(_mm512_set1_pd(0.5), abs_d), _mm512_mul_pd(w, _mm512_set1_pd(0x1p-47)), _CMP_GT_OQ);
  const __mmask8 is_normal = static_cast<__mmask8>(_mm512_cmp_pd_mask(za_d, _mm512_set1_pd(0x1p-126), _CMP_GE_OQ) |
                                                   _mm512_cmp_pd_mask(za_d, _mm512_setzero_pd(), _CMP_EQ_OQ));
  const unsigned safe = in_domain & ((is_normal & normal_ok) | (~is_normal & sub_ok));
  // Outside the domain: ExpF32Dd's +0 below, +inf above.
  __m512d result = _mm512_mask_mov_pd(z, below, _mm512_setzero_pd());
  result = _mm512_mask_mov_pd(result, above, _mm512_set1_pd(F64FromBits(kF64ExponentMask)));
  _mm256_storeu_ps(out, _mm512_cvtpd_ps(result));  // one IEEE rounding, as static_cast<float>
  return ~(safe | below | above) & 0xffu;
}

// The same four lanes at a time with AVX2 (no 64-bit abs or mask registers: the distance test
// |diff| > 32 is diff > 32 or diff < -32, masks are lane vectors).
__attribute__((target("avx2"))) inline unsigned ExpBlock4(const float* in, float shift, float* out) {
  const __m128 xf = _mm_sub_ps(_mm_loadu_ps(in), _mm_set1_ps(shift));
  const __m256d xw = _mm256_cvtps_pd(xf);
  const __m256d below = _mm256_cmp_pd(xw, _mm256_set1_pd(kLow), _CMP_LT_OQ);
  const __m256d above = _mm256_cmp_pd(xw, _mm256_set1_pd(kHigh), _CMP_GT_OQ);
  const __m256d in_domain = _mm256_and_pd(_mm256_cmp_pd(xw, _mm256_set1_pd(kLow), _CMP_GE_OQ),
                                          _mm256_cmp_pd(xw, _mm256_set1_pd(kHigh), _CMP_LE_OQ));
  const __m256d xd = _mm256_and_pd(xw, in_domain);
  const __m256d shifter = _mm256_set1_pd(kShifter);
  const __m256d shifted = _mm256_add_pd(_mm256_mul_pd(xd, _mm256_set1_pd(detail::kInvLn2)), shifter);
  const __m256d kd = _mm256_sub_pd(shifted, shifter);
  const __m256i k = _mm256_sub_epi64(_mm256_castpd_si256(shifted), _mm256_set1_epi64x(static_cast<std::int64_t>(F64Bits(kShifter))));
  const __m256d r = _mm256_sub_pd(_mm256_sub_pd(xd, _mm256_mul_pd(kd, _mm256_set1_pd(detail::kLn2Hi))),
                                  _mm256_mul_pd(kd, _mm256_set1_pd(detail::kLn2Mid)));
  const double* c = detail::kExpFastTail;
  auto lin = [c, r](int i) __attribute__((target("avx2"))) { return _mm256_add_pd(_mm256_set1_pd(c[i]), _mm256_mul_pd(_mm256_set1_pd(c[i + 1]), r)); };
  const __m256d r2 = _mm256_mul_pd(r, r);
  const __m256d r4 = _mm256_mul_pd(r2, r2);
  const __m256d a = _mm256_add_pd(lin(0), _mm256_mul_pd(lin(2), r2));
  const __m256d b = _mm256_add_pd(lin(4), _mm256_mul_pd(lin(6), r2));
  const __m256d p = _mm256_add_pd(_mm256_add_pd(a, _mm256_mul_pd(b, r4)), _mm256_mul_pd(lin(8), _mm256_mul_pd(r4, r4)));
  const __m256d y = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_add_pd(r, _mm256_mul_pd(r2, p)));
  const __m256d scale = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(k, _mm256_set1_epi64x(kF64ExponentBias)), kF64FractionBits));
  const __m256d z = _mm256_mul_pd(y, scale);
  const __m256i za = _mm256_and_si256(_mm256_castpd_si256(z), _mm256_set1_epi64x(kAbs));
  const __m256i diff = _mm256_sub_epi64(_mm256_and_si256(za, _mm256_set1_epi64x(kLow29)), _mm256_set1_epi64x(kHalf));
  const auto slack = static_cast<std::int64_t>(kRoundTestSlackUlps);
  const __m256d normal_ok = _mm256_castsi256_pd(_mm256_or_si256(_mm256_cmpgt_epi64(diff, _mm256_set1_epi64x(slack)),
                                                                _mm256_cmpgt_epi64(_mm256_set1_epi64x(-slack), diff)));
  const __m256d za_d = _mm256_castsi256_pd(za);
  const __m256d w = _mm256_mul_pd(za_d, _mm256_set1_pd(0x1p149));
  const __m256d d = _mm256_sub_pd(w, _mm256_sub_pd(_mm256_add_pd(w, shifter), shifter));
  const __m256d abs_d = _mm256_castsi256_pd(_mm256_and_si256(_mm256_castpd_si256(d), _mm256_set1_epi64x(kAbs)));
  const __m256d sub_ok = _mm256_cmp_pd(_mm256_sub_pd(_mm256_set1_pd(0.5), abs_d), _mm256_mul_pd(w, _mm256_set1_pd(0x1p-47)), _CMP_GT_OQ);
  const __m256d is_normal = _mm256_or_pd(_mm256_cmp_pd(za_d, _mm256_set1_pd(0x1p-126), _CMP_GE_OQ),
                                         _mm256_cmp_pd(za_d, _mm256_setzero_pd(), _CMP_EQ_OQ));
  const __m256d safe = _mm256_and_pd(in_domain, _mm256_blendv_pd(sub_ok, normal_ok, is_normal));
  __m256d result = _mm256_blendv_pd(z, _mm256_setzero_pd(), below);
  result = _mm256_blendv_pd(result, _mm256_set1_pd(F64FromBits(kF64ExponentMask)), above);
  _mm_storeu_ps(out, _mm256_cvtpd_ps(result));
  const unsigned decided = static_cast<unsigned>(_mm256_movemask_pd(_mm256_or_pd(safe, _mm256_or_pd(below, above))));
  return ~decided & 0xfu;
}

template <int W, unsigned (*Block)(const float*, float, float*)>
__attribute__((always_inline)) inline void ExpLoop(const float* x, std::size_t n, float shift, float* out) {
  std::size_t i = 0;
  for (; i + W <= n; i += W) {
    float in[W];  // a copy: out may alias x, and the rare lanes below need their input
    std::memcpy(in, x + i, sizeof(in));
    unsigned left = Block(in, shift, out + i);
    while (left != 0) {  // rare: NaN, or a rounding the fast path could not decide
      const int j = __builtin_ctz(left);
      left &= left - 1;
      out[i + static_cast<std::size_t>(j)] = ExpF32Cr(in[j] - shift);
    }
  }
  for (; i < n; ++i) out[i] = ExpF32Cr(x[i] - shift);
}

__attribute__((target("avx512f"))) void ExpLoopAvx512(const float* x, std::size_t n, float shift, float* out) {
  ExpLoop<8, ExpBlock8>(x, n, shift, out);
}
__attribute__((target("avx2"))) void ExpLoopAvx2(const float* x, std::size_t n, float shift, float* out) {
  ExpLoop<4, ExpBlock4>(x, n, shift, out);
}
#else
#define SAMPCHECK_EXP_X86 0
#endif

// The portable path is the scalar function itself.
void ExpLoopPortable(const float* x, std::size_t n, float shift, float* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = ExpF32Cr(x[i] - shift);
}

ExpIsa DetectIsa() {
#if SAMPCHECK_EXP_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return ExpIsa::kAvx512;
  if (__builtin_cpu_supports("avx2")) return ExpIsa::kAvx2;
#endif
  return ExpIsa::kPortable;
}

}  // namespace

ExpIsa ExpF32CrArrayIsa() {
  static const ExpIsa isa = DetectIsa();
  return isa;
}

const char* ExpIsaName(ExpIsa isa) {
  switch (isa) {
    case ExpIsa::kAvx512: return "avx512f";
    case ExpIsa::kAvx2: return "avx2";
    case ExpIsa::kPortable: break;
  }
  return "portable";
}

void ExpF32CrArrayWith(ExpIsa isa, const float* x, std::size_t n, float shift, float* out) {
  const ExpIsa host = ExpF32CrArrayIsa();
#if SAMPCHECK_EXP_X86
  if (isa == ExpIsa::kAvx512 && host == ExpIsa::kAvx512) return ExpLoopAvx512(x, n, shift, out);
  if (isa != ExpIsa::kPortable && host != ExpIsa::kPortable) return ExpLoopAvx2(x, n, shift, out);
#else
  (void)isa;
  (void)host;
#endif
  ExpLoopPortable(x, n, shift, out);
}

void ExpF32CrArray(const float* x, std::size_t n, float shift, float* out) {
  ExpF32CrArrayWith(ExpF32CrArrayIsa(), x, n, shift, out);
}

}  // namespace sampcheck::math
