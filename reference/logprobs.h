// SPDX-License-Identifier: Apache-2.0
#pragma once
// logprobs: the values a framework returns beside a sampled token — the top-n ids and values,
// the sampled token's value and rank, and the values of requested ids (docs/spec/logprobs.md).
//
// Contract:
// - Inputs: logits [B, V] (f32|f16|bf16, upcast to f32): the row the sampler decides on, after
//   penalties, bias and masks, before temperature. Optional raw_logits [B, V]: the model's
//   row before any processing (absent: logits); read by the raw modes only. Optional
//   temperature [B] f32 (absent: 1), finite and >= 0. Optional top_k [B] i32, top_p [B] f32,
//   min_p [B] f32 (absent: disabled); read by the processed modes of canonical and vllm only.
//   token [B] i64: the sampled id, in [0, V). Optional token_ids [B, T] i32: ids whose values
//   are asked (SGLang token_ids_logprob), -1 padded, others in [0, V).
//   Params: num_logprobs (int, 0 <= n <= V, default 0); mode (string, per profile below).
// - The value row x (f32, V entries) by mode:
//     canonical, vllm (vllm/v1/sample/sampler.py Sampler.forward / sample):
//       raw_logprobs (default)  LogSoftmaxRow(raw_logits)
//       raw_logits              raw_logits
//       processed_logits        y = logits / T' then the profile's filters
//                               (SamplingFiltersRow: canonical top_k_first, vllm min_p_first);
//                               greedy rows (T below the profile's epsilon) keep y = logits and
//                               skip the filters
//       processed_logprobs      LogSoftmaxRow(processed_logits)
//     sglang (python/sglang/srt/layers/sampler.py Sampler.forward):
//       temperature (default)   LogF32Cr(SoftmaxRow(logits / T')): log of the probabilities,
//                               no filters (log 0 = -inf); greedy rows use T' = 1
//       original                LogSoftmaxRow(logits) (SGLANG_RETURN_ORIGINAL_LOGPROB)
//     then every -inf of x becomes -FLT_MAX (-3.4028235e38; NaN stays): SGLang's
//     OutputLogprobProcessor.compute_logprobs clamps to finfo.min (layers/logprob_processor.py
//     @d55f1c28).
//   T' is the temperature after the profile's rules (reference/temperature.h: vllm raises
//   0 < t < 0.01 to 0.01; greedy iff t < 1e-5 (canonical, vllm) or t < 1e-6 (sglang)).
//   A row holding NaN or +inf goes through the filters' degenerate-row rules
//   (reference/sampling_filters.h SamplingFiltersDegenerateRow; docs/spec/filters.md).
// - Outputs: top_ids [B, n] i64 and top_values [B, n] f32: the n first entries of x in the
//   order NaN first, then larger value first (-0.0 == +0.0), ties by lower index.
//   top_ranks [B, n] i64 (canonical and vllm only): the rank of each listed id: canonical
//   1 + #{j : x_j > x[top_id]} (ties share a rank, a NaN value has rank 1), vllm its position
//   + 1 (vllm/logprobs.py @9aaf83ef append_logprobs_for_next_position: topk_ranks =
//   range(1, num_logprobs + 1)); the sampled token never shifts them, listed or not.
//   token_logprob [B] f32 = x[token]. token_rank [B] i64 (canonical and vllm only):
//   canonical 1 + #{j : x_j > x[token]}; vllm #{j : x_j >= x[token]}
//   (vllm/v1/sample/ops/logprobs.py batched_count_greater_than), which counts every tie and
//   gives 0 for a NaN token value. token_ids_logprobs [B, T] f32, only when token_ids is
//   given: x[id], NaN at -1 padding.
// - vllm with token_ids (SamplingParams.logprob_token_ids, vllm/v1/sample/sampler.py @9aaf83ef
//   Sampler.forward, gather_specific_token_logprobs): whatever the mode, x is the
//   processed_logprobs row (the logits Sampler.sample divided and filtered in place); top_ids and
//   top_values are [B, 0] (the token-ids result replaces the top-n); token_rank =
//   #{j : y_j > y[token]} on the processed logits y, no + 1; padding -inf (vLLM's valid_mask).
// - Exact tier given the canonical softmax (owned exp/log, canonical reductions); no randomness.
// Example: logits {0, -ln2, -2ln2, -2ln2} rounded to f32 (softmax {1/2, 1/4, 1/8, 1/8}),
//   token 3, n = 2, raw_logprobs: top_ids {0, 1}, top_ranks {1, 2}, token_logprob = the f32 of
//   -3 ln 2, canonical rank 3, vllm rank 4 (token 2 ties with it).

#include <cstdint>
#include <span>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "reference/stage_io.h"
#include "reference/temperature.h"

namespace sampcheck::reference {

// The first `n` indices of `row` in the top-n order above (NaN first, larger first, ties by
// lower index). Requires n <= row.size().
std::vector<std::int32_t> TopLogprobIndices(std::span<const float> row, std::int64_t n);
// The ranks of the listed ids `order` (TopLogprobIndices of `row`) under the profile's rule:
// canonical 1 + #{j : row_j > row[order[p]]}, vllm p + 1. O(n): every entry greater than a
// listed number is listed before it, so its count is the numbers listed before its run of equals.
std::vector<std::int64_t> TopLogprobRanks(Profile profile, std::span<const float> row,
                                          std::span<const std::int32_t> order);
// The sampled token's rank under the profile's rule (canonical: 1 + strictly greater; vllm:
// greater or equal).
std::int64_t LogprobRank(Profile profile, std::span<const float> row, std::int64_t token);
// vLLM's rank beside logprob_token_ids: #{j : y_j > y[token]} on the processed logits y (no + 1).
std::int64_t TokenIdsRank(std::span<const float> processed_logits, std::int64_t token);

// The row's value mode (param `mode`, per profile); throws through `in` on an unknown one.
enum class LogprobsMode {
  kRawLogprobs,
  kRawLogits,
  kProcessedLogits,
  kProcessedLogprobs,
  kSglangTemperature,
  kSglangOriginal,
};
LogprobsMode ParseLogprobsMode(const StageInputs& in, const Case& c, Profile profile);

// The stage's inputs after every check above (in this order: logits, mode, raw_logits, token,
// temperature, top_k, top_p, min_p, token_ids, num_logprobs; then per row its token, its
// temperature), one message each, and the profile's rules: what the reference below and the gpu glue
// (gpu/backend/filters_glue.cc) compute from. Pointers point into the case, which must
// outlive the arguments.
struct LogprobsArgs {
  Profile profile = Profile::kCanonical;  // the filters' and the rank's rules
  Tensor logits;                          // [B, V], upcast to f32
  Tensor raw_logits;                      // [B, V], upcast to f32 (logits when absent)
  // The row's mode: the asked one, or processed_logprobs under vllm with token_ids.
  LogprobsMode mode = LogprobsMode::kRawLogprobs;
  bool vllm_token_ids = false;            // vllm with token_ids (see the contract)
  const Tensor* token = nullptr;          // [B] i64, each in [0, V)
  const Tensor* token_ids = nullptr;      // [B, T] i32 ids or -1, or null
  std::int64_t n = 0;                     // top-n per row (0 under vllm_token_ids)
  std::vector<RowTemperature> temperature;  // [B], under the profile's temperature rule
  // [B]: the filter parameters of the processed modes (absent: disabled), and whether the row
  // runs them (a processed mode, not a greedy row, some filter active).
  std::vector<std::int32_t> top_k;
  std::vector<float> top_p;
  std::vector<float> min_p;
  std::vector<std::uint8_t> filtered;
};
LogprobsArgs ParseLogprobs(const Case& c, Profile profile);

// The stage's outputs from their computed tensors, named as the contract names them (token_rank
// not under sglang; token_ids_logprobs only when token_ids is given).
TensorMap LogprobsOutputs(const LogprobsArgs& a, Tensor top_ids, Tensor top_values, Tensor top_ranks,
                          Tensor token_logprob, Tensor token_rank, Tensor token_ids_logprobs);

// Whether the row mode reads raw_logits, and whether it is a processed mode.
bool IsRawLogprobsMode(LogprobsMode mode);
bool IsProcessedLogprobsMode(LogprobsMode mode);

TensorMap RunLogprobs(const Case& c, Profile profile);

}  // namespace sampcheck::reference
