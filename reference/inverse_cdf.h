// SPDX-License-Identifier: Apache-2.0
#pragma once
// inverse_cdf: the inverse-CDF draw given a uniform u (docs/spec/draws.md#inverse_cdf).
//
// Contract shared by the draw stages (docs/spec/draws.md): output token [B] i64; inputs upcast
// exactly to f32. A token of zero probability (-inf score, prob +0.0) is never drawn,
// whatever the noise; a row with no drawable token is an error, as is NaN anywhere or noise
// outside its domain. Ties go to the lowest index. Noise is an input (docs/architecture.md), so the draw
// is deterministic and compared bitwise; the statistical harness judges the noise itself.
// - Canonical tier (a running sum); profile canonical. Inputs: probs [B, V] finite >= 0 (need
//   not sum to 1); u [B] f32 in [0, 1). Scan in vocab order: C_i = f32 running sum
//   (from +0.0); t = u * C_{V-1} (one f32 product); token = the first i with probs_i > 0 and
//   t < C_i; if there is none (t rounded up to C_{V-1}), the last i with probs_i > 0.
// Example: probs {0.25, 0, 0.75}, u = 0.25: C = {0.25, 0.25, 1}, t = 0.25; token 1 has
//   probability 0, and 0.25 < 1 at i = 2 -> 2.

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The stage's inputs after every check (per row: u's range, then positivity), one message
// each: what the reference below and the gpu glue (gpu/backend/draws_glue.cc) compute from. `u` points into the case, which must outlive the arguments.
struct InverseCdfArgs {
  Tensor probs;              // [B, V], upcast to f32, finite >= 0, each row with a positive entry
  const Tensor* u = nullptr;  // [B] f32 in [0, 1)
};
InverseCdfArgs ParseInverseCdf(const Case& c, Profile profile);

TensorMap RunInverseCdf(const Case& c, Profile profile);

}  // namespace sampcheck::reference
