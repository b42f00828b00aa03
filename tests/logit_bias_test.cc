// SPDX-License-Identifier: Apache-2.0
// Tests of logit_bias (reference/logit_bias.h, docs/spec/logit_bias.md). Expected values are
// hand-computed: every bias and logit is a small dyadic number, so each f32 sum is exact.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TensorMap Sparse(Tensor logits, std::vector<std::int32_t> rows, std::vector<std::int32_t> ids,
                 std::vector<float> values) {
  const auto n = static_cast<std::int64_t>(ids.size());
  return {{"logits", std::move(logits)},
          {"bias_rows", I32Tensor({n}, rows)},
          {"bias_ids", I32Tensor({n}, ids)},
          {"bias_values", F32Tensor({n}, values)}};
}

TEST(LogitBias, AddsSparseBiasToListedTokensOnly) {
  // Header example: {1, 2, 3} with (row 0, token 2, +0.5) -> {1, 2, 3.5}.
  auto out = RunReference("logit_bias", "canonical", Sparse(F32Tensor({1, 3}, {1, 2, 3}), {0}, {2}, {0.5f}));
  EXPECT_EQ(Floats(out.at("logits")), (std::vector<float>{1, 2, 3.5f}));
}

TEST(LogitBias, VllmClampsBiasToHundredAndNanToMinusHundred) {
  // vLLM: min(100, max(-100, b)). 250 -> 100: 3 + 100 = 103. -1e30 -> -100: 2 - 100 = -98.
  // NaN: Python max(-100.0, nan) keeps -100.0, so 1 - 100 = -99.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto in = Sparse(F32Tensor({1, 3}, {1, 2, 3}), {0, 0, 0}, {2, 1, 0}, {250.0f, -1e30f, nan});
  EXPECT_EQ(Floats(RunReference("logit_bias", "vllm", in).at("logits")), (std::vector<float>{-99, -98, 103}));
  // canonical does not clamp: 3 + 250 = 253, 2 + -1e30 = -1e30 (2 is far below half an ulp
  // of 1e30), 1 + NaN = NaN.
  auto c = Floats(RunReference("logit_bias", "canonical", in).at("logits"));
  EXPECT_TRUE(std::isnan(c[0]));
  EXPECT_EQ(c[1], -1e30f);
  EXPECT_EQ(c[2], 253.0f);
}

TEST(LogitBias, SglangDensifiesSoMinusZeroBecomesPlusZero) {
  // SGLang adds a dense tensor: unlisted tokens get -0.0 + +0.0 = +0.0 (IEEE 754 6.3: the sum
  // of opposite-signed zeros is +0 in round-to-nearest). canonical leaves them untouched.
  auto in = Sparse(F32Tensor({1, 2}, {-0.0f, 1.0f}), {0}, {1}, {1.0f});
  EXPECT_EQ(FloatBits(RunReference("logit_bias", "sglang", in).at("logits")),
            (std::vector<std::uint32_t>{0x00000000u, 0x40000000u}));
  EXPECT_EQ(FloatBits(RunReference("logit_bias", "canonical", in).at("logits")),
            (std::vector<std::uint32_t>{0x80000000u, 0x40000000u}));
}

TEST(LogitBias, InfinityPlusOppositeInfinityIsNan) {
  auto out = RunReference("logit_bias", "canonical", Sparse(F32Tensor({1, 2}, {kInf, 1}), {0}, {0}, {-kInf}));
  EXPECT_TRUE(std::isnan(Floats(out.at("logits"))[0]));
}

TEST(LogitBias, DenseThenSparse) {
  // {1, 2, 3} + dense {0.25, -0.0, 0.5} = {1.25, 2, 3.5}; + sparse (0, 2, 0.125) = 3.625.
  TensorMap in = Sparse(F32Tensor({1, 3}, {1, 2, 3}), {0}, {2}, {0.125f});
  in.emplace("bias", F32Tensor({1, 3}, {0.25f, -0.0f, 0.5f}));
  EXPECT_EQ(Floats(RunReference("logit_bias", "canonical", in).at("logits")),
            (std::vector<float>{1.25f, 2.0f, 3.625f}));
}

TEST(LogitBias, RejectsOutOfVocabularyIdsDuplicatesAndPartialLists) {
  EXPECT_THROW(RunReference("logit_bias", "vllm", Sparse(F32Tensor({1, 3}, {1, 2, 3}), {0}, {3}, {1})),
               std::invalid_argument);
  EXPECT_THROW(RunReference("logit_bias", "vllm", Sparse(F32Tensor({1, 3}, {1, 2, 3}), {0}, {-1}, {1})),
               std::invalid_argument);
  EXPECT_THROW(RunReference("logit_bias", "vllm", Sparse(F32Tensor({1, 3}, {1, 2, 3}), {1}, {0}, {1})),
               std::invalid_argument);
  EXPECT_THROW(RunReference("logit_bias", "vllm", Sparse(F32Tensor({1, 3}, {1, 2, 3}), {0, 0}, {1, 1}, {1, 2})),
               std::invalid_argument);
  TensorMap partial = {{"logits", F32Tensor({1, 3}, {1, 2, 3})}, {"bias_ids", I32Tensor({1}, {0})}};
  EXPECT_THROW(RunReference("logit_bias", "vllm", partial), std::invalid_argument);
}

TEST(LogitBias, ErrorNamesTheTensorAndTheBadValue) {
  try {
    RunReference("logit_bias", "canonical", Sparse(F32Tensor({1, 3}, {1, 2, 3}), {0}, {7}, {1}));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bias_ids[0] = 7"), std::string::npos) << e.what();
  }
}

// A bias of -0.0 is the identity on every bit pattern (x + -0 == x, IEEE 754 6.3), including
// -0.0 and NaN payloads; +0.0 is the identity on every value but turns -0.0 into +0.0.
RC_GTEST_PROP(LogitBias, ZeroBiasIsTheIdentity, (std::vector<float> values)) {
  RC_PRE(!values.empty());
  const auto v = static_cast<std::int64_t>(values.size());
  Tensor logits = F32Tensor({1, v}, values);
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    TensorMap in = {{"logits", logits}, {"bias", F32Tensor({1, v}, std::vector<float>(values.size(), -0.0f))}};
    auto out = RunReference("logit_bias", profile, in).at("logits");
    RC_ASSERT(FloatBits(out) == FloatBits(logits));
    in["bias"] = F32Tensor({1, v}, std::vector<float>(values.size(), 0.0f));
    auto plus = FloatBits(RunReference("logit_bias", profile, in).at("logits"));
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::uint32_t expected = Bits(values[i]) == 0x80000000u ? 0u : Bits(values[i]);
      RC_ASSERT(std::isnan(values[i]) || plus[i] == expected);
    }
  }
}

}  // namespace
}  // namespace sampcheck::testing
