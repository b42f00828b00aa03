// SPDX-License-Identifier: Apache-2.0
// Golden case family for min_p (docs/spec/filters.md#min_p).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "golden/case_random.h"

namespace sampcheck::golden {

void AddMinPCases(CaseList& list) {
  // probs exactly (0.5, 0.25, 0.125, 0.125): thresholds 0.25 (m = 0.5, a token exactly on it),
  // 0.13, 0.125 (on the tie), and out-of-range m = 0, -1, 1 and 3 (ascend_v2 keeps one token,
  // the others every token tied with the maximum).
  const std::vector<float> ms = {0.5f, 0.26f, 0.25f, 0.0f, -1.0f, 1.0f, 3.0f};
  const auto n = static_cast<std::int64_t>(ms.size());
  list.Add("min_p", "thresholds", {{"logits", DyadicRows(n)}, {"min_p", F32({n}, ms)}});
  list.Add("min_p", "tied_maximum", {{"logits", Logits(1, 3, {1, 1, 0})}, {"min_p", F32({1}, {1.0f})}});
  // Degenerate rows among healthy ones (docs/spec/filters.md "Degenerate rows"), V = 16: rows 0
  // and 5 random (m 0.1, 0.5); row 1 a NaN at column 6 (m 0.1); row 2 a +inf at column 13
  // (m 1); row 3 all NaN (m 0.05); row 4 a NaN at column 2 with m = 0 (the disabled value,
  // flashinfer's too); row 6 a +inf at 15 and a NaN at 0 (m 3).
  {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    constexpr std::int64_t kRows = 7, kV = 16;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto rng = list.Rng("min_p", "degenerate_rows_v16");
    Tensor logits = RandomLogits(rng, kRows, kV, DType::kF32);
    SetLogit(logits, 1 * kV + 6, nan);
    SetLogit(logits, 2 * kV + 13, kInf);
    for (std::int64_t i = 0; i < kV; ++i) SetLogit(logits, 3 * kV + i, nan);
    SetLogit(logits, 4 * kV + 2, nan);
    SetLogit(logits, 6 * kV + 15, kInf);
    SetLogit(logits, 6 * kV + 0, nan);
    list.Add("min_p", "degenerate_rows_v16",
             {{"logits", logits}, {"min_p", F32({kRows}, {0.1f, 0.1f, 1.0f, 0.05f, 0.0f, 0.5f, 3.0f})}});
  }
  // Non-finite rows with a defined result (docs/spec/input_classes.md), f16.
  list.Add("min_p", "masked_rows_v33_f16",
           {{"logits", MaskedRows(33, DType::kF16)}, {"min_p", F32({3}, {0.5f, 1.0f, 0.1f})}});
  // bf16 rounds 300 near-equal logits into two tie groups e^(1/8) apart: min-p 0.9 keeps the
  // first group (150 tokens) where the unrounded f32 row keeps all 300; 0.5 keeps both
  // (tests/input_classes_test.cc).
  list.Add("min_p", "near_equal_v300_bf16",
           {{"logits", NearEqualLogits(2, 300, DType::kBF16)}, {"min_p", F32({2}, {0.9f, 0.5f})}});
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    const std::string name = "random_v33_" + std::string(DTypeName(dtype));
    auto rng = list.Rng("min_p", name);
    list.Add("min_p", name, {{"logits", RandomLogits(rng, 3, 33, dtype)}, {"min_p", F32({3}, {0.01f, 0.1f, 0.5f})}});
  }
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("min_p", name);
    list.Add("min_p", name,
             {{"logits", RandomLogits(rng, 3, vocab, DType::kF32)}, {"min_p", F32({3}, {0.01f, 0.1f, 0.5f})}});
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeMinPInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t /*vocab*/) {
  return {{"min_p", F32({1}, {0.1f})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(MinP, {.stages = {"min_p"}, .add = AddMinPCases, .large_inputs = LargeMinPInputs});

}  // namespace sampcheck::golden
