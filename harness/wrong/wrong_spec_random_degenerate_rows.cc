// SPDX-License-Identifier: Apache-2.0
// spec_random's degenerate rows planted wrong (docs/spec/speculative.md "Degenerate rows"):
// the bugs real kernels ship when a row holds NaN, +inf or nothing to sample; rejected by
// golden cases (tests/statistical_power_proof_test.cc, layer "golden").
//
// Contract (what each planted bug changes -> the case or check that must reject it), on
// spec_random cases with `target_probs` [B, K + 1, V] and an `emitted` output:
// - spec_degenerate_row_aborts_batch  a NaN or +inf target probability anywhere makes the
//                                whole batch an error (a device-side assert)
//                                -> spec_random/degenerate_rows_v33/
// - spec_nan_target_as_zero      a NaN target probability is read as 0 (a load that masks
//                                non-finite values): a NaN bonus row no longer draws its first
//                                NaN, a NaN n-gram residual is no longer skipped
//                                -> spec_random/degenerate_rows_v33/vllm, degenerate_ngram_v33/vllm
// - spec_empty_row_pad_lane      the final token of a row whose position row is all NaN or
//                                all zero is the reduction's identity lane: V rounded up to a
//                                32-lane tile, an id >= V
//                                -> spec_random/degenerate_rows_v33/
// - spec_inf_residual_token_zero a final token drawn from a position row holding +inf is 0:
//                                the residual normalised by its sum (inf / inf = NaN) and the
//                                NaN draw falling back to the first token
//                                -> spec_random/degenerate_rows_v33/
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

namespace sampcheck::statistical {
namespace {

// A spec_random case's f32 target rows [B, K + 1, V] beside its `emitted` output, or null (the
// degenerate-row goldens are f32).
const Tensor* SpecTarget(const Case& c) {
  auto it = c.inputs.find("target_probs");
  if (it == c.inputs.end() || it->second.rank() != 3 || it->second.dtype() != DType::kF32) return nullptr;
  return &it->second;
}

// For each row b: the position k whose row decided the final token (num_accepted) and that
// token's slot in `emitted`.
template <class F>
void ForEachFinalToken(const Tensor& target, TensorMap& out, F f) {
  auto emitted = out.find("emitted");
  auto accepted = out.find("num_accepted");
  if (emitted == out.end() || accepted == out.end()) return;
  const std::int64_t rows = target.dim(0), positions = target.dim(1), vocab = target.dim(2);
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::int64_t k = accepted->second.data<std::int64_t>()[static_cast<std::size_t>(b)];
    const auto row = target.data<float>().subspan(static_cast<std::size_t>((b * positions + k) * vocab),
                                                 static_cast<std::size_t>(vocab));
    f(row, emitted->second.data<std::int64_t>()[static_cast<std::size_t>(b * positions + k)], vocab);
  }
}

class SpecDegenerateRowAbortsBatch final : public ExactFaultBackend {
 public:
  SpecDegenerateRowAbortsBatch() : ExactFaultBackend("spec_degenerate_row_aborts_batch") {}

 protected:
  Case Transform(const Case& c) override {
    const Tensor* target = SpecTarget(c);
    if (!target) return c;
    for (float p : target->data<float>()) {
      if (std::isnan(p) || std::isinf(p)) throw InputError("target_probs holds a non-finite value: device-side assert, the batch is lost");
    }
    return c;
  }
};

class SpecNanTargetAsZero final : public ExactFaultBackend {
 public:
  SpecNanTargetAsZero() : ExactFaultBackend("spec_nan_target_as_zero") {}

 protected:
  Case Transform(const Case& c) override {
    if (!SpecTarget(c)) return c;
    Case out = c;
    for (float& p : out.inputs.at("target_probs").data<float>()) {
      if (std::isnan(p)) p = 0.0f;
    }
    return out;
  }
};

class SpecEmptyRowPadLane final : public ExactFaultBackend {
 public:
  SpecEmptyRowPadLane() : ExactFaultBackend("spec_empty_row_pad_lane") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const Tensor* target = SpecTarget(c);
    if (!target) return out;
    ForEachFinalToken(*target, out, [](std::span<const float> row, std::int64_t& token, std::int64_t vocab) {
      bool all_nan = true, all_zero = true;
      for (float p : row) all_nan = all_nan && std::isnan(p), all_zero = all_zero && p == 0.0f;
      if (all_nan || all_zero) token = (vocab + 31) / 32 * 32;
    });
    return out;
  }
};

class SpecInfResidualTokenZero final : public ExactFaultBackend {
 public:
  SpecInfResidualTokenZero() : ExactFaultBackend("spec_inf_residual_token_zero") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const Tensor* target = SpecTarget(c);
    if (!target) return out;
    ForEachFinalToken(*target, out, [](std::span<const float> row, std::int64_t& token, std::int64_t /*vocab*/) {
      for (float p : row) {
        if (p == std::numeric_limits<float>::infinity()) token = 0;
      }
    });
    return out;
  }
};

std::unique_ptr<Backend> MakeSpecDegenerateRowAbortsBatch() { return std::make_unique<SpecDegenerateRowAbortsBatch>(); }
std::unique_ptr<Backend> MakeSpecNanTargetAsZero() { return std::make_unique<SpecNanTargetAsZero>(); }
std::unique_ptr<Backend> MakeSpecEmptyRowPadLane() { return std::make_unique<SpecEmptyRowPadLane>(); }
std::unique_ptr<Backend> MakeSpecInfResidualTokenZero() { return std::make_unique<SpecInfResidualTokenZero>(); }


}  // namespace

SAMPCHECK_WRONG_SAMPLER(SpecDegenerateRowAbortsBatch,
                        {{"spec_degenerate_row_aborts_batch", "a NaN or +inf target probability makes the whole spec_random batch an error",
                          "spec_random/degenerate_rows_v33/", "golden"},
                         MakeSpecDegenerateRowAbortsBatch});
SAMPCHECK_WRONG_SAMPLER(SpecNanTargetAsZero, {{"spec_nan_target_as_zero", "spec_random reads a NaN target probability as 0",
                                               "spec_random/degenerate_", "golden"},
                                              MakeSpecNanTargetAsZero});
SAMPCHECK_WRONG_SAMPLER(SpecEmptyRowPadLane,
                        {{"spec_empty_row_pad_lane", "spec_random's final token from an all-NaN or all-zero row is a pad lane id >= V",
                          "spec_random/degenerate_rows_v33/", "golden"},
                         MakeSpecEmptyRowPadLane});
SAMPCHECK_WRONG_SAMPLER(SpecInfResidualTokenZero,
                        {{"spec_inf_residual_token_zero", "spec_random's final token from a row holding +inf is 0 (a NaN normalisation)",
                          "spec_random/degenerate_rows_v33/", "golden"},
                         MakeSpecInfResidualTokenZero});

}  // namespace sampcheck::statistical
