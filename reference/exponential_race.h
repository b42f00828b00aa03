// SPDX-License-Identifier: Apache-2.0
#pragma once
// exponential_race: argmax(probs / q) given Exp(1) noise q (docs/spec/draws.md#exponential_race).
//
// Contract shared by the draw stages (docs/spec/draws.md): output token [B] i64; inputs upcast
// exactly to f32. A token of zero probability (-inf score, prob +0.0) is never drawn,
// whatever the noise; a row with no drawable token draws token 0 and a NaN entry wins the race
// (its first NaN: torch.argmax's order, reference/draw_rows.h); noise outside its domain is an
// error. Ties go to the lowest index. Noise is an input (docs/architecture.md), so the draw
// is deterministic and compared bitwise; the statistical harness judges the noise itself.
// - Exact tier. Inputs: probs [B, V] >= 0, NaN or +inf; q [B, V] f32, finite > 0.
//   canonical: token = argmax over tokens with probs > 0 or NaN of probs_i / q_i (one f32
//   division; NaN above every number, so the first NaN wins, then the first +inf); 0 when
//   no token has probs > 0 or NaN.
//   vllm (`probs.div_(q).argmax()`, vllm/v1/sample/ops/topk_topp_sampler.py random_sample):
//   the argmax runs over every token, so when every positive-probability ratio underflows to
//   +0.0 the lowest index wins even if its probability is 0 — the one input where the
//   profiles differ. NaN ranks as in canonical (torch.argmax's order); an all-zero row gives 0.
// Example: probs {0.5, 0.5}, q {1, 0.25}: ratios {0.5, 2} -> 1; probs {0.5, NaN} -> 1;
// probs {0, 0} -> 0.

#include <cstdint>
#include <span>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// One row (already validated: probs >= 0 or NaN or +inf, q finite > 0, same length): the
// winning index, over every token when `all_tokens` (vllm) or over positive and NaN
// probabilities; -1 when none is positive or NaN (the stage then draws kNoDrawToken).
std::int64_t ExponentialRaceRow(std::span<const float> probs, std::span<const float> q, bool all_tokens);

// The stage's inputs after every check (a negative probability, then every q entry), one
// message each, and the profile's rule: what the reference below and the gpu glue (gpu/backend/draws_glue.cc) compute from.
struct ExponentialRaceArgs {
  Tensor probs;             // [B, V], upcast to f32, >= 0, NaN or +inf
  Tensor q;                 // [B, V], upcast to f32, finite > 0
  bool all_tokens = false;  // vllm: every token races, zero probabilities included
};
ExponentialRaceArgs ParseExponentialRace(const Case& c, Profile profile);

TensorMap RunExponentialRace(const Case& c, Profile profile);

}  // namespace sampcheck::reference
