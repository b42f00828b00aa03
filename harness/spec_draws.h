// SPDX-License-Identifier: Apache-2.0
#pragma once
// How the draw harness draws spec_random and spec_step: the harness noise of one draw (drafts
// sampled from the draft rows, u, q, bonus_q) and the outcome it counts, the FIRST emitted
// token emitted[b, 0] or the acceptance of draft 0 (docs/spec/harness.md "Speculative
// decoding"; docs/spec/speculative.md). Their exact law is statistical/spec_first_token.h.
//
// Contract:
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
//   spec_random case of its verifier's probabilities (SpecProbabilityView,
//   statistical/spec_first_token.h) and gets the vllm noise above, drafts drawn from the
//   verifier's draft rows (canonical and block_verification: filtered; vllm: tempered,
//   unfiltered). sglang: drafts from the draft rows under SGLang's softmax and renorms, u as
//   vllm's (the stage reads f32(u)) and final_u f32 [B'] (24-bit in [0, 1), word 0 of the u
//   stream at position index K), no q or bonus_q.
// - Acceptance cases (kSpecCountParam, statistical/spec_first_token.h): the parameter is
//   removed from the noise case, so no backend sees it; SpecCountedOutcome counts 1 when draft
//   0 was accepted (num_accepted >= 1), else 0.
// - Bad input (missing tensors, a draft row with no positive entry) throws InputError naming
//   the case and the tensor.
// Example: SpecDrawNoiseCase(c, 10, seed) of a case with B rows has 10 B rows, row d B + b a
//   replica of row b with its own drafts and noise (tests/spec_draws_test.cc).
#include <cstdint>
#include <span>

#include "core/case.h"
#include "statistical/spec_first_token.h"

namespace sampcheck::statistical {

Case SpecDrawNoiseCase(const Case& c, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw = 0);

// The counted category of request j of a Run result on a noise case of `c`.
std::int64_t SpecCountedOutcome(const Case& c, const TensorMap& result, std::int64_t j);

}  // namespace sampcheck::statistical
