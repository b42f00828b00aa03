// SPDX-License-Identifier: Apache-2.0
#pragma once
// token_bitmask_allowed: whether a token id is allowed by its row of a token bitmask, for the
// full int64 range a caller can hold (sampled tokens, draft tokens to verify against the
// grammar) (docs/spec/token_bitmask_allowed.md).
//
// Contract:
// - Inputs: bitmask [B, W] i32 in xgrammar's layout; token_ids [B, N] i64, any value.
//   Parameter vocab_size (default 32 W; an explicit value must be in [0, 32 W]).
// - Output allowed [B, N] bool: 1 iff 0 <= id < vocab_size and bit (id % 32) of word
//   id / 32 of row b is 1, LSB first (xgrammar's DynamicBitset::operator[]), the id compared
//   and divided as an int64: no narrowing. An id below 0 or at or above vocab_size is not
//   allowed (0), never an error: ids are values a caller sends, and 2^32 + t must not alias t.
// - Exact tier, no randomness; one profile, canonical.
// Example: bitmask {{0b1010}}, token_ids {{1, 2, 3, 2^32 + 1, -1}} -> allowed {{1, 0, 1, 0, 0}}.

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

TensorMap RunTokenBitmaskAllowed(const Case& c, Profile profile);

}  // namespace sampcheck::reference
