// SPDX-License-Identifier: Apache-2.0
#pragma once
// The registry of every counter-based random stream sampcheck draws from itself
// (docs/spec/rng.md "Streams"). Each is Philox4x32-10 (reference/rng/philox.h) under the key
// SeedKey(seed) = {seed & 0xffffffff, seed >> 32}; the counter's last word is the stream's tag,
// so two streams never share a counter under one key, and the other three words are the
// stream's own layout, written beside its tag below. Every call site goes through
// StreamBlock / StreamWord with a tag from this file; a test (tests/rng_test.cc,
// RngStreams.TagsAreDistinct) checks that no two streams share a tag.
//
// | tag    | stream                    | counter {c0, c1, c2}                   | user |
// |--------|---------------------------|----------------------------------------|------|
// | 0x401  | kDrawHarnessNoise         | {token / 4, draw, row}                 | reference/rng/draw_harness_noise.h (harness noise through Run; reproducibility; the gpu backends' pipeline draws) |
// | 0x402  | kNoiseHarness             | {index / 4, index >> 34, 0}            | harness/noise_harness.cc (the generator laws under KS/PIT) |
// | 0x5eed | kCountDraws               | {token / 4, draw, row}                 | reference/count_draws.cc (the reference's own draws) |
// | 0x5d0  | kSpecDrafts               | {0, draw, row}                         | harness/spec_draws.cc (drafts drawn from q) |
// | 0x5d1  | kSpecUniforms             | {position, draw, row}                  | harness/spec_draws.cc (acceptance uniforms) |
// | 0x5d2  | kSpecRecoveredRace        | {token / 4, draw, row}                 | harness/spec_draws.cc (recovered-token Exp(1) noise) |
// | 0x5d3  | kSpecBonusRace            | {token / 4, draw, row}                 | harness/spec_draws.cc (bonus-token Exp(1) noise) |
// | 0x16b  | kWrongUniform16           | {token / 4, draw, row}                 | harness/wrong/wrong_tail_amplifiers.cc (the uniform faults) |
//
// Streams that reproduce a peer (cuRAND's curand_init / curand, SGLang's MurmurHash3 key) are
// not sampcheck's own and keep the peer's layout: philox.h and murmur3.h. The position-keyed
// PhiloxCanonicalWord of philox.h ({token, draw / 4, step, request}, no tag) is the canonical
// mapping a stage's spec may name for its own noise; it is a stage's input, not a harness
// stream, so it is not in this table.
// Example: StreamWord(kCountDraws, 7, 0, 3, 2, 1) is word 1 of Philox4x32_10({0, 3, 2, 0x5eed},
// {7, 0}).

#include <cstdint>

#include "core/portability.h"
#include "reference/rng/philox.h"

namespace sampcheck::rng {

enum class Stream : std::uint32_t {
  kDrawHarnessNoise = 0x401,
  kNoiseHarness = 0x402,
  kCountDraws = 0x5eed,
  kSpecDrafts = 0x5d0,
  kSpecUniforms = 0x5d1,
  kSpecRecoveredRace = 0x5d2,
  kSpecBonusRace = 0x5d3,
  kWrongUniform16 = 0x16b,
};

inline constexpr Stream kAllStreams[] = {Stream::kDrawHarnessNoise, Stream::kNoiseHarness, Stream::kCountDraws,
                                         Stream::kSpecDrafts,       Stream::kSpecUniforms, Stream::kSpecRecoveredRace,
                                         Stream::kSpecBonusRace,    Stream::kWrongUniform16};

// The Philox key of a 64-bit seed: low word first (cuRAND's curand_init does the same).
SAMPCHECK_HOST_DEVICE constexpr Philox4x32Key SeedKey(std::uint64_t seed) {
  return {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
}

// Block {c0, c1, c2} of a stream under `seed`.
SAMPCHECK_HOST_DEVICE constexpr Philox4x32Block StreamBlock(Stream stream, std::uint64_t seed, std::uint32_t c0,
                                                           std::uint32_t c1, std::uint32_t c2) {
  return Philox4x32_10({{c0, c1, c2, static_cast<std::uint32_t>(stream)}}, SeedKey(seed));
}

// Word `word` (0..3) of that block.
SAMPCHECK_HOST_DEVICE constexpr std::uint32_t StreamWord(Stream stream, std::uint64_t seed, std::uint32_t c0,
                                                        std::uint32_t c1, std::uint32_t c2, std::uint32_t word) {
  return StreamBlock(stream, seed, c0, c1, c2).v[word & 3u];
}

}  // namespace sampcheck::rng
