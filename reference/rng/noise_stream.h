// SPDX-License-Identifier: Apache-2.0
#pragma once
// One sample of the `noise` stage: a generator's word at counter c, converted to a law
// (docs/spec/noise.md). The reference stage (reference/noise.cc) and the kernel
// (gpu/kernels/noise.cuh) both call NoiseSampleF32, so the two agree bit for bit by construction.
//
// Contract (docs/spec/noise.md "Samples"). c = offset + i is the 64-bit counter of sample i
// of a row whose offset is `offset`; seed is the row's 64-bit seed.
//   generator kPhilox (cuRAND's stream, subsequence 0): w = CurandPhiloxWord(seed, 0, c), the
//     value the (c + 1)-th curand() returns after curand_init(seed, 0, 0); u = curand_uniform
//     = UniformOpenClosedCurandF32(w) in [2^-33, 1]; precondition c / 4 < 2^64 - 2^32.
//       uniform      u                                             [2^-33, 1]
//       exponential  q = ExponentialTorchCudaF32(u)  (torch exponential_ on CUDA)  [2^-24, 22.8739]
//       gumbel       -LogF32Cr(q)  (-log of an Exp(1) is Gumbel)    [-3.1300, 16.6355]
//   generator kMurmur3 (SGLang's key layout): h = SglangMurmurKey(seed, c >> 32, c mod 2^32),
//     so the row with offset = position << 32 reads SGLang's noise of that position at
//     columns 0, 1, ...; u = UniformSglangF64(h) in [0, 1] (binary64).
//       uniform      RN_f32(u)                                      [0, 1]
//       exponential  RN_f32(-clamp(LogF64Dd(u), -DBL_MAX, -2^-32))  (SGLang's -log u)  [2^-32, 709.79]
//       gumbel       RN_f32(GumbelSglangF64(u))                      [-709.79, 22.1807]
// - Canonical tier: owned log only (reference/math/), no libm; host -ffp-contract=off,
//   device -fmad=false. No state, no exceptions, no allocation; host and device.
// - RNG counters per sample: one Philox word (a block of four serves four consecutive c) or
//   one MurmurHash3 of 16 bytes.
// Example (tests/noise_test.cc, NoiseStream.HeaderExample): kPhilox, kUniform, seed 0, c 0 is
// curand_uniform of 0x6627e8d5 (word 0 of Philox4x32_10({0,0,0,0}, {0,0}), Random123
// kat_vectors) = RN(RN_f32(0x6627e8d5) 2^-32 + 2^-33) = 0x1.989fa4p-2.

#include <cstdint>

#include "core/portability.h"
#include "reference/math/log.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/uniform.h"

namespace sampcheck::rng {

enum class NoiseGenerator : std::uint8_t { kPhilox = 0, kMurmur3 = 1 };
enum class NoiseLaw : std::uint8_t { kUniform = 0, kExponential = 1, kGumbel = 2 };

SAMPCHECK_HOST_DEVICE inline float NoiseSampleF32(NoiseGenerator generator, NoiseLaw law, std::uint64_t seed,
                                                  std::uint64_t c) {
  if (generator == NoiseGenerator::kPhilox) {
    const float u = UniformOpenClosedCurandF32(CurandPhiloxWord(seed, 0, c));
    if (law == NoiseLaw::kUniform) return u;
    const float q = ExponentialTorchCudaF32(u);
    return law == NoiseLaw::kExponential ? q : -math::LogF32Cr(q);
  }
  const double u = UniformSglangF64(SglangMurmurKey(seed, static_cast<std::uint32_t>(c >> 32), static_cast<std::uint32_t>(c)));
  if (law == NoiseLaw::kUniform) return static_cast<float>(u);
  if (law == NoiseLaw::kGumbel) return static_cast<float>(GumbelSglangF64(u));
  double l = math::LogF64Dd(u);  // GumbelSglangF64's clamp, without the outer -log
  if (l < kSglangLogMin) l = kSglangLogMin;
  if (l > kSglangLogMax) l = kSglangLogMax;
  return static_cast<float>(-l);
}

}  // namespace sampcheck::rng
