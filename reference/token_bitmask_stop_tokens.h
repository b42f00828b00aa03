// SPDX-License-Identifier: Apache-2.0
#pragma once
// token_bitmask_stop_tokens: xgrammar's stop-token rule on a filled bitmask: a stop token is
// allowed exactly when the grammar can end (docs/spec/token_bitmask_stop_tokens.md).
//
// Contract:
// - Inputs: bitmask [B, W] i32 in xgrammar's layout (the grammar's other tokens already
//   filled; stop bits as a reused buffer left them); stop_ids [B, S] i32, -1 padded, other
//   entries in [0, 32 W), repeats allowed; can_end [B] bool: the row's grammar can terminate
//   here (xgrammar's IsCompleted()).
// - Output bitmask [B, W] i32: the input with, for every listed stop id t of row b, bit
//   (t % 32) of word t / 32 set to 1 when can_end[b] and cleared to 0 otherwise
//   (GrammarMatcher::Impl::SetTokenBitmask: `if (can_reach_end) Set(id, true)` on the
//   accepted-set path, `if (!can_reach_end) Set(id, false)` on the rejected-set path). Every
//   other bit keeps its input value.
// - Exact tier, no randomness; one profile, canonical.
// Example: bitmask {{-1}, {0}}, stop_ids {{2, -1}, {2, 5}}, can_end {0, 1}
//   -> {{-5}, {0b100100 = 36}}.

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

TensorMap RunTokenBitmaskStopTokens(const Case& c, Profile profile);

}  // namespace sampcheck::reference
