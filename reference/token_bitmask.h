// SPDX-License-Identifier: Apache-2.0
#pragma once
// token_bitmask: xgrammar's apply_token_bitmask_inplace (docs/spec/masks.md#token_bitmask).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32); bitmask [Bm, W] i32; optional indices [N] i32;
//   parameter vocab_size (default min(V, 32 W); an explicit value must be in [0, min(V, 32 W)]).
//   Output: logits [B, V] f32.
// - Token t of a masked row r is allowed iff bit (t % 32) of bitmask[r][t / 32] is 1, LSB
//   first (word -1 allows all 32). For t < vocab_size a disallowed logit is set to -inf;
//   allowed logits and columns t >= vocab_size are untouched (wider logits stay unmasked,
//   extra mask bits are ignored).
// - Without indices every row r in [0, B) is masked with bitmask row r (Bm must equal B).
//   With indices, each listed r (in [0, B) and [0, Bm)) is masked with bitmask row r — the
//   same row of logits and bitmask — and other rows are untouched; a repeated index masks
//   the row again (idempotent).
// - Exact tier, no randomness.
// Example (xgrammar's tests): word 0b1010101010 over logits {1..10} keeps tokens 1, 3, 5, 7, 9
// (values 2, 4, 6, 8, 10) and sets tokens 0, 2, 4, 6, 8 to -inf.

#include <cstdint>
#include <vector>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The stage's inputs after every check above (vocab_size, then each indices entry or the
// bitmask's rows), one message each: what the reference below and the gpu glue (gpu/backend/gpu_backend.cc) compute from. `bitmask` points into the case, which
// must outlive the arguments.
struct TokenBitmaskArgs {
  Tensor logits;                    // [B, V], upcast to f32
  const Tensor* bitmask = nullptr;  // [Bm, W] i32
  std::int64_t vocab_size = 0;      // columns [0, vocab_size) are masked
  std::vector<std::uint8_t> masked;  // [B]: 1 for the rows to mask
};
TokenBitmaskArgs ParseTokenBitmask(const Case& c, Profile profile);

TensorMap RunTokenBitmask(const Case& c, Profile profile);

}  // namespace sampcheck::reference
