// SPDX-License-Identifier: Apache-2.0
#pragma once
// gumbel_max: the Gumbel-max draw given its noise (docs/spec/draws.md#gumbel_max).
//
// Contract shared by the draw stages (docs/spec/draws.md): output token [B] i64; inputs upcast
// exactly to f32. A token of zero probability (-inf score, prob +0.0) is never drawn,
// whatever the noise; a row with no drawable token is an error, as is NaN anywhere or noise
// outside its domain. Ties go to the lowest index. Noise is an input (docs/architecture.md), so the draw
// is deterministic and compared bitwise; the statistical harness judges the noise itself.
// - Exact tier; profiles canonical, sglang. Inputs: logprobs [B, V] (any scores; -inf
//   excluded), gumbel [B, V] f32, finite. token = argmax over tokens with a finite score of
//   (score_i + gumbel_i), one f32 addition each (SGLang: argmax(logprobs + noise)). A sum
//   that overflows to +inf competes as +inf.
// Example: scores {0, -1}, gumbel {0, 2}: sums {0, 1} -> 1.

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The stage's inputs after every check (per row: a NaN score or non-finite noise, then no finite
// score), one message each: what the reference below and the gpu glue (gpu/backend/draws_glue.cc) compute from.
struct GumbelMaxArgs {
  Tensor scores;  // "logprobs" [B, V], upcast to f32
  Tensor gumbel;  // [B, V], upcast to f32
};
GumbelMaxArgs ParseGumbelMax(const Case& c, Profile profile);

TensorMap RunGumbelMax(const Case& c, Profile profile);

}  // namespace sampcheck::reference
