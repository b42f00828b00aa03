// SPDX-License-Identifier: Apache-2.0
#pragma once
// min_new_tokens: stop tokens are banned while the output is shorter than the minimum
// (docs/spec/penalties.md#min_new_tokens).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32); output_len [B] i32 >= 0; min_tokens [B] i32 >= 0;
//   stop_ids [B, S] i32 (eos included; -1 padding; other ids in [0, V); repeats allowed).
//   Output: logits [B, V] f32.
// - A row is active iff output_len < min_tokens.
// - canonical and vllm (MinTokensLogitsProcessor): active rows get logits[stop] = -inf
//   (assignment: +inf and NaN become -inf too); inactive rows are untouched.
// - sglang (penaltylib/min_new_tokens.py in the default overlap mode, where the penalizers
//   fill one linear-penalty tensor that is added to every row), when the batch's penalizers
//   are required (param `penalizers`, sglang only: "auto" = some row has min_tokens > 0, as
//   BatchedMinNewTokensPenalizer._is_required; "required"; "not_required"): every row gets
//   `logits += penalty`, penalty -inf at the stop ids of active rows and +0.0 everywhere
//   else: +inf and NaN at an active stop id give NaN, and -0.0 anywhere becomes +0.0. Not
//   required: identity (SGLang adds no tensor), -0.0 kept.
// - Exact tier, no randomness.
// Example: logits {1, 2, 3}, stop {2}, output_len 0, min_tokens 1 -> {1, 2, -inf}.

#include <cstdint>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The stage's inputs after every check above (shapes, stop ids, the penalizers parameter and
// SGLang's gate, then each row's lengths), one message each, and the profile's rule: what the reference below and the gpu glue (gpu/backend/gpu_backend.cc) compute from.
// The tensors point into the case, which must outlive the arguments.
struct MinNewTokensArgs {
  Tensor logits;                       // [B, V], upcast to f32
  const Tensor* output_len = nullptr;  // [B] i32 >= 0
  const Tensor* min_tokens = nullptr;  // [B] i32 >= 0
  const Tensor* stop_ids = nullptr;    // [B, S] i32 ids or -1
  bool sglang = false;                 // SGLang's additive penalty (else the entries are set)
  bool identity = false;               // sglang, penalizer not required: every bit kept
};
MinNewTokensArgs ParseMinNewTokens(const Case& c, Profile profile);

TensorMap RunMinNewTokens(const Case& c, Profile profile);

}  // namespace sampcheck::reference
