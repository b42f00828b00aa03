// SPDX-License-Identifier: Apache-2.0
#pragma once
// nan_handling: what each profile does with NaN logits before sampling
// (docs/spec/nan_handling.md).
//
// Contract:
// - Input: logits [B, V] (upcast to f32). Output: logits [B, V] f32.
// - sglang (layers/sampler.py, with --enable-nan-detection): every NaN (any sign or payload)
//   becomes -1e5f (exactly -100000, representable in f32); other values untouched.
// - canonical and vllm: identity — NaN is passed on, and later stages define what it does
//   (greedy ranks NaN above everything, docs/spec/greedy.md).
// - Exact tier, no randomness.
// Example: sglang {NaN, 1} -> {-100000, 1}; vllm {NaN, 1} -> {NaN, 1}.

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

TensorMap RunNanHandling(const Case& c, Profile profile);

}  // namespace sampcheck::reference
