// SPDX-License-Identifier: Apache-2.0
#pragma once
// The multi-step harness of decode_steps (docs/spec/decode_steps.md "The multi-step
// harness"): seeds across rows and across steps, on any backend that claims the stage.
//
// Contract:
// - DecodeStepsCheckCase(profile): the harness's own case, B = 8 rows, N = 8 steps, V = 64,
//   one per profile of the stage (canonical, vllm, sglang; sglang pins sampling_path
//   "sorted" as the goldens do). Rows 0-3 ("flat"): every logit 0, temperature 1, neutral
//   penalties, no filters, no min_tokens: every step is a uniform draw over 64 tokens.
//   Rows 4-5 ("greedy history"): temperature 0, logits 3 - j / 8 at every step, frequency
//   penalty 1: each drawn token loses 1 per occurrence, so step t's argmax depends on every
//   earlier token. Rows 6-7 ("random history"): temperature 0.8, top-k 16, frequency 0.5,
//   presence 0.25, repetition 1.25, a 2-token history, min_tokens 3 with stop id 0 (the
//   largest logit). Noise: seed and positions (canonical, sglang) and q [B, N, V] Exp(1)
//   (vllm) from SplitMix64 and the owned Exp(1) law; the case holds all three, each profile
//   reads its own. vllm: rows 0, 1, 4 and 6 are `seeded` (vLLM's per-request generators: the
//   backend draws their noise itself from (seed, positions + t)); rows 2, 3, 5 and 7 read q.
// - CheckDecodeSteps(backend, profile) returns three results, ids
//   "decode_steps_check/<profile>/<check>", stage "decode_steps", comparison "exact":
//   * "seeds": CheckBatchInvariance on the case (run twice bitwise; every row alone and in
//     batches of 2, 7 and 64 at random slots, half of the fillers unseeded neighbours whose
//     noise is another row's): a row's tokens must not depend on its slot, its neighbours,
//     seeded or not, or the batch size. vllm also: the case again with every q entry redrawn
//     (its own SplitMix64 stream); the seeded rows' tokens must not change (a seeded row that
//     reads the batch-global noise fails).
//   * "history": teacher forcing. The backend's tokens [B, N] are fed back as the history:
//     step t's pipeline case is built by the stage's own rule (RunDecodeStepsOn: history ids
//     then the backend's tokens[:, 0..t), output_len, positions + t, q[:, t]) and run through
//     the backend's pipeline stage when it claims it under the profile, else the reference's;
//     its token must equal tokens[:, t] for every row and step. So step t depends on the
//     history exactly as the spec says, and reads the noise of offset t, not 0 or 2t.
//   * "fresh_noise": on the flat rows, the number of steps t >= 1 whose token equals the
//     row's step-0 token. With fresh noise each is an independent uniform draw, so the count
//     is Binomial(4 * 7, 1/64) (mean 0.44); a stuck offset gives 28. One-sided exact binomial
//     test, alpha 1e-6 (P(X >= 7) = 2.0e-7 < alpha < P(X >= 6) = 4.1e-6, so 7 or more
//     repeats fail); power 1 against a stuck offset. The case's noise is fixed, so the
//     verdict of a given backend is deterministic; the reference passes.
//   A backend that throws fails the check with its message. Not claiming decode_steps or the
//   profile: no results.
// - Costs: 2 + 8 + 8 + 2 + 1 = 21 runs of an 8-row case for "seeds" (vllm: one more), 1 + 8 pipeline runs for
//   "history", the same decode run for "fresh_noise"; milliseconds on the reference.
// Example: the reference passes all nine results; wrong:decode_offset_not_advanced fails
//   "history" and "fresh_noise", wrong:decode_history_not_updated "history",
//   wrong:decode_seed_from_slot "seeds"; under vllm wrong:vllm_generator_seed_row0 and
//   wrong:vllm_generator_global_noise fail "seeds", wrong:vllm_generator_offset_stuck
//   "fresh_noise" and "history" (tests/batch_invariance_test.cc).

#include <string>
#include <vector>

#include "core/backend.h"
#include "core/case.h"
#include "core/case_result.h"
#include "core/profile.h"

namespace sampcheck::harness {

inline constexpr double kFreshNoiseAlpha = 1e-6;

Case DecodeStepsCheckCase(Profile profile);

// Every profile of decode_steps the backend claims, when the `stages` selection holds
// decode_steps and the `profiles` selection the profile (empty selections mean all).
std::vector<CaseResult> CheckDecodeSteps(Backend& backend, const std::vector<std::string>& stages = {},
                                         const std::vector<std::string>& profiles = {});

}  // namespace sampcheck::harness
