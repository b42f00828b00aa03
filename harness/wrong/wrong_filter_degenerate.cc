// SPDX-License-Identifier: Apache-2.0
// The filters' degenerate rows planted wrong (docs/spec/filters.md "Degenerate rows"): rejected
// by golden cases.
//
// Contract (what each planted bug changes -> the case that must reject it):
// - filter_degenerate_row_aborts_batch  a row holding a NaN or a +inf makes the whole batch an
//                                error (a device assert in the filter kernel)
//                                -> top_k/degenerate_rows_v16/
// - top_k_nan_as_minus_inf       top_k reads a NaN logit as -inf (a kernel whose comparisons
//                                rank NaN below every number, or that sanitises it away): the
//                                NaN is dropped and the k tokens come from the numbers only
//                                -> top_k/degenerate_rows_v16/
// - top_p_degenerate_row_emptied  top_p turns a row holding a NaN or a +inf into all -inf (a
//                                pivot search whose comparisons with NaN probabilities all
//                                fail), where every profile but flashinfer leaves it unchanged
//                                (flashinfer too at p >= 1) -> top_p/degenerate_rows_v16/
// - min_p_degenerate_row_emptied  the same in min_p (a threshold max_prob * m compared with NaN
//                                probabilities keeps nothing), flashinfer too at m <= 0
//                                -> min_p/degenerate_rows_v16/
// - sampling_filters_probs_nan_as_zero  the probs output of a row whose filtered logits still
//                                hold a NaN is the softmax with the NaN read as -inf (a
//                                NaN-skipping max and sum), finite where the spec has NaN
//                                -> sampling_filters/degenerate_rows_v16/
// - logprobs_nan_as_minus_inf    the same in logprobs (every mode reads the NaN as -inf)
//                                -> logprobs/degenerate_rows_v8_processed_logits/
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/filter_rows.h"

namespace sampcheck::statistical {
namespace {

// The f32 logits of a filter case, or null (the degenerate goldens are f32).
const Tensor* F32Logits(const Case& c) {
  auto it = c.inputs.find("logits");
  if (it == c.inputs.end() || it->second.rank() != 2 || it->second.dtype() != DType::kF32) return nullptr;
  return &it->second;
}

class FilterDegenerateRowAbortsBatch final : public ExactFaultBackend {
 public:
  FilterDegenerateRowAbortsBatch() : ExactFaultBackend("filter_degenerate_row_aborts_batch") {}

 protected:
  Case Transform(const Case& c) override {
    const Tensor* logits = F32Logits(c);
    if (!logits) return c;
    const std::int64_t vocab = logits->dim(1);
    const auto x = logits->data<float>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i]) || x[i] == std::numeric_limits<float>::infinity()) {
        throw InputError("row " + std::to_string(static_cast<std::int64_t>(i) / vocab) +
                         " is degenerate: device-side assert, the batch is lost");
      }
    }
    return c;
  }
};

// A stage (the case carries `input`) that reads a NaN logit as -inf.
class NanAsMinusInf final : public ExactFaultBackend {
 public:
  NanAsMinusInf(std::string name, std::string input) : ExactFaultBackend(std::move(name)), input_(std::move(input)) {}

 protected:
  Case Transform(const Case& c) override {
    const Tensor* logits = F32Logits(c);
    if (!logits || !c.inputs.contains(input_)) return c;
    Case out = c;
    for (float& v : out.inputs.at("logits").data<float>()) {
      if (std::isnan(v)) v = -std::numeric_limits<float>::infinity();
    }
    return out;
  }

 private:
  std::string input_;
};

// A softmax filter (the case carries its parameter `param`) that empties its degenerate rows.
class DegenerateRowEmptied final : public ExactFaultBackend {
 public:
  DegenerateRowEmptied(std::string name, std::string param)
      : ExactFaultBackend(std::move(name)), param_(std::move(param)) {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const Tensor* logits = F32Logits(c);
    auto masked = out.find("logits");
    if (!logits || !c.inputs.contains(param_) || masked == out.end()) return out;
    const auto vocab = static_cast<std::size_t>(logits->dim(1));
    const auto x = logits->data<float>();
    auto y = masked->second.data<float>();
    for (std::size_t b = 0; b * vocab < x.size(); ++b) {
      bool degenerate = false;
      for (std::size_t i = b * vocab; i < (b + 1) * vocab; ++i) {
        degenerate = degenerate || std::isnan(x[i]) || x[i] == std::numeric_limits<float>::infinity();
      }
      if (!degenerate) continue;
      for (std::size_t i = b * vocab; i < (b + 1) * vocab; ++i) y[i] = -std::numeric_limits<float>::infinity();
    }
    return out;
  }

 private:
  std::string param_;
};

class SamplingFiltersProbsNanAsZero final : public ExactFaultBackend {
 public:
  SamplingFiltersProbsNanAsZero() : ExactFaultBackend("sampling_filters_probs_nan_as_zero") {}

 protected:
  TensorMap CorruptFor(const Case& /*c*/, TensorMap out) override {
    auto logits = out.find("logits");
    auto probs = out.find("probs");
    if (logits == out.end() || probs == out.end() || logits->second.rank() != 2) return out;
    const auto vocab = static_cast<std::size_t>(logits->second.dim(1));
    const auto x = logits->second.data<float>();
    for (std::size_t b = 0; b * vocab < x.size(); ++b) {
      std::vector<float> row(x.begin() + static_cast<std::ptrdiff_t>(b * vocab),
                             x.begin() + static_cast<std::ptrdiff_t>((b + 1) * vocab));
      if (std::none_of(row.begin(), row.end(), [](float v) { return std::isnan(v); })) continue;
      for (float& v : row) v = std::isnan(v) ? -std::numeric_limits<float>::infinity() : v;
      reference::FilteredSoftmaxRow(row, probs->second.data<float>().subspan(b * vocab, vocab));
    }
    return out;
  }
};

}  // namespace

SAMPCHECK_WRONG_SAMPLER(FilterDegenerateRowAbortsBatch,
                        {{"filter_degenerate_row_aborts_batch",
                          "a filter row holding a NaN or a +inf makes the whole batch an error",
                          "top_k/degenerate_rows_v16/", "golden"},
                         [] { return std::make_unique<FilterDegenerateRowAbortsBatch>(); }});
SAMPCHECK_WRONG_SAMPLER(TopKNanAsMinusInf,
                        {{"top_k_nan_as_minus_inf", "top_k reads a NaN logit as -inf: dropped, not counted among the k",
                          "top_k/degenerate_rows_v16/", "golden"},
                         [] { return std::make_unique<NanAsMinusInf>("top_k_nan_as_minus_inf", "top_k"); }});
SAMPCHECK_WRONG_SAMPLER(LogprobsNanAsMinusInf,
                        {{"logprobs_nan_as_minus_inf",
                          "logprobs' processed modes filter a NaN logit as -inf: dropped, not ranked first and kept",
                          "logprobs/degenerate_rows_v8_processed_logits/", "golden"},
                         [] { return std::make_unique<NanAsMinusInf>("logprobs_nan_as_minus_inf", "token"); }});

SAMPCHECK_WRONG_SAMPLER(TopPDegenerateRowEmptied,
                        {{"top_p_degenerate_row_emptied",
                          "top_p empties a row holding a NaN or a +inf instead of leaving it unchanged",
                          "top_p/degenerate_rows_v16/", "golden"},
                         [] { return std::make_unique<DegenerateRowEmptied>("top_p_degenerate_row_emptied", "top_p"); }});
SAMPCHECK_WRONG_SAMPLER(MinPDegenerateRowEmptied,
                        {{"min_p_degenerate_row_emptied",
                          "min_p empties a row holding a NaN or a +inf instead of leaving it unchanged",
                          "min_p/degenerate_rows_v16/", "golden"},
                         [] { return std::make_unique<DegenerateRowEmptied>("min_p_degenerate_row_emptied", "min_p"); }});

SAMPCHECK_WRONG_SAMPLER(SamplingFiltersProbsNanAsZero,
                        {{"sampling_filters_probs_nan_as_zero",
                          "sampling_filters' probs read a NaN logit as -inf: finite where the spec has NaN",
                          "sampling_filters/degenerate_rows_v16/", "golden"},
                         [] { return std::make_unique<SamplingFiltersProbsNanAsZero>(); }});

}  // namespace sampcheck::statistical
