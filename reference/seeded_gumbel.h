// SPDX-License-Identifier: Apache-2.0
#pragma once
// Seeded Gumbel-max draws keyed by (seed, position, column): SGLang's multinomial_with_seed
// (columns = ranks in the sorted, filtered row) and its token-id variant
// (docs/spec/draws.md#multinomial_with_seed).
//
// Contract:
// - Inputs: probs [B, V] (f32/f16/bf16 upcast exactly; finite, >= 0, need not sum to 1; the
//   row in the caller's column order — SGLang passes its descending-sorted, filtered probs);
//   seed [B] i64 (any value, reinterpreted as u64 as `seed.to(torch.uint64)` does);
//   positions [B] i64 in [0, 2^32) (SGLang truncates with `.to(tl.uint32)`; a negative or
//   wider position is rejected rather than silently wrapped). The token-id variant also takes
//   token_ids [B, V] i32 >= 0: the hash column of entry j. Output token [B] i64: the winning
//   column j (what SGLang's function returns; its caller gathers probs_idx[j]).
// - Per row b, for every column j with probs[j] > 0, in binary64:
//     h_j   = SglangMurmurKey(seed_b, position_b, column_j)  column_j = j, or token_ids[b][j]
//     g_j   = GumbelSglangF64(h_j / (2^32 - 1))               (reference/rng/noise.h)
//     s_j   = LogF64Dd(f64(probs[j])) + g_j                   one f64 addition
//   token = the first j maximising s_j. A zero probability is never drawn (SGLang's log(0) =
//   -inf never wins, as every g_j is finite); a row without a positive probability is an
//   error. The noise is finite at both ends (GumbelSglangF64 clamps), so s_j is never NaN.
// - Canonical tier: bitwise given the owned LogF64Dd; SGLang's torch log on the GPU may differ
//   in the last bit of s_j, which moves the winner only on near-ties.
// - Speed: s_j is computed only for columns that can still win. A column is skipped when an
//   upper bound of s_j does not exceed the running maximum; the bound is exact-safe (see
//   seeded_gumbel.cc), so skipping never changes the result.
// Example: probs {0.5, 0.5}: both columns have log p = -ln 2, so the larger Gumbel wins;
//   probs {0, 1}: column 1 whatever the hashes.

#include <cstdint>
#include <span>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The winning column of one row; `columns` empty means column_j = j. probs must be finite and
// >= 0 with at least one positive entry (not checked here). Returns -1 when none is positive.
std::int64_t SeededGumbelColumn(std::span<const float> probs, std::uint64_t seed, std::uint32_t position,
                                std::span<const std::int32_t> columns = {});

// The inputs of multinomial_with_seed (token_id_columns false) or
// multinomial_with_seed_token_ids (true) after every check (shapes, token ids, then per row the
// position's range and positivity), one message each: what the reference below and the gpu glue
// (gpu/backend/draws_glue.cc) compute from. The tensors point into the case, which must
// outlive the arguments.
struct SeededGumbelArgs {
  Tensor probs;                       // [B, V], upcast to f32, each row with a positive entry
  const Tensor* seed = nullptr;       // [B] i64
  const Tensor* positions = nullptr;  // [B] i64 in [0, 2^32)
  const Tensor* token_ids = nullptr;  // [B, V] i32 >= 0 (token_id_columns only), or null
};
SeededGumbelArgs ParseSeededGumbel(const Case& c, bool token_id_columns);

TensorMap RunMultinomialWithSeed(const Case& c, Profile profile);
TensorMap RunMultinomialWithSeedTokenIds(const Case& c, Profile profile);

}  // namespace sampcheck::reference
