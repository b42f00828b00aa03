// SPDX-License-Identifier: Apache-2.0
#pragma once
// sampling_filters: top-k, top-p and min-p combined in a profile's order, with outputs as
// masked logits and as renormalised probabilities (docs/spec/filters.md#sampling_filters).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32, any values); optional top_k [B] i32 (absent:
//   disabled), top_p [B] f32 (absent: 1), min_p [B] f32 (absent: 0). Params: order (string,
//   see below), ks_max (ascend_v2, default 1024). Outputs: logits [B, V] f32 (dropped -inf,
//   kept bit-identical) and probs [B, V] f32 = SoftmaxRow(output logits).
// - Each filter is the single stage's rule (top_k.h, top_p.h, min_p.h) for the profile; the
//   order says which distribution each one reads. "renormalised" below means the softmax of
//   the logits masked so far (a fresh softmax, not a division by the kept mass).
//   canonical  "top_k_first": top_k -> top_p (renormalised) -> min_p (renormalised).
//   vllm       "min_p_first": min_p (full softmax) -> top_k -> top_p (renormalised);
//              vllm/v1/sample/sampler.py runs min_p among the argmax-invariant processors
//              before the top-k/top-p sampler.
//   sglang     "joint": all three read the original distribution (torch path:
//              top_k_top_p_min_p_sampling_from_probs_torch masks one sorted probs array):
//              kept = top_k set ∩ top_p set ∩ min_p set; the top-p mask runs at every p,
//              1 included (SGLang's sorted path; top_p.h).
//   flashinfer "top_k_first" (default: top_k -> top_p renormalised -> min_p renormalised) or
//              "joint" (top_k set ∩ top_p set of the original distribution, then min_p
//              renormalised).
//   ascend_v2  "top_k_first": top_k -> top_p on the softmax of the top-k survivors -> min_p on
//              that same softmax, not renormalised after top_p (TopKTopPSampleV2).
//   An `order` param other than the profile's (or flashinfer's two) is an error.
// - A row holding a NaN or a +inf (SamplingFiltersDegenerateRow; docs/spec/filters.md
//   sampling_filters "Degenerate rows"): each filter's own degenerate-row rule (top_k.h, top_p.h,
//   min_p.h) in the profile's order; a joint order reads top_p's and min_p's sets on the
//   original row (all of it, or under flashinfer at p < 1 (m > 0) nothing). probs: the softmax
//   of the output row, NaN where it still holds a NaN or a +inf.
// - Exact tier given the canonical softmax.
// Example: probs {0.5, 0.25, 0.125, 0.125}, top_k = 3, top_p = 0.75: canonical renormalises
//   the top 3 to {4/7, 2/7, 1/7}: E = 0, 4/7, 6/7 -> keeps 2; sglang reads the original:
//   E = 0, 0.5, 0.75 <= 0.75 -> keeps 3.

#include <cstdint>
#include <span>
#include <string>

#include "core/case.h"
#include "core/profile.h"
#include "reference/profile_rules.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

struct FilterParams {
  std::int64_t top_k = 0;  // <= 0: disabled
  float top_p = 1.0f;      // >= 1: disabled
  float min_p = 0.0f;      // <= 0: disabled
  std::string order;       // empty: the profile's default
  std::int64_t ks_max = 1024;
};

// Throws (through `in`) on an order the profile lacks or a ks_max outside [1, 1024].
void ValidateFilterParams(const StageInputs& in, Profile profile, const std::string& order, std::int64_t ks_max);
// Masks one row in place. Throws std::invalid_argument on an order the profile lacks.
void SamplingFiltersRow(Profile profile, std::span<float> row, const FilterParams& params);
// When the row holds a NaN or a +inf: the stage's logits on it, in place, and true; otherwise
// false and the row untouched (SamplingFiltersRow's business). `params.order` must be valid.
bool SamplingFiltersDegenerateRow(Profile profile, std::span<float> row, const FilterParams& params);

// The stage's inputs after every check (logits of any values; top_k [B] i32, top_p and min_p
// [B] f32 without NaN, each optional; the order and ks_max parameters), one message each, and
// the profile's order: what the reference below and the gpu glue (gpu/backend/filters_glue.cc)
// compute from. Pointers point into the case, which must outlive the arguments.
struct SamplingFiltersArgs {
  Tensor logits;                  // [B, V], upcast to f32
  const Tensor* top_k = nullptr;  // [B] i32, or null (disabled)
  const float* top_p = nullptr;   // [B], or null (disabled)
  const float* min_p = nullptr;   // [B], or null (disabled)
  std::string order;              // as asked; empty: the profile's default
  std::int64_t ks_max = 1024;
  FilterOrder filter_order = FilterOrder::kTopKFirst;  // FilterOrderFor(profile, order == "joint")
};
SamplingFiltersArgs ParseSamplingFilters(const Case& c, Profile profile);

TensorMap RunSamplingFilters(const Case& c, Profile profile);

}  // namespace sampcheck::reference
