// SPDX-License-Identifier: Apache-2.0
#pragma once
// decode_steps: N decoding steps of a framework's sampler on fixed per-step logits, each step
// the pipeline stage with the history, the min-tokens count and the noise offset advanced by
// the tokens drawn so far (docs/spec/decode_steps.md).
//
// Contract:
// - Inputs: logits [B, N, V] (f32/f16/bf16; N >= 1: the model's row at each step, given,
//   since there is no model); temperature [B] f32 and the optional pipeline groups that stay
//   fixed across steps — penalties (output_ids [B, Lo] is the history before step 0, -1
//   padded at the end; prompt_ids, the three coefficients), min_new_tokens (stop_ids [B, S],
//   min_tokens [B]; no output_len input: it is derived), filters (top_k, top_p, min_p).
//   Noise: canonical and sglang seed [B] i64 and positions [B] i64 (the position of step 0);
//   vllm q [B, N, V] f32 (step t reads q[:, t]), and optionally seeded [B] bool with seed and
//   positions: a seeded row draws from its own generator (pipeline.h), positions being the
//   steps it drew before step 0. Output tokens [B, N] i64.
// - Step t (0-based) is RunPipeline (pipeline.h) under the same profile on:
//     logits      logits[:, t]
//     output_ids  the history's ids (padding dropped) followed by tokens[:, 0..t), -1 padded
//                 to the longest row                              (only when output_ids given)
//     output_len  #history ids + t                                (only when stop_ids given)
//     positions   positions + t                                   (canonical, sglang; vllm with seeded)
//     q           q[:, t]                                         (vllm)
//   every other input unchanged. tokens[:, t] = that step's token.
// - Every tensor is per row, so a row's tokens depend on that row alone: not on its slot, its
//   neighbours or the batch size. Two steps never share noise: positions differ by t, q by
//   its step index.
// - Canonical tier, as pipeline; no randomness beyond the inputs.
// Example: logits [1, 2, 2] with both steps {0, 0}, temperature 0, output_ids [1, 0] and
//   frequency_penalty 1: step 0 is greedy on {0, 0} -> 0; step 1 sees history {0}: {-1, 0}
//   -> 1.

#include <cstdint>
#include <functional>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The seam the planted faults use (harness/wrong/wrong_decode_steps.cc); the stage itself always
// runs with the defaults.
struct DecodeStepsRules {
  std::int64_t offset_stride = 1;  // positions + stride * t, q[:, stride * t]
  bool append_history = true;      // drawn tokens join output_ids and output_len
};

TensorMap RunDecodeSteps(const Case& c, Profile profile);
TensorMap RunDecodeStepsWith(const Case& c, Profile profile, const DecodeStepsRules& rules);

// The same steps with `pipeline` as each step's pipeline stage (it gets the step's sub-case,
// stage "pipeline"): RunPipeline here, the gpu backends' pipeline glue in
// gpu/backend/decode_steps_glue.cc, so both share the inputs' checks and the per-step inputs.
using DecodeStepPipeline = std::function<TensorMap(const Case& step)>;
TensorMap RunDecodeStepsOn(const Case& c, Profile profile, const DecodeStepsRules& rules,
                           const DecodeStepPipeline& pipeline);

}  // namespace sampcheck::reference
