// SPDX-License-Identifier: Apache-2.0
// Tests of comparison rules (core/comparison.h, docs/spec/golden.md "Comparison rules").
#include "core/comparison.h"

#include <bit>
#include <limits>

#include <gtest/gtest.h>

#include "core/error.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

ComparisonResult CompareF32(std::vector<float> expected, std::vector<float> actual, const std::string& rule) {
  Tensor e = F32Tensor({static_cast<std::int64_t>(expected.size())}, expected);
  Tensor a = F32Tensor({static_cast<std::int64_t>(actual.size())}, actual);
  return Compare(e.view(), a.view(), ComparisonRule::Parse(rule));
}

TEST(Comparison, ExactMatchesAnyNanWithAnyNan) {
  // x86's default NaN 0x7FC00000 vs CUDA's canonical 0x7FFFFFFF: both NaN.
  EXPECT_TRUE(CompareF32({std::bit_cast<float>(0x7FC00000u)}, {std::bit_cast<float>(0x7FFFFFFFu)}, "exact").match);
  EXPECT_FALSE(CompareF32({std::numeric_limits<float>::quiet_NaN()}, {1.0f}, "exact").match);
  EXPECT_FALSE(CompareF32({1.0f}, {std::numeric_limits<float>::quiet_NaN()}, "exact").match);
}

TEST(Comparison, ExactDistinguishesSignedZeros) {
  EXPECT_FALSE(CompareF32({0.0f}, {-0.0f}, "exact").match);
  // Under ulp(1) the two zeros are one unit apart and match.
  EXPECT_TRUE(CompareF32({0.0f}, {-0.0f}, "ulp(1)").match);
}

TEST(Comparison, UlpCountsRepresentableStepsAndNeverForgivesInfinity) {
  const float one = 1.0f;
  const float up2 = std::bit_cast<float>(std::bit_cast<std::uint32_t>(one) + 2);
  EXPECT_FALSE(CompareF32({one}, {up2}, "ulp(1)").match);
  EXPECT_TRUE(CompareF32({one}, {up2}, "ulp(2)").match);
  const float max = std::numeric_limits<float>::max();
  EXPECT_FALSE(CompareF32({max}, {std::numeric_limits<float>::infinity()}, "ulp(5)").match);
}

TEST(Comparison, ReportsFirstMismatchWithBitsAndCount) {
  Tensor e = F32Tensor({2, 2}, {1, 2, 3, 4});
  Tensor a = F32Tensor({2, 2}, {1, 2, 3.5f, 5});
  auto r = Compare(e.view(), a.view(), ComparisonRule::Parse("exact"));
  EXPECT_FALSE(r.match);
  EXPECT_EQ(r.first_index, 2);
  EXPECT_EQ(r.mismatches, 2);
  EXPECT_NE(r.detail.find("row 1, column 0"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("0x40400000"), std::string::npos) << r.detail;  // 3.0f
  EXPECT_NE(r.detail.find("0x40600000"), std::string::npos) << r.detail;  // 3.5f
}

TEST(Comparison, ShapeOrDtypeMismatchFails) {
  Tensor e = F32Tensor({2}, {1, 2});
  Tensor a = F32Tensor({1, 2}, {1, 2});
  EXPECT_FALSE(Compare(e.view(), a.view(), ComparisonRule::Parse("exact")).match);
  Tensor i = I32Tensor({2}, {1, 2});
  EXPECT_FALSE(Compare(e.view(), i.view(), ComparisonRule::Parse("exact")).match);
}

TEST(Comparison, ParsesOnlyKnownRules) {
  EXPECT_EQ(ComparisonRule::Parse("ulp(3)").ulps, 3);
  EXPECT_EQ(ComparisonRule::Parse("ulp(3)").ToString(), "ulp(3)");
  EXPECT_THROW(ComparisonRule::Parse("close"), InputError);
  EXPECT_THROW(ComparisonRule::Parse("ulp(-1)"), InputError);
  Tensor e = F32Tensor({1}, {1});
  EXPECT_THROW(Compare(e.view(), e.view(), ComparisonRule::Parse("distribution")), InputError);
}

}  // namespace
}  // namespace sampcheck::testing
