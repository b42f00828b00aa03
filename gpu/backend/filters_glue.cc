// SPDX-License-Identifier: Apache-2.0
// Stage glue of the filter kernels (gpu/backend/filters_glue.h, docs/spec/filters.md): checks as
// reference/top_k.cc, top_p.cc, min_p.cc and sampling_filters.cc, in the same order.
#include "gpu/backend/filters_glue.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gpu/kernels/filter_rules.h"
#include "reference/ascend_top_k_top_p_sample_v2.h"
#include "reference/filter_rows.h"
#include "reference/logprobs.h"
#include "reference/sampling_filters.h"
#include "reference/stage_io.h"
#include "reference/top_k.h"

namespace sampcheck::gpu {

namespace {

using reference::Outputs;
using reference::StageInputs;

// The radix select's per-thread digit counts are 16 bits (gpu/block/radix_select.cuh).
constexpr std::int64_t kMaxVocab = std::int64_t{65535} * 1024;

Tensor CheckedLogits(const StageInputs& in) {
  Tensor logits = reference::FilterLogits(in);
  if (logits.dim(1) > kMaxVocab) {
    in.Fail("vocabulary " + std::to_string(logits.dim(1)) + " exceeds the filter kernels' limit " +
            std::to_string(kMaxVocab));
  }
  return logits;
}

TopKRule TopKRuleFor(Profile profile, std::int64_t ks_max) {
  return TopKRule{profile == Profile::kVllm || profile == Profile::kFlashinfer, profile == Profile::kAscendV2, ks_max};
}

TopPWalk TopPWalkFor(Profile profile) {
  switch (profile) {
    case Profile::kFlashinfer:
      return TopPWalk::kTieGroup;
    case Profile::kSglang:
      return TopPWalk::kSglang;
    case Profile::kVllm:
      return TopPWalk::kVllmAscending;
    default:
      return TopPWalk::kExclusive;
  }
}

MinPRule MinPRuleFor(Profile profile) { return MinPRule{profile == Profile::kAscendV2}; }

}  // namespace

TensorMap RunTopKKernel(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "top_k");
  const Tensor logits = CheckedLogits(in);
  const Tensor& k = in.Required("top_k", DType::kI32, 1);
  in.ExpectDim("top_k", k, 0, logits.dim(0));
  const std::int64_t ks_max = reference::IntParam(in, c, "ks_max", reference::kAscendDefaultKsMax);
  reference::ValidateKsMax(in, ks_max);
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(TopKLaunch(logits.data<float>().data(), k.data<std::int32_t>().data(), rows, vocab, vocab,
                        TopKRuleFor(profile, ks_max), out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

TensorMap RunTopPKernel(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "top_p");
  const Tensor logits = CheckedLogits(in);
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const float* ps = reference::RowParams(in, "top_p", rows);
  if (!ps) in.Fail("missing input tensor 'top_p'");
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(
      TopPLaunch(logits.data<float>().data(), ps, rows, vocab, vocab, TopPWalkFor(profile), out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

TensorMap RunMinPKernel(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "min_p");
  const Tensor logits = CheckedLogits(in);
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const float* ms = reference::RowParams(in, "min_p", rows);
  if (!ms) in.Fail("missing input tensor 'min_p'");
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(
      MinPLaunch(logits.data<float>().data(), ms, rows, vocab, vocab, MinPRuleFor(profile), out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

TensorMap RunSamplingFiltersKernel(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "sampling_filters");
  const Tensor logits = CheckedLogits(in);
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor* k = in.Optional("top_k", DType::kI32, 1);
  if (k) in.ExpectDim("top_k", *k, 0, rows);
  const float* p = reference::RowParams(in, "top_p", rows);
  const float* m = reference::RowParams(in, "min_p", rows);
  std::string order;
  if (c.params.contains("order")) {
    if (!c.params["order"].is_string()) in.Fail("parameter order must be a string");
    order = c.params["order"].get<std::string>();
  }
  const std::int64_t ks_max = reference::IntParam(in, c, "ks_max", reference::kAscendDefaultKsMax);
  reference::ValidateFilterParams(in, profile, order, ks_max);
  FilterRules rules{TopKRuleFor(profile, ks_max), TopPWalkFor(profile), MinPRuleFor(profile), FilterOrder::kTopKFirst};
  switch (profile) {
    case Profile::kVllm:
      rules.order = FilterOrder::kMinPFirst;
      break;
    case Profile::kSglang:
      rules.order = FilterOrder::kJoint;
      break;
    case Profile::kAscendV2:
      rules.order = FilterOrder::kAscend;
      break;
    case Profile::kFlashinfer:
      rules.order = order == "joint" ? FilterOrder::kJointThenMinP : FilterOrder::kTopKFirst;
      break;
    default:
      break;
  }
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  Tensor probs = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(SamplingFiltersLaunch(logits.data<float>().data(), k ? k->data<std::int32_t>().data() : nullptr, p, m,
                                   rows, vocab, vocab, rules, out.data<float>().data(), probs.data<float>().data()));
  TensorMap result = Outputs("logits", std::move(out));
  result.emplace("probs", std::move(probs));
  return result;
}

// Inputs checked by the reference's own ReadAscendInputs (same order, same messages).
TensorMap RunAscendTopKTopPSampleV2Kernel(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, "ascend_top_k_top_p_sample_v2");
  const reference::AscendInputs a = reference::ReadAscendInputs(in, c);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  if (vocab > kMaxVocab) {
    in.Fail("vocabulary " + std::to_string(vocab) + " exceeds the filter kernels' limit " + std::to_string(kMaxVocab));
  }
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

// Inputs checked as reference/logprobs.cc checks them (same order, same messages); the
// temperature and filter decisions per row are made here, the kernel only applies them.
TensorMap RunLogprobsKernel(const Case& c, Profile profile, KernelRunner& runner) {
  using reference::LogprobsMode;
  StageInputs in(c, "logprobs");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const LogprobsMode asked_mode = reference::ParseLogprobsMode(in, c, profile);
  const Tensor raw_logits = c.inputs.count("raw_logits") ? in.FloatRows("raw_logits", rows, vocab) : logits;
  const Tensor& token = in.Required("token", DType::kI64, 1);
  in.ExpectDim("token", token, 0, rows);
  const Tensor* temp = in.Optional("temperature", DType::kF32, 1);
  if (temp) in.ExpectDim("temperature", *temp, 0, rows);
  const Tensor* top_k = in.Optional("top_k", DType::kI32, 1);
  if (top_k) in.ExpectDim("top_k", *top_k, 0, rows);
  const float* top_p = reference::RowParams(in, "top_p", rows);
  const float* min_p = reference::RowParams(in, "min_p", rows);
  const Tensor* ids = in.Optional("token_ids", DType::kI32, 2);
  if (ids) {
    in.ExpectDim("token_ids", *ids, 0, rows);
    in.ExpectIdsOrPadding("token_ids", *ids, vocab);
  }
  const std::int64_t asked = reference::IntParam(in, c, "num_logprobs", 0);
  if (asked < 0 || asked > vocab) {
    in.Fail("num_logprobs = " + std::to_string(asked) + " must be in [0, V = " + std::to_string(vocab) + "]");
  }
  // vllm with logprob_token_ids: the processed_logprobs row, no top-n (reference/logprobs.h).
  const bool vllm_ids = profile == Profile::kVllm && ids != nullptr;
  const LogprobsMode mode = vllm_ids ? LogprobsMode::kProcessedLogprobs : asked_mode;
  const bool raw = mode == LogprobsMode::kRawLogprobs || mode == LogprobsMode::kRawLogits;
  const std::int64_t n = vllm_ids ? 0 : asked;
  if (vocab > kMaxVocab) {
    in.Fail("vocabulary " + std::to_string(vocab) + " exceeds the filter kernels' limit " + std::to_string(kMaxVocab));
  }
  const Tensor& src = raw ? raw_logits : logits;
  const bool processed = mode == LogprobsMode::kProcessedLogits || mode == LogprobsMode::kProcessedLogprobs;
  const auto r = static_cast<std::size_t>(rows);
  std::vector<float> divisor(r, 1.0f), p(r, 1.0f), m(r, 0.0f);
  std::vector<std::uint8_t> divide(r, 0), filter(r, 0);
  std::vector<std::int32_t> k(r, 0);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const std::int64_t tok = token.data<std::int64_t>()[i];
    if (tok < 0 || tok >= vocab) {
      in.Fail("token[" + std::to_string(b) + "] = " + std::to_string(tok) +
              " must be in [0, V = " + std::to_string(vocab) + ")");
    }
    const float t = temp ? temp->data<float>()[i] : 1.0f;
    if (!std::isfinite(t) || t < 0.0f) {
      in.Fail("temperature[" + std::to_string(b) + "] = " + reference::FormatFloat(t) + " must be finite and >= 0");
    }
    const reference::RowTemperature rt = reference::LogprobsEffectiveTemperature(profile, t);
    divisor[i] = rt.divisor;
    if (mode == LogprobsMode::kSglangTemperature) divide[i] = 1;
    if (!processed || rt.greedy) continue;
    divide[i] = 1;
    if (top_k) k[i] = top_k->data<std::int32_t>()[i];
    if (top_p) p[i] = top_p[i];
    if (min_p) m[i] = min_p[i];
    const bool active = (k[i] > 0 && k[i] < vocab) || p[i] < 1.0f || m[i] > 0.0f;
    if (!active) continue;
    filter[i] = 1;
    for (const float v :
         src.data<float>().subspan(i * static_cast<std::size_t>(vocab), static_cast<std::size_t>(vocab))) {
      const float y = v / rt.divisor;
      if (std::isnan(y) || y == std::numeric_limits<float>::infinity()) {
        in.Fail("row " + std::to_string(b) + ": processed modes with an active filter need logits without NaN or +inf");
      }
    }
  }
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
  rule.token_ids_rank = vllm_ids;
  rule.filters =
      FilterRules{TopKRuleFor(profile, reference::kAscendDefaultKsMax), TopPWalkFor(profile), MinPRuleFor(profile),
                  profile == Profile::kVllm ? FilterOrder::kMinPFirst : FilterOrder::kTopKFirst};
  const std::int64_t width = ids ? ids->dim(1) : 0;
  Tensor top_ids(DType::kI64, {rows, n});
  Tensor top_values(DType::kF32, {rows, n});
  Tensor top_ranks(DType::kI64, {rows, n});
  Tensor token_logprob(DType::kF32, {rows});
  Tensor token_rank(DType::kI64, {rows});
  Tensor ids_values(DType::kF32, {rows, width});
  runner.Run(LogprobsLaunch(
      src.data<float>().data(), divisor.data(), divide.data(), filter.data(), k.data(), p.data(), m.data(),
      token.data<std::int64_t>().data(), ids ? ids->data<std::int32_t>().data() : nullptr, width, rows, vocab, vocab, n,
      rule, top_ids.data<std::int64_t>().data(), top_values.data<float>().data(), top_ranks.data<std::int64_t>().data(),
      token_logprob.data<float>().data(),
      token_rank.data<std::int64_t>().data(), ids_values.data<float>().data()));
  TensorMap out = Outputs("top_ids", std::move(top_ids));
  out.emplace("top_values", std::move(top_values));
  out.emplace("token_logprob", std::move(token_logprob));
  if (profile != Profile::kSglang) {
    out.emplace("top_ranks", std::move(top_ranks));
    out.emplace("token_rank", std::move(token_rank));
  }
  if (ids) out.emplace("token_ids_logprobs", std::move(ids_values));
  return out;
}

}  // namespace sampcheck::gpu
