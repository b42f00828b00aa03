// SPDX-License-Identifier: Apache-2.0
#pragma once
// gumbel_max: the Gumbel-max draw given its noise (docs/spec/draws.md#gumbel_max).
//
// Contract shared by the draw stages (docs/spec/draws.md): output token [B] i64; inputs upcast
// exactly to f32. A token of zero probability (-inf score, prob +0.0) is never drawn,
// whatever the noise; a row with no drawable token draws token 0 and a NaN entry wins the race
// (its first NaN: torch.argmax's order, reference/draw_rows.h); noise outside its domain is an
// error. Ties go to the lowest index. Noise is an input (docs/architecture.md), so the draw
// is deterministic and compared bitwise; the statistical harness judges the noise itself.
// - Exact tier; profiles canonical, sglang. Inputs: logprobs [B, V] (any scores, NaN and
//   +inf included; -inf excluded), gumbel [B, V] f32, finite. token = argmax over tokens with
//   a score other than -inf of (score_i + gumbel_i), one f32 addition each, NaN above every
//   number (SGLang: torch.argmax(logprobs + noise), multinomial_with_seed). A sum that
//   overflows to +inf competes as +inf; a +inf score wins unless a NaN is present; a row of
//   -inf scores draws 0.
// Example: scores {0, -1}, gumbel {0, 2}: sums {0, 1} -> 1; scores {0, NaN, NaN} -> 1;
// scores {-inf, -inf} -> 0.

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The stage's inputs after every check (non-finite noise, naming the row), one message: what the reference below and the gpu glue (gpu/backend/draws_glue.cc) compute from.
struct GumbelMaxArgs {
  Tensor scores;  // "logprobs" [B, V], upcast to f32
  Tensor gumbel;  // [B, V], upcast to f32
};
GumbelMaxArgs ParseGumbelMax(const Case& c, Profile profile);

TensorMap RunGumbelMax(const Case& c, Profile profile);

}  // namespace sampcheck::reference
