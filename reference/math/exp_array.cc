// SPDX-License-Identifier: Apache-2.0
// ExpF32CrArray (reference/math/exp_array.h, docs/spec/math.md "Vectorised exp"): the lanes of
// detail::ExpF32Fast in GCC/Clang generic vectors, compiled three times (AVX-512F, AVX2, the
// baseline ISA) and chosen at run time.
#include "reference/math/exp_array.h"

#include <cstdint>
#include <cstring>

#include "reference/math/bits.h"
#include "reference/math/double_double.h"
#include "reference/math/exp.h"

namespace sampcheck::math {

namespace {

// W lanes: binary32 inputs and outputs, binary64 arithmetic, 64-bit integer bit operations.
template <int W>
struct Lanes {
  typedef float F __attribute__((vector_size(W * 4)));
  typedef double D __attribute__((vector_size(W * 8)));
  typedef std::int64_t I __attribute__((vector_size(W * 8)));
  typedef std::uint64_t U __attribute__((vector_size(W * 8)));
};

// One block of W lanes starting at x; returns a bit mask of the lanes left to the scalar code.
// Every step is the scalar ExpF32Fast's operation on each lane (exp.h), in the same order.
template <int W>
__attribute__((always_inline)) inline unsigned ExpBlock(const float* x, float shift, float* out) {
  using F = typename Lanes<W>::F;
  using D = typename Lanes<W>::D;
  using I = typename Lanes<W>::I;
  using U = typename Lanes<W>::U;
  F xf;
  std::memcpy(&xf, x, sizeof(F));
  xf = xf - shift;  // binary32 subtraction, as the scalar callers' `x[i] - m`
  const D xw = __builtin_convertvector(xf, D);  // exact widening
  // ExpF32Fast's domain test; NaN compares false on both sides.
  const I in_domain = (xw >= -0x1.ap6) & (xw <= 0x1.63p6);
  const D xd = in_domain ? xw : D{} + 0.0;  // keep the arithmetic finite in the other lanes
  // k = RoundToIntF64(x * kInvLn2): t + 1.5 2^52 holds k in its low bits (|k| <= 151 << 2^51).
  const D shifted = xd * detail::kInvLn2 + 0x1.8p52;
  const D kd = shifted - 0x1.8p52;
  const I k = __builtin_bit_cast(I, shifted) - static_cast<std::int64_t>(F64Bits(0x1.8p52));
  const D r = (xd - kd * detail::kLn2Hi) - kd * detail::kLn2Mid;
  const double* c = detail::kExpFastTail;
  const D r2 = r * r;
  const D r4 = r2 * r2;
  const D p = ((c[0] + c[1] * r) + (c[2] + c[3] * r) * r2) +
              ((c[4] + c[5] * r) + (c[6] + c[7] * r) * r2) * r4 + (c[8] + c[9] * r) * (r4 * r4);
  const D y = 1.0 + (r + r2 * p);
  const D scale = __builtin_bit_cast(D, (k + kF64ExponentBias) << kF64FractionBits);  // Pow2F64(k)
  const D z = y * scale;
  // RoundF64ToF32IfSafe, both branches on every lane, then selected.
  const U za = __builtin_bit_cast(U, z) & ~kF64SignMask;  // |z| (z > 0 here anyway)
  const D a = __builtin_bit_cast(D, za);
  constexpr std::uint64_t kLow29 = (std::uint64_t{1} << 29) - 1;
  constexpr std::int64_t kHalf = std::int64_t{1} << 28;
  const I low = __builtin_bit_cast(I, za & kLow29);
  const I diff = low - kHalf;
  const I dist = diff < 0 ? -diff : diff;
  const I normal_ok = dist > static_cast<std::int64_t>(kRoundTestSlackUlps);
  const D w = a * 0x1p149;
  const D d = w - ((w + 0x1.8p52) - 0x1.8p52);
  const D abs_d = __builtin_bit_cast(D, __builtin_bit_cast(U, d) & ~kF64SignMask);
  const I sub_ok = (0.5 - abs_d) > w * 0x1p-47;
  const I is_normal = (a >= 0x1p-126) | (a == 0.0);
  const I safe = in_domain & (is_normal ? normal_ok : sub_ok);
  // Outside the domain: ExpF32Dd's answers (+0 below -0x1.ap6, +inf above 0x1.63p6).
  const D special = xw < -0x1.ap6 ? D{} + 0.0 : D{} + F64FromBits(kF64ExponentMask);
  const I decided = safe | (xw < -0x1.ap6) | (xw > 0x1.63p6);
  const D result = in_domain ? z : special;
  const F rf = __builtin_convertvector(result, F);  // one IEEE rounding, as static_cast<float>
  std::memcpy(out, &rf, sizeof(F));
  unsigned left = 0;
  for (int j = 0; j < W; ++j) left |= decided[j] ? 0u : (1u << j);
  return left;
}

template <int W>
__attribute__((always_inline)) inline void ExpLoop(const float* x, std::size_t n, float shift, float* out) {
  std::size_t i = 0;
  for (; i + W <= n; i += W) {
    float in[W];  // a copy: out may alias x, and the rare lanes below need their input
    std::memcpy(in, x + i, sizeof(in));
    unsigned left = ExpBlock<W>(in, shift, out + i);
    while (left != 0) {  // rare: NaN, or a rounding the fast path could not decide
      const int j = __builtin_ctz(left);
      left &= left - 1;
      out[i + j] = ExpF32Cr(in[j] - shift);
    }
  }
  for (; i < n; ++i) out[i] = ExpF32Cr(x[i] - shift);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SAMPCHECK_EXP_X86 1
__attribute__((target("avx512f"))) void ExpLoopAvx512(const float* x, std::size_t n, float shift, float* out) {
  ExpLoop<8>(x, n, shift, out);
}
__attribute__((target("avx2"))) void ExpLoopAvx2(const float* x, std::size_t n, float shift, float* out) {
  ExpLoop<4>(x, n, shift, out);
}
#else
#define SAMPCHECK_EXP_X86 0
#endif
void ExpLoopPortable(const float* x, std::size_t n, float shift, float* out) { ExpLoop<4>(x, n, shift, out); }

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
