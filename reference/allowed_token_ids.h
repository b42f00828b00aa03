// SPDX-License-Identifier: Apache-2.0
#pragma once
// allowed_token_ids: every token outside a row's allowed list gets -inf
// (docs/spec/masks.md#allowed_token_ids).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32); allowed_ids [B, A] i32, -1 padding, other ids in
//   [0, V), repeats allowed. Output: logits [B, V] f32.
// - A row whose list holds no id (all -1) is unrestricted and untouched: vLLM rejects an empty
//   allowed_token_ids list at validation, so "no list" is the only meaning an empty row can
//   have.
// - Otherwise logits[t] = -inf (assignment, as vLLM's masked_fill_) for every t not listed;
//   listed logits are untouched, NaN and +inf included.
// - canonical = vllm. Exact tier, no randomness.
// Example: logits {1, 2, 3, 4}, allowed {3, 1} -> {-inf, 2, -inf, 4}.

#include <cstdint>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The stage's inputs after every check above, one message each: what the reference below and the gpu glue (gpu/backend/gpu_backend.cc) compute from. `allowed_ids`
// points into the case, which must outlive the arguments.
struct AllowedTokenIdsArgs {
  Tensor logits;                        // [B, V], upcast to f32
  const Tensor* allowed_ids = nullptr;  // [B, A] i32 ids or -1
};
AllowedTokenIdsArgs ParseAllowedTokenIds(const Case& c, Profile profile);

TensorMap RunAllowedTokenIds(const Case& c, Profile profile);

}  // namespace sampcheck::reference
