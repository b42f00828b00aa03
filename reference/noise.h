// SPDX-License-Identifier: Apache-2.0
#pragma once
// noise: a backend's own uniform, exponential or Gumbel noise, observable (docs/spec/noise.md).
// The statistical noise harness (harness/noise_harness.h) asks any backend that declares
// this stage for long runs of samples and tests their law; golden cases pin the bits.
//
// Contract:
// - Inputs: seed [B] i64 (the row's 64-bit seed, two's complement), offset [B] i64 (the
//   counter of the row's first sample, in [0, 2^62)). Params: generator "philox" (default) |
//   "murmur3"; law "uniform" | "exponential" | "gumbel" (required); n (int, samples per row,
//   in [0, 2^24], default 1).
// - Output: noise [B, n] f32, noise[b, i] = NoiseSampleF32(generator, law, seed[b],
//   offset[b] + i) (reference/rng/noise_stream.h: the generator's word at that counter and the
//   law's conversion, spelled out there and in the spec).
// - Canonical tier (owned log); bitwise on a backend that follows the spec. Bad params or
//   inputs throw std::invalid_argument naming the stage, the parameter and the expectation.
// Example: seed {0}, offset {0}, generator philox, law uniform, n 1 -> {0x1.989fa4p-2}.

#include <cstdint>

#include "core/case.h"
#include "core/profile.h"
#include "reference/rng/noise_stream.h"

namespace sampcheck::reference {

inline constexpr std::int64_t kNoiseMaxSamplesPerRow = std::int64_t{1} << 24;
inline constexpr std::int64_t kNoiseOffsetLimit = std::int64_t{1} << 62;

// The stage's request, checked (the gpu glue reads it through this function too).
struct NoiseRequest {
  rng::NoiseGenerator generator = rng::NoiseGenerator::kPhilox;
  rng::NoiseLaw law = rng::NoiseLaw::kUniform;
  std::int64_t rows = 0;
  std::int64_t n = 0;
  const std::int64_t* seed = nullptr;    // [rows], reinterpret as u64
  const std::int64_t* offset = nullptr;  // [rows], each in [0, kNoiseOffsetLimit)
};
NoiseRequest ParseNoiseRequest(const Case& c);

// The parameter spellings (docs/spec/noise.md) and their inverse.
const char* NoiseGeneratorName(rng::NoiseGenerator g);
const char* NoiseLawName(rng::NoiseLaw law);

TensorMap RunNoise(const Case& c, Profile profile);

}  // namespace sampcheck::reference
