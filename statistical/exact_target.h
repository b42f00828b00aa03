// SPDX-License-Identifier: Apache-2.0
#pragma once
// The exact target distribution of a stochastic case, row by row, with the tokens that can
// never be drawn (layer L1) and the ambiguous ones whose inclusion depends on rounding at a
// threshold (docs/spec/harness.md "Exact targets"; docs/method.md "Layers").
//
// Contract:
// - Stages: exponential_race, inverse_cdf, qsample, multinomial_with_seed and
//   multinomial_with_seed_token_ids (input probs: target = probs / sum, support = probs > 0;
//   qsample's eps = 1e-8 added to |q| moves a probability by less than 1e-8), spec_random (the
//   first emitted token: target_probs of position 0, normalised, when the drafts are drawn
//   from draft_probs — docs/spec/speculative.md "Exact laws"), gumbel_max (input logprobs: target = softmax over finite scores), and pipeline
//   (every group of reference/pipeline.h; sparse logit-bias lists throw). Noise inputs
//   (q, gumbel, u, seed, positions) are ignored: the target does not depend on them.
// - pipeline: the support of a random row is the set the reference keeps — ComposePipeline
//   (reference/pipeline.h: penalties, masks, bias, temperature, then the filters under the
//   case's profile; none on SGLang's unfiltered path), so the bit-exact f32 rules decide it — and
//   the probability of a kept token is exp(s_i - s_max) / sum over kept tokens, computed in
//   long double from the f32 scaled logits s (temperature output). A greedy row (temperature
//   below the profile's epsilon, or greedy by the profile's other rules) has one token, the
//   reference greedy argmax, probability 1.
// - Probabilities are computed in long double (x86-64: 64-bit significand) and stored as
//   double; each row's p sums to 1 within 1e-15.
// - Ambiguous tokens (pipeline only): a threshold rule compares an exact quantity the f32
//   reference only approximates. A token is ambiguous when that exact quantity lies within
//   kAmbiguityTolerance (relative) of the threshold WITHOUT being equal to it:
//     min_p: ratio exp(s_i - s_max) vs min_p (the ratio is the same in every renormalised
//       distribution min-p may read, so the order does not matter);
//     top_p: the cumulative mass before and including the token, in the profile order's
//       descending order (value, then lower index) over the distribution top-p reads (the
//       top-k survivors for top_k_first, every token for joint, the min-p and top-k survivors
//       for min_p_first), vs top_p.
//   Exact equality is not ambiguous: it is decided by the rule's comparison, which every
//   backend must follow (the dyadic boundary families rely on it). Top-k ties are not
//   ambiguous: the profile's tie rule decides them exactly. A token can be ambiguous whether
//   the reference kept it or not; its p is the reference's (0 when dropped).
// - Deterministic; bad input throws (InputError / std::invalid_argument from the reference).
// Example: pipeline logits {0, -ln2, -2ln2, -2ln2} (probs ~ {1/2, 1/4, 1/8, 1/8}), top_p 0.75,
//   canonical: support {0, 1}; the exact cumulative sum before token 2 is 0.75 only up to the
//   rounding of ln2 in f32, so token 2 is ambiguous (tests/exact_target_test.cc).
#include <cstdint>
#include <string>
#include <vector>

#include "core/case.h"

namespace sampcheck::statistical {

// 2^-16: 256 f32 ulps at 1. Covers the f32 softmax (a few ulps per probability) and the
// rounding of the f32 running sums of top-p over the families of harness/stat_cases/ (at most a few
// thousand decreasing terms, whose relative error stays well below 2^-16). It is a margin, not
// a proven bound for every input: a backend whose f32 decision differs from the reference's
// on a token outside this margin is reported (L1 or L2), which is the point of the check.
inline constexpr long double kAmbiguityTolerance = 0x1p-16L;

struct RowTarget {
  std::vector<double> p;                   // exact probability per token; sums to 1
  std::vector<std::int64_t> ambiguous;     // ascending token ids
  std::int64_t greedy_token = -1;          // >= 0: a deterministic (greedy) row
};

struct ExactTarget {
  std::int64_t vocab = 0;
  std::vector<RowTarget> rows;
};

// Whether ComputeExactTarget knows the stage.
bool HasExactTarget(const std::string& stage);
ExactTarget ComputeExactTarget(const Case& c);

}  // namespace sampcheck::statistical
