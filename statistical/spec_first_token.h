// SPDX-License-Identifier: Apache-2.0
#pragma once
// The exact law of the token the draw harness counts on spec_random and spec_step: the FIRST
// emitted token emitted[b, 0], or the acceptance of draft 0 (docs/spec/harness.md
// "Speculative decoding"; docs/spec/speculative.md). The harness's noise for these stages is
// harness/spec_draws.h.
//
// Contract:
// - Counted token: emitted[b, 0]. Whatever draft distribution q_0 proposes x_0, the first
//   emitted token follows the target row p_0 = target_probs[b, 0] / sum exactly (Leviathan,
//   Kalman & Matias 2023, Theorem 1): x_0 is accepted with probability min(1, p_0(x_0) /
//   q_0(x_0)), else the recovered token follows Residual(p_0, q_0); with n_b = 0 it is the bonus
//   token, drawn from p_0. An n-gram draft (no draft_probs, vllm) is a point mass q_0 = [x_0],
//   for which the same law holds with x_0 fixed. SpecFirstTokenTarget gives p_0 per row
//   (support: p_0 > 0; no ambiguous tokens, no greedy rows).
// - The law is exact when each row's draft and target rows hold the same total (the stage
//   compares raw target_probs / draft_probs); the families of
//   harness/stat_cases/spec_stat_cases.h are normalised in binary64 and rounded to f32, so the
//   totals differ from 1 by a few f32 ulps and the law is p_0 within ~1e-6 in TV, far below
//   every declared effect. The f32 ratio, product and running sum of the stage move it by a
//   few ulps as well.
// - spec_step (logits in; docs/spec/spec_step.md "Draw harness"): the case is viewed as the
//   spec_random case of its verifier's probabilities (SpecProbabilityView). sglang's first
//   token follows target row 0 for any draft law only at the default thresholds, so a case
//   with threshold_single or threshold_acc other than 1 throws, as does an acceptance case
//   under block_verification. sglang's acceptance law is Bernoulli(sum_j q_0(j) p_0(j))
//   (target-only: draft x accepted with p_0(x)), q_0 the draft row the drafts come from.
// - Acceptance cases: a case whose params hold kSpecCountParam = "accepted_0" (a harness
//   parameter: SpecDrawNoiseCase removes it, so no backend sees it) counts the outcome of draft
//   0 instead, over two categories {0: rejected, 1: accepted} (num_accepted >= 1). Its exact law
//   is Bernoulli(a): a = sum_j min(p_0(j), q_0(j)) = 1 - TV(p_0, q_0) for drafts drawn from q_0
//   (both rows normalised), a = p_0(x_0) for an n-gram draft, a = 0 for a row without drafts;
//   so the L2 test is the exact binomial test of the accept count against Binomial(n, a).
// - Bad input (missing tensors, a draft row with no positive entry) throws InputError naming
//   the case and the tensor.
// Example: p_0 = {0.4, 0.3, 0.2, 0.1}, q_0 = {0.1, 0.2, 0.3, 0.4}: the first emitted token is
//   distributed as p_0 (tests/spec_draws_test.cc checks the law by exact enumeration).
#include "core/case.h"
#include "statistical/exact_target.h"

namespace sampcheck::statistical {

ExactTarget SpecFirstTokenTarget(const Case& c);

inline constexpr const char* kSpecCountParam = "harness_count";
// Whether the case counts the acceptance of draft 0 (two categories) rather than the first token.
bool SpecCountsAcceptance(const Case& c);

// The pieces the harness's noise shares with the law (harness/spec_draws.cc):
// the input `name` of the case, or InputError naming the case and the input;
const Tensor& SpecRequiredInput(const Case& c, const char* name);
// a case without draft_ids (drafts drawn at every position of draft_probs [B, K, V]) as one
// with K placeholder drafts per row;
Case SpecWithDraftIds(const Case& c);
// whether the stage's distribution input holds logits (spec_step) rather than probabilities
// (spec_random): the catalogue's role decides, not the stage's name;
bool SpecFromLogits(const Case& c);
// spec_step as a spec_random case under the token-wise (vllm) law: its draft_ids and the
// probabilities its verifier compares (reference::SpecStepVerifierProbs: min_tokens mask,
// temperature, filters, softmax on target and draft positions). The first emitted token
// follows target row 0 under token-wise and block verification alike (both preserve the
// target distribution); the acceptance of draft 0 is 1 - TV only token-wise.
//
// sglang (target-only verification, docs/spec/spec_step.md "Draw harness"): the first token
// follows target row 0 for any draft law, but only at SGLang's default thresholds (1, 1);
// below them the verifier is lossy by design, so such a case is refused.
Case SpecProbabilityView(const Case& c);

}  // namespace sampcheck::statistical
