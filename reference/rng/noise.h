// SPDX-License-Identifier: Apache-2.0
#pragma once
// Exponential (Exp(1)) and Gumbel noise from a uniform, on the owned logarithm, with each
// peer profile's handling of u = 0 and u = 1 spelled out.
//
// Contract (docs/spec/rng.md, "Noise laws"). u is the output of a conversion in uniform.h;
// log is LogF32Cr (binary32, correctly rounded) or LogF64Dd (binary64, <= 0.500076 ulp),
// log1p is Log1pF32Cr / Log1pF64Dd (reference/math/). Negation is exact. IEEE specials:
// log(+-0) = -inf, log(1) = +0, so -log(1) = -0.0 (sign bit set) and -log(-0.0) = +inf.
//
//   function                      formula                                 u = 0     u = 1
//   ExponentialNegLogF32/F64      -log(u)                                 +inf      -0.0
//   ExponentialNegLog1pNegF32/F64 -log1p(-u)      (PyTorch CPU branch)    +0.0      +inf
//   ExponentialTorchCudaF32       u >= 1 - 2^-24 ? 2^-24 : -log(u)        +inf(*)   2^-24
//   ExponentialTorchCudaF64       u >= 1 - 2^-53 ? 2^-53 : -log(u)        +inf(*)   2^-53
//   GumbelNegLogNegLogF32/F64     -log(-log(u))                           -inf      +inf
//   GumbelSglangF64               -log(-clamp(log u, -DBL_MAX, -2^-32))   -709.78.. 22.1807..
//   GumbelSglangMinClampF64       -log(-max(log u, -DBL_MAX))             -709.78.. +inf
//   (*) unreachable in the profile: cuRAND's uniforms are >= 2^-33 (f32) / 2^-54 (f64).
//
// - PyTorch CUDA (vLLM's `torch.empty_like(probs).exponential_()`): aten TransformationHelper.h
//   `transformation::exponential`, CUDA branch: `log = val >= 1 - eps/2 ? -eps/2 : at::log(val);
//   return -1 / lambda * log` with eps = numeric_limits<accscalar_t>::epsilon() (2^-23 for
//   float/half/bfloat16 tensors, whose accscalar_t is float; 2^-52 for double) and val from
//   curand_uniform4 (UniformOpenClosedCurandF32) or curand_uniform2_double
//   (UniformOpenClosedCurandF64). lambda = 1, so -1/lambda * log = -log exactly. Range in f32:
//   [2^-24, 33 ln2 = 22.8738...]. PyTorch evaluates logf/log from CUDA's libdevice (1 ulp),
//   so backends match this reference in the canonical tier only when they use owned math.
// - SGLang multinomial_with_seed (float64): u = UniformSglangF64(h);
//   `x.log_().clamp_(min=finfo(float64).min, max=-(2.0**-32)).neg_(); x.log_().neg_()`.
//   The upper clamp only changes h = 0xffffffff (u = 1): log u = 0 -> -2^-32 -> Gumbel
//   32 ln2 = 0x1.62e42fefa39efp+4 instead of +inf (h = 0xfffffffe already has
//   log u = -0x1.0000000080000p-32 < -2^-32). The lower clamp maps h = 0 (u = 0, log = -inf)
//   to -DBL_MAX, giving Gumbel -log(DBL_MAX) = -0x1.62e42fefa39efp+9 (-709.78) instead of -inf.
//   GumbelSglangMinClampF64 is the variant without the upper clamp (`clamp_(min=...)` only).
// - FlashInfer (sampling.cuh) uses u = curand_uniform in (0, 1] directly (accept iff
//   u * p_draft < p_target); where it needs Exp(1) noise from such u, -log(u) has no clamp:
//   ExponentialNegLogF32 on [2^-33, 1] gives [-0.0, 22.8738...].
// - Floors (the largest value a profile can produce; an f32 law truncated there):
//     ExponentialNegLogF32(UniformClosedOpen24F32): finite max -log(2^-24) = 24 ln2 =
//       0x1.0a2b24p+4 (16.6355), plus +inf at u = 0 (P = 2^-24);
//     ExponentialNegLog1pNegF32(UniformClosedOpen24F32): max -log1p(-(1 - 2^-24)) = 24 ln2,
//       min +0.0 (P = 2^-24);
//     ExponentialTorchCudaF32: max 33 ln2 = 0x1.6dfb52p+4 (22.8739), min 2^-24;
//     GumbelNegLogNegLogF32(UniformClosedOpen24F32): max 24 ln2 (at u = 1 - 2^-24, where
//       -log(u) rounds to 2^-24), -inf at u = 0;
//     GumbelSglangF64: [-709.78, 22.1807], both ends finite.
// - Determinism: canonical tier (bitwise across backends using the owned log). No exceptions.
// Example (tests/rng_test.cc, Noise.HeaderExample): ExponentialNegLogF32(0x1p-24f) ==
// 0x1.0a2b24p+4f and GumbelSglangF64(1.0) == 0x1.62e42fefa39efp+4.

#include <cstdint>
#include <limits>

#include "core/portability.h"
#include "reference/math/log.h"
#include "reference/math/log1p.h"
#include "reference/rng/uniform.h"

namespace sampcheck::rng {

static_assert(std::numeric_limits<float>::has_infinity &&
                  std::numeric_limits<double>::has_infinity,
              "noise laws return +-inf at the ends of the unit interval");

inline constexpr float kTorchExpClampF32 = 0x1p-24f;  // eps(float) / 2 = 2^-23 / 2
inline constexpr double kTorchExpClampF64 = 0x1p-53;  // eps(double) / 2 = 2^-52 / 2
// SGLang's clamp bounds on log(u): torch.finfo(torch.float64).min and -(2.0 ** -32).
inline constexpr double kSglangLogMin = -0x1.fffffffffffffp+1023;
inline constexpr double kSglangLogMax = -0x1p-32;
static_assert(kSglangLogMin == -std::numeric_limits<double>::max(), "finfo(float64).min");

SAMPCHECK_HOST_DEVICE inline float ExponentialNegLogF32(float u) { return -math::LogF32Cr(u); }
SAMPCHECK_HOST_DEVICE inline double ExponentialNegLogF64(double u) { return -math::LogF64Dd(u); }

SAMPCHECK_HOST_DEVICE inline float ExponentialNegLog1pNegF32(float u) {
  return -math::Log1pF32Cr(-u);
}
SAMPCHECK_HOST_DEVICE inline double ExponentialNegLog1pNegF64(double u) {
  return -math::Log1pF64Dd(-u);
}

SAMPCHECK_HOST_DEVICE inline float ExponentialTorchCudaF32(float u) {
  // 1 - eps/2 = 1 - 2^-24 is exact in binary32.
  return u >= 1.0f - kTorchExpClampF32 ? kTorchExpClampF32 : -math::LogF32Cr(u);
}
SAMPCHECK_HOST_DEVICE inline double ExponentialTorchCudaF64(double u) {
  return u >= 1.0 - kTorchExpClampF64 ? kTorchExpClampF64 : -math::LogF64Dd(u);
}

SAMPCHECK_HOST_DEVICE inline float GumbelNegLogNegLogF32(float u) {
  return -math::LogF32Cr(-math::LogF32Cr(u));
}
SAMPCHECK_HOST_DEVICE inline double GumbelNegLogNegLogF64(double u) {
  return -math::LogF64Dd(-math::LogF64Dd(u));
}

// torch.clamp(x, min, max) = min(max(x, lo), hi) for non-NaN x (log u is never NaN here).
SAMPCHECK_HOST_DEVICE inline double GumbelSglangF64(double u) {
  double l = math::LogF64Dd(u);
  if (l < kSglangLogMin) l = kSglangLogMin;
  if (l > kSglangLogMax) l = kSglangLogMax;
  return -math::LogF64Dd(-l);
}
SAMPCHECK_HOST_DEVICE inline double GumbelSglangMinClampF64(double u) {
  double l = math::LogF64Dd(u);
  if (l < kSglangLogMin) l = kSglangLogMin;
  return -math::LogF64Dd(-l);  // u = 1: -l = -0.0, log(-0.0) = -inf, Gumbel = +inf
}

// The draw harness's Gumbel noise from one word (harness/draw_harness.cc): the centre of
// the word's 24-bit cell, u = ((w >> 8) + 1/2) 2^-24 in [2^-25, 1 - 2^-25] (exact in binary64),
// then -log(-log u) in binary64 with the owned log, rounded once to binary32. Never infinite:
// range [RN_f32(-log(25 ln2)), RN_f32(-log(-log(1 - 2^-25)))] = [-0x1.6d1a3ap+1, 0x1.154246p+4].
SAMPCHECK_HOST_DEVICE inline float GumbelCellCentreF32(std::uint32_t w) {
  const double u = (static_cast<double>(w >> 8) + 0.5) * 0x1p-24;
  return static_cast<float>(-math::LogF64Dd(-math::LogF64Dd(u)));
}

// SGLang's noise for one (seed, position, column) hash word.
SAMPCHECK_HOST_DEVICE inline double GumbelSglangFromHashF64(std::uint32_t h) {
  return GumbelSglangF64(UniformSglangF64(h));
}

}  // namespace sampcheck::rng
