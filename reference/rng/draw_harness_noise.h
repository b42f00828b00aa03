// SPDX-License-Identifier: Apache-2.0
#pragma once
// The draw harness's noise (docs/spec/harness.md "Alpha budget, n and seeds"): what draw d of row r of a
// stochastic case receives from the harness, word by word, on stream kDrawHarnessNoise
// (reference/rng/streams.h). harness/draw_harness.cc's DrawNoiseCase fills a replicated
// case's noise inputs from it, and the gpu backends' own draws of the pipeline
// (gpu/backend/pipeline_glue.h, GpuPipelineCountDraws) draw with it, so that their counts are
// those of the same case through Run, bit for bit.
//
// Contract (every function pure, host and device, no allocation):
// - Block(seed, token_block, draw, row) = StreamBlock(kDrawHarnessNoise, seed, token_block, draw,
//   row): word i % 4 of block i / 4 is token i's word.
// - Seed(seed, draw, row): the i64 seed of a seeded draw (positions are 0): block 0's words 1
//   and 0 as the high and low halves.
// - Exponential(w) = ExponentialTorchCudaF32(UniformOpenClosedCurandF32(w)) in [2^-24, 33 ln2]
//   (torch's exponential_ on CUDA); Gumbel(w) = GumbelCellCentreF32(w), finite; Uniform(w) =
//   UniformClosedOpen24F32(w) (reference/rng/noise.h, reference/rng/uniform.h).
// Example: Seed(7, 0, 0) = the words {v1, v0} of Philox4x32_10({0, 0, 0, 0x401}, {7, 0}).

#include <bit>
#include <cstdint>

#include "core/portability.h"
#include "reference/rng/noise.h"
#include "reference/rng/streams.h"
#include "reference/rng/uniform.h"

namespace sampcheck::rng::draw_harness {

SAMPCHECK_HOST_DEVICE constexpr Philox4x32Block Block(std::uint64_t seed, std::uint32_t token_block, std::uint32_t draw,
                                                      std::uint32_t row) {
  return StreamBlock(Stream::kDrawHarnessNoise, seed, token_block, draw, row);
}

SAMPCHECK_HOST_DEVICE constexpr std::int64_t Seed(std::uint64_t seed, std::uint32_t draw, std::uint32_t row) {
  const Philox4x32Block words = Block(seed, 0, draw, row);
  return std::bit_cast<std::int64_t>(std::uint64_t{words.v[1]} << 32 | words.v[0]);
}

SAMPCHECK_HOST_DEVICE inline float Exponential(std::uint32_t word) {
  return ExponentialTorchCudaF32(UniformOpenClosedCurandF32(word));
}

SAMPCHECK_HOST_DEVICE inline float Gumbel(std::uint32_t word) { return GumbelCellCentreF32(word); }

SAMPCHECK_HOST_DEVICE inline float Uniform(std::uint32_t word) { return UniformClosedOpen24F32(word); }

}  // namespace sampcheck::rng::draw_harness
