// SPDX-License-Identifier: Apache-2.0
// Golden case family for top_k (docs/spec/filters.md#top_k).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "golden/case_random.h"

namespace sampcheck::golden {

void AddTopKCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  // Divergence: a tie at the k-th value (exactly k vs all ties), -0.0 tied with +0.0, and -inf.
  list.Add("top_k", "ties",
           {{"logits", Logits(4, 5, {1, 3, 3, 2, 0,          //
                                     5, 5, 5, 5, 5,          //
                                     -0.0f, 0.0f, -1, -kInf, -0.0f,  //
                                     2, -kInf, -kInf, 1, -kInf})},
            {"top_k", I32({4}, {1, 2, 2, 3})}});
  // Disabled encodings: k = 0, -1, V, V + 1 against k = V - 1.
  list.Add("top_k", "disabled",
           {{"logits", Logits(5, 3, {1, 3, 2, 1, 3, 2, 1, 3, 2, 1, 3, 2, 1, 3, 2})}, {"top_k", I32({5}, {0, -1, 3, 4, 2})}});
  // Ascend's k limit: ks_max 5 rounds up to 8: k = 8 filters, k = 9 keeps everything.
  {
    auto rng = list.Rng("top_k", "ascend_ks_max");
    list.Add("top_k", "ascend_ks_max", {{"logits", RandomLogits(rng, 2, 40, DType::kF32)}, {"top_k", I32({2}, {8, 9})}},
             {{"ks_max", 5}}, {Profile::kAscendV2});
  }
  // Non-finite rows with a defined result (docs/spec/input_classes.md): one survivor at column
  // 0, one at V - 1, every token masked; f16, whose -inf upcasts to the f32 -inf.
  list.Add("top_k", "masked_rows_v33_f16",
           {{"logits", MaskedRows(33, DType::kF16)}, {"top_k", I32({3}, {1, 5, 1})}});
  // Degenerate rows among healthy ones (docs/spec/filters.md "Degenerate rows"), V = 16:
  // row 0 random, k 3; row 1 a NaN at column 5, k 3; row 2 NaNs at 2, 7, 11, k 2; row 3 +inf
  // at 9 and 12, k 1; row 4 all NaN, k 4; row 5 a sign-set NaN at column 3, k 2; row 6
  // random, k 5; row 7 all -inf, k 2; row 8 a NaN at column 0 with k 0 (disabled). The random
  // rows' outputs are those of the same rows alone (batch invariance checks it).
  {
    constexpr std::int64_t kRows = 9, kV = 16;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto rng = list.Rng("top_k", "degenerate_rows_v16");
    Tensor logits = RandomLogits(rng, kRows, kV, DType::kF32);
    SetLogit(logits, 1 * kV + 5, nan);
    for (std::int64_t c : {2, 7, 11}) SetLogit(logits, 2 * kV + c, nan);
    SetLogit(logits, 3 * kV + 9, kInf);
    SetLogit(logits, 3 * kV + 12, kInf);
    for (std::int64_t i = 0; i < kV; ++i) {
      SetLogit(logits, 4 * kV + i, nan);
      SetLogit(logits, 7 * kV + i, -kInf);
    }
    SetLogit(logits, 5 * kV + 3, -nan);
    SetLogit(logits, 8 * kV + 0, nan);
    list.Add("top_k", "degenerate_rows_v16",
             {{"logits", logits}, {"top_k", I32({kRows}, {3, 3, 2, 1, 4, 2, 5, 2, 0})}});
  }
  // Near-equal logits that bf16 rounds into two tie groups of 150: the k-th value inside the
  // first group and inside the second (exactly k, or every tie under vllm and flashinfer).
  list.Add("top_k", "near_equal_v300_bf16",
           {{"logits", NearEqualLogits(2, 300, DType::kBF16)}, {"top_k", I32({2}, {40, 200})}});
  for (std::int64_t vocab : {1, 31, 33, 1000}) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      if (vocab > 33 && dtype != DType::kF32) continue;
      if (dtype == DType::kF16 && vocab != 33) continue;  // keep the checked-in set small  // keep the checked-in set small
      const std::string name = "random_v" + std::to_string(vocab) + "_" + std::string(DTypeName(dtype));
      auto rng = list.Rng("top_k", name);
      // k/256 logits collide often, so the k-th value is frequently tied.
      list.Add("top_k", name,
               {{"logits", RandomLogits(rng, 4, vocab, dtype)},
                {"top_k", I32({4}, {1, 5, static_cast<std::int32_t>(vocab / 2 + 1), 50})}});
    }
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeTopKInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t /*vocab*/) {
  return {{"top_k", I32({1}, {50})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(TopK, {.stages = {"top_k"}, .add = AddTopKCases, .large_inputs = LargeTopKInputs});

}  // namespace sampcheck::golden
