// SPDX-License-Identifier: Apache-2.0
#pragma once
// The filter stages' profile rules as plain flags (docs/spec/filters.md): the host glue
// (gpu/backend/filters_glue.cc) resolves a profile into these, the kernels (gpu/kernels/top_k.cuh,
// gpu/kernels/top_p.cuh, gpu/kernels/min_p.cuh, gpu/kernels/sampling_filters.cuh) apply them and never see a profile.

#include <cstdint>

#include "reference/profile_rules.h"

namespace sampcheck::gpu {

// docs/spec/filters.md#top_k.
struct TopKRule {
  bool ties_kept = false;     // vllm, flashinfer: every entry >= the k-th value (else exactly k)
  bool ascend_limit = false;  // ascend_v2: active iff 1 <= k <= min(V, ks_max rounded up to 8, 1024)
  std::int64_t ks_max = 1024;
  bool drops_nan = false;     // flashinfer: NaN ordered by its sign bit and never kept (top_k.cuh)
};

// docs/spec/filters.md#top_p: the walk a profile's rule takes for 0 < p < 1
// (reference/profile_rules.h, shared with the reference's top_p).
using TopPWalk = reference::TopPWalk;

// docs/spec/filters.md#min_p.
struct MinPRule {
  bool first_only_at_one = false;  // ascend_v2: m >= 1 keeps the first token of the order only
};

// docs/spec/filters.md "Degenerate rows" (top_p, min_p): a row holding a NaN or a +inf has a
// NaN softmax; an enabled filter keeps nothing (flashinfer) or drops nothing (the others).
struct DegenerateRowRule {
  bool nan_softmax_empties_row = false;
};

// docs/spec/filters.md#sampling_filters "Order per profile" (reference/profile_rules.h).
using FilterOrder = reference::FilterOrder;

struct FilterRules {
  TopKRule top_k;
  TopPWalk top_p = TopPWalk::kExclusive;
  MinPRule min_p;
  FilterOrder order = FilterOrder::kTopKFirst;
  DegenerateRowRule degenerate;  // top_p's and min_p's rule on a row holding a NaN or a +inf
};

}  // namespace sampcheck::gpu

namespace sampcheck::gpu {

// docs/spec/ascend_top_k_top_p_sample_v2.md: the op's attributes, validated by the glue.
struct AscendSampleRule {
  std::int64_t ks_max = 1024;
  float eps = 1e-8f;
  bool input_is_logits = true;
  bool need_logits = false;         // emit logits_top_kp_select
  bool need_sample_result = false;  // emit logits_sort_masked and logits_idx, not logits_select_idx
};

}  // namespace sampcheck::gpu

namespace sampcheck::gpu {

// docs/spec/logprobs.md: how the value row x is made from y (gpu/kernels/logprobs.cuh); the processed
// modes run the filters above first.
enum class LogprobsKernelMode : std::uint8_t {
  kValues,        // x = y (raw_logits, processed_logits)
  kLogSoftmax,    // x = log_softmax(y) (raw_logprobs, processed_logprobs, sglang original)
  kLogOfSoftmax,  // x = LogF32Cr(softmax(y)) (sglang temperature)
};

struct LogprobsRule {
  LogprobsKernelMode mode = LogprobsKernelMode::kLogSoftmax;
  bool rank_counts_ties = false;  // vllm: #{x_j >= x_tok}; else 1 + #{x_j > x_tok}
  // vllm: a listed id's rank is its position + 1; else 1 + #{x_j > x_id}.
  bool positional_top_ranks = false;
  FilterRules filters;            // kTopKFirst (canonical) or kMinPFirst (vllm)
  // sglang: -inf values become -FLT_MAX (OutputLogprobProcessor.compute_logprobs' clamp).
  bool clamp_neg_inf = false;
  // vllm with logprob_token_ids: rank = #{y_j > y_tok} on the row before the log (the processed
  // logits), no + 1; padded ids give -inf instead of NaN.
  bool token_ids_rank = false;
};

}  // namespace sampcheck::gpu
