// SPDX-License-Identifier: Apache-2.0
// Golden case families for softmax and log_softmax (docs/spec/softmax.md).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {
constexpr float kLn2F = 0x1.62e43p-1f;  // f32(ln 2): exp(-kLn2F) rounds to exactly 0.5

void AddFor(CaseList& list, const std::string& stage) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Rows: dyadic probabilities, all -inf, a +inf, a NaN, one finite entry, huge magnitudes,
  // equal entries, subnormal differences.
  list.Add(stage, "edges",
           {{"logits", Logits(8, 4, {0.0f, -kLn2F, -2 * kLn2F, -2 * kLn2F,  //
                                     -kInf, -kInf, -kInf, -kInf,            //
                                     kInf, 1.0f, 2.0f, 3.0f,                //
                                     1.0f, nan, 2.0f, 3.0f,                 //
                                     -kInf, 3.0f, -kInf, -kInf,             //
                                     3e38f, -3e38f, 3.4e38f, 1e-45f,        //
                                     7.0f, 7.0f, 7.0f, 7.0f,                //
                                     1e-45f, 0.0f, -1e-45f, -0.0f})}});
  for (std::int64_t vocab : {1, 31, 32, 33, 1000, 1025}) {
    for (DType dtype : {DType::kF32, DType::kBF16}) {
      const std::string name = "random_v" + std::to_string(vocab) + "_" + std::string(DTypeName(dtype));
      auto rng = list.Rng(stage, name);
      list.Add(stage, name, {{"logits", RandomLogits(rng, 2, vocab, dtype)}});
    }
  }
  {
    auto rng = list.Rng(stage, "random_v33_f16");
    list.Add(stage, "random_v33_f16", {{"logits", RandomLogits(rng, 2, 33, DType::kF16)}});
  }
  // f16 non-finite rows: one survivor at column 0 and at V - 1, every token masked (NaN row).
  list.Add(stage, "masked_rows_v33_f16", {{"logits", MaskedRows(33, DType::kF16)}});
  auto rng = list.Rng(stage, "temperature");
  list.Add(stage, "temperature",
           {{"logits", RandomLogits(rng, 3, 100, DType::kF32)}, {"temperature", F32({3}, {0.5f, 0.7f, 2.0f})}});
}
}  // namespace

void AddSoftmaxCases(CaseList& list) {
  AddFor(list, "softmax");
  AddFor(list, "log_softmax");
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeSoftmaxInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t /*vocab*/) {
  return {};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(Softmax, {.stages = {"softmax", "log_softmax"}, .add = AddSoftmaxCases, .large_inputs = LargeSoftmaxInputs});

}  // namespace sampcheck::golden
