// SPDX-License-Identifier: Apache-2.0
// Stage glue of the filter kernels (gpu/filters_glue.h, docs/spec/filters.md): checks as
// reference/top_k.cc, top_p.cc, min_p.cc and sampling_filters.cc, in the same order.
#include "gpu/filters_glue.h"

#include <string>
#include <utility>

#include "gpu/filter_rules.h"
#include "reference/ascend_top_k_top_p_sample_v2.h"
#include "reference/filter_rows.h"
#include "reference/sampling_filters.h"
#include "reference/stage_io.h"
#include "reference/top_k.h"

namespace sampcheck::gpu {

namespace {

using reference::Outputs;
using reference::StageInputs;

// The radix select's per-thread digit counts are 16 bits (gpu/radix_select.cuh).
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
    case Profile::kFlashinfer: return TopPWalk::kTieGroup;
    case Profile::kSglang: return TopPWalk::kSglang;
    case Profile::kVllm: return TopPWalk::kVllmAscending;
    default: return TopPWalk::kExclusive;
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
  runner.TopK(logits.data<float>().data(), k.data<std::int32_t>().data(), rows, vocab, vocab,
              TopKRuleFor(profile, ks_max), out.data<float>().data());
  return Outputs("logits", std::move(out));
}

TensorMap RunTopPKernel(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "top_p");
  const Tensor logits = CheckedLogits(in);
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const float* ps = reference::RowParams(in, "top_p", rows);
  if (!ps) in.Fail("missing input tensor 'top_p'");
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.TopP(logits.data<float>().data(), ps, rows, vocab, vocab, TopPWalkFor(profile), out.data<float>().data());
  return Outputs("logits", std::move(out));
}

TensorMap RunMinPKernel(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "min_p");
  const Tensor logits = CheckedLogits(in);
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const float* ms = reference::RowParams(in, "min_p", rows);
  if (!ms) in.Fail("missing input tensor 'min_p'");
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.MinP(logits.data<float>().data(), ms, rows, vocab, vocab, MinPRuleFor(profile), out.data<float>().data());
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
    case Profile::kVllm: rules.order = FilterOrder::kMinPFirst; break;
    case Profile::kSglang: rules.order = FilterOrder::kJoint; break;
    case Profile::kAscendV2: rules.order = FilterOrder::kAscend; break;
    case Profile::kFlashinfer:
      rules.order = order == "joint" ? FilterOrder::kJointThenMinP : FilterOrder::kTopKFirst;
      break;
    default: break;
  }
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  Tensor probs = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.SamplingFilters(logits.data<float>().data(), k ? k->data<std::int32_t>().data() : nullptr, p, m, rows, vocab,
                         vocab, rules, out.data<float>().data(), probs.data<float>().data());
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
  runner.AscendTopKTopPSampleV2(a.logits.data<float>().data(), a.top_k.data(), a.top_p.data(),
                                a.min_p.empty() ? nullptr : a.min_p.data(), a.q ? a.q->data<float>().data() : nullptr,
                                rows, vocab, vocab, rule,
                                a.is_need_sample_result ? nullptr : select_idx.data<std::int64_t>().data(),
                                a.is_need_logits ? top_kp_select.data<float>().data() : nullptr,
                                a.is_need_sample_result ? sort_masked.data<float>().data() : nullptr,
                                a.is_need_sample_result ? idx.data<std::int64_t>().data() : nullptr);
  TensorMap out;
  if (!a.is_need_sample_result) out.emplace("logits_select_idx", std::move(select_idx));
  if (a.is_need_logits) out.emplace("logits_top_kp_select", std::move(top_kp_select));
  if (a.is_need_sample_result) {
    out.emplace("logits_sort_masked", std::move(sort_masked));
    out.emplace("logits_idx", std::move(idx));
  }
  return out;
}

}  // namespace sampcheck::gpu
