// SPDX-License-Identifier: Apache-2.0
#pragma once
// softmax and log_softmax, canonical tier (docs/spec/softmax.md).
//
// Contract:
// - Inputs: logits [B, V] (f16/bf16 upcast to f32); optional temperature [B] f32, finite and
//   > 0 (absent: no division). Outputs: probs [B, V] f32 (softmax) or logprobs [B, V] f32
//   (log_softmax).
// - Per row, every step one IEEE f32 operation:
//     y_i = x_i / t                     (only with a temperature; a division, never 1/t)
//     m   = CanonicalMax(y)             (reference/reductions.h)
//     d_i = y_i - m
//     e_i = ExpF32Cr(d_i)               (owned, correctly rounded: reference/math/exp.h)
//     s   = CanonicalSum(e)
//     probs_i    = e_i / s
//     logprobs_i = d_i - LogF32Cr(s)    (owned, correctly rounded: reference/math/log.h)
// - Max-subtracted, so no finite row overflows: d_i <= 0, e_i in [0, 1], s in [1, V].
// - The formula is applied literally to every row, so rows without a finite maximum give NaN
//   everywhere: all -inf (m = -inf, d = -inf - -inf = NaN), any +inf (+inf - +inf = NaN, and
//   the NaN reaches s), any NaN (m = NaN). This is torch.softmax's result too. A row with one
//   finite entry among -inf gives probs 1 there and +0.0 elsewhere, logprobs 0 and -inf.
// - Bound (tests/softmax_test.cc): for a finite row, |sum_i probs_i - 1| <= (L + 2) 2^-24 with
//   L = ceil(V / 1024) + 10 additions on the longest path of CanonicalSum.
// - Canonical tier; profile canonical only (the peers' own softmax uses their own exp and
//   reduction order: a backend that does not follow these is judged with ulp(n)).
// Example: logits {0, ln 3 rounded}: see tests/softmax_test.cc; logits {0, 0} -> {0.5, 0.5}
//   (e = {1, 1}, s = 2).

#include <span>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// One row: probs (or logprobs) of `logits`, same length. No temperature.
void SoftmaxRow(std::span<const float> logits, std::span<float> probs);
void LogSoftmaxRow(std::span<const float> logits, std::span<float> logprobs);

// The inputs of softmax (log false) or log_softmax (log true) after every check (logits, then
// the optional temperature, each finite and > 0), one message each: what the reference below
// and the gpu glue (gpu/backend/gpu_backend.cc) compute from. `temperature` points into the
// case, which must outlive the arguments.
struct SoftmaxArgs {
  Tensor logits;                       // [B, V], upcast to f32
  const float* temperature = nullptr;  // [B], or null (no scaling)
};
SoftmaxArgs ParseSoftmax(const Case& c, bool log);

TensorMap RunSoftmax(const Case& c, Profile profile);
TensorMap RunLogSoftmax(const Case& c, Profile profile);

}  // namespace sampcheck::reference
