// SPDX-License-Identifier: Apache-2.0
// Tests of gumbel_max (reference/gumbel_max.h, docs/spec/draws.md#gumbel_max). Sums of small
// dyadic values are exact, so the expected tokens follow by hand.
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<std::int64_t> Draw(std::vector<float> scores, std::vector<float> noise, const char* profile = "canonical") {
  const auto v = static_cast<std::int64_t>(scores.size());
  const TensorMap out = RunReference("gumbel_max", profile, {{"logprobs", F32Tensor({1, v}, scores)}, {"gumbel", F32Tensor({1, v}, noise)}});
  auto t = out.at("token").data<std::int64_t>();
  return {t.begin(), t.end()};
}

TEST(GumbelMax, ArgmaxOfScorePlusNoise) {
  // Header example: {0, -1} + {0, 2} = {0, 1} -> 1. Ties ({1 + 0.25, 1 + 0.25}) -> the lower.
  EXPECT_EQ(Draw({0, -1}, {0, 2}), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(Draw({1, 1, 0}, {0.25f, 0.25f, 1.0f}), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(Draw({1, 1, 0}, {0.25f, 0.25f, 1.0f}, "sglang"), (std::vector<std::int64_t>{0}));
}

TEST(GumbelMax, MinusInfinityIsNeverDrawnAndOverflowCompetesAsInfinity) {
  EXPECT_EQ(Draw({-kInf, 0, -kInf}, {1e30f, 0, 1e30f}), (std::vector<std::int64_t>{1}));
  // 3e38 + 3e38 overflows to +inf in both: a tie at +inf goes to the lower index.
  EXPECT_EQ(Draw({1, 3e38f, 3e38f}, {0, 3e38f, 3e38f}), (std::vector<std::int64_t>{1}));
}

TEST(GumbelMax, DegenerateRowsDrawTheFirstNanThenTheFirstInfinityElseZero) {
  // draws.md "Degenerate rows", SGLang's torch.argmax(logprobs + noise): NaN above every
  // number (the first NaN, whatever the noise), then +inf, and 0 for a row of -inf.
  const float nan = std::nanf("");
  for (const char* profile : {"canonical", "sglang"}) {
    EXPECT_EQ(Draw({-kInf, -kInf}, {0, 5}, profile), (std::vector<std::int64_t>{0}));
    EXPECT_EQ(Draw({3, nan, 1, nan}, {9, -9, 9, 9}, profile), (std::vector<std::int64_t>{1}));
    EXPECT_EQ(Draw({3, kInf, 1, kInf}, {9, -9, 9, 9}, profile), (std::vector<std::int64_t>{1}));
    EXPECT_EQ(Draw({kInf, 0, nan}, {0, 0, 0}, profile), (std::vector<std::int64_t>{2}));
  }
}

TEST(GumbelMax, RejectsInfiniteNoise) {
  EXPECT_THROW(Draw({0, 0}, {kInf, 0}), std::invalid_argument);
  EXPECT_THROW(Draw({0, 0}, {std::nanf(""), 0}), std::invalid_argument);
  EXPECT_THROW(RunReference("gumbel_max", "vllm", {{"logprobs", F32Tensor({1, 1}, {0})}, {"gumbel", F32Tensor({1, 1}, {0})}}),
               std::exception);  // no such profile
}

// A -inf score is never drawn whatever the noise; with one finite score, every noise draws it.
RC_GTEST_PROP(GumbelMax, NeverDrawsAMaskedTokenAndASingleSurvivorAlwaysWins, (std::vector<std::int16_t> raw, std::uint16_t pick)) {
  RC_PRE(raw.size() >= 2);
  std::vector<float> scores, noise;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    scores.push_back(raw[i] % 3 == 0 ? -kInf : static_cast<float>(raw[i]) / 64.0f);
    noise.push_back(static_cast<float>(raw[raw.size() - 1 - i]));
  }
  const auto keep = static_cast<std::size_t>(pick % raw.size());
  scores[keep] = 0.0f;
  const auto token = static_cast<std::size_t>(Draw(scores, noise)[0]);
  RC_ASSERT(scores[token] != -kInf);
  std::vector<float> single(scores.size(), -kInf);
  single[keep] = 0.0f;
  RC_ASSERT(static_cast<std::size_t>(Draw(single, noise)[0]) == keep);
}

}  // namespace
}  // namespace sampcheck::testing
