// SPDX-License-Identifier: Apache-2.0
#pragma once
// nan_handling: what each profile does with NaN logits before sampling
// (docs/spec/nan_handling.md).
//
// Contract:
// - Input: logits [B, V] (upcast to f32). Output: logits [B, V] f32. Param `nan_mode`
//   (string, sglang only; any other profile rejects it): which SGLang configuration.
// - sglang, nan_mode "keep" (default; SGLang's default at the pinned commit:
//   `sanitize_nan_logits` returns early unless SGLANG_SANITIZE_NAN_LOGITS is set): identity.
// - sglang, nan_mode "sanitize" (SGLANG_SANITIZE_NAN_LOGITS=1:
//   `torch.nan_to_num_(logits, nan=-1e30, posinf=1e30, neginf=-1e30)`): NaN (any sign or
//   payload) -> f32(-1e30) (0xf149f2ca), +inf -> f32(1e30) (0x7149f2ca), -inf -> f32(-1e30);
//   finite values keep their bits.
// - sglang, nan_mode "detect_1e5" (older SGLang with --enable-nan-detection,
//   layers/sampler.py @584f55d1): NaN -> -1e5f (exactly -100000); everything else kept.
// - canonical and vllm: identity — NaN is passed on, and later stages define what it does
//   (greedy ranks NaN above everything, docs/spec/greedy.md).
// - Exact tier, no randomness.
// Example: sglang "sanitize" {NaN, +inf, 1} -> {-1e30f, 1e30f, 1}; "detect_1e5" {NaN, 1} ->
//   {-100000, 1}; vllm and sglang "keep" {NaN, 1} -> {NaN, 1}.

#include "core/case.h"
#include "core/profile.h"
#include "reference/profile_rules.h"

namespace sampcheck::reference {

// The stage's inputs after every check above (the nan_mode parameter, then the logits), one
// message each, and the profile's replacement rule (reference/profile_rules.h): what the
// reference below and the gpu glue (gpu/backend/gpu_backend.cc) compute from.
struct NanHandlingArgs {
  Tensor logits;  // [B, V], upcast to f32
  NanRule rule;   // NanRuleFor(profile, nan_mode)
};
NanHandlingArgs ParseNanHandling(const Case& c, Profile profile);

TensorMap RunNanHandling(const Case& c, Profile profile);

}  // namespace sampcheck::reference
