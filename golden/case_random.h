// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deterministic randomness for golden case generation: SplitMix64 (core/split_mix64.h) and
// integer-only conversions, so every machine generates the same bytes. No std::
// distributions (their output is implementation-defined, docs/contributing.md "Numerics") and no libm.
//
// Logits are drawn as k / 2^s with integer k, then rounded to the case's dtype with the exact
// RNE narrowing of core/half.h, so inputs are exactly representable in that dtype.

#include <cstdint>
#include <string_view>

#include "core/split_mix64.h"
#include "core/tensor.h"

namespace sampcheck::golden {

using sampcheck::SplitMix64;

// A seed for one case from the set's seed and the case id (FNV-1a over the id, then mixed), so
// adding a case never changes the inputs of another.
std::uint64_t CaseSeed(std::uint64_t set_seed, std::string_view case_id);

// Logits [rows, vocab] of `dtype` (f32, f16 or bf16), values k / 256 with k uniform in
// [-4096, 4096] (so in [-16, 16]), rounded to the dtype.
Tensor RandomLogits(SplitMix64& rng, std::int64_t rows, std::int64_t vocab, DType dtype);
// Writes f32 `value` rounded to the tensor's floating dtype at flat index i.
void SetLogit(Tensor& t, std::int64_t i, float value);
float GetLogit(const Tensor& t, std::int64_t i);

// Bitmask words [rows, words] of i32, every bit uniform (the token_bitmask families).
Tensor RandomWords(SplitMix64& rng, std::int64_t rows, std::int64_t words);

// Noise shared by the draw and speculative families:
// u in (0, 1): 23 random bits plus half a step, k + 0.5 exact in f32 (24 significant bits),
// so the largest value is 1 - 2^-24 and neither end is reached;
float OpenUniform(SplitMix64& rng);
// Exp(1) noise [rows, vocab] f32 through the owned law of reference/rng/noise.h (no libm);
Tensor ExpNoise(SplitMix64& rng, std::int64_t rows, std::int64_t vocab);
// f64 uniforms [rows, k] in [0, 1): 53 random bits (vLLM's rejection uniforms).
Tensor Uniforms64(SplitMix64& rng, std::int64_t rows, std::int64_t k);

}  // namespace sampcheck::golden
