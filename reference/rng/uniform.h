// SPDX-License-Identifier: Apache-2.0
#pragma once
// Conversions from 32-bit generator words to uniform floats, each with its exact formula,
// interval and resolution.
//
// Contract (docs/spec/rng.md, "Uniform conversions"). Every conversion is a pure function of its
// words; all arithmetic is IEEE-754 binary32/binary64 in round-to-nearest-even (the default
// mode; nothing here changes it). "exact" below means the operation incurs no rounding.
// 1. UniformClosedOpen24F32(w) = (w >> 8) * 2^-24                              [sampcheck]
//      interval [0, 1 - 2^-24]; 2^24 equally spaced values, step 2^-24, each hit by 256 words;
//      P(0) = 2^-24. Exact (a 24-bit integer times a power of two). Uses the top 24 bits.
// 2. UniformOpenClosedCurandF32(w) = RN(RN_f32(w) * 2^-32 + 2^-33)             [cuRAND]
//      cuRAND curand_uniform.h `_curand_uniform(x) = x * CURAND_2POW32_INV +
//      (CURAND_2POW32_INV/2.0f)` with CURAND_2POW32_INV = 2.3283064e-10f, which is exactly
//      2^-32 as a binary32 (curand_globals.h; checked by static_assert below). The u32 -> f32
//      conversion rounds to nearest (cuda __uint2float_rn); the product by 2^-32 is exact, so a
//      contracted fma (nvcc -fmad=true) gives the same result. interval [2^-33, 1]: 0 is never
//      returned; 1.0f is returned for the 128 words w >= 0xffffff80 (P = 2^-25). Resolution:
//      2^-32 below 2^-9 (w < 2^23: value (2w + 1) 2^-33 exact), coarsening to 2^-24 near 1.
//      curand_uniform(&philox_state) is this applied to curand(&state).
// 3. UniformSglangF64(h) = RN_f64(h / (2^32 - 1))                              [SGLang]
//      SGLang multinomial_with_seed: `hashed.to(torch.float64) / torch.iinfo(torch.uint32).max`.
//      CLOSED interval [0, 1]: 0 iff h == 0, 1 iff h == 0xffffffff (P = 2^-32 each). One
//      correctly rounded division; 2^32 distinct values, spacing ~2^-32.
// 4. UniformClosedOpen53F64(w0, w1) = ((w1 << 32 | w0) >> 11) * 2^-53          [sampcheck]
//      w0 = first word drawn (low half), w1 = second (high half); uses all of w1 and the top
//      21 bits of w0. interval [0, 1 - 2^-53]; 2^53 equally spaced values, step 2^-53. Exact.
// 5. UniformOpenClosedCurandF64(x, y) = RN((x ^ (y << 21)) * 2^-53 + 2^-54)     [cuRAND]
//      curand_uniform.h `_curand_uniform_double_hq(x, y)` (CURAND_2POW53_INV_DOUBLE =
//      1.1102230246251565e-16 == 2^-53 exactly); z = x ^ (y << 21) < 2^53 is converted
//      exactly. interval [2^-54, 1]: z = 2^53 - 1 gives 1 - 2^-54, a tie rounded to even =
//      1.0. curand_uniform_double(&philox) = this of (curand(), curand()); curand_uniform2_double
//      = this of (.x, .y) and (.z, .w) of curand4(). PyTorch's float64 exponential_ uses it.
// - Determinism: exact tier for 1, 4 (and 2, 3, 5 given IEEE round-to-nearest division and
//   conversion, which CUDA and x86-64 provide). No NaN, no inf, no exceptions.
// Example (tests/rng_test.cc, Uniform.HeaderExample): UniformClosedOpen24F32(0xffffffff) ==
// 0x1.fffffep-1f, UniformOpenClosedCurandF32(0) == 0x1p-33f, UniformSglangF64(0xffffffff) == 1.0.

#include <cstdint>
#include <limits>

#include "core/portability.h"

namespace sampcheck::rng {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559,
              "uniform conversions assume IEEE-754 binary32 and binary64");
static_assert(std::numeric_limits<float>::digits == 24 && std::numeric_limits<double>::digits == 53,
              "the resolutions stated above assume 24- and 53-bit significands");
// cuRAND's CURAND_2POW32_INV literal is exactly 2^-32 in binary32, and
// CURAND_2POW53_INV_DOUBLE exactly 2^-53 in binary64 (curand_globals.h / curand_kernel.h).
static_assert(2.3283064e-10f == 0x1p-32f, "CURAND_2POW32_INV != 2^-32");
static_assert(1.1102230246251565e-16 == 0x1p-53, "CURAND_2POW53_INV_DOUBLE != 2^-53");

// 1. [0, 1 - 2^-24], step 2^-24.
SAMPCHECK_HOST_DEVICE constexpr float UniformClosedOpen24F32(std::uint32_t w) {
  return static_cast<float>(w >> 8) * 0x1p-24f;
}

// 2. cuRAND curand_uniform: [2^-33, 1].
SAMPCHECK_HOST_DEVICE constexpr float UniformOpenClosedCurandF32(std::uint32_t w) {
  const float x = static_cast<float>(w);  // round to nearest (as __uint2float_rn)
  return x * 0x1p-32f + 0x1p-33f;         // product exact; one rounding in the sum
}

// 3. SGLang h / (2^32 - 1) in float64: [0, 1], both ends included.
SAMPCHECK_HOST_DEVICE constexpr double UniformSglangF64(std::uint32_t h) {
  return static_cast<double>(h) / 4294967295.0;  // 2^32 - 1 = torch.iinfo(torch.uint32).max
}

// 4. [0, 1 - 2^-53], step 2^-53, from two words (w0 low, w1 high).
SAMPCHECK_HOST_DEVICE constexpr double UniformClosedOpen53F64(std::uint32_t w0, std::uint32_t w1) {
  const std::uint64_t bits = (static_cast<std::uint64_t>(w1) << 32) | w0;
  return static_cast<double>(bits >> 11) * 0x1p-53;
}

// 5. cuRAND _curand_uniform_double_hq: [2^-54, 1].
SAMPCHECK_HOST_DEVICE constexpr double UniformOpenClosedCurandF64(std::uint32_t x,
                                                                  std::uint32_t y) {
  const std::uint64_t z = static_cast<std::uint64_t>(x) ^ (static_cast<std::uint64_t>(y) << 21);
  return static_cast<double>(z) * 0x1p-53 + 0x1p-54;  // z < 2^53: conversion and product exact
}

}  // namespace sampcheck::rng
