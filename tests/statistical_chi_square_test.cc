// SPDX-License-Identifier: Apache-2.0
// Tests of the central and noncentral chi-square laws (statistical/chi_square.h,
// docs/spec/statistics.md#chi-square-laws).
//
// Expected values: printed by
//   /usr/bin/python3 tests/python/statistical_reference_values.py
// (mpmath, 60 digits: regularized incomplete gamma; the noncentral law as a Poisson mixture),
// never by the code under test. Tolerance 1e-10 relative unless a line says otherwise.
#include "statistical/chi_square.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/relative_near.h"

namespace sampcheck::statistical {
namespace {

using sampcheck::testing::RelativeNear;
constexpr double kRel = 1e-10;

TEST(ChiSquare, SurvivalMatchesMpmath) {
  struct Case { int line; double x, df, expected; };
  const Case cases[] = {
      {__LINE__, 3.841458820694124, 1, 0.050000000000000057},
      {__LINE__, 0.2, 3, 0.9775892977616494},
      {__LINE__, 30, 10, 8.5664121077530039e-4},
      {__LINE__, 100, 50, 3.4549313829848639e-5},
      {__LINE__, 200, 100, 1.1784500720979422e-8},
      {__LINE__, 1500, 999, 8.513135655491612e-23},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    EXPECT_TRUE(RelativeNear(ChiSquareSf(c.x, c.df), c.expected, kRel));
  }
  EXPECT_EQ(ChiSquareSf(0.0, 4), 1.0);
  EXPECT_EQ(ChiSquareSf(INFINITY, 4), 0.0);
}

TEST(ChiSquare, UpperQuantileMatchesPublishedTableAndMpmath) {
  // 3.841458820694124: the df = 1, alpha = 0.05 critical value of every chi-square table
  // (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4); mpmath gives 3.8414588206941259.
  EXPECT_TRUE(RelativeNear(ChiSquareUpperQuantile(1, 0.05), 3.841458820694124, 1e-14));
  EXPECT_TRUE(RelativeNear(ChiSquareUpperQuantile(999, 1e-6), 1.226046189012162e+3, kRel));
  EXPECT_TRUE(RelativeNear(ChiSquareUpperQuantile(3, 1e-6), 30.664849706213599, kRel));
}

TEST(ChiSquare, NoncentralSurvivalMatchesPoissonMixture) {
  struct Case { int line; double x, df, lambda, expected; };
  const Case cases[] = {
      {__LINE__, 23.928122668, 1, 1, 4.9786769450156454e-5},
      {__LINE__, 46.86, 10, 50, 0.80907630690132728},
      {__LINE__, 1226.05, 999, 236, 0.5600594196582252},
      {__LINE__, 30, 5, 10, 0.033085901233316429},
      {__LINE__, 5, 3, 0.5, 0.23264614387397083},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    EXPECT_TRUE(RelativeNear(NoncentralChiSquareSf(c.x, c.df, c.lambda), c.expected, kRel));
    EXPECT_TRUE(RelativeNear(NoncentralChiSquareCdf(c.x, c.df, c.lambda), 1.0 - c.expected, 1e-9));
  }
}

TEST(ChiSquare, NoncentralityIntervalInvertsTheCdf) {
  // gof_c (Cressie–Read statistic of {600, 250, 150} vs {500, 300, 200}, df 2): mpmath
  // bisection on the Poisson-mixture CDF gives [18.881166525744067, 68.745205967993658].
  // Boost's find_non_centrality stops its root search at ~1e-9 relative (its default
  // tolerance), hence 1e-8 here.
  const Interval iv = NoncentralityInterval(40.959746173679375, 2, 0.95);
  EXPECT_TRUE(RelativeNear(iv.lower, 18.881166525744067, 1e-8));
  EXPECT_TRUE(RelativeNear(iv.upper, 68.745205967993658, 1e-8));
  EXPECT_EQ(iv.level, 0.95);
  // x = 5, df = 10: P(X <= 5 | 0) = 0.109 < 0.975, so no lambda >= 0 reaches the lower
  // end's probability: lower = 0; the upper end is positive. x = 0.5: P(X <= 0.5 | 0) ~ 2e-6
  // < 0.025, so both ends are 0.
  const Interval small = NoncentralityInterval(5.0, 10, 0.95);
  EXPECT_EQ(small.lower, 0.0);
  EXPECT_GT(small.upper, 0.0);
  const Interval tiny = NoncentralityInterval(0.5, 10, 0.95);
  EXPECT_EQ(tiny.lower, 0.0);
  EXPECT_EQ(tiny.upper, 0.0);
}

TEST(ChiSquare, ApproximationPastBoostRangeIsContinuous) {
  // At the switch (lambda = 1e9) Boost and Sankaran's approximation must agree where the
  // power is not saturated: x = df + lambda + z sqrt(2 (df + 2 lambda)) for z = -1, 0, 1.
  // Measured agreement ~1e-12 absolute (df 1 to 1e6, z = -3..3); 1e-9 leaves room.
  for (double z : {-1.0, 0.0, 1.0}) {
    const double df = 999, lambda = kNoncentralBoostMax;
    const double x = df + lambda + z * std::sqrt(2 * (df + 2 * lambda));
    const double boost_side = NoncentralChiSquareSf(x, df, lambda);
    const double approx_side = NoncentralChiSquareSf(x, df, std::nextafter(lambda, INFINITY));
    EXPECT_NEAR(boost_side, approx_side, 1e-9) << "z = " << z;
  }
  // Far past the range the approximation still answers (Boost would throw on iround).
  EXPECT_NEAR(NoncentralChiSquareSf(1e12, 999, 1e12), 0.5, 1e-3);
}

TEST(ChiSquare, BadInputThrowsNamingTheArgument) {
  EXPECT_THROW(ChiSquareSf(1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(ChiSquareSf(-1.0, 2.0), std::invalid_argument);
  EXPECT_THROW(ChiSquareSf(NAN, 2.0), std::invalid_argument);
  EXPECT_THROW(ChiSquareUpperQuantile(1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(NoncentralChiSquareSf(1.0, 1.0, -1.0), std::invalid_argument);
  EXPECT_THROW(NoncentralityInterval(1.0, 1.0, 0.0), std::invalid_argument);
  try {
    ChiSquareUpperQuantile(1.0, 0.0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("alpha"), std::string::npos) << e.what();
  }
}

// The interval covers the values whose CDF at x brackets the tails; and it grows with x.
RC_GTEST_PROP(ChiSquare, NoncentralityIntervalIsOrderedAndMonotone, (std::uint16_t x_raw, std::uint8_t df_raw)) {
  const double x = 0.5 + x_raw / 100.0, df = 1 + df_raw % 50;
  const Interval a = NoncentralityInterval(x, df, 0.95), b = NoncentralityInterval(x + 1.0, df, 0.95);
  RC_ASSERT(a.lower <= a.upper);
  RC_ASSERT(b.lower >= a.lower);
  RC_ASSERT(b.upper >= a.upper);
}

}  // namespace
}  // namespace sampcheck::statistical
