// SPDX-License-Identifier: Apache-2.0
// Tests of exponential_race (reference/exponential_race.h,
// docs/spec/draws.md#exponential_race). Ratios of dyadic values are exact.
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

std::int64_t Race(std::vector<float> probs, std::vector<float> q, const char* profile = "canonical") {
  const auto v = static_cast<std::int64_t>(probs.size());
  const TensorMap out = RunReference("exponential_race", profile, {{"probs", F32Tensor({1, v}, probs)}, {"q", F32Tensor({1, v}, q)}});
  return out.at("token").data<std::int64_t>()[0];
}

TEST(ExponentialRace, ArgmaxOfProbOverNoise) {
  // Header example: {0.5, 0.5} / {1, 0.25} = {0.5, 2} -> 1. Equal ratios -> the lower index.
  EXPECT_EQ(Race({0.5f, 0.5f}, {1, 0.25f}), 1);
  EXPECT_EQ(Race({0.25f, 0.25f, 0.5f}, {0.5f, 0.5f, 1}), 0);
  // Zero probability with tiny noise: 0 / 1e-30 = 0 never beats a positive ratio.
  EXPECT_EQ(Race({0.0f, 0.5f}, {1e-30f, 8}), 1);
}

TEST(ExponentialRace, VllmCanDrawZeroProbabilityOnlyThroughUnderflow) {
  // 1e-38 / 1e30 = 1e-68 underflows to +0.0, equal to token 0's 0 / 1: vLLM's argmax over every
  // token returns 0 (probability 0); canonical only considers positive probabilities: 1.
  EXPECT_EQ(Race({0.0f, 1e-38f}, {1, 1e30f}, "vllm"), 0);
  EXPECT_EQ(Race({0.0f, 1e-38f}, {1, 1e30f}, "canonical"), 1);
}

TEST(ExponentialRace, RejectsBadNoiseAndNegativeProbabilities) {
  EXPECT_THROW(Race({0.5f, 0.5f}, {0, 1}), std::invalid_argument);  // q = 0
  EXPECT_THROW(Race({0.5f, 0.5f}, {-1, 1}), std::invalid_argument);
  EXPECT_THROW(Race({0.5f, 0.5f}, {std::numeric_limits<float>::infinity(), 1}), std::invalid_argument);
  EXPECT_THROW(Race({-0.5f, 1.0f}, {1, 1}), std::invalid_argument);
}

TEST(ExponentialRace, DegenerateRowsDrawTheFirstNanThenTheFirstInfinityElseZero) {
  // draws.md "Degenerate rows", vLLM's probs.div_(q).argmax(): NaN / q is NaN, above every
  // number (the first NaN, whatever the noise); +inf / q = +inf; a row of zeros draws 0.
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  for (const char* profile : {"canonical", "vllm"}) {
    EXPECT_EQ(Race({0.0f, 0.0f}, {1, 1}, profile), 0);
    EXPECT_EQ(Race({0.5f, nan, 0.5f, nan}, {1e-30f, 8, 1e-30f, 1}, profile), 1);
    EXPECT_EQ(Race({0.5f, inf, 0.5f, inf}, {1e-30f, 8, 1e-30f, 1}, profile), 1);
    EXPECT_EQ(Race({0.0f, 0.0f, nan}, {1, 1, 1}, profile), 2);
  }
}

// canonical never draws a zero-probability token; with one positive probability every
// noise draws it.
RC_GTEST_PROP(ExponentialRace, NeverDrawsZeroProbability, (std::vector<std::uint8_t> weights, std::vector<std::uint16_t> noise)) {
  RC_PRE(weights.size() >= 2 && noise.size() >= weights.size());
  std::vector<float> probs, q;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    probs.push_back(weights[i] % 4 == 0 ? 0.0f : static_cast<float>(weights[i]) / 256.0f);
    q.push_back(static_cast<float>(noise[i] + 1) / 1024.0f);
  }
  probs[0] = 0.5f;
  RC_ASSERT(probs[static_cast<std::size_t>(Race(probs, q))] > 0.0f);
  std::vector<float> single(probs.size(), 0.0f);
  single.back() = 1e-30f;
  RC_ASSERT(Race(single, q) == static_cast<std::int64_t>(single.size() - 1));
}

}  // namespace
}  // namespace sampcheck::testing
