// SPDX-License-Identifier: Apache-2.0
// The large-vocabulary family of the full golden set: every stage of the catalogue on one
// row of V = 32000 and V = 151936 bf16 logits, under every profile of the stage. Not in
// golden/v1, whose 5 MiB bound these would exceed (one f32 row of 151936 is 594 KiB).
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "core/stage_catalogue.h"
#include "golden/case_list.h"
#include "reference/rng/noise.h"

namespace sampcheck::golden {

namespace {

// The stage's inputs besides logits, for one row of `vocab` tokens.
TensorMap StageInputsFor(const std::string& stage, SplitMix64& rng, std::int64_t vocab) {
  const auto v = static_cast<std::int32_t>(vocab);
  if (stage == "logit_bias") {
    return {{"bias_rows", I32({3}, {0, 0, 0})}, {"bias_ids", I32({3}, {0, v / 2, v - 1})},
            {"bias_values", F32({3}, {-100.0f, 5.0f, 100.0f})}};
  }
  if (stage == "penalties") {
    return {{"prompt_ids", RandomIds(rng, 1, 64, vocab, {64})}, {"output_ids", RandomIds(rng, 1, 64, vocab, {64})},
            {"repetition_penalty", F32({1}, {1.1f})}, {"frequency_penalty", F32({1}, {0.2f})},
            {"presence_penalty", F32({1}, {0.4f})}};
  }
  if (stage == "min_new_tokens") {
    return {{"output_len", I32({1}, {0})}, {"min_tokens", I32({1}, {1})}, {"stop_ids", I32({1, 3}, {0, v / 3, v - 1})}};
  }
  if (stage == "token_bitmask") {
    Tensor mask(DType::kI32, {1, (vocab + 31) / 32});
    for (auto& w : mask.data<std::int32_t>()) w = static_cast<std::int32_t>(rng.Next() >> 32);
    return {{"bitmask", mask}};
  }
  if (stage == "allowed_token_ids") return {{"allowed_ids", RandomIds(rng, 1, 1000, vocab, {1000})}};
  if (stage == "bad_words") {
    return {{"output_ids", RandomIds(rng, 1, 16, 4, {16})}, {"bad_words", RandomIds(rng, 4, 3, 4, {1, 2, 3, 3})}};
  }
  if (stage == "temperature") return {{"temperature", F32({1}, {0.7f})}};
  if (stage == "top_k") return {{"top_k", I32({1}, {50})}};
  if (stage == "top_p") return {{"top_p", F32({1}, {0.9f})}};
  if (stage == "min_p") return {{"min_p", F32({1}, {0.1f})}};
  if (stage == "sampling_filters") {
    return {{"top_k", I32({1}, {50})}, {"top_p", F32({1}, {0.9f})}, {"min_p", F32({1}, {0.05f})}};
  }
  if (stage == "ascend_top_k_top_p_sample_v2") {
    // The family's logits are bf16, and the op requires top_p and min_p in the logits' dtype.
    Tensor top_p(DType::kBF16, {1}), min_p(DType::kBF16, {1}), q(DType::kF32, {1, vocab});
    SetLogit(top_p, 0, 0.9f);
    SetLogit(min_p, 0, 0.05f);
    for (float& x : q.data<float>()) x = static_cast<float>(1 + rng.Below(1u << 20)) * 0x1p-18f;  // (0, 4]
    return {{"top_k", I32({1}, {50})}, {"top_p", top_p}, {"min_p", min_p}, {"q", q}};
  }
  if (stage == "gumbel_max" || stage == "exponential_race" || stage == "inverse_cdf") {
    // Noise from uniforms in (0, 1) through the owned noise laws (no libm: the bytes must not
    // depend on the machine); the main input (logprobs or probs) is added by the caller.
    Tensor noise(DType::kF32, {1, vocab});
    for (float& x : noise.data<float>()) {
      const float u = (static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f;
      x = stage == "gumbel_max" ? sampcheck::rng::GumbelNegLogNegLogF32(u) : sampcheck::rng::ExponentialNegLogF32(u);
    }
    if (stage == "gumbel_max") return {{"gumbel", noise}};
    if (stage == "exponential_race") return {{"q", noise}};
    return {{"u", F32({1}, {0.625f})}};
  }
  if (stage == "qsample") {
    Tensor q(DType::kF32, {1, vocab});
    for (float& x : q.data<float>()) x = static_cast<float>(1 + rng.Below(1u << 20)) * 0x1p-18f;  // (0, 4]
    return {{"q", q}};
  }
  if (stage == "multinomial_with_seed" || stage == "multinomial_with_seed_token_ids") {
    TensorMap in = {{"seed", RandomSeeds(rng, 1)}, {"positions", RandomPositions(rng, 1)}};
    if (stage == "multinomial_with_seed_token_ids") {
      Tensor ids(DType::kI32, {1, vocab});  // the reversed vocabulary
      auto d = ids.data<std::int32_t>();
      for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::int32_t>(d.size() - 1 - i);
      in.emplace("token_ids", ids);
    }
    return in;
  }
  if (stage == "pipeline") {
    Tensor q(DType::kF32, {1, vocab});
    for (float& x : q.data<float>()) {
      x = sampcheck::rng::ExponentialNegLogF32((static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f);
    }
    return {{"temperature", F32({1}, {0.7f})}, {"top_k", I32({1}, {50})}, {"top_p", F32({1}, {0.9f})},
            {"seed", RandomSeeds(rng, 1)}, {"positions", RandomPositions(rng, 1)}, {"q", q}};
  }
  if (stage == "nan_handling" || stage == "greedy" || stage == "softmax" || stage == "log_softmax") return {};
  throw std::logic_error("large_vocabulary_cases: no inputs for stage " + stage);
}

}  // namespace

void AddLargeVocabularyCases(CaseList& list) {
  for (const StageInfo& stage : StageCatalogue()) {
    if (stage.name == "spec_greedy" || stage.name == "spec_random") continue;  // AddSpecLargeVocabularyCases
    if (stage.name == "tp_consensus") continue;  // AddTpConsensusLargeVocabularyCases: no logits
    for (std::int64_t vocab : {32000, 151936}) {
      const std::string name = "large_v" + std::to_string(vocab);
      auto rng = list.Rng(stage.name, name);
      TensorMap inputs = StageInputsFor(stage.name, rng, vocab);
      Tensor logits = RandomLogits(rng, 1, vocab, DType::kBF16);
      if (stage.name == "nan_handling") SetLogit(logits, vocab / 2, std::numeric_limits<float>::quiet_NaN());
      if (stage.name == "bad_words") {
        // One word per row of the [4, 3] draw: reshape it to [1, 4, 3].
        Tensor words(DType::kI32, {1, 4, 3});
        auto src = inputs.at("bad_words").data<std::int32_t>();
        std::copy(src.begin(), src.end(), words.data<std::int32_t>().begin());
        inputs["bad_words"] = words;
      }
      if (stage.name == "gumbel_max") {
        inputs.emplace("logprobs", std::move(logits));
      } else if (stage.name == "exponential_race" || stage.name == "inverse_cdf" || stage.name == "qsample" ||
                 stage.name == "multinomial_with_seed" || stage.name == "multinomial_with_seed_token_ids") {
        Tensor probs(DType::kF32, {1, vocab});  // k / 16, k in [0, 16]: zeros included
        for (float& p : probs.data<float>()) p = static_cast<float>(rng.Below(17)) / 16.0f;
        probs.data<float>()[0] = 1.0f;
        inputs.emplace("probs", std::move(probs));
      } else {
        inputs.emplace("logits", std::move(logits));
      }
      list.Add(stage.name, name, inputs);
    }
  }
  AddSpecLargeVocabularyCases(list);
  AddTpConsensusLargeVocabularyCases(list);
}

}  // namespace sampcheck::golden
