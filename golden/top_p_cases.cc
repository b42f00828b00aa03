// SPDX-License-Identifier: Apache-2.0
// Golden case family for top_p (docs/spec/filters.md#top_p).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddTopPCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  // docs/peers.md's boundary: probs exactly (0.5, 0.25, 0.125, 0.125) (docs/spec/softmax.md), at
  // p = 0.75 (mass before a token equals p), 0.8 (a tie group straddles p), 0.5, and the out-of-range
  // values 0, -1, 1, 2.
  const std::vector<float> ps = {0.75f, 0.8f, 0.5f, 0.0f, -1.0f, 1.0f, 2.0f};
  const auto n = static_cast<std::int64_t>(ps.size());
  list.Add("top_p", "peers_boundary", {{"logits", DyadicRows(n)}, {"top_p", F32({n}, ps)}});
  // Equal maxima at p <= 0 (flashinfer keeps the group), -inf entries, all -inf.
  list.Add("top_p", "ties_and_masked",
           {{"logits", Logits(3, 4, {1, 1, 0, -kInf, 2, -kInf, 2, 1, -kInf, -kInf, -kInf, -kInf})},
            {"top_p", F32({3}, {0.0f, 0.6f, 0.5f})}});
  // p = 1 on every row: the identity for every profile but sglang, whose mask still runs and
  // drops the tail once the f32 running sum of the probabilities passes 1 (filters.md).
  {
    auto rng = list.Rng("top_p", "p_one_v31");
    Tensor logits = RandomLogits(rng, 8, 31, DType::kF32);
    for (float& x : logits.data<float>()) x *= 0.5f;  // temperature 2, exact: a flatter row, a longer tail
    list.Add("top_p", "p_one_v31", {{"logits", logits}, {"top_p", F32({8}, std::vector<float>(8, 1.0f))}});
  }
  // Non-finite rows with a defined result (docs/spec/input_classes.md), f16.
  // Degenerate rows among healthy ones (docs/spec/filters.md "Degenerate rows"), V = 16: rows 0
  // and 5 random (p 0.9, 0.5); row 1 a NaN at column 4 (p 0.9); row 2 a +inf at column 10
  // (p 0.5); row 3 all NaN (p 0.1); row 4 a NaN at column 7 with p = 1 (flashinfer's disabled
  // value: unchanged there too); row 6 +inf at 0 and a NaN at 15 (p 0).
  {
    constexpr std::int64_t kRows = 7, kV = 16;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto rng = list.Rng("top_p", "degenerate_rows_v16");
    Tensor logits = RandomLogits(rng, kRows, kV, DType::kF32);
    SetLogit(logits, 1 * kV + 4, nan);
    SetLogit(logits, 2 * kV + 10, kInf);
    for (std::int64_t i = 0; i < kV; ++i) SetLogit(logits, 3 * kV + i, nan);
    SetLogit(logits, 4 * kV + 7, nan);
    SetLogit(logits, 6 * kV + 0, kInf);
    SetLogit(logits, 6 * kV + 15, nan);
    list.Add("top_p", "degenerate_rows_v16",
             {{"logits", logits}, {"top_p", F32({kRows}, {0.9f, 0.9f, 0.5f, 0.1f, 1.0f, 0.5f, 0.0f})}});
  }
  list.Add("top_p", "masked_rows_v33_f16",
           {{"logits", MaskedRows(33, DType::kF16)}, {"top_p", F32({3}, {0.5f, 0.0f, 0.9f})}});
  // bf16 rounds 300 near-equal logits into two tie groups of 150 with probabilities e^(1/8)
  // apart: the nucleus boundary falls inside a group (flashinfer keeps the whole group, the
  // others cut it by index), at another count than on the unrounded f32 row (p = 0.3: 85
  // tokens, f32 90: tests/input_classes_test.cc).
  list.Add("top_p", "near_equal_v300_bf16",
           {{"logits", NearEqualLogits(2, 300, DType::kBF16)}, {"top_p", F32({2}, {0.3f, 0.8f})}});
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    const std::string name = "random_v33_" + std::string(DTypeName(dtype));
    auto rng = list.Rng("top_p", name);
    list.Add("top_p", name,
             {{"logits", RandomLogits(rng, 4, 33, dtype)}, {"top_p", F32({4}, {0.1f, 0.5f, 0.9f, 0.999f})}});
  }
  for (std::int64_t vocab : {1, 31, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("top_p", name);
    list.Add("top_p", name,
             {{"logits", RandomLogits(rng, 4, vocab, DType::kF32)}, {"top_p", F32({4}, {0.1f, 0.5f, 0.9f, 0.999f})}});
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeTopPInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t /*vocab*/) {
  return {{"top_p", F32({1}, {0.9f})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(TopP, {.stages = {"top_p"}, .add = AddTopPCases, .large_inputs = LargeTopPInputs});

}  // namespace sampcheck::golden
