// SPDX-License-Identifier: Apache-2.0
// Golden case family for nan_handling (docs/spec/nan_handling.md).
#include <bit>
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddNanHandlingCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  // Quiet NaN, negative NaN, a NaN with a payload, next to infinities and zeros.
  const float qnan = std::bit_cast<float>(0x7FC00000u);
  const float neg_nan = std::bit_cast<float>(0xFFC00000u);
  const float payload_nan = std::bit_cast<float>(0x7FC12345u);
  const Tensor mixed = Logits(2, 5, {qnan, 1.0f, neg_nan, -kInf, kInf,  //
                                     -0.0f, payload_nan, 0.0f, 3.0f, -2.0f});
  list.Add("nan_handling", "mixed", {{"logits", mixed}});
  // SGLang's two other configurations (reference/nan_handling.h): SGLANG_SANITIZE_NAN_LOGITS
  // (NaN and -inf -> -1e30f, +inf -> 1e30f) and the older --enable-nan-detection (NaN -> -1e5).
  list.Add("nan_handling", "mixed_sanitize", {{"logits", mixed}}, {{"nan_mode", "sanitize"}}, {Profile::kSglang});
  list.Add("nan_handling", "mixed_detect_1e5", {{"logits", mixed}}, {{"nan_mode", "detect_1e5"}}, {Profile::kSglang});
  list.Add("nan_handling", "all_nan", {{"logits", Logits(1, 3, {qnan, qnan, neg_nan})}});
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("nan_handling", name);
    Tensor logits = RandomLogits(rng, 2, vocab, DType::kBF16);
    for (std::int64_t i = 0; i < 2 * vocab; i += 7) SetLogit(logits, i, qnan);
    list.Add("nan_handling", name, {{"logits", logits}});
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeNanHandlingInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t vocab) {
  // The logits themselves, one of them NaN.
  Tensor logits = RandomLogits(rng, 1, vocab, DType::kBF16);
  SetLogit(logits, vocab / 2, std::numeric_limits<float>::quiet_NaN());
  return {{"logits", logits}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(NanHandling, {.stages = {"nan_handling"}, .add = AddNanHandlingCases, .large_inputs = LargeNanHandlingInputs});

}  // namespace sampcheck::golden
