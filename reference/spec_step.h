// SPDX-License-Identifier: Apache-2.0
#pragma once
// spec_step: the whole speculative-decoding step from logits to the tokens a request keeps —
// the request's min_tokens mask, temperature and filters on every target and draft position,
// verification (token-wise or block), then stop ids inside the emitted tokens
// (docs/spec/spec_step.md).
//
// Contract (per row b with n = n_b drafts, reference/draft_tokens.h; positions past n unread):
// - Inputs: draft_ids i32 [B, K]; target_logits [B, K + 1, V] and draft_logits [B, K, V]
//   (f32/f16/bf16, upcast exactly, any values: degenerate rows below; draft_logits absent =
//   n-gram drafts, draft prob 1 at the draft, canonical only); temperature f32 [B] (>= 0, finite); optional top_k
//   i32, top_p f32, min_p f32 [B] (sampling_filters' absent values); optional stop_ids i32
//   [B, S] (-1 padded), min_tokens i32 [B] (>= 0), output_len i32 [B] (>= 0, tokens the
//   request produced before this step; absent 0); noise u f64 [B, K] in [0, 1), q and
//   bonus_q f32 [B, V] Exp(1), finite > 0 (random rows only read them).
// - Position i of row b (target i = 0..n, draft i = 0..n-1): if output_len + i < min_tokens,
//   every stop id gets -inf (min_new_tokens). Greedy row (temperature < 1e-5, the canonical
//   temperature rule): verification is spec_greedy's on the masked target logits (argmax in
//   greedy.md's order); noise and draft rows unread. Random row: x / t per entry (one f32
//   division), SamplingFiltersRow(canonical: top_k -> top_p -> min_p, each renormalised) and
//   SoftmaxRow — for the target AND the draft positions: the verifier sees filtered draft
//   probabilities.
// - Degenerate rows (docs/spec/spec_step.md "Degenerate rows"): a random position whose row
//   after the mask and temperature holds a NaN or a +inf, or no finite value. canonical and
//   block_verification: the point mass at SpecStepPointMassToken (the pipeline's canonical
//   token: its first NaN, else its first +inf, else 0), verified like any row. vllm: the
//   filters' degenerate-row rules and the softmax, NaN everywhere, verified by spec_random's
//   degenerate rules (rejected; recovered: a one-hot draft's own id, else 0; bonus 0). sglang:
//   the NaN softmax (all zero after a renorm) is rejected and the final scan falls back to
//   V - 1. Greedy rows: the argmax (first NaN, else first +inf, 0 for all -inf). Other rows
//   never change; every id is in [0, V).
// - Verification, profile canonical: token-wise, SpecRandomVllm (reference/spec_random.h) on
//   the probabilities above. Profile vllm (vLLM 9aaf83ef, docs/spec/spec_step.md): the same
//   verifier with vLLM's filters; param draft_sample_method "greedy" (default) ignores
//   draft_logits (one-hot drafts, as n-gram ones), "probabilistic" reads them unfiltered; the
//   bonus position's min_tokens mask tests output_len < min_tokens (the ordinary sampler's
//   processor), not output_len + n. Profile block_verification (Sun et al. 2024, "Block Verification
//   Accelerates Speculative Decoding", Algorithm 2): SpecVerifyBlock below; draft_logits
//   required.
// - Stops: the first emitted index i whose token is a stop id with output_len + i >=
//   min_tokens (the position where the mask was off) ends the row: tokens after i become -1,
//   finished = true. Outputs: emitted i64 [B, K + 1] (-1 padded), num_accepted i64 [B] (the
//   verifier's count, before stops), num_emitted i64 [B] (tokens kept), finished bool [B].
// - Canonical tier (softmax and filters), bitwise given the noise. Ties: lowest index.
// Example: one greedy row, drafts {5, 2}, target argmaxes {5, 2, 7}, stop_ids {2}, output_len
//   0, min_tokens 0: verification emits {5, 2, 7}; token 2 at index 1 is a stop: emitted
//   {5, 2, -1}, num_accepted 2, num_emitted 2, finished (tests/spec_step_test.cc).

#include <cstdint>
#include <span>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "reference/draft_tokens.h"
#include "reference/sampling_filters.h"
#include "reference/spec_random.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

// Block verification, in binary64. Rows t_i (target, i = 0..n) and d_i (draft, i < n) are
// normalised by their sums (index order; a zero row stays zero). P_0 = 1; for i < n,
// P_{i+1} = min(P_i t_i(x_i) / d_i(x_i), 1) (d_i(x_i) = 0: 1 if P_i t_i(x_i) > 0, else 0).
// h_n = P_n; for 1 <= i < n, h_i = N_i / (N_i + 1 - P_i) with N_i = sum_j max(P_i t_i(j) -
// d_i(j), 0) (a zero denominator: 1). tau = the largest i in 1..n with u[i - 1] <= h_i, else
// 0. Emits x_0..x_{tau-1}, then: tau < n: RaceArgmax(r, q) with r_j = f32(max(P_tau t_tau(j) -
// d_tau(j), 0)); tau = n: RaceArgmax(raw target row n, bonus_q). n = 0: the bonus only.
SpecOutcome SpecVerifyBlock(const SpecRequest& r, std::span<const double> u, std::span<const float> q,
                            std::span<const float> bonus_q);

// The probabilities the verifier of each random row compares, as RunSpecStep computes them
// (min_tokens mask, x / t, filters, softmax): target [B, K + 1, V] at positions 0..n_b, draft
// [B, K, V] at positions 0..n_b - 1 (empty tensor without draft_logits); other positions and
// greedy rows stay 0.
struct SpecStepProbs {
  Tensor target;
  Tensor draft;
};

// Test seams for the planted faults of harness/wrong/wrong_spec_step.cc.
struct SpecStepRules {
  bool filter_draft = true;        // false: draft probabilities from the tempered, unfiltered logits
  bool stop_inside_drafts = true;  // false: stop ids are not looked for in the emitted tokens
  SpecStepProbs* capture = nullptr;  // when set, receives the verifier's probabilities
  // vllm: the draft rows get the request's filters (canonical's rule) although the drafter's
  // probabilities are unfiltered.
  bool vllm_filter_draft = false;
  // vllm: min-p at the verified positions too (canonical's rule), not only at the bonus.
  bool vllm_min_p_verified = false;
  // sglang: the final draw after a rejection reuses the coin that rejected (f32(u[b, i]))
  // instead of final_u (SGLang's `coin = uniform_samples_for_final_sampling[bx]` forgotten).
  bool sglang_reuse_coin = false;
  // sglang: the acceptance compares the coin with the target probability before
  // top_k_renorm_prob / top_p_renorm_prob (the softmax row), the final draw stays on the
  // renormalised row.
  bool sglang_unfiltered_acceptance = false;
  // canonical, block_verification: false sends a degenerate position through the filters and
  // the NaN softmax (vLLM's arithmetic) instead of its point mass.
  bool canonical_point_mass = true;
  // vllm, sglang: NaN target probabilities read as 0 (a load that masks non-finite values).
  bool nan_target_as_zero = false;
};

// SpecStepProbs of a case, its noise not needed (the draw harness draws drafts from the draft
// rows and takes target row 0 as the first emitted token's law: harness/spec_draws.h).
// sglang: target rows as its verifier reads them (softmax, top_k_renorm_prob,
// top_p_renorm_prob); its verifier never reads the draft rows, so `draft` holds the draft
// logits under the same softmax and renorms (the law the harness draws drafts from: any draft
// law gives the same first-token law at the default thresholds).
SpecStepProbs SpecStepVerifierProbs(const Case& c);

// vllm's param draft_sample_method: true for "greedy" (the default: the rejection sampler gets
// no draft probabilities, one-hot drafts as n-gram ones), false for "probabilistic" and for
// other profiles; fails through `in` on another value or when another profile sets it.
bool VllmDraftsOneHot(const StageInputs& in, const Case& c, Profile profile);

// A case's checked inputs, shared by the reference and the gpu glue so each check and its
// message exist once, in this order: the profile has a rule; draft_ids i32 [B, K] and their
// counts; target_logits [B, K + 1, V] (draft_logits [B, K, V] when given; block verification
// needs them) of any values; temperature [B] finite and >= 0; top_k, top_p, min_p,
// min_tokens, output_len [B] when given (top_p, min_p finite; the two counts >= 0); stop_ids
// [B, S] ids or -1; then, when a row is random, u f64 [B, K] in [0, 1) and (but sglang) the
// Exp(1) noise q and bonus_q [B, V]; sglang's thresholds and final_u f32 [B] in [0, 1).
struct SpecStepArgs : DraftedTarget {  // the drafts, the target rows, drafts per row
  bool has_draft = false;
  Tensor draft;                      // f32 [B, K, V] when has_draft
  bool use_draft = false;            // the verifier reads the draft rows (vllm greedy drafts: one-hot)
  const Tensor* temperature = nullptr;
  const Tensor *top_k = nullptr, *top_p = nullptr, *min_p = nullptr;
  const Tensor *min_tokens = nullptr, *output_len = nullptr, *stop_ids = nullptr;
  bool any_random = false;  // a row at or above the canonical sampling epsilon
  const Tensor *u = nullptr, *q = nullptr, *bonus_q = nullptr, *final_u = nullptr;
  float threshold_single = 1.0f, threshold_acc = 1.0f;  // sglang
};
SpecStepArgs ParseSpecStep(const Case& c, Profile profile);

// docs/spec/spec_step.md "Degenerate rows": canonical and block_verification give a random
// position whose row after the min_tokens mask and temperature holds a NaN or a +inf, or no
// finite value, the point mass at PipelineDegenerateToken's canonical token (its first NaN,
// else its first +inf, else 0: the token the canonical pipeline draws from that row); -1 for a
// healthy row, and always under vllm and sglang, whose softmax of such a row is NaN everywhere
// and whose verifiers decide it. The gpu's temperature kernel finds the same token in its read
// of the row (gpu/kernels/temperature.cuh, point_mass).
std::int64_t SpecStepPointMassToken(std::span<const float> scaled_row, Profile profile);

// Whether `profile` gives a degenerate position the point mass above (canonical,
// block_verification): the one place the profiles are named.
bool SpecStepHasPointMass(Profile profile);

// One random position's verifier probabilities from its row after the mask and temperature
// (token-wise and block profiles): the point mass of SpecStepPointMassToken when `point_mass`
// and there is one, else the filters (vllm's under vllm, canonical's otherwise; none when
// `filter` is false) with their degenerate-row rules, then SoftmaxRow. `scaled_row` is
// filtered in place.
void SpecStepPositionProbs(Profile profile, std::span<float> scaled_row, bool filter, const FilterParams& params,
                           bool point_mass, std::span<float> probs);

TensorMap RunSpecStep(const Case& c, Profile profile);
TensorMap RunSpecStepWith(const Case& c, Profile profile, const SpecStepRules& rules);

}  // namespace sampcheck::reference
