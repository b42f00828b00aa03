// SPDX-License-Identifier: Apache-2.0
// Golden case family for allowed_token_ids (docs/spec/masks.md#allowed_token_ids).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddAllowedTokenIdsCases(CaseList& list) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t vocab : {1, 31, 32, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("allowed_token_ids", name);
    list.Add("allowed_token_ids", name,
             {{"logits", RandomLogits(rng, 3, vocab, DType::kF32)},
              {"allowed_ids", RandomIds(rng, 3, 6, vocab, {6, 1, 0})}});
  }
  // The last id V - 1 (docs/spec/input_classes.md): allowed alone, and beside id 0.
  {
    auto rng = list.Rng("allowed_token_ids", "last_id_v33");
    list.Add("allowed_token_ids", "last_id_v33",
             {{"logits", RandomLogits(rng, 2, 33, DType::kF32)}, {"allowed_ids", I32({2, 2}, {32, -1, 0, 32})}});
  }
  // NaN and +inf on allowed ids stay; a repeated id; an unrestricted row.
  list.Add("allowed_token_ids", "edges",
           {{"logits", Logits(2, 4, {nan, std::numeric_limits<float>::infinity(), 1.0f, -0.0f,  //
                                     1.0f, 2.0f, 3.0f, 4.0f})},
            {"allowed_ids", I32({2, 3}, {0, 1, 1, -1, -1, -1})}});
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeAllowedTokenIdsInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t vocab) {
  return {{"allowed_ids", RandomIds(rng, 1, 1000, vocab, {1000})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(AllowedTokenIds, {.stages = {"allowed_token_ids"}, .add = AddAllowedTokenIdsCases, .large_inputs = LargeAllowedTokenIdsInputs});

}  // namespace sampcheck::golden
