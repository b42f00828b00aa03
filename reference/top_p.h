// SPDX-License-Identifier: Apache-2.0
#pragma once
// top_p (nucleus): keep the most probable tokens until their mass reaches p, mask the rest
// with -inf (docs/spec/filters.md#top_p).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32, any values); top_p [B] f32, not NaN. Output: logits
//   [B, V] f32, dropped entries -inf, kept ones bit-identical.
// - A row holding a NaN or a +inf (TopPDegenerateRow; docs/spec/filters.md "Degenerate rows"):
//   unchanged, except flashinfer at p < 1: all -inf. TopPRow itself takes only the other rows.
// - probs = SoftmaxRow(logits) (reference/softmax.h) for every profile: the peers' own
//   softmax and cumsum orders are not reproducible, so each profile keeps its peer's *rule*
//   on canonical arithmetic. Order: reference/filter_order.h (value desc, index asc).
//   E_j = the exclusive prefix of position j: f32 running sum of the probs before j, in
//   order, starting at +0.0.
// - p >= 1: identity (every profile but sglang, whose mask runs at every p). p <= 0: only the
//   first token of the order is kept
//   (flashinfer: the tokens whose prob equals the first one's). A row without a finite logit
//   is returned unchanged.
// - Kept positions (0 < p < 1):
//   canonical, ascend_v2: E_j < p (drop when the mass before reaches p: the minimal prefix
//     whose mass reaches p).
//   sglang (any p > 0, 1 and above included): C_j = f32 inclusive running sum in order;
//     kept iff f32(C_j - prob_j) <= p, each position tested on its own (SGLang's
//     `(probs_sum - probs_sort) > top_ps` zeroed). A token whose preceding mass equals p is
//     kept; at p = 1 the tail is dropped once the f32 sum passes 1.
//   flashinfer: tokens of equal prob form a group; a group is kept iff E at its first token
//     < p (ties go together).
//   vllm (sort path): ascending order (smallest first, equal values by increasing index, as
//     a stable ascending sort leaves them: of a tied pair the lower index is met, and
//     dropped, first); c_j = f32 running
//     sum of probs from the smallest up to and including j; dropped iff c_j <= 1 - p (f32),
//     except the largest token, always kept.
// - Exact tier given the canonical softmax. Sorts only the survivors plus a margin (vllm:
//   the whole row, whose ascending sum needs every smaller token; an O(V) radix sort).
// Example: probs {0.5, 0.25, 0.125, 0.125} (dyadic, exact), p = 0.75: E = 0, 0.5, 0.75, 0.875:
//   canonical/vllm/ascend keep 2, sglang keeps 3, flashinfer keeps 2 (docs/peers.md).

#include <cstdint>
#include <span>
#include <vector>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

void TopPRow(Profile profile, std::span<float> row, float p);
// When the row holds a NaN or a +inf: the stage's result on it, in place, and true; otherwise
// false and the row untouched (TopPRow's business).
bool TopPDegenerateRow(Profile profile, std::span<float> row, float p);
// TopPRow(profile, row, p) for a profile other than sglang and p < 1 when GatherSurvivors(row)
// gave `survivors`: the same bits (docs/spec/filters.md "Work on the survivors only").
struct Survivors;
void TopPSurvivors(Profile profile, std::span<float> row, float p, const Survivors& survivors);
// The kept tokens (in order) of the prefix rule of `profile` (any but vllm) on given `probs`,
// among the first `limit` positions of the order only — for the joint orders, where top-p's
// set is intersected with top-k's, which is itself a prefix of the order. 0 < p < 1, or
// p <= 0 (the first token or tie group).
std::vector<std::int32_t> TopPKept(Profile profile, std::span<const float> row, std::span<const float> probs, float p,
                                   std::int64_t limit);
// The stage's inputs after every check (logits finite or -inf, top_p [B] f32 without NaN), one
// message each: what the reference below and the gpu glue (gpu/backend/filters_glue.cc) compute
// from. The profile's rule is TopPWalkFor (reference/profile_rules.h). `top_p` points into the
// case, which must outlive the arguments.
struct TopPArgs {
  Tensor logits;                // [B, V], upcast to f32
  const float* top_p = nullptr;  // [B]
};
TopPArgs ParseTopP(const Case& c, Profile profile);

TensorMap RunTopP(const Case& c, Profile profile);

}  // namespace sampcheck::reference
