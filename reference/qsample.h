// SPDX-License-Identifier: Apache-2.0
#pragma once
// qsample: Ascend's QSample draw on its own, argmax(probs / (|q| + eps)) with the noise q
// given (docs/spec/draws.md#qsample). The same step ends ascend_top_k_top_p_sample_v2.
//
// Contract:
// - Inputs: probs [B, V] (f32/f16/bf16 upcast exactly; finite, >= 0, at least one positive
//   per row) in the op's list order; q [B, V] f32, finite, any sign (the kernel takes |q|).
//   Param eps (number, default 1e-8, rounded to f32, finite >= 0). Output token [B] i64: the
//   position j in the row (the op maps it back to a vocabulary id through its sorted list).
// - Per position, in f32, each step one rounding (kernel Abs, Adds(eps), Div):
//     r_j = probs[j] / (|q[j]| + eps)
//   token = the first j maximising r_j over every position, NaN above every number: the
//   first NaN r_j (0 / 0: probs 0 and q 0 with eps 0) wins, as torch.argmax in the op's ST
//   golden executor decides (the device kernel's NaN rule is not public: UNVERIFIED).
//   Profile ascend_v2 only.
// - The one input where a zero probability can be drawn, as on the device: every positive
//   ratio underflowing to +0.0 ties the zero-probability positions, and the lowest position
//   wins (docs/spec/draws.md#qsample gives the example).
// - Exact tier. Noise is an input; its law (|q| ~ Exp(1)) is the statistical harness's matter.
// Example: probs {4/7, 2/7}, q {1, 0.25}, eps 1e-8: r = {0.5714, 1.1428}: token 1.

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The stage's inputs after every check (every q entry, eps, then each row's positivity), one
// message each: what the reference below and the gpu glue (gpu/backend/draws_glue.cc) compute from.
struct QSampleArgs {
  Tensor probs;      // [B, V], upcast to f32, finite >= 0, each row with a positive entry
  Tensor q;          // [B, V], upcast to f32, finite
  float eps = 1e-8f;  // the `eps` parameter rounded to f32, finite >= 0
};
QSampleArgs ParseQSample(const Case& c, Profile profile);

TensorMap RunQSample(const Case& c, Profile profile);

}  // namespace sampcheck::reference
