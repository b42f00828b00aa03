// SPDX-License-Identifier: Apache-2.0
#pragma once
// spec_random: rejection sampling of speculative drafts, the noise given
// (docs/spec/speculative.md#spec_random).
//
// Contract (per row b with n = n_b drafts; positions past n are never read):
// - Inputs: draft_ids i32 [B, K] (trailing -1 padding, reference/draft_tokens.h);
//   target_probs [B, K + 1, V] and draft_probs [B, K, V] (f32/f16/bf16, upcast exactly; >= 0,
//   NaN or +inf, need not sum to 1; temperature and filters are the caller's, applied before
//   the stage). draft_probs may be absent for vllm (n-gram drafts: draft prob := 1) and is not read
//   by typical_acceptance.
// - Outputs: emitted i64 [B, K + 1] (accepted drafts, then one recovered or bonus token, then
//   -1); num_accepted i64 [B].
// - vllm (vllm/v1/sample/rejection_sampler.py): u f64 [B, K] in [0, 1); q, bonus_q f32 [B, V]
//   Exp(1), finite > 0. Draft i is accepted iff dp > 0 and (double)(tp / dp) >= u_i, with
//   tp = target_probs[b, i, draft], dp = draft_probs[b, i, draft] (or 1): one f32 division,
//   widened exactly to f64, compared with the f64 u. At the first rejection i the emitted token
//   is argmax_j r_j * f32(1 / q_j) over every j (an f32 division for the reciprocal, then one
//   f32 product, as vLLM 9aaf83ef's sample_recovered_tokens: inv_q = q.reciprocal(), score =
//   prob * inv_q; first maximum) with r_j = max(t_j - d_j, +0) (one f32 subtraction), or for
//   n-gram r = t with the draft zeroed; an all-zero r gives 0. If all n are accepted, the bonus
//   token is argmax_j target_probs[b, n, j] / bonus_q_j (one f32 division each: vLLM's ordinary
//   sampler, probs.div_(q).argmax()).
// - flashinfer (include/flashinfer/sampling.cuh ChainSpeculativeSampling, uniform_samples
//   input): u f32 [B, K + 1] in [0, 1]. Draft i is accepted iff u_i * dp < tp (one f32 product).
//   At the first rejection i the token is drawn from r_j = max(t_j - d_j, +0) by inverse CDF
//   with the uniform u_{min(i + 1, n)}: C_j = left-to-right f32 running sum of r (from +0),
//   x = u * C_{V-1} (one f32 product); the first j with r_j > 0 and x < C_j, else V - 1. If all
//   n are accepted the bonus token is the same draw on r = target_probs[b, n] with u_n.
// - typical_acceptance (Medusa; vLLM v0 TypicalAcceptanceSampler), NOT distribution
//   preserving: params posterior_threshold (0.09), posterior_alpha (0.3), each rounded to f32;
//   bonus_q f32 [B, V]. With t = target_probs[b, i]: S = CanonicalSum_j (t_j * LogF32Cr(t_j +
//   1e-5f)), threshold = min(posterior_threshold, ExpF32Cr(S) * posterior_alpha); draft i is
//   accepted iff t[draft] > threshold. At the first rejection the token is CanonicalArgmax(t);
//   the bonus token is drawn as vllm's.
// - Degenerate rows (docs/spec/speculative.md "Degenerate rows"): every comparison is IEEE, so
//   a NaN tp or dp rejects the draft under every profile; a NaN residual max(NaN, +0) is +0; the
//   vllm recovered race never takes a NaN score (0 when every score is NaN); the bonus races
//   (vllm, typical_acceptance) take the first NaN (torch.argmax); typical_acceptance's
//   threshold is NaN when S is (torch.minimum), rejecting the draft. Each row is alone: a
//   degenerate row never changes another row's output, and every token is in [0, V).
// - Exact/canonical tier: bitwise given the noise. Ties: lowest index.
// Example (vllm): V = 2, draft 0 with dp = 0.5, tp = 0.25, u = 0.75: 0.5 >= 0.75 fails,
//   r = {0, 0.5}, q = {1, 1} -> emitted {1, -1}, num_accepted 0.

#include <cstdint>
#include <span>
#include <vector>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// One request: n drafts, the draft rows (n * V, or empty for n-gram drafts) and the target rows
// ((n + 1) * V), all already validated.
struct SpecRequest {
  std::span<const std::int32_t> drafts;
  std::span<const float> draft_probs;
  std::span<const float> target_probs;
  std::int64_t vocab = 0;
};

struct SpecOutcome {
  std::vector<std::int64_t> tokens;  // num_accepted + 1 entries
  std::int64_t num_accepted = 0;
};

inline constexpr float kTypicalPosteriorThreshold = 0.09f;
inline constexpr float kTypicalPosteriorAlpha = 0.3f;

// u: n entries; q, bonus_q: V entries.
SpecOutcome SpecRandomVllm(const SpecRequest& r, std::span<const double> u, std::span<const float> q,
                           std::span<const float> bonus_q);
// u: n + 1 entries.
SpecOutcome SpecRandomFlashinfer(const SpecRequest& r, std::span<const float> u);
SpecOutcome SpecRandomTypical(const SpecRequest& r, std::span<const float> bonus_q, float posterior_threshold,
                              float posterior_alpha);

// The building blocks, exposed for tests and the statistical harness.
// argmax_j weights_j / q_j over every j in torch.argmax's order: the first NaN, else the first
// maximum (0 when every ratio is +0).
std::int64_t RaceArgmax(std::span<const float> weights, std::span<const float> q);
// argmax_j weights_j * f32(1 / q_j) over every j, first maximum among the scores that are not
// NaN (0 when every score is +0 or NaN): vLLM's recovered-token race.
std::int64_t RaceArgmaxReciprocal(std::span<const float> weights, std::span<const float> q);
// FlashInfer's residual draw: r_j = max(target_j - draft_j, +0) (draft empty: r = target).
std::int64_t FlashinferResidualDraw(std::span<const float> target, std::span<const float> draft, float u);

// The stage's inputs, checked in this order with these messages: draft_ids i32 [B, K];
// target_probs [B, K + 1, V] (PositionProbabilities); the drafts (DraftCounts); draft_probs
// [B, K, V] (required by flashinfer, not read by typical_acceptance); then the profile's noise
// and parameters. The one parse shared by RunSpecRandom and the gpu glue
// (gpu/backend/draws_glue.h PrepareSpecRandom). The pointers point into `c`, which must
// outlive the result.
struct SpecRandomArgs {
  std::int64_t rows = 0, width = 0, vocab = 0;
  const Tensor* drafts = nullptr;    // i32 [B, K]
  std::vector<std::int64_t> counts;  // drafts per row
  Tensor target;                     // f32 [B, K + 1, V]
  Tensor draft;                      // f32 [B, K, V] when read, else a default (rank-0) tensor
  const Tensor* u_f64 = nullptr;       // vllm: f64 [B, K] in [0, 1)
  const Tensor* u_f32 = nullptr;       // flashinfer: f32 [B, K + 1] in [0, 1]
  const Tensor* q = nullptr;           // vllm: f32 [B, V] Exp(1)
  const Tensor* bonus_q = nullptr;     // vllm, typical_acceptance: f32 [B, V] Exp(1)
  float posterior_threshold = kTypicalPosteriorThreshold, posterior_alpha = kTypicalPosteriorAlpha;
  // draft's entries; empty when no draft row is read (n-gram drafts, typical_acceptance).
  std::span<const float> DraftProbs() const {
    return draft.rank() == 3 ? draft.data<float>() : std::span<const float>{};
  }
};
SpecRandomArgs ParseSpecRandom(const Case& c, Profile profile);

TensorMap RunSpecRandom(const Case& c, Profile profile);

}  // namespace sampcheck::reference
