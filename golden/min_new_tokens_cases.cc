// SPDX-License-Identifier: Apache-2.0
// Golden case family for min_new_tokens (docs/spec/penalties.md#min_new_tokens).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddMinNewTokensCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t vocab : {1, 31, 32, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("min_new_tokens", name);
    list.Add("min_new_tokens", name,
             {{"logits", RandomLogits(rng, 3, vocab, DType::kF32)},
              {"output_len", I32({3}, {0, 5, 9})},
              {"min_tokens", I32({3}, {1, 5, 10})},
              {"stop_ids", RandomIds(rng, 3, 3, vocab, {3, 2, 1})}});
  }
  // The last id V - 1 = 32 as a stop id (docs/spec/input_classes.md), active and inactive.
  {
    auto rng = list.Rng("min_new_tokens", "last_id_v33");
    list.Add("min_new_tokens", "last_id_v33",
             {{"logits", RandomLogits(rng, 2, 33, DType::kF32)},
              {"output_len", I32({2}, {0, 4})},
              {"min_tokens", I32({2}, {1, 4})},
              {"stop_ids", I32({2, 2}, {32, 0, 32, -1})}});
  }
  // +inf and NaN on stop ids (vLLM assigns -inf, SGLang adds it: NaN), -0.0 elsewhere in an
  // active row (SGLang's + 0.0), a repeated stop id, an inactive row, min_tokens 0.
  const TensorMap edges = {{"logits", Logits(3, 4, {kInf, nan, -0.0f, 1.0f,  //
                                                    kInf, nan, -0.0f, 1.0f,  //
                                                    2.0f, -kInf, 3.0f, -0.0f})},
                           {"output_len", I32({3}, {2, 3, 0})},
                           {"min_tokens", I32({3}, {3, 3, 0})},
                           {"stop_ids", I32({3, 3}, {0, 1, 1, 0, 1, -1, 2, -1, -1})}};
  // sglang pins its batch-level gate (row 2 alone has no min_new_tokens request and would
  // keep its -0.0), so a row draws the same bits alone as in the batch.
  list.Add("min_new_tokens", "edges", edges, nlohmann::json::object(), {Profile::kCanonical, Profile::kVllm});
  list.Add("min_new_tokens", "edges", edges, {{"penalizers", "required"}}, {Profile::kSglang});
  // No row asks for a minimum: SGLang adds no tensor and -0.0 stays (every profile agrees).
  list.Add("min_new_tokens", "no_request",
           {{"logits", Logits(2, 3, {-0.0f, 1.0f, kInf, 2.0f, -0.0f, nan})},
            {"output_len", I32({2}, {0, 4})},
            {"min_tokens", I32({2}, {0, 0})},
            {"stop_ids", I32({2, 2}, {0, 2, 1, -1})}});
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeMinNewTokensInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t vocab) {
  const auto v = static_cast<std::int32_t>(vocab);
  return {{"output_len", I32({1}, {0})}, {"min_tokens", I32({1}, {1})}, {"stop_ids", I32({1, 3}, {0, v / 3, v - 1})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(MinNewTokens, {.stages = {"min_new_tokens"}, .add = AddMinNewTokensCases, .large_inputs = LargeMinNewTokensInputs});

}  // namespace sampcheck::golden
