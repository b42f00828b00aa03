// SPDX-License-Identifier: Apache-2.0
// Golden case family for penalties (docs/spec/penalties.md).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddPenaltiesCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t vocab : {1, 31, 32, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("penalties", name);
    const std::int64_t rows = 4;
    list.Add("penalties", name,
             {{"logits", RandomLogits(rng, rows, vocab, DType::kF32)},
              {"prompt_ids", RandomIds(rng, rows, 12, vocab, {12, 0, 5, 3})},
              {"output_ids", RandomIds(rng, rows, 20, vocab, {20, 7, 0, 2})},
              {"repetition_penalty", F32({rows}, {1.2f, 1.0f, 0.8f, 2.0f})},
              {"frequency_penalty", F32({rows}, {0.1f, 0.0f, -0.5f, 1.7f})},
              {"presence_penalty", F32({rows}, {0.3f, 0.0f, 2.0f, -1.1f})}});
  }
  // The last id V - 1 = 32 (docs/spec/input_classes.md) in the prompt and repeated in the
  // output, beside id 0.
  {
    auto rng = list.Rng("penalties", "last_id_v33");
    list.Add("penalties", "last_id_v33",
             {{"logits", RandomLogits(rng, 2, 33, DType::kF32)},
              {"prompt_ids", I32({2, 2}, {32, -1, 0, 32})},
              {"output_ids", I32({2, 3}, {32, 32, 0, -1, -1, 32})},
              {"repetition_penalty", F32({2}, {1.5f, 0.8f})},
              {"frequency_penalty", F32({2}, {0.5f, -0.25f})},
              {"presence_penalty", F32({2}, {0.25f, 1.0f})}});
  }
  // Prompt ids past the vocabulary (docs/spec/penalties.md "Prompt ids past the vocabulary"),
  // V = 33: id V (vLLM's padding bin) in rows 0 and 1 beside ids in range, row 2 without one.
  // Every profile ignores it: the logits equal those of the same prompts with the id as -1.
  // Ids far past V (40, 1000, 2^31 - 1) under canonical and sglang, which ignore them too
  // (vLLM's scatter_add_ has no result there).
  {
    auto rng = list.Rng("penalties", "prompt_id_past_vocab_v33");
    TensorMap in = {{"logits", RandomLogits(rng, 3, 33, DType::kF32)},
                    {"prompt_ids", I32({3, 3}, {33, 2, -1, 33, 33, 5, 1, 31, -1})},
                    {"output_ids", I32({3, 2}, {4, -1, -1, -1, 7, 7})},
                    {"repetition_penalty", F32({3}, {2.0f, 1.5f, 0.5f})},
                    {"frequency_penalty", F32({3}, {0.5f, 0.0f, 0.25f})},
                    {"presence_penalty", F32({3}, {0.25f, 1.0f, 0.0f})}};
    list.Add("penalties", "prompt_id_past_vocab_v33", in);
    in.at("prompt_ids") = I32({3, 3}, {40, 2, -1, 1000, 2147483647, 5, 1, 31, -1});
    list.Add("penalties", "prompt_id_far_past_vocab_v33", std::move(in), nlohmann::json::object(),
             {Profile::kCanonical, Profile::kSglang});
  }
  // Repeated output tokens with a non-dyadic frequency penalty: vLLM's f * count and SGLang's
  // running sum f + f + f round differently. Zero, -0.0, -inf and NaN logits on seen tokens.
  list.Add("penalties", "repeats_and_edges",
           {{"logits", Logits(2, 6, {2.0f, -2.0f, 0.0f, -0.0f, -kInf, nan,  //
                                     3.0f, 1.0f, -0.0f, 0.5f, kInf, -1.0f})},
            {"prompt_ids", I32({2, 2}, {1, -1, 5, -1})},
            {"output_ids", I32({2, 7}, {0, 0, 0, 2, 3, 4, 5,  //
                                        0, 0, 0, 0, 0, 0, 0})},
            {"repetition_penalty", F32({2}, {1.3f, 1.1f})},
            {"frequency_penalty", F32({2}, {0.1f, 0.3f})},
            {"presence_penalty", F32({2}, {0.7f, 0.0f})}});
  // Coefficients at their identities: canonical and vllm leave the bits alone; so does sglang
  // when no request of the batch has a penalty (SGLang adds nothing), while a batch where
  // another request has one adds +0.0 everywhere (param penalizers = required).
  const TensorMap identity = {{"logits", Logits(1, 4, {-0.0f, 1.0f, -3.5f, 0.0f})},
                              {"prompt_ids", I32({1, 2}, {0, 2})},
                              {"output_ids", I32({1, 3}, {0, 2, -1})},
                              {"repetition_penalty", F32({1}, {1.0f})},
                              {"frequency_penalty", F32({1}, {0.0f})},
                              {"presence_penalty", F32({1}, {0.0f})}};
  list.Add("penalties", "identity_coefficients", identity);
  list.Add("penalties", "identity_coefficients_required", identity, {{"penalizers", "required"}}, {Profile::kSglang});
  // Only the additive terms differ (r = 1): row 0 has f = 0.1 over ten repeats (vLLM
  // 0.1f * 10 = 1.0f exactly; SGLang's running sum ends at 1.0000001f), row 1 has f and p on one
  // token ((1 - 0.1f) - 0.1f against 1 + ((0 - 0.1f) - 0.1f)).
  list.Add("penalties", "linear_rounding",
           {{"logits", Logits(2, 2, {1.0f, -0.0f, 1.0f, 1.0f})},
            {"prompt_ids", I32({2, 1}, {-1, -1})},
            {"output_ids", I32({2, 10}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                                         0, -1, -1, -1, -1, -1, -1, -1, -1, -1})},
            {"repetition_penalty", F32({2}, {1.0f, 1.0f})},
            {"frequency_penalty", F32({2}, {0.1f, 0.1f})},
            {"presence_penalty", F32({2}, {0.0f, 0.1f})}});
  list.Add("penalties", "empty_histories",
           {{"logits", Logits(1, 3, {1.0f, -1.0f, 0.5f})},
            {"prompt_ids", I32({1, 0}, {})},
            {"output_ids", I32({1, 0}, {})},
            {"repetition_penalty", F32({1}, {1.5f})},
            {"frequency_penalty", F32({1}, {0.5f})},
            {"presence_penalty", F32({1}, {0.5f})}});
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargePenaltiesInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t vocab) {
  return {{"prompt_ids", RandomIds(rng, 1, 64, vocab, {64})}, {"output_ids", RandomIds(rng, 1, 64, vocab, {64})},
          {"repetition_penalty", F32({1}, {1.1f})}, {"frequency_penalty", F32({1}, {0.2f})},
          {"presence_penalty", F32({1}, {0.4f})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(Penalties, {.stages = {"penalties"}, .add = AddPenaltiesCases, .large_inputs = LargePenaltiesInputs});

}  // namespace sampcheck::golden
