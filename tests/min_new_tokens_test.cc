// SPDX-License-Identifier: Apache-2.0
// Tests of min_new_tokens (reference/min_new_tokens.h, docs/spec/penalties.md#min_new_tokens).
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TensorMap Inputs(Tensor logits, std::vector<std::int32_t> len, std::vector<std::int32_t> min,
                 Tensor stop) {
  const std::int64_t rows = logits.dim(0);
  return {{"logits", std::move(logits)},
          {"output_len", I32Tensor({rows}, len)},
          {"min_tokens", I32Tensor({rows}, min)},
          {"stop_ids", std::move(stop)}};
}

TEST(MinNewTokens, BansStopTokensWhileOutputIsShort) {
  // Header example: {1, 2, 3}, stop {2}, 0 < 1 -> {1, 2, -inf}; at output_len == min_tokens the
  // row is untouched.
  auto in = Inputs(F32Tensor({2, 3}, {1, 2, 3, 1, 2, 3}), {0, 4}, {1, 4}, I32Tensor({2, 1}, {2, 2}));
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    EXPECT_EQ(Floats(RunReference("min_new_tokens", profile, in).at("logits")),
              (std::vector<float>{1, 2, -kInf, 1, 2, 3}))
        << profile;
  }
}

TEST(MinNewTokens, VllmAssignsSglangAdds) {
  // Stop ids 0 and 1 carry +inf and NaN; token 2 is -0.0. vLLM assigns -inf; SGLang adds:
  // +inf + -inf = NaN (IEEE 754 7.2), NaN + -inf = NaN, and -0.0 + +0.0 = +0.0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto in = Inputs(F32Tensor({1, 3}, {kInf, nan, -0.0f}), {0}, {2}, I32Tensor({1, 2}, {0, 1}));
  auto v = FloatBits(RunReference("min_new_tokens", "vllm", in).at("logits"));
  EXPECT_EQ(v, (std::vector<std::uint32_t>{Bits(-kInf), Bits(-kInf), 0x80000000u}));
  auto s = Floats(RunReference("min_new_tokens", "sglang", in).at("logits"));
  EXPECT_TRUE(std::isnan(s[0]));
  EXPECT_TRUE(std::isnan(s[1]));
  EXPECT_EQ(Bits(s[2]), 0x00000000u);
}

TEST(MinNewTokens, SglangAddsNothingWithoutAMinimumInTheBatch) {
  // BatchedMinNewTokensPenalizer._is_required (penaltylib/min_new_tokens.py): any
  // min_new_tokens > 0 in the batch. None: SGLang never builds the penalty tensor
  // (sampling_batch_info.py update_penalties), so -0.0 stays 0x80000000 and +inf stays.
  auto none = Inputs(F32Tensor({1, 3}, {kInf, 1.0f, -0.0f}), {0}, {0}, I32Tensor({1, 1}, {0}));
  EXPECT_EQ(FloatBits(RunReference("min_new_tokens", "sglang", none).at("logits")),
            (std::vector<std::uint32_t>{Bits(kInf), 0x3F800000u, 0x80000000u}));
  // A row that asks for a minimum it has already reached: required for the batch, the
  // tensor (+0.0 in that row) is added: -0.0 -> +0.0.
  auto reached = Inputs(F32Tensor({1, 3}, {kInf, 1.0f, -0.0f}), {4}, {3}, I32Tensor({1, 1}, {0}));
  EXPECT_EQ(FloatBits(RunReference("min_new_tokens", "sglang", reached).at("logits")),
            (std::vector<std::uint32_t>{Bits(kInf), 0x3F800000u, 0x00000000u}));
  EXPECT_EQ(FloatBits(RunReference("min_new_tokens", "sglang", none, {{"penalizers", "required"}}).at("logits"))[2],
            0x00000000u);
  EXPECT_THROW(RunReference("min_new_tokens", "sglang", reached, {{"penalizers", "not_required"}}), std::invalid_argument);
  EXPECT_THROW(RunReference("min_new_tokens", "canonical", none, {{"penalizers", "auto"}}), std::invalid_argument);
}

TEST(MinNewTokens, RejectsBadIdsAndNegativeLengths) {
  EXPECT_THROW(RunReference("min_new_tokens", "vllm", Inputs(F32Tensor({1, 2}, {1, 2}), {0}, {1}, I32Tensor({1, 1}, {2}))),
               std::invalid_argument);
  EXPECT_THROW(RunReference("min_new_tokens", "vllm", Inputs(F32Tensor({1, 2}, {1, 2}), {-1}, {1}, I32Tensor({1, 1}, {1}))),
               std::invalid_argument);
  TensorMap missing = {{"logits", F32Tensor({1, 2}, {1, 2})}};
  EXPECT_THROW(RunReference("min_new_tokens", "vllm", missing), std::invalid_argument);
}

}  // namespace
}  // namespace sampcheck::testing
