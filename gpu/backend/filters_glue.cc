// SPDX-License-Identifier: Apache-2.0
// Stage glue of the filter kernels (gpu/backend/filters_glue.h, docs/spec/filters.md): each stage
// parsed by the reference's own parse function, then one kernel launch.
#include "gpu/backend/filters_glue.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gpu/kernels/filter_rules.h"
#include "reference/ascend_top_k_top_p_sample_v2.h"
#include "reference/filter_rows.h"
#include "reference/logprobs.h"
#include "reference/min_p.h"
#include "reference/profile_rules.h"
#include "reference/sampling_filters.h"
#include "reference/stage_io.h"
#include "reference/top_k.h"
#include "reference/top_p.h"

namespace sampcheck::gpu {

namespace {

using reference::Outputs;
using reference::StageInputs;

// The radix select's per-thread digit counts are 16 bits (gpu/block/radix_select.cuh).
constexpr std::int64_t kMaxVocab = std::int64_t{65535} * 1024;

// The vocabulary limit of the filter kernels, checked after the stage's own parse.
void CheckVocab(const Case& c, const char* stage, std::int64_t vocab) {
  if (vocab > kMaxVocab) {
    StageInputs(c, stage).Fail("vocabulary " + std::to_string(vocab) + " exceeds the filter kernels' limit " +
                               std::to_string(kMaxVocab));
  }
}

// The profile's rules (reference/profile_rules.h) as the kernels' flags.
TopKRule TopKRuleFor(Profile profile, std::int64_t ks_max) {
  return TopKRule{reference::TopKKeepsTies(profile), reference::TopKAscendLimit(profile), ks_max,
                  reference::TopKDropsNaN(profile)};
}

DegenerateRowRule DegenerateRowRuleFor(Profile profile) {
  return DegenerateRowRule{reference::NanSoftmaxEmptiesRow(profile)};
}

MinPRule MinPRuleFor(Profile profile) { return MinPRule{reference::MinPFirstOnlyAtOne(profile)}; }

}  // namespace

// Each stage below: inputs from the reference's parse (reference/top_k.h, top_p.h, min_p.h,
// sampling_filters.h), the vocabulary limit, one kernel launch. top_k, top_p and min_p take any
// row, NaN and +inf included (gpu/kernels/top_k.cuh, gpu/kernels/degenerate_rows.cuh).
TensorMap RunTopKKernel(const Case& c, Profile profile, KernelRunner& runner) {
  reference::TopKArgs a = reference::ParseTopK(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  CheckVocab(c, "top_k", vocab);
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(TopKLaunch(a.logits.data<float>().data(), a.top_k->data<std::int32_t>().data(), rows, vocab, vocab,
                        TopKRuleFor(profile, a.ks_max), out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

TensorMap RunTopPKernel(const Case& c, Profile profile, KernelRunner& runner) {
  reference::TopPArgs a = reference::ParseTopP(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  CheckVocab(c, "top_p", vocab);
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(TopPLaunch(a.logits.data<float>().data(), a.top_p, rows, vocab, vocab, reference::TopPWalkFor(profile),
                        out.data<float>().data(), DegenerateRowRuleFor(profile)));
  return Outputs("logits", std::move(out));
}

TensorMap RunMinPKernel(const Case& c, Profile profile, KernelRunner& runner) {
  reference::MinPArgs a = reference::ParseMinP(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  CheckVocab(c, "min_p", vocab);
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(MinPLaunch(a.logits.data<float>().data(), a.min_p, rows, vocab, vocab, MinPRuleFor(profile),
                        out.data<float>().data(), DegenerateRowRuleFor(profile)));
  return Outputs("logits", std::move(out));
}

TensorMap RunSamplingFiltersKernel(const Case& c, Profile profile, KernelRunner& runner) {
  reference::SamplingFiltersArgs a = reference::ParseSamplingFilters(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  CheckVocab(c, "sampling_filters", vocab);
  // A row holding a NaN or a +inf is decided by the kernel (its filters' degenerate-row rules in
  // turn, gpu/kernels/sampling_filters_degenerate_rows.cuh).
  const FilterRules rules{TopKRuleFor(profile, a.ks_max), reference::TopPWalkFor(profile), MinPRuleFor(profile),
                          a.filter_order, DegenerateRowRuleFor(profile)};
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  Tensor probs = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(SamplingFiltersLaunch(a.logits.data<float>().data(),
                                   a.top_k ? a.top_k->data<std::int32_t>().data() : nullptr, a.top_p, a.min_p, rows,
                                   vocab, vocab, rules, out.data<float>().data(), probs.data<float>().data()));
  TensorMap result = Outputs("logits", std::move(out));
  result.emplace("probs", std::move(probs));
  return result;
}

// Inputs checked by the reference's own ReadAscendInputs (same order, same messages).
TensorMap RunAscendTopKTopPSampleV2Kernel(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, "ascend_top_k_top_p_sample_v2");
  const reference::AscendInputs a = reference::ReadAscendInputs(in, c);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  CheckVocab(c, "ascend_top_k_top_p_sample_v2", vocab);
  const AscendSampleRule rule{a.ks_max, a.eps, a.input_is_logits, a.is_need_logits, a.is_need_sample_result};
  Tensor select_idx(DType::kI64, {rows});
  Tensor top_kp_select = a.is_need_logits ? Tensor::Uninitialized(DType::kF32, {rows, vocab}) : Tensor();
  Tensor sort_masked = a.is_need_sample_result ? Tensor(DType::kF32, {rows, vocab}) : Tensor();
  Tensor idx = a.is_need_sample_result ? Tensor::Uninitialized(DType::kI64, {rows, vocab}) : Tensor();
  runner.Run(AscendTopKTopPSampleV2Launch(a.logits.data<float>().data(), a.top_k.data(), a.top_p.data(),
                                          a.min_p.empty() ? nullptr : a.min_p.data(),
                                          a.q ? a.q->data<float>().data() : nullptr, rows, vocab, vocab, rule,
                                          a.is_need_sample_result ? nullptr : select_idx.data<std::int64_t>().data(),
                                          a.is_need_logits ? top_kp_select.data<float>().data() : nullptr,
                                          a.is_need_sample_result ? sort_masked.data<float>().data() : nullptr,
                                          a.is_need_sample_result ? idx.data<std::int64_t>().data() : nullptr));
  TensorMap out;
  if (!a.is_need_sample_result) out.emplace("logits_select_idx", std::move(select_idx));
  if (a.is_need_logits) out.emplace("logits_top_kp_select", std::move(top_kp_select));
  if (a.is_need_sample_result) {
    out.emplace("logits_sort_masked", std::move(sort_masked));
    out.emplace("logits_idx", std::move(idx));
  }
  return out;
}

// Inputs, per-row temperatures and filter decisions from reference/logprobs.h's ParseLogprobs;
// the kernel only applies them.
TensorMap RunLogprobsKernel(const Case& c, Profile profile, KernelRunner& runner) {
  using reference::LogprobsMode;
  const reference::LogprobsArgs a = reference::ParseLogprobs(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1), n = a.n;
  CheckVocab(c, "logprobs", vocab);
  const LogprobsMode mode = a.mode;
  const Tensor& src = reference::IsRawLogprobsMode(mode) ? a.raw_logits : a.logits;
  const bool processed = reference::IsProcessedLogprobsMode(mode);
  const Tensor* ids = a.token_ids;
  const auto r = static_cast<std::size_t>(rows);
  std::vector<float> divisor(r, 1.0f), p(r, 1.0f), m(r, 0.0f);
  std::vector<std::uint8_t> divide(r, 0);
  std::vector<std::int32_t> k(r, 0);
  for (std::size_t i = 0; i < r; ++i) {
    divisor[i] = a.temperature[i].divisor;
    if (mode == LogprobsMode::kSglangTemperature) divide[i] = 1;
    if (!processed || a.temperature[i].greedy) continue;
    divide[i] = 1;
    k[i] = a.top_k[i], p[i] = a.top_p[i], m[i] = a.min_p[i];
  }
  // A filtered row holding NaN or +inf after the division is decided by the kernel (the filters'
  // degenerate-row rules, docs/spec/filters.md "Degenerate rows").
  const std::vector<std::uint8_t>& filtered = a.filtered;
  LogprobsRule rule;
  switch (mode) {
    case LogprobsMode::kRawLogits:
    case LogprobsMode::kProcessedLogits:
      rule.mode = LogprobsKernelMode::kValues;
      break;
    case LogprobsMode::kSglangTemperature:
      rule.mode = LogprobsKernelMode::kLogOfSoftmax;
      break;
    default:
      rule.mode = LogprobsKernelMode::kLogSoftmax;
      break;
  }
  rule.rank_counts_ties = profile == Profile::kVllm;
  rule.positional_top_ranks = profile == Profile::kVllm;
  rule.clamp_neg_inf = profile == Profile::kSglang;
  rule.token_ids_rank = a.vllm_token_ids;
  rule.filters =
      FilterRules{TopKRuleFor(profile, reference::kAscendDefaultKsMax), reference::TopPWalkFor(profile),
                  MinPRuleFor(profile), reference::FilterOrderFor(profile, false), DegenerateRowRuleFor(profile)};
  const std::int64_t width = ids ? ids->dim(1) : 0;
  Tensor top_ids(DType::kI64, {rows, n});
  Tensor top_values(DType::kF32, {rows, n});
  Tensor top_ranks(DType::kI64, {rows, n});
  Tensor token_logprob(DType::kF32, {rows});
  Tensor token_rank(DType::kI64, {rows});
  Tensor ids_values(DType::kF32, {rows, width});
  runner.Run(LogprobsLaunch(
      src.data<float>().data(), divisor.data(), divide.data(), filtered.data(), k.data(), p.data(), m.data(),
      a.token->data<std::int64_t>().data(), ids ? ids->data<std::int32_t>().data() : nullptr, width, rows, vocab, vocab, n,
      rule, top_ids.data<std::int64_t>().data(), top_values.data<float>().data(), top_ranks.data<std::int64_t>().data(),
      token_logprob.data<float>().data(), token_rank.data<std::int64_t>().data(), ids_values.data<float>().data()));
  return reference::LogprobsOutputs(a, std::move(top_ids), std::move(top_values), std::move(top_ranks),
                                    std::move(token_logprob), std::move(token_rank), std::move(ids_values));
}

}  // namespace sampcheck::gpu
