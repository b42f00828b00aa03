// SPDX-License-Identifier: Apache-2.0
#pragma once
// min_p: keep the tokens whose probability is at least min_p times the largest one, mask the
// rest with -inf (docs/spec/filters.md#min_p).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32, any values); min_p [B] f32, not NaN. Output: logits
//   [B, V] f32, dropped entries -inf, kept ones bit-identical.
// - A row holding a NaN or a +inf (MinPDegenerateRow; docs/spec/filters.md "Degenerate rows"):
//   unchanged, except flashinfer at m > 0: all -inf. MinPRow itself takes only the other rows.
// - probs = SoftmaxRow(logits); max_prob = the largest prob; threshold = max_prob * m, one
//   f32 multiplication; kept iff prob >= threshold.
// - m <= 0: identity (every profile). m >= 1: canonical, vllm, sglang, flashinfer use m = 1
//   (the tokens tied with the largest prob); ascend_v2 keeps the first token of the order
//   only. A row without a finite logit is returned unchanged.
// - The distribution min-p sees (before or after top-k/top-p, renormalised or not) is a
//   property of the filter order: see sampling_filters. This stage filters the row it is given.
// - Exact tier given the canonical softmax; one pass, no sort.
// Example: probs {0.5, 0.25, 0.125, 0.125}, m = 0.5: threshold 0.25 -> the first two kept.

#include <span>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

void MinPRow(Profile profile, std::span<float> row, float m);
// When the row holds a NaN or a +inf: the stage's result on it, in place, and true; otherwise
// false and the row untouched (MinPRow's business).
bool MinPDegenerateRow(Profile profile, std::span<float> row, float m);
// The same rule on given probabilities (max_prob is their maximum): for orders where min-p
// reads a distribution other than the softmax of the row itself.
void MinPRowFromProbs(Profile profile, std::span<float> row, std::span<const float> probs, float m);
// MinPRow(profile, row, m) for m > 0 when GatherSurvivors(row) gave `survivors`: the same bits
// (docs/spec/filters.md "Work on the survivors only"), reading only the survivors.
struct Survivors;
void MinPSurvivors(Profile profile, std::span<float> row, float m, const Survivors& survivors);
// The stage's inputs after every check (logits [B, V] of any values, min_p [B] f32 without NaN), one
// message each: what the reference below and the gpu glue (gpu/backend/filters_glue.cc) compute
// from. The profile's rule is MinPFirstOnlyAtOne (reference/profile_rules.h). `min_p` points
// into the case, which must outlive the arguments.
struct MinPArgs {
  Tensor logits;                // [B, V], upcast to f32
  const float* min_p = nullptr;  // [B]
};
MinPArgs ParseMinP(const Case& c, Profile profile);

TensorMap RunMinP(const Case& c, Profile profile);

}  // namespace sampcheck::reference
