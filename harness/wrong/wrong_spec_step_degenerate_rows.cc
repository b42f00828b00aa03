// SPDX-License-Identifier: Apache-2.0
// spec_step's degenerate rows planted wrong (docs/spec/spec_step.md "Degenerate rows"): the
// bugs real speculative-decoding kernels ship when a target position holds NaN, +inf or no
// finite logit; rejected by golden cases (tests/statistical_power_proof_test.cc, layer "golden").
//
// Contract (what each planted bug changes -> the case or check that must reject it), on
// spec_step cases with f32 `target_logits` [B, K + 1, V]:
// - spec_step_degenerate_row_aborts_batch  a target position holding a NaN or a +inf, or no
//                                finite logit, makes the whole batch an error (a device-side
//                                assert) -> spec_step/degenerate_rows_v33/
// - spec_step_nan_target_as_zero  vllm and sglang read a NaN target probability as 0: a draft
//                                meeting u = 0 is accepted (0 >= 0, 0 <= 0), a one-hot draft's
//                                rejected lane no longer wins the recovered race
//                                -> spec_step/degenerate_rows_v33/vllm, /sglang
// - spec_step_inf_softmax_token_zero  canonical and block verification send a degenerate
//                                position through the softmax (NaN everywhere, vLLM's
//                                arithmetic) instead of its point mass: a +inf or NaN row
//                                falls back to token 0 -> spec_step/degenerate_rows_v33/canonical
// - spec_step_empty_row_pad_lane the final token drawn from a degenerate position is the
//                                reduction's identity lane: V rounded up to a 32-lane tile, an
//                                id >= V -> spec_step/degenerate_rows_v33/
// - spec_step_fallback_token_zero  sglang's final scan over a row with no positive entry falls
//                                back to token 0 instead of the kernel's d - 1
//                                -> spec_step/degenerate_rows_v33/sglang
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "core/error.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/spec_step.h"

namespace sampcheck::statistical {
namespace {

// A spec_step case's f32 target logits [B, K + 1, V], or null (the degenerate goldens are f32).
const Tensor* StepTarget(const Case& c) {
  if (!c.inputs.count("draft_ids")) return nullptr;
  auto it = c.inputs.find("target_logits");
  if (it == c.inputs.end() || it->second.rank() != 3 || it->second.dtype() != DType::kF32) return nullptr;
  return &it->second;
}

// A position row with a NaN or a +inf, or no finite logit, as the model sent it.
bool Degenerate(std::span<const float> row) {
  bool finite = false;
  for (float x : row) {
    if (std::isnan(x) || x == std::numeric_limits<float>::infinity()) return true;
    finite = finite || std::isfinite(x);
  }
  return !finite;
}

// For each row whose final token (at index num_accepted, kept by the stops) was decided by a
// degenerate target position: f(token, vocab).
template <class F>
void ForEachDegenerateFinalToken(const Tensor& target, TensorMap& out, F f) {
  auto emitted = out.find("emitted");
  auto accepted = out.find("num_accepted");
  auto kept = out.find("num_emitted");
  if (emitted == out.end() || accepted == out.end() || kept == out.end()) return;
  const std::int64_t rows = target.dim(0), positions = target.dim(1), vocab = target.dim(2);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto at = static_cast<std::size_t>(b);
    const std::int64_t k = accepted->second.data<std::int64_t>()[at];
    if (kept->second.data<std::int64_t>()[at] <= k) continue;  // a stop ended the row before it
    const auto row = target.data<float>().subspan(static_cast<std::size_t>((b * positions + k) * vocab),
                                                 static_cast<std::size_t>(vocab));
    if (Degenerate(row)) f(emitted->second.data<std::int64_t>()[static_cast<std::size_t>(b * positions + k)], vocab);
  }
}

class SpecStepDegenerateRowAbortsBatch final : public ExactFaultBackend {
 public:
  SpecStepDegenerateRowAbortsBatch() : ExactFaultBackend("spec_step_degenerate_row_aborts_batch") {}

 protected:
  Case Transform(const Case& c) override {
    const Tensor* target = StepTarget(c);
    if (!target) return c;
    const auto vocab = static_cast<std::size_t>(target->dim(2));
    for (std::size_t r = 0; r < target->data<float>().size() / vocab; ++r) {
      if (Degenerate(target->data<float>().subspan(r * vocab, vocab))) {
        throw InputError("target_logits position row " + std::to_string(r) +
                         " is degenerate: device-side assert, the batch is lost");
      }
    }
    return c;
  }
};

class SpecStepEmptyRowPadLane final : public ExactFaultBackend {
 public:
  SpecStepEmptyRowPadLane() : ExactFaultBackend("spec_step_empty_row_pad_lane") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const Tensor* target = StepTarget(c);
    if (!target) return out;
    ForEachDegenerateFinalToken(*target, out, [](std::int64_t& token, std::int64_t vocab) { token = (vocab + 31) / 32 * 32; });
    return out;
  }
};

class SpecStepFallbackTokenZero final : public ExactFaultBackend {
 public:
  SpecStepFallbackTokenZero() : ExactFaultBackend("spec_step_fallback_token_zero") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const Tensor* target = StepTarget(c);
    if (!target || c.profile != Profile::kSglang) return out;
    ForEachDegenerateFinalToken(*target, out, [](std::int64_t& token, std::int64_t vocab) {
      if (token == vocab - 1) token = 0;
    });
    return out;
  }
};

std::unique_ptr<Backend> MakeSpecStepDegenerateRowAbortsBatch() {
  return std::make_unique<SpecStepDegenerateRowAbortsBatch>();
}
std::unique_ptr<Backend> MakeSpecStepNanTargetAsZero() {
  reference::SpecStepRules rules;
  rules.nan_target_as_zero = true;
  return std::make_unique<SpecStepFault>("spec_step_nan_target_as_zero", rules);
}
std::unique_ptr<Backend> MakeSpecStepInfSoftmaxTokenZero() {
  reference::SpecStepRules rules;
  rules.canonical_point_mass = false;
  return std::make_unique<SpecStepFault>("spec_step_inf_softmax_token_zero", rules);
}
std::unique_ptr<Backend> MakeSpecStepEmptyRowPadLane() { return std::make_unique<SpecStepEmptyRowPadLane>(); }
std::unique_ptr<Backend> MakeSpecStepFallbackTokenZero() { return std::make_unique<SpecStepFallbackTokenZero>(); }

}  // namespace

SAMPCHECK_WRONG_SAMPLER(SpecStepDegenerateRowAbortsBatch,
                        {{"spec_step_degenerate_row_aborts_batch",
                          "a target position holding NaN, +inf or no finite logit makes the whole spec_step batch an error",
                          "spec_step/degenerate_rows_v33/", "golden"},
                         MakeSpecStepDegenerateRowAbortsBatch});
SAMPCHECK_WRONG_SAMPLER(SpecStepNanTargetAsZero,
                        {{"spec_step_nan_target_as_zero", "spec_step's vllm and sglang verifiers read a NaN target probability as 0",
                          "spec_step/degenerate_rows_v33/", "golden"},
                         MakeSpecStepNanTargetAsZero});
SAMPCHECK_WRONG_SAMPLER(SpecStepInfSoftmaxTokenZero,
                        {{"spec_step_inf_softmax_token_zero",
                          "spec_step's canonical softmax turns a NaN or +inf position into NaN and falls back to token 0",
                          "spec_step/degenerate_rows_v33/canonical", "golden"},
                         MakeSpecStepInfSoftmaxTokenZero});
SAMPCHECK_WRONG_SAMPLER(SpecStepEmptyRowPadLane,
                        {{"spec_step_empty_row_pad_lane", "spec_step's final token from a degenerate position is a pad lane id >= V",
                          "spec_step/degenerate_rows_v33/", "golden"},
                         MakeSpecStepEmptyRowPadLane});
SAMPCHECK_WRONG_SAMPLER(SpecStepFallbackTokenZero,
                        {{"spec_step_fallback_token_zero",
                          "spec_step's sglang final scan with no positive entry falls back to token 0, not d - 1",
                          "spec_step/degenerate_rows_v33/sglang", "golden"},
                         MakeSpecStepFallbackTokenZero});

}  // namespace sampcheck::statistical
