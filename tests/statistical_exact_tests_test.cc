// SPDX-License-Identifier: Apache-2.0
// Tests of the exact binomial and Poisson tests, their intervals, and the Monte-Carlo test
// (statistical/exact_tests.h, docs/spec/statistics.md#exact-tests).
//
// Expected values: printed by
//   /usr/bin/python3 tests/python/statistical_reference_values.py
// (mpmath, 60 digits: exact binomial / Poisson sums, R's two-sided rule by brute force,
// Clopper–Pearson and Garwood limits by bisection on exact tails). Tolerance 1e-10 relative.
#include "statistical/exact_tests.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "statistical/goodness_of_fit.h"
#include "tests/support/relative_near.h"

namespace sampcheck::statistical {
namespace {

using sampcheck::testing::RelativeNear;
constexpr double kRel = 1e-10;

TEST(ExactTests, BinomialPValuesMatchMpmath) {
  struct Case { int line; std::int64_t k, n; double p0, two_sided, less, greater; };
  const Case cases[] = {
      {__LINE__, 7, 20, 0.5, 0.26317596435546875, 0.13158798217773438, 0.94234085083007813},
      {__LINE__, 3, 50, 0.2, 0.011917135597017911, 5.6563610121553044e-3, 0.9987145850467567},
      {__LINE__, 15, 100, 0.05, 1.3585423899229113e-4, 0.99996294592382241, 1.3585423899229113e-4},
      // docs/method.md: a dropped boundary token of p = 0.005 is caught by the one-sided test at
      // alpha = 1e-6 with 2,757 draws (0.995^2757 < 1e-6).
      {__LINE__, 0, 2757, 0.005, 2.1147884174145987e-6, 9.9594101050976256e-7, 1.0},
      {__LINE__, 12, 1000, 0.005, 5.3300112062563768e-3, 0.9980407882674982, 5.3300112062563768e-3},
      {__LINE__, 60, 100, 0.3, 9.1228932252293349e-10, 0.99999999985801075, 5.1299498155831525e-10},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    EXPECT_TRUE(RelativeNear(BinomialTest(c.k, c.n, c.p0).p_value, c.two_sided, kRel));
    EXPECT_TRUE(RelativeNear(BinomialTest(c.k, c.n, c.p0, Alternative::kLess).p_value, c.less, kRel));
    EXPECT_TRUE(RelativeNear(BinomialTest(c.k, c.n, c.p0, Alternative::kGreater).p_value, c.greater, kRel));
  }
}

TEST(ExactTests, BinomialEdgeProbabilities) {
  EXPECT_EQ(BinomialTest(0, 10, 0.0).p_value, 1.0);
  EXPECT_EQ(BinomialTest(1, 10, 0.0).p_value, 0.0);
  EXPECT_EQ(BinomialTest(10, 10, 1.0).p_value, 1.0);
  EXPECT_EQ(BinomialTest(9, 10, 1.0).p_value, 0.0);
  EXPECT_EQ(BinomialTest(5, 10, 0.5).p_value, 1.0);  // k == n p0
  EXPECT_DOUBLE_EQ(BinomialTest(3, 10, 0.5).estimate, 0.3);
}

TEST(ExactTests, ClopperPearsonMatchesMpmath) {
  struct Case { int line; std::int64_t k, n; double lower, upper; };
  const Case cases[] = {
      {__LINE__, 5, 10, 0.18708602844739857, 0.81291397155260143},
      {__LINE__, 0, 100, 0, 0.03621669264517641},
      {__LINE__, 51, 2757, 0.013803481342219429, 0.024250938765789696},
      {__LINE__, 100, 100, 0.96378330735482359, 1.0},
      {__LINE__, 3, 50, 0.012548587835334066, 0.16548194660377287},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    const Interval iv = ClopperPearson(c.k, c.n, 0.95);
    EXPECT_TRUE(RelativeNear(iv.lower, c.lower, kRel));
    EXPECT_TRUE(RelativeNear(iv.upper, c.upper, kRel));
  }
  // One-sided (k, n) = (3, 50): kGreater -> [lower at 5%, 1], kLess -> [0, upper at 5%].
  const Interval greater = BinomialTest(3, 50, 0.2, Alternative::kGreater).interval;
  EXPECT_TRUE(RelativeNear(greater.lower, 0.016551859189231354, kRel));
  EXPECT_EQ(greater.upper, 1.0);
  const Interval less = BinomialTest(3, 50, 0.2, Alternative::kLess).interval;
  EXPECT_EQ(less.lower, 0.0);
  EXPECT_TRUE(RelativeNear(less.upper, 0.14783717636418124, kRel));
}

TEST(ExactTests, PoissonPValuesMatchMpmath) {
  struct Case { int line; std::int64_t k; double mu, two_sided, less, greater; };
  const Case cases[] = {
      {__LINE__, 3, 10, 0.024613664272975331, 0.010336050675925718, 0.99723060428448842},
      {__LINE__, 20, 10, 3.953741203244141e-3, 0.99841173933814195, 3.4543419758568077e-3},
      {__LINE__, 25, 10.5, 1.2686813966473576e-4, 0.99996078495503367, 9.9331690314988601e-5},
      {__LINE__, 2, 10, 6.2237376913683836e-3, 2.7693957155115759e-3, 0.99950060077261267},
      {__LINE__, 0, 3, 0.08329560367670515, 0.049787068367863943, 1.0},
      {__LINE__, 1000, 900, 1.0233660474868581e-3, 0.99950936726714241, 5.4990226571178292e-4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    EXPECT_TRUE(RelativeNear(PoissonTest(c.k, c.mu).p_value, c.two_sided, kRel));
    EXPECT_TRUE(RelativeNear(PoissonTest(c.k, c.mu, Alternative::kLess).p_value, c.less, kRel));
    EXPECT_TRUE(RelativeNear(PoissonTest(c.k, c.mu, Alternative::kGreater).p_value, c.greater, kRel));
  }
}

TEST(ExactTests, GarwoodIntervalMatchesMpmath) {
  struct Case { int line; std::int64_t k; double lower, upper; };
  const Case cases[] = {
      {__LINE__, 0, 0, 3.6888794541139354},
      {__LINE__, 3, 0.6186721228956015, 8.7672730697423248},
      {__LINE__, 20, 12.216519585403945, 30.888377902674597},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    const Interval iv = PoissonTest(c.k, 5.0).interval;
    EXPECT_TRUE(RelativeNear(iv.lower, c.lower, kRel));
    EXPECT_TRUE(RelativeNear(iv.upper, c.upper, kRel));
  }
}

TEST(ExactTests, MonteCarloAgreesWithExactMultinomialEnumeration) {
  // p = {0.2, 0.3, 0.5}, counts {4, 1, 1}: enumerating all 28 tables in mpmath gives
  // P(T >= T_obs) = 0.027895 for both Pearson and Cressie–Read (same ordering of tables here).
  // With R = 20000 replicates the Monte-Carlo p has sd sqrt(p (1 - p) / R) = 0.00116; the
  // band below is 5 sd (false-failure chance < 1e-6, and the seed is fixed).
  const std::vector<std::int64_t> counts = {4, 1, 1};
  const std::vector<double> p = {0.2, 0.3, 0.5};
  for (double lambda : {kPearsonLambda, kCressieReadLambda}) {
    const MonteCarloResult r = MonteCarloGoodnessOfFit(counts, p, lambda, 20000, 20261122);
    EXPECT_NEAR(r.p_value, 0.027895, 5 * 0.00116) << "lambda " << lambda;
    EXPECT_EQ(r.replicates, 20000);
    // Deterministic: same seed, same answer.
    EXPECT_EQ(MonteCarloGoodnessOfFit(counts, p, lambda, 20000, 20261122).at_least_as_extreme, r.at_least_as_extreme);
  }
  EXPECT_TRUE(RelativeNear(MonteCarloGoodnessOfFit(counts, p, kPearsonLambda, 10, 1).statistic, 8.2222222222222222, kRel));
  EXPECT_THROW(MonteCarloGoodnessOfFit(std::vector<std::int64_t>{1, 1}, std::vector<double>{1, 0}, 1, 10, 1),
               std::invalid_argument);
}

TEST(ExactTests, BadInputThrows) {
  EXPECT_THROW(BinomialTest(-1, 10, 0.5), std::invalid_argument);
  EXPECT_THROW(BinomialTest(11, 10, 0.5), std::invalid_argument);
  EXPECT_THROW(BinomialTest(1, 10, 1.5), std::invalid_argument);
  EXPECT_THROW(BinomialTest(1, 10, NAN), std::invalid_argument);
  EXPECT_THROW(BinomialTest(1, 10, 0.5, Alternative::kTwoSided, 1.0), std::invalid_argument);
  EXPECT_THROW(ClopperPearson(1, 0), std::invalid_argument);
  EXPECT_THROW(PoissonTest(1, 0.0), std::invalid_argument);
  EXPECT_THROW(PoissonTest(-1, 1.0), std::invalid_argument);
  try {
    BinomialTest(1, 10, 1.5);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("p0"), std::string::npos) << e.what();
  }
}

// The two-sided p-value contains the tail on the observed side, so it is at least the smaller
// one-sided p-value, and it is capped at 1. (It can exceed twice that tail for skewed laws.)
RC_GTEST_PROP(ExactTests, TwoSidedBinomialLiesBetweenOneAndTwoTails, (std::uint16_t n_raw, std::uint16_t k_raw, std::uint16_t p_raw)) {
  const std::int64_t n = 1 + n_raw % 500, k = k_raw % (n + 1);
  const double p0 = (1 + p_raw % 999) / 1000.0;
  const double two = BinomialTest(k, n, p0).p_value;
  const double one = std::min(BinomialTest(k, n, p0, Alternative::kLess).p_value,
                              BinomialTest(k, n, p0, Alternative::kGreater).p_value);
  RC_ASSERT(two >= one * (1 - 1e-12));
  RC_ASSERT(two <= 1.0);
}

}  // namespace
}  // namespace sampcheck::statistical
