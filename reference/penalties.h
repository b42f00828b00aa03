// SPDX-License-Identifier: Apache-2.0
#pragma once
// penalties: repetition, frequency and presence penalties (docs/spec/penalties.md).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32); prompt_ids [B, Lp] and output_ids [B, Lo] i32,
//   -1 = padding anywhere, any other output id must be in [0, V); a prompt id >= V
//   penalises nothing (docs/spec/penalties.md "Prompt ids past the vocabulary"; vllm: only
//   V itself, an id > V is an error); per-row f32 repetition_penalty
//   (finite, > 0), frequency_penalty and presence_penalty (finite). An absent coefficient
//   tensor means 1, 0 and 0. Output: logits [B, V] f32.
// - count[t] = occurrences of t in the row's output ids; seen_output[t] = count[t] > 0;
//   seen[t] = seen_output[t] or t in the row's prompt ids.
// - canonical and vllm (vllm/model_executor/layers/utils.py apply_penalties; repetition as
//   the CUDA kernel csrc/sampler.cu), per token, each step one f32 rounding:
//     if seen[t]:  x = x > 0 ? x / r : x * r        (0, -0, -inf and NaN take the `* r` side)
//     x = x - f * float(count[t])                    (every token, count 0 included)
//     x = x - p * float(seen_output[t])
// - sglang gate (param `penalizers`, sglang only: "auto" default, "required",
//   "not_required"): SGLang builds and adds its penalty tensors only when some request of the
//   batch has a penalty (BatchedPenalizerOrchestrator.is_required; sampling_batch_info.py
//   update_penalties). "auto": required iff some row has r != 1, f != 0 or p != 0 (-0.0
//   counts as 0, as Python's != does); "required": another request of the server batch has
//   one. Not required: identity, every bit kept (-0.0 stays -0.0).
// - sglang, required (penaltylib, overlap mode): F[t] = f added count[t] times to +0.0 in f32, one
//   rounding per addition, in output order; P[t] = seen_output[t] ? p : 0;
//     x = x + ((0 - F[t]) - P[t])                    (every token: -0.0 logits become +0.0)
//     if seen_output[t]: x = x < 0 ? x * r : x / r   (repetition: output tokens only)
// - Exact tier, no randomness.
// Example (hand-computed in tests/penalties_test.cc): logits {2, -2, 1}, output ids {0, 0},
// r = 2, f = 0.5, p = 0.25 -> token 0: 2/2 - 0.5*2 - 0.25 = -0.25; token 1, 2 unchanged.

#include <vector>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The stage's inputs after every check above (in this order: prompt_ids, output_ids, the
// repetition, frequency and presence coefficients, the penalizers parameter and SGLang's gate),
// one message each, and the profile's rule: what the reference below and the gpu glue
// (gpu/backend/gpu_backend.cc) compute from. The id tensors point into the case, which must
// outlive the arguments.
struct PenaltiesArgs {
  Tensor logits;                          // [B, V], upcast to f32
  const Tensor* prompt_ids = nullptr;     // [B, Lp] i32 ids or -1, or null
  const Tensor* output_ids = nullptr;     // [B, Lo] i32 ids or -1, or null
  std::vector<float> repetition;          // [B]; 1 where the tensor is absent
  std::vector<float> frequency;           // [B]; 0 where absent
  std::vector<float> presence;            // [B]; 0 where absent
  bool sglang = false;                    // SGLang's order of operations (else canonical, vllm)
  bool identity = false;                  // sglang, penalizers not required: every bit kept
};
PenaltiesArgs ParsePenalties(const Case& c, Profile profile);

TensorMap RunPenalties(const Case& c, Profile profile);

}  // namespace sampcheck::reference
