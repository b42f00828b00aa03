// SPDX-License-Identifier: Apache-2.0
// Tests of the two-sample homogeneity test (statistical/homogeneity.h,
// docs/spec/statistics.md#homogeneity).
//
// Expected values: printed by
//   /usr/bin/python3 tests/python/statistical_reference_values.py
// (mpmath, lines "homog"). Tolerance 1e-10 relative.
#include "statistical/homogeneity.h"

#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/relative_near.h"

namespace sampcheck::statistical {
namespace {

using sampcheck::testing::RelativeNear;
constexpr double kRel = 1e-10;

TEST(Homogeneity, FixedTablesMatchMpmath) {
  struct Case { int line; std::vector<std::int64_t> a, b; double lambda, statistic, p_value; };
  const Case cases[] = {
      {__LINE__, {30, 70}, {70, 30}, kPearsonLambda, 32.0, 1.5417257900280019e-8},
      {__LINE__, {30, 70}, {70, 30}, kGTestLambda, 32.913151402020739, 9.6369129330714859e-9},
      {__LINE__, {30, 70}, {70, 30}, kCressieReadLambda, 32.198062559054424, 1.3922952264745518e-8},
      {__LINE__, {40, 25, 35}, {60, 20, 20}, kPearsonLambda, 8.6464646464646465, 0.013256963423100582},
      {__LINE__, {40, 25, 35}, {60, 20, 20}, kGTestLambda, 8.7270017992145319, 0.012733730013793162},
      {__LINE__, {40, 25, 35}, {60, 20, 20}, kCressieReadLambda, 8.6642018893017673, 0.013139912241843783},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    HomogeneityOptions options;
    options.lambda = c.lambda;
    const HomogeneityResult r = HomogeneityTest(c.a, c.b, options);
    EXPECT_EQ(r.bins, c.a.size());
    EXPECT_EQ(r.df, static_cast<double>(c.a.size() - 1));
    EXPECT_TRUE(RelativeNear(r.statistic, c.statistic, kRel));
    EXPECT_TRUE(RelativeNear(r.p_value, c.p_value, kRel));
  }
}

TEST(Homogeneity, PoolsByCombinedCountsAndDropsEmptyColumns) {
  // Combined columns: 100, 60, 0, 4, 3, 3 over N = 170 (N_a = N_b = 85), E_min 5 on
  // min(N_a, N_b) = 85: E = 50, 30, -, 2, 1.5, 1.5: tokens 3, 4, 5 pool to 5 -> one bin.
  const std::vector<std::int64_t> a = {50, 30, 0, 2, 2, 1}, b = {50, 30, 0, 2, 1, 2};
  const HomogeneityResult r = HomogeneityTest(a, b);
  EXPECT_EQ(r.bins, 3u);
  EXPECT_EQ(r.n_a, 85);
  EXPECT_EQ(r.n_b, 85);
  EXPECT_NEAR(r.statistic, 0.0, 1e-12);
  // The pooled bin is the top residual only if something differs; here all residuals are 0,
  // so pooling order decides.
  ASSERT_EQ(r.top_bins.size(), 3u);
  EXPECT_EQ(r.top_bins[0].tokens, std::vector<std::int64_t>{0});
  EXPECT_EQ(r.top_bins[2].tokens, (std::vector<std::int64_t>{3, 4, 5}));
}

TEST(Homogeneity, BadInputThrows) {
  EXPECT_THROW(HomogeneityTest(std::vector<std::int64_t>{1, 2}, std::vector<std::int64_t>{1}), std::invalid_argument);
  EXPECT_THROW(HomogeneityTest(std::vector<std::int64_t>{1, -2}, std::vector<std::int64_t>{1, 2}), std::invalid_argument);
  EXPECT_THROW(HomogeneityTest(std::vector<std::int64_t>{0, 0}, std::vector<std::int64_t>{1, 2}), std::invalid_argument);
}

// Swapping the samples changes nothing; identical proportions give statistic 0.
RC_GTEST_PROP(Homogeneity, SymmetricInTheTwoSamples, (std::vector<std::uint8_t> a_raw, std::vector<std::uint8_t> b_raw)) {
  const std::size_t v = std::min(a_raw.size(), b_raw.size());
  RC_PRE(v >= 2);
  std::vector<std::int64_t> a(a_raw.begin(), a_raw.begin() + static_cast<std::ptrdiff_t>(v));
  std::vector<std::int64_t> b(b_raw.begin(), b_raw.begin() + static_cast<std::ptrdiff_t>(v));
  RC_PRE(std::accumulate(a.begin(), a.end(), std::int64_t{0}) > 0 && std::accumulate(b.begin(), b.end(), std::int64_t{0}) > 0);
  const HomogeneityResult ab = HomogeneityTest(a, b), ba = HomogeneityTest(b, a);
  RC_ASSERT(ab.bins == ba.bins);
  RC_ASSERT(std::abs(ab.statistic - ba.statistic) <= 1e-9 * (1 + ab.statistic));
  std::vector<std::int64_t> twice = a;
  for (auto& x : twice) x *= 2;
  RC_ASSERT(HomogeneityTest(a, twice).statistic <= 1e-9);
}

}  // namespace
}  // namespace sampcheck::statistical
