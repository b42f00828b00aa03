// SPDX-License-Identifier: Apache-2.0
#pragma once
// spec_greedy: greedy verification of speculative drafts (docs/spec/speculative.md#spec_greedy).
//
// Contract:
// - Inputs: draft_ids i32 [B, K] (K >= 0; row b has n_b drafts then -1 padding,
//   reference/draft_tokens.h); target_logits [B, K + 1, V] f32/f16/bf16 (upcast to f32):
//   position i scores the token that follows the i drafts before it.
// - Per row, with a_i = CanonicalArgmax(target_logits[b, i]) (greedy.md's order: first NaN,
//   else the lowest index among equal maxima): for i = 0, 1, ...: emit a_i; if i == n_b stop
//   (a_{n_b} is the bonus token); if draft_i != a_i stop (a_i replaced the rejected draft);
//   otherwise the draft is accepted and i advances. So a row emits num_accepted + 1 tokens.
//   Positions past n_b are never read. (vLLM's rejection_greedy_sample_kernel with the bonus
//   token taken as the argmax of position n_b.)
// - Outputs: emitted i64 [B, K + 1], -1 after the last emitted token; num_accepted i64 [B].
// - Exact tier; no randomness.
// Example: drafts {5, 2}, argmaxes {5, 7, 1} -> emitted {5, 7, -1}, num_accepted 1;
//   drafts {} (K = 0) -> emitted {a_0}, num_accepted 0.

#include "core/case.h"
#include "core/profile.h"
#include "reference/draft_tokens.h"

namespace sampcheck::reference {

// The checked inputs (contract block), read once for the reference and the gpu glue
// (gpu/backend/draws_glue.cc): the drafts, the target rows and each row's number of drafts.
using SpecGreedyArgs = DraftedTarget;
SpecGreedyArgs ParseSpecGreedy(const Case& c);

TensorMap RunSpecGreedy(const Case& c, Profile profile);

}  // namespace sampcheck::reference
