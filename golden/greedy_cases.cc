// SPDX-License-Identifier: Apache-2.0
// Golden case family for greedy (docs/spec/greedy.md).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddGreedyCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Ties (first maximum), all -inf (0), NaN (first NaN), -0.0 vs +0.0 (equal: first),
  // +inf ties, the maximum in the last column.
  list.Add("greedy", "edges",
           {{"logits", Logits(6, 4, {1.0f, 3.0f, 3.0f, -kInf,  //
                                     -kInf, -kInf, -kInf, -kInf,  //
                                     5.0f, nan, 7.0f, nan,  //
                                     -0.0f, 0.0f, -1.0f, -0.0f,  //
                                     kInf, 2.0f, kInf, 1.0f,  //
                                     -3e38f, -3e38f, -1e-45f, 0.0f})}});
  list.Add("greedy", "single_column", {{"logits", Logits(3, 1, {nan, -kInf, 2.0f})}});
  for (std::int64_t vocab : {31, 32, 33, 1000, 32000}) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      if (vocab == 32000 && dtype != DType::kBF16) continue;  // keep the checked-in set small
      const std::string name = "random_v" + std::to_string(vocab) + "_" + std::string(DTypeName(dtype));
      auto rng = list.Rng("greedy", name);
      // k / 256 values collide often at these sizes, so ties are exercised too.
      list.Add("greedy", name, {{"logits", RandomLogits(rng, 4, vocab, dtype)}});
    }
  }
  // V = 151936 with the unique maximum in the last column, one past any tile multiple.
  auto rng = list.Rng("greedy", "v151936_last_column");
  Tensor logits = RandomLogits(rng, 2, 151936, DType::kBF16);
  SetLogit(logits, 151935, 100.0f);
  SetLogit(logits, 151936 + 75968, 100.0f);
  list.Add("greedy", "v151936_last_column", {{"logits", logits}});
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeGreedyInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t /*vocab*/) {
  return {};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(Greedy, {.stages = {"greedy"}, .add = AddGreedyCases, .large_inputs = LargeGreedyInputs});

}  // namespace sampcheck::golden
