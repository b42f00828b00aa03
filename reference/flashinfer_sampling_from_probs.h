// SPDX-License-Identifier: Apache-2.0
#pragma once
// flashinfer_sampling_from_probs: FlashInfer's sorting-free rejection samplers from
// probabilities, given their uniforms (docs/spec/flashinfer_sampling_from_probs.md).
//
// Contract (profile flashinfer; canonical tier: the sums below are f32 in index order):
// - Inputs: probs [B, V] f32|f16|bf16 (upcast exactly), every entry >= 0 or NaN (NaN is never
//   drawn and adds nothing to any sum; -x and +inf are errors); top_k i32 [B], top_p f32 [B],
//   min_p f32 [B] as the kernel needs them (finite); u [B, R] f32, R >= 1, each in (0, 1]
//   (curand_uniform's range): round r of row b uses u[b, r].
// - Param kernel: top_k_top_p (FlashInfer TopKTopPSamplingFromProbKernel, Python
//   top_k_top_p_sampling_from_probs with filter_apply_order = "joint"), top_k
//   (TopKSamplingFromProbKernel), top_p (TopPSamplingFromProbKernel) or min_p
//   (MinPSamplingFromProbKernel). Param deterministic (bool, default true) selects the kernel's
//   block-scan order; the law and these outputs do not depend on it.
// - Rejection kernels (top_k, top_p, top_k_top_p), per row: low = 0, high = 1, q = 1; round:
//   t = u[b, r] * q (f32); over the valid tokens (p_i > low) take the running f32 sum C in
//   index order; the sampled token is the first valid i with C_i > t, else the last valid one
//   (the kernel's last_valid_id); no valid token: token 0, valid = false, stop. pivot0 =
//   p[sampled], pivot1 = (pivot0 + high) * 0.5 (f32); for each pivot the count and f32 mass
//   of tokens with p > pivot. Accept(count, mass): count < k (k read as uint32, so k <= 0
//   is 0 and a negative k no limit) and/or mass < top_p, per kernel. Accept(pivot0): emit
//   sampled, valid. Else if Accept(pivot1): low = pivot0, high = pivot1, q = mass0; else
//   low = pivot1, q = mass1. If then !(low < high): emit sampled, valid (the kernel's loop
//   exit). Each round strictly raises the probability of the next sampled token, so at most
//   (distinct positive values + 1) rounds run.
// - Param filter_apply_order (kernel top_k_top_p only): "joint" (default here: the kernel
//   above) or "top_k_first" (FlashInfer's Python default): top_k_renorm_probs first —
//   pivot = the k-th largest non-NaN probability (k as uint32; k >= V keeps every non-NaN
//   entry, k = 0 keeps nothing), keep p >= pivot (ties at the k-th value kept), s = their f32
//   sum in index order, each kept p times f32(1 / max(s, 1e-8)), the rest 0 — then the top_p
//   kernel above on that row with the same uniforms.
// - min_p kernel: m = max(0, non-NaN probs) (fmaxf fold from 0); pivot = m * min_p (f32);
//   valid tokens p_i >= pivot (zeros too when pivot <= 0); q = f32 mass of valid tokens; one
//   round of the scan above with t = u[b, 0] * q.
// - Outputs: token i64 [B]; valid bool [B]; rounds i32 [B] (uniforms consumed).
// - Ties: the survivor rule compares strict "greater than", so tokens of equal probability
//   are kept or dropped together (top-k keeps every tie at the k-th value).
// Example: probs {0.5, 0.25, 0.125, 0.125}, top_p kernel, top_p 0.7, u {0.9, 0.2}: round 1,
//   t = 0.9, C = {0.5, 0.75, 0.875, 1}: token 3; the mass above 0.125 is 0.75, not < 0.7:
//   rejected; pivot1 = 0.5625 has mass 0 above it: low = 0.125, high = 0.5625, q = 0.75.
//   Round 2: t = 0.15 over tokens {0, 1}: token 0, mass above 0.5 is 0 < 0.7: token 0,
//   valid, 2 rounds (tests/flashinfer_sampling_from_probs_test.cc).

#include <cstdint>
#include <span>
#include <vector>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

enum class FlashinferKernel { kTopKTopP, kTopK, kTopP, kMinP };

struct FlashinferRowParams {
  FlashinferKernel kernel = FlashinferKernel::kTopKTopP;
  // kTopKTopP only: Python's filter_apply_order = "top_k_first" (top_k_renorm_probs, then the
  // top_p kernel on the renormalised row) instead of "joint".
  bool top_k_first = false;
  std::uint32_t top_k = 0;  // the kernel's uint32 view of the i32 input
  float top_p = 1.0f;
  float min_p = 0.0f;
};

struct FlashinferDraw {
  std::int64_t token = 0;
  bool valid = false;
  std::int32_t rounds = 0;
};

// One row: `uniforms` are consumed in order; returns rounds = -1 when they run out before
// the kernel stops (RunFlashinferSamplingFromProbs reports that as an error).
FlashinferDraw FlashinferSampleRow(std::span<const float> probs, const FlashinferRowParams& f,
                                   std::span<const float> uniforms);

// The tokens a row can emit (the kernel's accepted set, from the same f32 sums): the law of a
// valid row is probs restricted to these, renormalised (docs/spec/flashinfer_sampling_from_probs.md
// "Law"). Empty: the row is invalid whatever the uniforms.
std::vector<bool> FlashinferSurvivors(std::span<const float> probs, const FlashinferRowParams& f);

// The row parameters of case row b (validated).
FlashinferRowParams FlashinferParamsOfRow(const Case& c, std::int64_t b);

// A case's checked inputs, shared by the reference and the gpu glue so each check and its
// message exist once: probs widened to f32 [B, V] (>= 0 and finite, or NaN), u f32 [B, R]
// with R >= 1, every value in (0, 1], and the optional top_k / top_p / min_p of length B.
// The per-row parameters are checked row by row (FlashinferParamsOfRow), as the kernels meet them.
struct FlashinferSamplingArgs {
  Tensor probs;
  const Tensor* u = nullptr;
  std::int64_t rows = 0, vocab = 0, width = 0;
};
FlashinferSamplingArgs ParseFlashinferSamplingFromProbs(const Case& c);

// The error of a row whose draw ran out of its R uniforms (rounds -1).
[[noreturn]] void FailOutOfUniforms(const Case& c, std::int64_t row, std::int64_t width);

// The stage's outputs: token i64 [B], valid bool [B], rounds i32 [B].
TensorMap FlashinferSamplingOutputs(Tensor token, Tensor valid, Tensor rounds);

TensorMap RunFlashinferSamplingFromProbs(const Case& c, Profile profile);

}  // namespace sampcheck::reference
