// SPDX-License-Identifier: Apache-2.0
#pragma once
// How the draw harness draws spec_random: the harness noise of one draw (drafts sampled from
// the draft rows, u, q, bonus_q) and the exact law of the token it counts, the FIRST emitted
// token emitted[b, 0] (docs/spec/harness.md "Speculative decoding"; docs/spec/speculative.md).
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
//   compares raw target_probs / draft_probs); the families of spec_stat_cases.h are normalised
//   in binary64 and rounded to f32, so the totals differ from 1 by a few f32 ulps and the law
//   is p_0 within ~1e-6 in TV, far below every declared effect. The f32 ratio, product and
//   running sum of the stage move it by a few ulps as well.
// - SpecDrawNoiseCase(c, draws, seed, first_draw): `draws` replicas of every row (replica d of
//   row b is row d * B + b), with
//     draft_ids: when draft_probs is present, entry i < n_b of each replica is drawn from the
//       draft row draft_probs[b, i] (independently per position, inverse CDF in long double
//       over a 53-bit uniform; only tokens of positive draft probability can be drawn);
//       n_b and the -1 padding come from the case's draft_ids (absent: n_b = K for every
//       row, K = draft_probs.dim(1)). Without draft_probs (n-gram)
//       draft_ids are the case's, fixed.
//     vllm:       u f64 [B', K] in [0, 1) (53-bit), q and bonus_q f32 [B', V] Exp(1) in
//                 [2^-24, 33 ln2] (ExponentialTorchCudaF32 of curand uniforms);
//     flashinfer: u f32 [B', K + 1] in [0, 1) (24-bit);
//     typical_acceptance: bonus_q only (for the test that shows it is NOT distribution
//                 preserving: its first token does not follow p_0 and the harness rejects it;
//                 it has no case in the default list).
//   Every quantity is a Philox4x32-10 word of (seed; index, first_draw + d, b, tag) with one
//   tag per quantity, so draws are independent across positions, tokens, draws and rows.
//   Other profiles throw.
// - spec_step (logits in; docs/spec/spec_step.md "Draw harness"): the case is viewed as the
//   spec_random case of its verifier's probabilities (reference::SpecStepVerifierProbs) and
//   gets the vllm noise above, drafts drawn from the verifier's draft rows (canonical and
//   block_verification: filtered; vllm: tempered, unfiltered). sglang: drafts from the draft
//   rows under SGLang's softmax and renorms, u as vllm's (the stage reads f32(u)) and final_u
//   f32 [B'] (24-bit in [0, 1), word 0 of the u stream at position index K), no q or bonus_q;
//   its first token follows target row 0 for any draft law only at the default thresholds, so
//   a case with threshold_single or threshold_acc other than 1 throws, as does an acceptance
//   case under block_verification. sglang's acceptance law is Bernoulli(sum_j q_0(j) p_0(j))
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
#include <cstdint>
#include <span>

#include "core/case.h"
#include "statistical/exact_target.h"

namespace sampcheck::statistical {

Case SpecDrawNoiseCase(const Case& c, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw = 0);

ExactTarget SpecFirstTokenTarget(const Case& c);

inline constexpr const char* kSpecCountParam = "harness_count";
// Whether the case counts the acceptance of draft 0 (two categories) rather than the first token.
bool SpecCountsAcceptance(const Case& c);
// The counted category of request j of a Run result on a noise case of `c`.
std::int64_t SpecCountedOutcome(const Case& c, const TensorMap& result, std::int64_t j);

}  // namespace sampcheck::statistical
