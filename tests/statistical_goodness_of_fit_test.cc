// SPDX-License-Identifier: Apache-2.0
// Tests of the Cressie–Read goodness-of-fit test (statistical/goodness_of_fit.h,
// docs/spec/statistics.md#goodness-of-fit).
//
// Expected statistics and p-values: printed by
//   /usr/bin/python3 tests/python/statistical_reference_values.py
// (mpmath, 60 digits), lines gof_a, gof_b, gof_c; tolerance 1e-10 relative.
#include "statistical/goodness_of_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/split_mix64.h"
#include "tests/support/relative_near.h"

namespace sampcheck::statistical {
namespace {

using sampcheck::testing::RelativeNear;
constexpr double kRel = 1e-10;

struct Table {
  int line;
  std::vector<std::int64_t> counts;
  std::vector<double> p;
  double lambda;
  double statistic, p_value;
  std::size_t bins;
};

TEST(GoodnessOfFit, FixedTablesMatchMpmath) {
  const std::vector<std::int64_t> a = {18, 22, 20, 40}, b = {48, 35, 8, 5, 3, 1}, c = {600, 250, 150};
  const std::vector<double> pa = {0.2, 0.2, 0.2, 0.4}, pb = {0.5, 0.3, 0.1, 0.06, 0.03, 0.01}, pc = {0.5, 0.3, 0.2};
  // Table b pools tokens 3, 4, 5 into one bin (E = 6 + 3 + 1; see the script's comment), so
  // 6 tokens give 4 bins.
  const Table tables[] = {
      {__LINE__, a, pa, kPearsonLambda, 0.4, 0.94024249483936074, 4},
      {__LINE__, a, pa, kGTestLambda, 0.400669347708547, 0.94010418857233081, 4},
      {__LINE__, a, pa, kCressieReadLambda, 0.4001485338292924, 0.94021180951430628, 4},
      {__LINE__, b, pb, kPearsonLambda, 1.4133333333333333, 0.70241232163486412, 4},
      {__LINE__, b, pb, kGTestLambda, 1.4048500110953593, 0.70439825642743476, 4},
      {__LINE__, b, pb, kCressieReadLambda, 1.4097516724113338, 0.70325048543684193, 4},
      {__LINE__, c, pc, kPearsonLambda, 40.833333333333333, 1.3587962129963224e-9, 3},
      {__LINE__, c, pc, kGTestLambda, 41.32046802023396, 1.0650607361982709e-9, 3},
      {__LINE__, c, pc, kCressieReadLambda, 40.959746173679375, 1.2755695058108924e-9, 3},
  };
  for (const Table& t : tables) {
    SCOPED_TRACE(t.line);
    GoodnessOfFitOptions options;
    options.lambda = t.lambda;
    const GoodnessOfFitResult r = GoodnessOfFitTest(t.counts, t.p, options);
    EXPECT_EQ(r.bins, t.bins);
    EXPECT_EQ(r.df, static_cast<double>(t.bins - 1));
    EXPECT_TRUE(RelativeNear(r.statistic, t.statistic, kRel));
    EXPECT_TRUE(RelativeNear(r.p_value, t.p_value, kRel));
    EXPECT_EQ(r.e_min, t.lambda == kPearsonLambda ? 10.0 : 5.0);
  }
}

TEST(GoodnessOfFit, CountsEqualToTheirExpectationGiveStatisticZero) {
  // Counts exactly n * p: the statistic is 0 in exact arithmetic, but its terms have both signs
  // and rounding can leave about -1e-13 (a calibration run met one): it must not throw and must
  // read as a perfect fit.
  for (int d = 3; d <= 60; ++d) {
    for (int a = 1; a < d; ++a) {
      for (std::int64_t m : {1, 7, 1000}) {
        const std::vector<double> p = {static_cast<double>(a) / d, static_cast<double>(d - a) / d};
        const std::vector<std::int64_t> counts = {m * a, m * (d - a)};
        for (double lambda : {kCressieReadLambda, kPearsonLambda, 0.0}) {
          GoodnessOfFitOptions options;
          options.lambda = lambda;
          options.e_min = 1.0;
          const auto r = GoodnessOfFitTest(counts, p, options);
          // Rounding leaves |statistic| ~ 1e-12; at df = 1 the p-value is about
          // 1 - sqrt(2 x / pi), so 0.9999 allows x up to ~1e-8.
          ASSERT_GE(r.statistic, 0.0) << a << "/" << d << " x " << m << " lambda " << lambda;
          ASSERT_LE(r.statistic, 1e-9) << a << "/" << d << " x " << m << " lambda " << lambda;
          ASSERT_GT(r.p_value, 0.9999) << a << "/" << d << " x " << m << " lambda " << lambda;
        }
      }
    }
  }
}

TEST(GoodnessOfFit, EffectAndIntervalFromNoncentrality) {
  // gof_c, Cressie–Read: D = (X^2 - df) / n; interval = mpmath ncx2 inversion / n
  // ([18.881166525744067, 68.745205967993658] / 1000), to Boost's root tolerance (1e-8).
  const std::vector<std::int64_t> counts = {600, 250, 150};
  const std::vector<double> p = {0.5, 0.3, 0.2};
  const GoodnessOfFitResult r = GoodnessOfFitTest(counts, p);
  EXPECT_EQ(r.n, 1000);
  EXPECT_TRUE(RelativeNear(r.effect, (40.959746173679375 - 2) / 1000, kRel));
  EXPECT_TRUE(RelativeNear(r.effect_interval.lower, 18.881166525744067 / 1000, 1e-8));
  EXPECT_TRUE(RelativeNear(r.effect_interval.upper, 68.745205967993658 / 1000, 1e-8));
  // True w^2 of the generating change is not known here; the point estimate lies inside.
  EXPECT_LE(r.effect_interval.lower, r.effect);
  EXPECT_GE(r.effect_interval.upper, r.effect);
}

TEST(GoodnessOfFit, TopBinsAreOrderedByAbsoluteResidual) {
  const std::vector<std::int64_t> counts = {600, 250, 150};
  const std::vector<double> p = {0.5, 0.3, 0.2};
  GoodnessOfFitOptions options;
  options.top_bins = 2;
  const GoodnessOfFitResult r = GoodnessOfFitTest(counts, p, options);
  ASSERT_EQ(r.top_bins.size(), 2u);
  // Residuals: token 0 (600 - 500)/sqrt(500) = 4.47; token 1 -50/sqrt(300) = -2.89;
  // token 2 -50/sqrt(200) = -3.54.
  EXPECT_EQ(r.top_bins[0].tokens, std::vector<std::int64_t>{0});
  EXPECT_DOUBLE_EQ(r.top_bins[0].residual, 100 / std::sqrt(500.0));
  EXPECT_EQ(r.top_bins[1].tokens, std::vector<std::int64_t>{2});
  EXPECT_DOUBLE_EQ(r.top_bins[1].observed, 150);
  EXPECT_DOUBLE_EQ(r.top_bins[1].expected, 200);
}

TEST(GoodnessOfFit, ZeroProbabilityCountsAreStructuralNotStatistical) {
  // Token 1 has p = 0 and 7 draws: listed as a violation, excluded from n and from the bins;
  // the rest is table gof_a, so the statistic is unchanged.
  const std::vector<std::int64_t> counts = {18, 7, 22, 20, 40};
  const std::vector<double> p = {0.2, 0.0, 0.2, 0.2, 0.4};
  GoodnessOfFitOptions options;
  options.lambda = kPearsonLambda;
  const GoodnessOfFitResult r = GoodnessOfFitTest(counts, p, options);
  ASSERT_EQ(r.structural_violations.size(), 1u);
  EXPECT_EQ(r.structural_violations[0].token, 1);
  EXPECT_EQ(r.structural_violations[0].count, 7);
  EXPECT_EQ(r.n, 100);
  EXPECT_TRUE(RelativeNear(r.statistic, 0.4, kRel));
}

TEST(GoodnessOfFit, WeightsAreNormalisedAndOneBinMeansNoTest) {
  const std::vector<std::int64_t> counts = {18, 22, 20, 40};
  const std::vector<double> weights = {1, 1, 1, 2};  // same law as {0.2, 0.2, 0.2, 0.4}
  GoodnessOfFitOptions options;
  options.lambda = kPearsonLambda;
  EXPECT_TRUE(RelativeNear(GoodnessOfFitTest(counts, weights, options).statistic, 0.4, kRel));
  // n = 3 < E_min: everything is one bin, df 0, p 1.
  const GoodnessOfFitResult tiny = GoodnessOfFitTest(std::vector<std::int64_t>{1, 2}, std::vector<double>{0.5, 0.5});
  EXPECT_EQ(tiny.bins, 1u);
  EXPECT_EQ(tiny.df, 0.0);
  EXPECT_EQ(tiny.p_value, 1.0);
}

TEST(GoodnessOfFit, BadInputThrows) {
  const std::vector<double> p = {0.5, 0.5};
  EXPECT_THROW(GoodnessOfFitTest(std::vector<std::int64_t>{1, -1}, p), std::invalid_argument);
  EXPECT_THROW(GoodnessOfFitTest(std::vector<std::int64_t>{1, 2, 3}, p), std::invalid_argument);
  EXPECT_THROW(GoodnessOfFitTest(std::vector<std::int64_t>{1, 2}, std::vector<double>{NAN, 1}), std::invalid_argument);
  EXPECT_THROW(GoodnessOfFitTest(std::vector<std::int64_t>{1, 2}, std::vector<double>{0, 0}), std::invalid_argument);
  GoodnessOfFitOptions bad;
  bad.level = 1.0;
  EXPECT_THROW(GoodnessOfFitTest(std::vector<std::int64_t>{1, 2}, p, bad), std::invalid_argument);
  try {
    GoodnessOfFitTest(std::vector<std::int64_t>{1, -1}, p);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("counts[1]"), std::string::npos) << e.what();
  }
}

// Draws n tokens from weights p by inverse CDF with SplitMix64 (53-bit uniforms): a test-only
// multinomial sampler, deterministic on every platform.
std::vector<std::int64_t> Sample(const std::vector<double>& p, std::int64_t n, std::uint64_t seed) {
  std::vector<double> cumulative(p.size());
  std::partial_sum(p.begin(), p.end(), cumulative.begin());
  std::vector<std::int64_t> counts(p.size(), 0);
  SplitMix64 rng(seed);
  for (std::int64_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(rng.Next() >> 11) * 0x1p-53 * cumulative.back();
    const auto idx = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
    ++counts[std::min(idx, p.size() - 1)];
  }
  return counts;
}

std::vector<double> Zipf(std::size_t v) {
  std::vector<double> p(v);
  for (std::size_t i = 0; i < v; ++i) p[i] = 1.0 / static_cast<double>(i + 1);
  return p;
}

TEST(GoodnessOfFit, CorrectSampleIsNotRejectedAndAWrongOneIs) {
  // V = 200 Zipf weights, n = 1e5, seed 20261122 (fixed; override by editing). Under H0 the
  // p-value is ~uniform, so requiring p > 1e-3 has a 1e-3 false-failure chance per seed; this
  // seed passes and is fixed, so the test is deterministic.
  // Wrong law: token 0 loses 2% of the total mass to token 1 (TV = 0.02). With
  // w^2 = 0.02^2 / p0 + 0.02^2 / p1 ~ 0.0052 and n = 1e5, lambda ~ 520 at df ~ 199: power at
  // alpha = 1e-6 is 1 to double precision (ChiSquarePower), so p < 1e-6 is certain in practice.
  const std::vector<double> p = Zipf(200);
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  const std::int64_t n = 100000;
  const std::uint64_t seed = 20261122;
  const GoodnessOfFitResult good = GoodnessOfFitTest(Sample(p, n, seed), p);
  EXPECT_GT(good.p_value, 1e-3) << "statistic " << good.statistic << " df " << good.df << " seed " << seed;
  EXPECT_TRUE(good.structural_violations.empty());

  std::vector<double> wrong = p;
  wrong[0] -= 0.02 * total;
  wrong[1] += 0.02 * total;
  const GoodnessOfFitResult bad = GoodnessOfFitTest(Sample(wrong, n, seed), p);
  EXPECT_LT(bad.p_value, 1e-6) << "statistic " << bad.statistic << " df " << bad.df;
  ASSERT_FALSE(bad.top_bins.empty());
  EXPECT_TRUE(bad.top_bins[0].tokens == std::vector<std::int64_t>{0} ||
              bad.top_bins[0].tokens == std::vector<std::int64_t>{1});
}

// Cressie–Read with lambda -> 0 approaches the G statistic (the expm1 form keeps it smooth):
// the difference is O(lambda) times the statistic.
RC_GTEST_PROP(GoodnessOfFit, CressieReadApproachesGAsLambdaGoesToZero, (std::vector<std::uint8_t> raw)) {
  RC_PRE(raw.size() >= 2);
  std::vector<double> observed, expected;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    observed.push_back(raw[i]);
    expected.push_back(1.0 + static_cast<double>(raw[(i + 1) % raw.size()]));
  }
  // Power divergence needs sum O = sum E to be the textbook statistic; rescale E.
  const double so = std::accumulate(observed.begin(), observed.end(), 0.0);
  RC_PRE(so > 0);
  const double se = std::accumulate(expected.begin(), expected.end(), 0.0);
  for (double& e : expected) e *= so / se;
  const double g = PowerDivergence(observed, expected, kGTestLambda);
  // Taylor in lambda: CR - G = -lambda G + lambda sum O L^2 / 2 + O(lambda^2), L = log(O / E).
  double second = 0.0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (observed[i] > 0) second += observed[i] * std::pow(std::log(observed[i] / expected[i]), 2);
  }
  for (double lambda : {1e-4, 1e-6, 1e-8}) {
    const double cr = PowerDivergence(observed, expected, lambda);
    RC_ASSERT(std::abs(cr - g) <= 2 * lambda * (std::abs(g) + second) + 1e-12 * (1 + std::abs(g)));
  }
}

}  // namespace
}  // namespace sampcheck::statistical
