// SPDX-License-Identifier: Apache-2.0
// Tests of inverse_cdf (reference/inverse_cdf.h, docs/spec/draws.md#inverse_cdf). Running
// sums of quarters are exact; the expected tokens follow from the scan rule by hand.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

std::int64_t Draw(std::vector<float> probs, float u) {
  const auto v = static_cast<std::int64_t>(probs.size());
  const TensorMap out = RunReference("inverse_cdf", "canonical", {{"probs", F32Tensor({1, v}, probs)}, {"u", F32Tensor({1}, {u})}});
  return out.at("token").data<std::int64_t>()[0];
}

TEST(InverseCdf, FirstPositiveTokenWhoseRunningSumExceedsUTimesTotal) {
  // Header example: {0.25, 0, 0.75}, u = 0.25: C = {0.25, 0.25, 1}, t = 0.25: not < 0.25 at
  // i = 0 (and i = 1 has probability 0), 0.25 < 1 at i = 2 -> 2.
  EXPECT_EQ(Draw({0.25f, 0.0f, 0.75f}, 0.25f), 2);
  EXPECT_EQ(Draw({0.25f, 0.0f, 0.75f}, 0.0f), 0);            // t = 0 < 0.25
  EXPECT_EQ(Draw({0.25f, 0.0f, 0.75f}, 0.2499999851f), 0);   // just below the step
  EXPECT_EQ(Draw({0.0f, 0.25f, 0.0f, 0.75f}, 0.0f), 1);      // zero-probability token 0 skipped
  // Unnormalised: {3, 0, 1}, total 4, u = 0.75: t = 3, not < 3 at i = 0, i = 1 has
  // probability 0, 3 < 4 at i = 2 -> 2.
  EXPECT_EQ(Draw({3.0f, 0.0f, 1.0f}, 0.75f), 2);
}

TEST(InverseCdf, LargestUDrawsTheLastPositiveToken) {
  // u = 1 - 2^-24: t = (1 - 2^-24) * 1 = 1 - 2^-24 < C = 1 at the last positive token.
  EXPECT_EQ(Draw({0.25f, 0.75f, 0.0f}, 0x1.fffffep-1f), 1);
}

TEST(InverseCdf, RejectsUOutsideTheUnitIntervalAndEmptyRows) {
  EXPECT_THROW(Draw({0.5f, 0.5f}, 1.0f), std::invalid_argument);
  EXPECT_THROW(Draw({0.5f, 0.5f}, -0.1f), std::invalid_argument);
  EXPECT_THROW(Draw({0.0f, 0.0f}, 0.5f), std::invalid_argument);
}

// Never a zero-probability token; a single positive token is drawn for every u.
RC_GTEST_PROP(InverseCdf, NeverDrawsZeroProbability, (std::vector<std::uint8_t> weights, std::uint32_t bits)) {
  RC_PRE(weights.size() >= 2);
  std::vector<float> probs;
  for (auto w : weights) probs.push_back(w % 3 == 0 ? 0.0f : static_cast<float>(w));
  probs[1] = 1.0f;
  const float u = static_cast<float>(bits >> 8) * 0x1p-24f;
  RC_ASSERT(probs[static_cast<std::size_t>(Draw(probs, u))] > 0.0f);
  std::vector<float> single(probs.size(), 0.0f);
  single[1] = 0.25f;
  RC_ASSERT(Draw(single, u) == 1);
}

}  // namespace
}  // namespace sampcheck::testing
