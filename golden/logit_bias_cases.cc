// SPDX-License-Identifier: Apache-2.0
// Golden case family for logit_bias (docs/spec/logit_bias.md).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddLogitBiasCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t vocab : {1, 31, 32, 33, 1000}) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      const std::string name = "dense_v" + std::to_string(vocab) + "_" + std::string(DTypeName(dtype));
      auto rng = list.Rng("logit_bias", name);
      Tensor bias = RandomLogits(rng, 3, vocab, DType::kF32);
      list.Add("logit_bias", name, {{"logits", RandomLogits(rng, 3, vocab, dtype)}, {"bias", bias}});
    }
    const std::string name = "sparse_v" + std::to_string(vocab);
    auto rng = list.Rng("logit_bias", name);
    std::vector<std::int32_t> rows, ids;
    std::vector<float> values;
    for (std::int32_t b = 0; b < 3; ++b) {
      for (std::int64_t k = 0; k < std::min<std::int64_t>(vocab, 5); ++k) {
        rows.push_back(b);
        ids.push_back(static_cast<std::int32_t>(k * (vocab / 5 + 1) % vocab));
        values.push_back(static_cast<float>(rng.Between(-400, 400)) / 4.0f);
      }
    }
    const auto n = static_cast<std::int64_t>(ids.size());
    list.Add("logit_bias", name,
             {{"logits", RandomLogits(rng, 3, vocab, DType::kF32)},
              {"bias_rows", I32({n}, rows)},
              {"bias_ids", I32({n}, ids)},
              {"bias_values", F32({n}, values)}});
  }
  // Edge values: -0.0 logits (sglang's dense +0.0 turns them to +0.0), biases beyond vLLM's
  // clamp at +-100, a NaN bias (vLLM's Python clamp maps it to -100), inf + -inf = NaN.
  list.Add("logit_bias", "sparse_edges",
           {{"logits", Logits(2, 4, {-0.0f, 1.0f, kInf, 2.5f, -0.0f, nan, -kInf, 3.0f})},
            {"bias_rows", I32({5}, {0, 0, 0, 1, 1})},
            {"bias_ids", I32({5}, {1, 2, 3, 2, 3})},
            {"bias_values", F32({5}, {250.0f, -kInf, -1e30f, nan, 0.5f})}});
  // The last id V - 1 = 32 (docs/spec/input_classes.md) in the sparse list of both rows.
  {
    auto rng = list.Rng("logit_bias", "last_id_v33");
    list.Add("logit_bias", "last_id_v33",
             {{"logits", RandomLogits(rng, 2, 33, DType::kF32)},
              {"bias_rows", I32({3}, {0, 1, 1})},
              {"bias_ids", I32({3}, {32, 0, 32})},
              {"bias_values", F32({3}, {7.5f, -2.0f, -100.0f})}});
  }
  list.Add("logit_bias", "dense_and_sparse",
           {{"logits", Logits(1, 3, {1.0f, 2.0f, 3.0f})},
            {"bias", F32({1, 3}, {0.25f, -0.0f, 0.5f})},
            {"bias_rows", I32({1}, {0})},
            {"bias_ids", I32({1}, {2})},
            {"bias_values", F32({1}, {0.125f})}});
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeLogitBiasInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t vocab) {
  const auto v = static_cast<std::int32_t>(vocab);
  return {{"bias_rows", I32({3}, {0, 0, 0})}, {"bias_ids", I32({3}, {0, v / 2, v - 1})},
          {"bias_values", F32({3}, {-100.0f, 5.0f, 100.0f})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(LogitBias, {.stages = {"logit_bias"}, .add = AddLogitBiasCases, .large_inputs = LargeLogitBiasInputs});

}  // namespace sampcheck::golden
