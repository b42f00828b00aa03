// SPDX-License-Identifier: Apache-2.0
// Golden case family for decode_steps (docs/spec/decode_steps.md): several steps whose tokens
// depend on the history (strong frequency and presence penalties), on the advancing noise
// offset, and on min_tokens lifting its ban after a number of steps.
#include <vector>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "reference/rng/noise.h"

namespace sampcheck::golden {

namespace {

// Exp(1) noise [rows, steps, vocab] from the owned law (no libm: the bytes must not depend on
// the machine).
Tensor StepNoise(SplitMix64& rng, std::int64_t rows, std::int64_t steps, std::int64_t vocab) {
  Tensor q(DType::kF32, {rows, steps, vocab});
  for (float& x : q.data<float>()) {
    x = sampcheck::rng::ExponentialNegLogF32((static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f);
  }
  return q;
}

// The same row repeated at every step: [rows, steps, vocab] from [rows, vocab].
Tensor Repeat(const Tensor& rows_v, std::int64_t steps) {
  const std::int64_t rows = rows_v.dim(0), vocab = rows_v.dim(1);
  Tensor out(rows_v.dtype(), {rows, steps, vocab});
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t t = 0; t < steps; ++t) {
      for (std::int64_t j = 0; j < vocab; ++j) SetLogit(out, (b * steps + t) * vocab + j, GetLogit(rows_v, b * vocab + j));
    }
  }
  return out;
}

}  // namespace

void AddDecodeStepsCases(CaseList& list) {
  // Random: 4 rows (one greedy), 6 steps, V = 16; a history of 3 tokens; penalties strong
  // enough that a drawn token is rarely drawn again (frequency 2, presence 1, repetition 1.5).
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    constexpr std::int64_t kRows = 4, kSteps = 6, kVocab = 16;
    const std::string name = "random_v16_" + std::string(DTypeName(dtype));
    auto rng = list.Rng("decode_steps", name);
    Tensor logits(dtype, {kRows, kSteps, kVocab});
    for (std::int64_t i = 0; i < kRows * kSteps * kVocab; ++i) {
      SetLogit(logits, i, static_cast<float>(static_cast<std::int64_t>(rng.Below(513)) - 256) / 128.0f);
    }
    // sglang pins SGLang's batch-level sampling path (reference/pipeline.h): row 2 alone would
    // take the unfiltered path, inside this batch the sorted one.
    TensorMap inputs =
             {{"logits", logits},
              {"temperature", F32({kRows}, {0.0f, 0.7f, 1.0f, 1.5f})},
              {"output_ids", RandomIds(rng, kRows, 3, kVocab, {3, 3, 1, 0})},
              {"prompt_ids", RandomIds(rng, kRows, 4, kVocab, {4, 2, 4, 0})},
              {"repetition_penalty", F32({kRows}, {1.5f, 1.5f, 1.0f, 1.5f})},
              {"frequency_penalty", F32({kRows}, {2.0f, 2.0f, 0.5f, 0.0f})},
              {"presence_penalty", F32({kRows}, {1.0f, 0.0f, 1.0f, 1.0f})},
              {"top_k", I32({kRows}, {0, 8, 0, 4})},
              {"top_p", F32({kRows}, {1.0f, 0.9f, 1.0f, 1.0f})},
              {"seed", RandomSeeds(rng, kRows)},
              {"positions", RandomPositions(rng, kRows)},
              {"q", StepNoise(rng, kRows, kSteps, kVocab)}};
    list.Add("decode_steps", name, inputs, nlohmann::json::object(), {Profile::kCanonical, Profile::kVllm});
    list.Add("decode_steps", name, std::move(inputs), {{"sampling_path", "sorted"}}, {Profile::kSglang});
  }
  // History only (greedy, the same logits every step): {3, 2.5, 2, 1.5, 1} with frequency
  // penalty 1 and an empty history walks 0, 1, 0, 2, 1, ... as each drawn token loses 1 per
  // occurrence; min_tokens 3 with stop id 4 bans token 4 for the first three steps only (a
  // row where 4 is the largest logit).
  {
    const Tensor rows_v = Logits(2, 5, {3.0f, 2.5f, 2.0f, 1.5f, 1.0f,  //
                                        0.0f, 0.0f, 0.0f, 0.0f, 5.0f});
    list.Add("decode_steps", "greedy_history",
             {{"logits", Repeat(rows_v, 6)},
              {"temperature", F32({2}, {0.0f, 0.0f})},
              {"output_ids", I32({2, 0}, {})},
              {"frequency_penalty", F32({2}, {1.0f, 0.0f})},
              {"presence_penalty", F32({2}, {0.0f, 0.0f})},
              {"repetition_penalty", F32({2}, {1.0f, 1.0f})},
              {"stop_ids", I32({2, 1}, {4, 4})},
              {"min_tokens", I32({2}, {0, 3})},
              {"seed", I64({2}, {1, 2})},
              {"positions", I64({2}, {0, 0})},
              {"q", Repeat(F32({2, 5}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), 6)}});
  }
  // Noise only (no history): the same uniform row at every step, temperature 1. Each step must
  // read fresh noise (positions + t, q[:, t]); a backend that reuses step 0's noise repeats
  // step 0's token (the planted fault decode_offset_not_advanced).
  {
    constexpr std::int64_t kRows = 3, kSteps = 8, kVocab = 64;
    auto rng = list.Rng("decode_steps", "fresh_noise_v64");
    list.Add("decode_steps", "fresh_noise_v64",
             {{"logits", Tensor(DType::kF32, {kRows, kSteps, kVocab})},
              {"temperature", F32({kRows}, {1.0f, 1.0f, 1.0f})},
              {"seed", RandomSeeds(rng, kRows)},
              {"positions", RandomPositions(rng, kRows)},
              {"q", StepNoise(rng, kRows, kSteps, kVocab)}});
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeDecodeStepsInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t vocab) {
  // Two steps of [1, 2, V] logits of their own.
  Tensor logits(DType::kBF16, {1, 2, vocab});
  Tensor q(DType::kF32, {1, 2, vocab});
  for (std::int64_t i = 0; i < 2 * vocab; ++i) {
    SetLogit(logits, i, static_cast<float>(static_cast<std::int64_t>(rng.Below(8193)) - 4096) / 256.0f);
  }
  for (float& x : q.data<float>()) {
    x = sampcheck::rng::ExponentialNegLogF32((static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f);
  }
  return {{"logits", logits}, {"temperature", F32({1}, {0.7f})}, {"top_k", I32({1}, {50})},
          {"output_ids", RandomIds(rng, 1, 8, vocab, {8})}, {"frequency_penalty", F32({1}, {0.5f})},
          {"seed", RandomSeeds(rng, 1)}, {"positions", RandomPositions(rng, 1)}, {"q", q}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(DecodeSteps, {.stages = {"decode_steps"}, .add = AddDecodeStepsCases, .large_inputs = LargeDecodeStepsInputs});

}  // namespace sampcheck::golden
