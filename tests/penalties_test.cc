// SPDX-License-Identifier: Apache-2.0
// Tests of penalties (reference/penalties.h, docs/spec/penalties.md). Expected values are
// computed by hand in the comments; where a float32 rounding is involved, the bits were
// checked with NumPy float32 arithmetic (IEEE 754 binary32, independent of this code).
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

TensorMap Inputs(Tensor logits, Tensor prompt, Tensor output, float r, float f, float p) {
  const std::int64_t rows = logits.dim(0);
  return {{"logits", std::move(logits)},
          {"prompt_ids", std::move(prompt)},
          {"output_ids", std::move(output)},
          {"repetition_penalty", F32Tensor({rows}, std::vector<float>(rows, r))},
          {"frequency_penalty", F32Tensor({rows}, std::vector<float>(rows, f))},
          {"presence_penalty", F32Tensor({rows}, std::vector<float>(rows, p))}};
}

TEST(Penalties, HeaderExampleVllm) {
  // logits {2, -2, 1}, output {0, 0}, r = 2, f = 0.5, p = 0.25:
  // token 0: seen, 2 > 0 -> 2 / 2 = 1; 1 - 0.5 * 2 = 0; 0 - 0.25 * 1 = -0.25.
  // token 1: unseen -> -2 - 0.5 * 0 = -2; -2 - 0.25 * 0 = -2. token 2 likewise stays 1.
  auto in = Inputs(F32Tensor({1, 3}, {2, -2, 1}), I32Tensor({1, 1}, {-1}), I32Tensor({1, 2}, {0, 0}), 2, 0.5f, 0.25f);
  for (const char* profile : {"canonical", "vllm"}) {
    EXPECT_EQ(Floats(RunReference("penalties", profile, in).at("logits")), (std::vector<float>{-0.25f, -2, 1}))
        << profile;
  }
  // sglang: linear = (0 - (0.5 + 0.5)) - 0.25 = -1.25; 2 - 1.25 = 0.75; output token, 0.75 >= 0
  // -> 0.75 / 2 = 0.375. Unseen tokens: x + (0 - 0 - 0) = x.
  EXPECT_EQ(Floats(RunReference("penalties", "sglang", in).at("logits")), (std::vector<float>{0.375f, -2, 1}));
}

TEST(Penalties, RepetitionCoversPromptTokensMultipliesNonPositive) {
  // Prompt-only tokens: repetition applies (vLLM's prompt_mask | output_mask), frequency and
  // presence do not. {-3, 3, 0, -0.0} all in the prompt, r = 1.5:
  // -3 * 1.5 = -4.5; 3 / 1.5 = 2; 0 * 1.5 = 0; -0.0 * 1.5 = -0.0 (sign kept).
  auto in = Inputs(F32Tensor({1, 4}, {-3, 3, 0, -0.0f}), I32Tensor({1, 4}, {0, 1, 2, 3}), I32Tensor({1, 1}, {-1}),
                   1.5f, 0.5f, 0.5f);
  EXPECT_EQ(FloatBits(RunReference("penalties", "vllm", in).at("logits")),
            (std::vector<std::uint32_t>{Bits(-4.5f), Bits(2.0f), 0x00000000u, 0x80000000u}));
  // sglang's repetition covers output tokens only: the prompt changes nothing, and the
  // linear term (0 - 0) - 0 = +0 turns -0.0 into +0.0.
  EXPECT_EQ(FloatBits(RunReference("penalties", "sglang", in).at("logits")),
            (std::vector<std::uint32_t>{Bits(-3.0f), Bits(3.0f), 0x00000000u, 0x00000000u}));
}

TEST(Penalties, FrequencyIsProductInVllmAndRunningSumInSglang) {
  // f = 0.1f = 13421773 * 2^-27, token 0 emitted 7 times, logit 1.
  // vLLM: 0.1f * 7 = 93952411 * 2^-27 = 11744051.375 * 2^-24 -> 11744051 * 2^-24 (0x3F333333);
  //   1 - that = 5033165 * 2^-24 = 0.300000011920929 (0x3E99999A), exact.
  // SGLang: ((0.1f + 0.1f) + ...) seven additions, each rounded, ends one ulp higher at
  //   11744052 * 2^-24 (0x3F333334, NumPy float32); 1 - that = 5033164 * 2^-24 (0x3E999998).
  auto in = Inputs(F32Tensor({1, 2}, {1, 1}), I32Tensor({1, 1}, {-1}), I32Tensor({1, 7}, {0, 0, 0, 0, 0, 0, 0}),
                   1.0f, 0.1f, 0.0f);
  EXPECT_EQ(FloatBits(RunReference("penalties", "vllm", in).at("logits"))[0], 0x3E99999Au);
  EXPECT_EQ(FloatBits(RunReference("penalties", "sglang", in).at("logits"))[0], 0x3E999998u);
}

TEST(Penalties, AdditiveTermsRoundDifferentlyInSglang) {
  // Logit 1, token seen once, f = p = 0.1f = 13421773 * 2^-27, r = 1.
  // vLLM: 1 - 0.1f = 120795955 * 2^-27 = 15099494.375 * 2^-24 -> 15099494 * 2^-24 (0x3F666666);
  //   minus 0.1f: 107374179 * 2^-27 = 13421772.375 * 2^-24 -> 13421772 * 2^-24 = 0x3F4CCCCC.
  // SGLang: (0 - 0.1f) - 0.1f = -0.2f exactly; 1 - 0.2f = 53687091 * 2^-26
  //   = 13421772.75 * 2^-24 -> 13421773 * 2^-24 = 0x3F4CCCCD.
  auto in = Inputs(F32Tensor({1, 1}, {1}), I32Tensor({1, 1}, {-1}), I32Tensor({1, 1}, {0}), 1.0f, 0.1f, 0.1f);
  EXPECT_EQ(FloatBits(RunReference("penalties", "vllm", in).at("logits"))[0], 0x3F4CCCCCu);
  EXPECT_EQ(FloatBits(RunReference("penalties", "sglang", in).at("logits"))[0], 0x3F4CCCCDu);
}

TEST(Penalties, SglangAddsNothingWhenNoRequestOfTheBatchHasAPenalty) {
  // SGLang (python/sglang/srt/sampling/sampling_batch_info.py, update_penalties and
  // apply_logits_bias; penaltylib/orchestrator.py): the additive tensor exists, and is added
  // to every row, only when BatchedPenalizerOrchestrator.is_required, i.e. some request has
  // repetition != 1.0, frequency != 0.0 or presence != 0.0 (each penalizer's _is_required).
  // Identity coefficients in every row: nothing is added, -0.0 stays 0x80000000.
  auto in = Inputs(F32Tensor({2, 2}, {-0.0f, 1.0f, -0.0f, 2.0f}), I32Tensor({2, 1}, {0, -1}),
                   I32Tensor({2, 1}, {0, -1}), 1.0f, 0.0f, 0.0f);
  EXPECT_EQ(FloatBits(RunReference("penalties", "sglang", in).at("logits")),
            (std::vector<std::uint32_t>{0x80000000u, 0x3F800000u, 0x80000000u, 0x40000000u}));
  // -0.0 coefficients compare equal to 0.0 in Python: still not required.
  auto neg_zero = in;
  neg_zero["frequency_penalty"] = F32Tensor({2}, {-0.0f, -0.0f});
  EXPECT_EQ(FloatBits(RunReference("penalties", "sglang", neg_zero).at("logits"))[0], 0x80000000u);
  // One penalised row makes the batch's penalizers required: the zeros tensor, with the
  // row's terms, is added to every row, and -0.0 + +0.0 = +0.0 in the other row too.
  auto mixed = in;
  mixed["presence_penalty"] = F32Tensor({2}, {0.0f, 0.5f});
  EXPECT_EQ(FloatBits(RunReference("penalties", "sglang", mixed).at("logits"))[0], 0x00000000u);
  // A batch whose other requests have penalties (param): +0.0 as well.
  EXPECT_EQ(FloatBits(RunReference("penalties", "sglang", in, {{"penalizers", "required"}}).at("logits"))[0], 0x00000000u);
  EXPECT_THROW(RunReference("penalties", "sglang", mixed, {{"penalizers", "not_required"}}), std::invalid_argument);
  EXPECT_THROW(RunReference("penalties", "vllm", in, {{"penalizers", "required"}}), std::invalid_argument);
  EXPECT_THROW(RunReference("penalties", "sglang", in, {{"penalizers", "always"}}), std::invalid_argument);
}

TEST(Penalties, NegativeInfinityAndNanStay) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto in = Inputs(F32Tensor({1, 2}, {-inf, nan}), I32Tensor({1, 1}, {-1}), I32Tensor({1, 2}, {0, 1}), 1.2f, 0.5f, 0.5f);
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    auto out = Floats(RunReference("penalties", profile, in).at("logits"));
    EXPECT_EQ(out[0], -inf) << profile;
    EXPECT_TRUE(std::isnan(out[1])) << profile;
  }
}

TEST(Penalties, PromptIdsPastTheVocabularyPenaliseNothing) {
  // penalties.md "Prompt ids past the vocabulary": logits {2, -2, 1} (V = 3), r = 2, f = p = 0.
  // A prompt {3} (id V) penalises no token under every profile: the logits stay {2, -2, 1}; the
  // same prompt with id 1 divides nothing (-2 <= 0 is multiplied: -4) under canonical and vllm,
  // so the past-V id is not read as id 1 or id 2 (V - 1, the clamp).
  auto in = Inputs(F32Tensor({1, 3}, {2, -2, 1}), I32Tensor({1, 2}, {3, -1}), I32Tensor({1, 1}, {-1}), 2, 0, 0);
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    EXPECT_EQ(Floats(RunReference("penalties", profile, in).at("logits")), (std::vector<float>{2, -2, 1})) << profile;
  }
  auto far = in;
  far["prompt_ids"] = I32Tensor({1, 2}, {4, std::numeric_limits<std::int32_t>::max()});
  for (const char* profile : {"canonical", "sglang"}) {
    EXPECT_EQ(Floats(RunReference("penalties", profile, far).at("logits")), (std::vector<float>{2, -2, 1})) << profile;
  }
  // vLLM's scatter_add_ into V + 1 bins has no result past V: an input error naming it.
  try {
    RunReference("penalties", "vllm", far);
    ADD_FAILURE() << "vllm accepted prompt id 4 > V = 3";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'prompt_ids' entry 0 is token id 4 > V = 3"), std::string::npos) << e.what();
  }
  auto in_range = in;
  in_range["prompt_ids"] = I32Tensor({1, 2}, {1, -1});
  EXPECT_EQ(Floats(RunReference("penalties", "canonical", in_range).at("logits")), (std::vector<float>{2, -4, 1}));
}

TEST(Penalties, RejectsBadIdsAndCoefficients) {
  auto ok = [] { return Inputs(F32Tensor({1, 2}, {1, 1}), I32Tensor({1, 1}, {-1}), I32Tensor({1, 1}, {1}), 1, 0, 0); };
  auto bad_id = ok();
  bad_id["output_ids"] = I32Tensor({1, 1}, {2});
  EXPECT_THROW(RunReference("penalties", "vllm", bad_id), std::invalid_argument);
  auto bad_pad = ok();
  bad_pad["prompt_ids"] = I32Tensor({1, 1}, {-2});
  EXPECT_THROW(RunReference("penalties", "vllm", bad_pad), std::invalid_argument);
  auto zero_r = ok();
  zero_r["repetition_penalty"] = F32Tensor({1}, {0.0f});
  EXPECT_THROW(RunReference("penalties", "vllm", zero_r), std::invalid_argument);
  auto inf_f = ok();
  inf_f["frequency_penalty"] = F32Tensor({1}, {std::numeric_limits<float>::infinity()});
  EXPECT_THROW(RunReference("penalties", "sglang", inf_f), std::invalid_argument);
  EXPECT_THROW(RunReference("penalties", "flashinfer", ok()), std::exception);
}

// Zero coefficients (r = 1, f = 0, p = 0) are the identity on every bit pattern under
// canonical and vllm: x / 1 and x * 1 are exact, x - 0 * c = x - (+0) keeps x (even -0.0).
RC_GTEST_PROP(Penalties, ZeroCoefficientsAreTheIdentity, (std::vector<float> values)) {
  RC_PRE(!values.empty());
  const auto v = static_cast<std::int64_t>(values.size());
  std::vector<std::int32_t> ids;
  for (std::int64_t i = 0; i < v; i += 2) ids.push_back(static_cast<std::int32_t>(i));
  const auto n = static_cast<std::int64_t>(ids.size());
  Tensor logits = F32Tensor({1, v}, values);
  auto in = Inputs(logits, I32Tensor({1, n}, ids), I32Tensor({1, n}, ids), 1.0f, 0.0f, 0.0f);
  for (const char* profile : {"canonical", "vllm"}) {
    auto out = FloatBits(RunReference("penalties", profile, in).at("logits"));
    for (std::size_t i = 0; i < values.size(); ++i) RC_ASSERT(std::isnan(values[i]) || out[i] == Bits(values[i]));
  }
}

}  // namespace
}  // namespace sampcheck::testing
