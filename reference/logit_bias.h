// SPDX-License-Identifier: Apache-2.0
#pragma once
// logit_bias: add a per-token bias to the logits (docs/spec/logit_bias.md).
//
// Contract:
// - Inputs: logits [B, V] (f16/bf16 upcast to f32); optional dense bias [B, V] f32; optional
//   sparse lists bias_rows/bias_ids/bias_values [N] (i32, i32, f32). Dense is applied first,
//   then the sparse entries in list order. Output: logits [B, V] f32.
// - Each addition is one IEEE f32 addition (round to nearest even): +inf + -inf is NaN, NaN
//   stays NaN.
// - Sparse: a row outside [0, B) or an id outside [0, V) is an error, never a silent skip;
//   a (row, id) pair listed twice is an error (every peer keys the bias by token id).
// - Profiles (sparse lists only; dense is the same everywhere):
//   canonical: add to the listed entries only.
//   vllm: values clamped first as Python `min(100, max(-100, b))` does (a NaN bias becomes
//         -100; vllm/sampling_params.py SamplingParams.from_optional), then added to the
//         listed entries only (LogitBiasLogitsProcessor).
//   sglang: densified — every entry of every row gets `+ bias` with bias +0.0 where none is
//         listed (logits.add_(dense)), so a -0.0 logit becomes +0.0.
// - Exact tier, no randomness.
// Example: logits {1, 2, 3}, sparse (0, 2, 0.5) -> {1, 2, 3.5}; vllm with value 250 -> {1, 2, 103}.

#include <cstdint>

#include "core/case.h"
#include "core/profile.h"
#include "reference/profile_rules.h"

namespace sampcheck::reference {

// The stage's inputs after every check above (in this order: dense bias shape; the sparse
// lists all given or none, their lengths; then per entry its row, its id and its uniqueness,
// one message each) and the profile's rule: what the reference below and the gpu glue
// (gpu/backend/gpu_backend.cc) compute from. Pointers point into the case, which must outlive
// the arguments.
struct LogitBiasArgs {
  Tensor logits;                       // [B, V], upcast to f32
  const Tensor* dense = nullptr;       // [B, V] f32, or null
  bool sparse = false;                 // the three sparse lists are given (possibly empty)
  std::int64_t n = 0;                  // their length
  const std::int32_t* rows = nullptr;  // [n] in [0, B)
  const std::int32_t* ids = nullptr;   // [n] in [0, V), each (row, id) pair once
  const float* values = nullptr;       // [n]
  LogitBiasRule rule{};                // LogitBiasRuleFor(profile, sparse)
};
LogitBiasArgs ParseLogitBias(const Case& c, Profile profile);

TensorMap RunLogitBias(const Case& c, Profile profile);

}  // namespace sampcheck::reference
