// SPDX-License-Identifier: Apache-2.0
// Tests of qsample (reference/qsample.h, docs/spec/draws.md#qsample). Expected tokens are
// worked out by hand from r_j = probs[j] / (|q[j]| + eps) in f32.
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

std::int64_t QSample(std::vector<float> probs, std::vector<float> q, nlohmann::json params = nlohmann::json::object()) {
  const auto v = static_cast<std::int64_t>(probs.size());
  const TensorMap out = RunReference("qsample", "ascend_v2", {{"probs", F32Tensor({1, v}, probs)}, {"q", F32Tensor({1, v}, q)}},
                                     std::move(params));
  return out.at("token").data<std::int64_t>()[0];
}

TEST(QSample, ArgmaxOfProbOverAbsNoisePlusEps) {
  // Header example: {4/7, 2/7} / ({1, 0.25} + 1e-8): 1e-8 vanishes next to 1 and 0.25 in f32,
  // r = {4/7, 8/7} -> 1.
  EXPECT_EQ(QSample({4.0f / 7, 2.0f / 7}, {1, 0.25f}), 1);
  // |q| is used: q = -0.25 is 0.25.
  EXPECT_EQ(QSample({4.0f / 7, 2.0f / 7}, {1, -0.25f}), 1);
  // Equal ratios: the lower position.
  EXPECT_EQ(QSample({0.5f, 0.25f}, {1, 0.5f}, {{"eps", 0}}), 0);
  // eps decides: q = {0, 0}, eps = 1: r = probs -> argmax of probs.
  EXPECT_EQ(QSample({0.25f, 0.75f}, {0, 0}, {{"eps", 1}}), 1);
}

TEST(QSample, NanRatioWinsAsTorchArgmaxAndUnderflowTiesTheZeroProbability) {
  // eps = 0, q = 0 at a zero probability: r_0 = 0 / (|0| + 0) = 0 / 0 = NaN, r_1 = 0.5 / 2 =
  // 0.25. The op's ST golden executor takes torch.argmax(r), whose comparator (ATen
  // SharedReduceOps.h, GreaterOrNan) ranks NaN above every number: position 0 wins.
  EXPECT_EQ(QSample({0.0f, 0.5f}, {0, 2}, {{"eps", 0}}), 0);
  // The first NaN of several: r = {0.25, NaN, NaN} -> position 1.
  EXPECT_EQ(QSample({0.5f, 0.0f, 0.0f}, {2, 0, 0}, {{"eps", 0}}), 1);
  // 1e-38 / 1e30 underflows to +0.0, equal to 0 / 1: the device's argmax keeps position 0,
  // whose probability is 0 (docs/spec/draws.md#qsample).
  EXPECT_EQ(QSample({0.0f, 1e-38f}, {1, 1e30f}), 0);
}

TEST(QSample, RejectsBadInput) {
  EXPECT_THROW(QSample({0.0f, 0.0f}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(QSample({0.5f, 0.5f}, {std::numeric_limits<float>::infinity(), 1}), std::invalid_argument);
  EXPECT_THROW(QSample({0.5f, 0.5f}, {1, 1}, {{"eps", -1}}), std::invalid_argument);
  EXPECT_THROW(QSample({0.5f, -0.5f}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(RunReference("qsample", "canonical", {{"probs", F32Tensor({1, 1}, {1})}, {"q", F32Tensor({1, 1}, {1})}}),
               std::exception);
}

// With one positive probability and noise bounded away from underflow, that position wins.
RC_GTEST_PROP(QSample, SoleSurvivorAlwaysWins, (std::vector<std::uint16_t> noise)) {
  RC_PRE(!noise.empty());
  std::vector<float> probs(noise.size(), 0.0f), q;
  for (std::uint16_t n : noise) q.push_back(static_cast<float>(n) / 64.0f);
  probs.back() = 1e-3f;
  RC_ASSERT(QSample(probs, q) == static_cast<std::int64_t>(probs.size() - 1));
}

}  // namespace
}  // namespace sampcheck::testing
