// SPDX-License-Identifier: Apache-2.0
#pragma once
// The exact laws of speculative rejection sampling (Leviathan, Kalman & Matias 2023, "Fast
// Inference from Transformers via Speculative Decoding", Theorem 1 / Appendix A.1; Chen et al.
// 2023): what spec_random's emitted tokens must follow when its noise is ideal
// (docs/spec/speculative.md#exact-laws). Pure functions of the probability rows, in double, for
// the statistical harness (tests/spec_random_statistical_test.cc and `sampcheck stats`).
//
// Contract:
// - Rows are weights (finite, >= 0, positive sum), normalised here by their sums.
// - The drafts x_0, ..., x_{k-1} are drawn independently, x_i ~ q_i (the draft rows do not
//   depend on earlier drafts: the harness draws them so). Draft i is accepted with probability
//   min(1, p_i(x_i) / q_i(x_i)); at the first rejection L the recovered token y follows
//   Residual(p_L, q_L) = max(p_L - q_L, 0) / TV(p_L, q_L); with L = k the bonus y ~ p_k.
// - AcceptanceProbability(p, q) = sum_j min(p_j, q_j) = 1 - TV(p, q).
// - ResidualLaw(p, q): max(p - q, 0) normalised; throws std::invalid_argument when p == q
//   (TV = 0: a rejection cannot happen and the residual is undefined).
// - SpecJointLaw: every outcome (L, x_0..x_{L-1}, y), L = 0..k, with
//   P = prod_{i<L} min(p_i(x_i), q_i(x_i)) * (L < k ? max(p_L(y) - q_L(y), 0) : p_k(y)).
//   Outcomes are listed by L, then tokens in lexicographic order; outcome index =
//   sum_{l<L} V^(l+1) + the tokens read as a base-V number (JointOutcomeIndex). The
//   probabilities sum to 1 (up to rounding). Size sum_{L=0..k} V^(L+1): keep V^(k+1) small.
// - Emitted tokens alone: the token at position i, given that position i is reached, follows
//   p_i exactly, for any q (the theorem); the per-position accept count is
//   Binomial(reached, 1 - TV(p_i, q_i)).
// - FirstTokenLawGivenDraft(p, q, x): the law of the first emitted token when the draft x is
//   fixed (an input, not drawn from q — the form a golden-style case has): x with probability
//   a = min(1, p(x) / q(x)) (0 when q(x) = 0: vllm's guard; a backend accepting q(x) = 0 follows
//   p(x) > 0 ? 1 : 0 instead, FirstTokenLawGivenDraftAcceptingZero), else Residual(p, q):
//   P(y) = a [y = x] + (1 - a) Residual(p, q)(y); with a = 1 the residual is not used, and
//   a < 1 with p == q (q(x) = 0, vllm) throws as ResidualLaw does (vllm then emits token 0,
//   not a law). For the draw harness (`sampcheck stats`), which counts one token per row.
// - BlockJointLaw: the same outcomes under block verification (Sun et al. 2024, "Block
//   Verification Accelerates Speculative Decoding", Algorithm 2; reference/spec_step.h
//   SpecVerifyBlock), drafts x_i ~ q_i independently: with P_0 = 1, P_{i+1} = min(P_i
//   p_i(x_i) / q_i(x_i), 1), h_k = P_k, h_i = N_i / (N_i + 1 - P_i) for 1 <= i < k (N_i =
//   sum_y max(P_i p_i(y) - q_i(y), 0)), the accepted length L is the largest i with eta_i <=
//   h_i: P(L = i) = h_i prod_{j > i} (1 - h_j) (h_0 = 1); then y ~ max(P_L p_L - q_L, 0)
//   normalised (L < k) or p_k (L = k). Summed over the unemitted drafts x_L..x_{k-1}. The
//   first emitted token follows p_0 (distribution preservation); the paper's example (V = 2,
//   p = {1/3, 2/3}, q = {2/3, 1/3}, k = 2) has E[L] = 11/9 against 10/9 token-wise.
// Example: p = {0.5, 0.5}, q = {1, 0}: acceptance 0.5; residual {0, 1}; k = 1 joint law:
//   (L=0, y=1) 0.5, (L=1, x=0, y) 0.5 p_1(y).

#include <cstdint>
#include <span>
#include <vector>

namespace sampcheck::reference {

std::vector<double> NormalisedLaw(std::span<const double> weights);
double AcceptanceProbability(std::span<const double> target, std::span<const double> draft);
std::vector<double> ResidualLaw(std::span<const double> target, std::span<const double> draft);

struct SpecJointOutcome {
  std::int64_t accepted = 0;
  std::vector<std::int64_t> tokens;  // accepted drafts, then the recovered or bonus token
  double probability = 0.0;
};

std::vector<double> FirstTokenLawGivenDraft(std::span<const double> target, std::span<const double> draft, std::int64_t x);
std::vector<double> FirstTokenLawGivenDraftAcceptingZero(std::span<const double> target, std::span<const double> draft,
                                                         std::int64_t x);

// draft_rows: k rows of V; target_rows: k + 1 rows of V (row-major).
std::vector<SpecJointOutcome> SpecJointLaw(std::span<const double> draft_rows, std::span<const double> target_rows,
                                           std::int64_t vocab);
std::vector<SpecJointOutcome> BlockJointLaw(std::span<const double> draft_rows, std::span<const double> target_rows,
                                            std::int64_t vocab);
// The index of (accepted, tokens) in SpecJointLaw's order; tokens has accepted + 1 entries.
std::int64_t JointOutcomeIndex(std::int64_t vocab, std::int64_t accepted, std::span<const std::int64_t> tokens);

}  // namespace sampcheck::reference
