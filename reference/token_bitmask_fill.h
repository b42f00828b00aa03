// SPDX-License-Identifier: Apache-2.0
#pragma once
// token_bitmask_fill: the grammar side of the token bitmask. A batch bitmask is filled from
// the allowed-id lists of the structured-output rows, in xgrammar's layout, and assembled into
// the logits' row order as vLLM's apply_grammar_bitmask does (docs/spec/token_bitmask_fill.md).
//
// Contract:
// - Inputs: allowed_ids [G, A] i32, -1 padded, other entries in [0, vocab_size), repeats
//   allowed: compacted grammar row g allows exactly its listed ids. spec_tokens [R] i32 >= 0:
//   the speculative tokens scheduled for each request, in batch order; the logits have
//   L = R + sum(spec_tokens) rows, request b's first row at b + (spec tokens of the requests
//   before it). structured [S] i32: the batch index of each structured-output request, in the
//   order of the compacted bitmask (distinct, in [0, R)); request structured[s] owns the
//   1 + spec_tokens[structured[s]] compacted rows that follow those of structured[0..s), so
//   G = sum over s of that count. Optional buffer [L, words] i32: what the reused bitmask
//   buffer held before (it never shows through). Parameters: vocab_size (required, >= 1) and
//   words (the buffer's row stride in i32 words, default ceil(vocab_size / 32), at least that).
// - Output bitmask [L, words] i32: the i-th row (i <= spec_tokens) of structured request b,
//   logits row b + offset(b) + i, holds compacted row (its first row) + i: bit (t % 32) of word
//   t / 32, LSB first, is 1 iff t is listed, for t < vocab_size; every bit at t >= vocab_size
//   (the tail of the last word and the words past ceil(vocab_size / 32)) is 1, as xgrammar's
//   allocate_token_bitmask / reset_token_bitmask leave it. Every other row is -1 (vLLM's
//   np.full(..., -1): an unguided row allows everything).
// - Output indices [G] i32: the logits rows filled, in the compacted order (vLLM's
//   out_indices, which it passes to apply_token_bitmask_inplace unless G == L).
// - Exact tier, no randomness; one profile, canonical (xgrammar's layout, vLLM's assembly).
// Example: vocab_size 5, spec_tokens {0, 1}, structured {1}, allowed_ids {{0, 4}, {2, -1}}:
//   L = 3, request 1 owns rows 1 and 2 -> bitmask {-1, 0xFFFFFFF1, 0xFFFFFFE4} (as i32
//   {-1, -15, -28}), indices {1, 2}.

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

TensorMap RunTokenBitmaskFill(const Case& c, Profile profile);

}  // namespace sampcheck::reference
