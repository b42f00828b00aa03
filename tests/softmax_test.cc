// SPDX-License-Identifier: Apache-2.0
// Tests of softmax and log_softmax (reference/softmax.h, docs/spec/softmax.md). Known answers
// are hand-computed from IEEE binary32 rounding of the owned, correctly rounded exp and log.
#include "reference/softmax.h"

#include <bit>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/filter_test_rows.h"
#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Softmax(std::vector<float> x) {
  std::vector<float> p(x.size());
  reference::SoftmaxRow(x, p);
  return p;
}

TEST(Softmax, DyadicProbabilitiesFromLn2Logits) {
  // e = exp(-f32(ln 2)) = 0.5 * exp(-1.9e-9) = 0.49999999905, within half an ulp (2^-26 =
  // 1.5e-8) of 0.5, so the correctly rounded result is exactly 0.5; likewise exp(-2 f32(ln 2))
  // = 0.25. e = {1, 0.5, 0.25, 0.25}; the canonical sum is (1 + 0.25) + (0.5 + 0.25) = 2
  // exactly; probs = e / 2 = {0.5, 0.25, 0.125, 0.125} exactly.
  EXPECT_EQ(Softmax({0.0f, -kLn2F, -2 * kLn2F, -2 * kLn2F}), (std::vector<float>{0.5f, 0.25f, 0.125f, 0.125f}));
}

TEST(Softmax, EqualLogitsAndSingleFiniteEntry) {
  EXPECT_EQ(Softmax({7.0f, 7.0f}), (std::vector<float>{0.5f, 0.5f}));  // e = {1, 1}, s = 2
  EXPECT_EQ(FloatBitsOf(Softmax({-kInf, 3.0f, -kInf})), (std::vector<std::uint32_t>{0u, Bits(1.0f), 0u}));
}

TEST(Softmax, RowsWithoutFiniteMaximumAreNan) {
  for (const std::vector<float>& row : std::vector<std::vector<float>>{
           {-kInf, -kInf}, {kInf, 1.0f}, {1.0f, std::nanf("")}}) {
    for (float v : Softmax(row)) EXPECT_TRUE(std::isnan(v));
  }
}

TEST(Softmax, HugeMagnitudesDoNotOverflow) {
  // Max-subtracted: {3e38, -3e38}: d = {0, -3e38 - 3e38 = -inf (overflow)}, e = {1, 0}.
  // {3.4e38, 3.4e38}: d = {0, 0}, nothing near overflow is ever exponentiated.
  auto p = Softmax({3e38f, -3e38f});
  EXPECT_EQ(p, (std::vector<float>{1.0f, 0.0f}));
  auto q = Softmax({3.4e38f, 3.4e38f});
  EXPECT_EQ(q, (std::vector<float>{0.5f, 0.5f}));
}

TEST(LogSoftmax, EqualPairGivesMinusLn2) {
  // d = {0, 0}, s = 2, log(2) correctly rounded = f32(ln 2) = 0x3F317218: logprobs = -that.
  std::vector<float> out(2);
  reference::LogSoftmaxRow(std::vector<float>{5.0f, 5.0f}, out);
  EXPECT_EQ(Bits(out[0]), 0xBF317218u);
  EXPECT_EQ(Bits(out[1]), 0xBF317218u);
  reference::LogSoftmaxRow(std::vector<float>{-kInf, 2.0f}, out);
  EXPECT_EQ(out[0], -kInf);  // d = -inf, log(1) = +0: -inf - 0
  EXPECT_EQ(Bits(out[1]), 0u);  // 0 - log(1) = 0 - 0 = +0
}

TEST(Softmax, StageDividesByTemperatureFirst) {
  // {0, -2 ln2f} / 2 = {0, -ln2f} exactly (halving) -> e = {1, 0.5}, s = 1.5 -> {2/3, 1/3}
  // rounded: 1 / 1.5 = 0.6666667 (0x3F2AAAAB), 0.5 / 1.5 = 0.33333334 (0x3EAAAAAB).
  auto out = RunReference("softmax", "canonical",
                          {{"logits", F32Tensor({1, 2}, {0.0f, -2 * kLn2F})}, {"temperature", F32Tensor({1}, {2.0f})}});
  EXPECT_EQ(FloatBits(out.at("probs")), (std::vector<std::uint32_t>{0x3F2AAAABu, 0x3EAAAAABu}));
  EXPECT_THROW(RunReference("softmax", "canonical",
                            {{"logits", F32Tensor({1, 1}, {0.0f})}, {"temperature", F32Tensor({1}, {0.0f})}}),
               std::invalid_argument);
}

// Sum bound: |sum p - 1| <= (L + 2) 2^-24, L = ceil(V / 1024) + 10 (the longest addition chain
// of CanonicalSum: the lane's folds plus the 10 tree levels; one more rounding for the
// division and one for slack in the first-order bound).
RC_GTEST_PROP(Softmax, SumsToOneWithinTheStatedBound, (std::vector<std::int16_t> raw)) {
  RC_PRE(!raw.empty());
  std::vector<float> x;
  for (auto v : raw) x.push_back(static_cast<float>(v) / 64.0f);
  const auto p = Softmax(x);
  double sum = 0;
  for (float v : p) sum += v;
  const double lanes = std::ceil(static_cast<double>(x.size()) / 1024.0) + 10;
  RC_ASSERT(std::abs(sum - 1.0) <= (lanes + 2) * 0x1p-24);
}

}  // namespace
}  // namespace sampcheck::testing
