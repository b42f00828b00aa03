// SPDX-License-Identifier: Apache-2.0
// Tests of power, sample size and effect sizes (statistical/power.h,
// docs/spec/statistics.md#power-and-sample-size).
//
// Expected values: printed by
//   /usr/bin/python3 tests/python/statistical_reference_values.py
// (mpmath: noncentral chi-square as a Poisson mixture, exact binomial sums, Clopper–Pearson by
// bisection). Tolerance 1e-10 relative.
#include "statistical/power.h"

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

TEST(Power, ChiSquarePowerMatchesMpmath) {
  struct Case { int line; double df, lambda, alpha, expected; };
  const Case cases[] = {
      {__LINE__, 1, 30, 1e-6, 0.72092349012739087},
      {__LINE__, 10, 100, 1e-6, 0.99989081924368437},
      {__LINE__, 999, 236, 1e-6, 0.560087260623021},
      {__LINE__, 3, 20, 0.05, 0.97507030440735896},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    EXPECT_TRUE(RelativeNear(ChiSquarePower(c.df, c.lambda, c.alpha), c.expected, kRel));
  }
  // lambda = 0: the power is the size.
  EXPECT_TRUE(RelativeNear(ChiSquarePower(5, 0, 1e-6), 1e-6, 1e-9));
}

TEST(Power, BinomialPowerMatchesMpmath) {
  EXPECT_TRUE(RelativeNear(BinomialPower(1000, 0.005, 0.015, 1e-6), 0.12309468917591117, kRel));
  EXPECT_TRUE(RelativeNear(BinomialPower(2000, 0.01, 0.02, 1e-3), 0.76003997695746699, kRel));
  EXPECT_TRUE(RelativeNear(BinomialPower(500, 0.1, 0.05, 1e-2), 0.96973968655438253, kRel));
}

TEST(Power, DroppedBoundaryTokenNeeds2757Draws) {
  // docs/method.md "Sample sizes worth knowing": p = 0.005 never drawn; one-sided exact test at
  // alpha = 1e-6 has power 1 once 0.995^n <= 1e-6, i.e. n >= 2756.3.
  EXPECT_EQ(BinomialSampleSize(0.005, 0.0, 1e-6, 0.99), 2757);
}

TEST(Power, AnyDeviationOfTvHalfAPercentNeeds3Point6MillionDraws) {
  // docs/method.md: "any deviation with TV >= 0.5% needs 3.6e6 (df = 999)" at alpha 1e-6, power
  // 0.99. The least w2 at a given TV is (2 TV)^2 (Cauchy–Schwarz: (sum |d|)^2 <= w2 sum p0),
  // so w2 = 1e-4; the one-digit figure fixes n to [3.55e6, 3.65e6).
  const std::int64_t n = ChiSquareSampleSize(999, 1e-4, 1e-6, 0.99);
  EXPECT_GE(n, 3550000);
  EXPECT_LT(n, 3650000);
}

TEST(Power, CohenW2OfAMovedMass) {
  // 0.01 of mass moves from token 0 (p 0.5) to token 1 (p 0.25): w2 = 1e-4 / 0.5 + 1e-4 / 0.25.
  const std::vector<double> p0 = {0.5, 0.25, 0.25}, p1 = {0.49, 0.26, 0.25};
  EXPECT_TRUE(RelativeNear(CohenW2(p0, p1), 1e-4 / 0.5 + 1e-4 / 0.25, 1e-12));
  EXPECT_THROW(CohenW2(std::vector<double>{1, 0}, std::vector<double>{0.5, 0.5}), std::invalid_argument);
}

TEST(Power, TotalVariationBandFromL1Concentration) {
  // counts {60, 40} vs p {0.5, 0.5}: TV = 0.1; K = 2 symbols, n = 100, level 0.95:
  // half-width e / 2 with e = sqrt(2 (2 ln 2 + ln 20) / 100) (Weissman et al. 2003).
  const EffectEstimate tv = TotalVariation(std::vector<std::int64_t>{60, 40}, std::vector<double>{0.5, 0.5}, 0.95);
  const double half = 0.5 * std::sqrt(2 * (2 * std::log(2.0) + std::log(20.0)) / 100);
  EXPECT_DOUBLE_EQ(tv.estimate, 0.1);
  EXPECT_DOUBLE_EQ(tv.interval.lower, 0.0);  // 0.1 - 0.1485 < 0
  EXPECT_DOUBLE_EQ(tv.interval.upper, 0.1 + half);
  // Tokens of p = 0 merge into one symbol: K = 3 here, not 4.
  const EffectEstimate merged =
      TotalVariation(std::vector<std::int64_t>{60, 40, 0, 0}, std::vector<double>{0.5, 0.5, 0, 0}, 0.95);
  EXPECT_DOUBLE_EQ(merged.interval.upper, 0.1 + 0.5 * std::sqrt(2 * (3 * std::log(2.0) + std::log(20.0)) / 100));
}

TEST(Power, TargetedDeltaIsAShiftedClopperPearson) {
  // 51 of 2757 draws on a token of p0 = 0.005: CP(51, 2757) from the script.
  const EffectEstimate d = TargetedDelta(51, 2757, 0.005);
  EXPECT_DOUBLE_EQ(d.estimate, 51.0 / 2757 - 0.005);
  EXPECT_TRUE(RelativeNear(d.interval.lower + 0.005, 0.013803481342219429, 1e-9));
  EXPECT_TRUE(RelativeNear(d.interval.upper + 0.005, 0.024250938765789696, 1e-9));
}

TEST(Power, BadInputThrows) {
  EXPECT_THROW(ChiSquarePower(0, 1, 0.05), std::invalid_argument);
  EXPECT_THROW(ChiSquarePower(1, 1, 0.0), std::invalid_argument);
  EXPECT_THROW(ChiSquarePower(1, -1, 0.05), std::invalid_argument);
  EXPECT_THROW(ChiSquareSampleSize(1, 0.0, 0.05), std::invalid_argument);
  EXPECT_THROW(ChiSquareSampleSize(1, 0.1, 0.05, 1.0), std::invalid_argument);
  EXPECT_THROW(BinomialSampleSize(0.1, 0.1, 0.05), std::invalid_argument);
  EXPECT_THROW(BinomialPower(0, 0.1, 0.2, 0.05), std::invalid_argument);
  EXPECT_THROW(TotalVariation(std::vector<std::int64_t>{1}, std::vector<double>{1, 0}), std::invalid_argument);
}

RC_GTEST_PROP(Power, ChiSquarePowerIncreasesWithN, (std::uint8_t df_raw, std::uint16_t n_raw)) {
  const double df = 1 + df_raw % 100, w2 = 1e-3, n = 1 + n_raw;
  RC_ASSERT(ChiSquarePower(df, (n + 100) * w2, 1e-6) >= ChiSquarePower(df, n * w2, 1e-6));
}

RC_GTEST_PROP(Power, ChiSquareSampleSizeIsMinimal, (std::uint8_t df_raw, std::uint8_t w_raw)) {
  const double df = 1 + df_raw % 200, w2 = (1 + w_raw) * 1e-4, alpha = 1e-6, target = 0.99;
  const std::int64_t n = ChiSquareSampleSize(df, w2, alpha, target);
  RC_ASSERT(ChiSquarePower(df, static_cast<double>(n) * w2, alpha) >= target);
  if (n > 1) RC_ASSERT(ChiSquarePower(df, static_cast<double>(n - 1) * w2, alpha) < target);
}

RC_GTEST_PROP(Power, BinomialSampleSizeIsACrossing, (std::uint8_t p0_raw, std::uint8_t shift_raw, bool up)) {
  const double p0 = (1 + p0_raw % 200) / 1000.0;
  const double shift = (1 + shift_raw % 50) / 1000.0;
  const double p1 = up ? p0 + shift : std::max(0.0, p0 - shift);
  RC_PRE(p1 != p0);
  const std::int64_t n = BinomialSampleSize(p0, p1, 1e-3, 0.9);
  RC_ASSERT(BinomialPower(n, p0, p1, 1e-3) >= 0.9);
  if (n > 1) RC_ASSERT(BinomialPower(n - 1, p0, p1, 1e-3) < 0.9);
}

}  // namespace
}  // namespace sampcheck::statistical
