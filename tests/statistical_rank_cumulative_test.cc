// SPDX-License-Identifier: Apache-2.0
// The rank-cumulative test (statistical/rank_cumulative.h, docs/spec/statistics.md
// "Rank-cumulative test"): hand-computed statistics, Kolmogorov's series by hand, the tie rule,
// the errors, and with fixed seeds its size under H0 and its power bound under a tilt.
#include "statistical/rank_cumulative.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace sampcheck::statistical {
namespace {

// Kolmogorov's survival function from its series, summed here by hand to 1e-17:
// Q(1) = 2 (e^-2 - e^-8 + e^-18 - e^-32 ...).
double KolmogorovQ(double x) {
  double s = 0.0;
  for (int j = 1; j <= 50; ++j) s += (j % 2 ? 1.0 : -1.0) * std::exp(-2.0 * j * j * x * x);
  return 2.0 * s;
}

TEST(RankCumulative, HandExample) {
  // p = {1/2, 1/4, 1/4}: groups {0} and {1, 2}; F0 after group 1 = 1/2. counts {40, 30, 30}:
  // Fn = 0.4, D = 0.1, sqrt(100) D = 1, p = Q(1) = 0.26999967167737...
  const std::vector<double> p{0.5, 0.25, 0.25};
  const std::vector<std::int64_t> counts{40, 30, 30};
  const auto r = RankCumulativeTest(counts, p);
  EXPECT_EQ(r.n, 100);
  EXPECT_EQ(r.groups, 2);
  EXPECT_EQ(r.at, 1);
  EXPECT_NEAR(r.d, 0.1, 1e-15);
  EXPECT_NEAR(r.effect, -0.1, 1e-15);  // the head drawn too rarely: a law too hot
  EXPECT_NEAR(r.statistic, 1.0, 1e-14);
  EXPECT_NEAR(r.p_value, 0.26999967167737976, 1e-9);
  EXPECT_NEAR(r.p_value, KolmogorovQ(1.0), 1e-9);
  // DKW band at 0.99: e = sqrt(ln(200) / 200) = 0.16276...
  EXPECT_NEAR(r.interval.upper - r.interval.lower, 2.0 * std::sqrt(std::log(200.0) / 200.0), 1e-12);
}

TEST(RankCumulative, SmirnovTableCriticalValues) {
  // Smirnov's table: Q(1.3581) = 0.05 and Q(1.6276) = 0.01 (to four digits).
  const std::vector<double> p{0.5, 0.5 - 1e-3, 1e-3};
  for (auto [x, q] : {std::pair{1.3581, 0.05}, std::pair{1.6276, 0.01}}) {
    // N = 1e6 draws with the head's share off by x / sqrt(N): sqrt(N) D = x.
    const std::int64_t n = 1000000;
    const auto head = static_cast<std::int64_t>(std::llround(0.5 * n + x * 1000.0));
    const std::vector<std::int64_t> counts{head, n - head - 1000, 1000};
    const auto r = RankCumulativeTest(counts, p);
    EXPECT_NEAR(r.statistic, x, 1e-3);
    EXPECT_NEAR(r.p_value, q, 3e-4) << x;
  }
}

TEST(RankCumulative, TiesAreOneGroupAndTheirOrderDoesNotMatter) {
  // p = {1/4, 1/4, 1/2}: one group {2}, then {0, 1}; a perfect fit whatever the split of 50
  // draws between the tied tokens.
  const std::vector<double> p{0.25, 0.25, 0.5};
  const auto a = RankCumulativeTest(std::vector<std::int64_t>{25, 25, 50}, p);
  const auto b = RankCumulativeTest(std::vector<std::int64_t>{50, 0, 50}, p);
  EXPECT_EQ(a.groups, 2);
  EXPECT_EQ(a.d, 0.0);
  EXPECT_EQ(b.d, 0.0);
  EXPECT_EQ(a.p_value, 1.0);
  EXPECT_EQ(b.p_value, 1.0);
}

TEST(RankCumulative, ColdLawHasAPositiveEffect) {
  // Four groups 0.4, 0.3, 0.2, 0.1 and 1000 draws with the head at 0.5 (cold): Fn = {0.5, 0.75,
  // 0.95} against F0 = {0.4, 0.7, 0.9}, D = +0.1 at k = 1, sqrt(1000) D = sqrt(10), and
  // p = Q(sqrt(10)) = 2 (e^-20 - e^-80 + ...) = 2 e^-20 to 1e-34.
  const std::vector<double> p{0.1, 0.2, 0.3, 0.4};
  const std::vector<std::int64_t> counts{50, 200, 250, 500};
  const auto r = RankCumulativeTest(counts, p);
  EXPECT_EQ(r.groups, 4);
  EXPECT_NEAR(r.effect, 0.1, 1e-12);
  EXPECT_NEAR(r.d, 0.1, 1e-12);
  EXPECT_EQ(r.at, 1);
  EXPECT_NEAR(r.p_value, 2.0 * std::exp(-20.0), 1e-15);
}

TEST(RankCumulative, RejectsBadInput) {
  const std::vector<double> p{0.5, 0.25, 0.25};
  EXPECT_THROW(RankCumulativeTest(std::vector<std::int64_t>{1, 1}, p), std::invalid_argument);
  EXPECT_THROW(RankCumulativeTest(std::vector<std::int64_t>{1, -1, 1}, p), std::invalid_argument);
  EXPECT_THROW(RankCumulativeTest(std::vector<std::int64_t>{1, 1, 1}, std::vector<double>{0.5, 0.5, 0.0}),
               std::invalid_argument);  // a count on a zero weight
  EXPECT_THROW(RankCumulativeTest(std::vector<std::int64_t>{1, 1}, std::vector<double>{0.5, 0.5}),
               std::invalid_argument);  // flat: no order
  EXPECT_THROW(RankCumulativeTest(std::vector<std::int64_t>{1, 1}, std::vector<double>{0.5, NAN}), std::invalid_argument);
  EXPECT_FALSE(RankCumulativeDefined(std::vector<double>{0.2, 0.2, 0.0}));
  EXPECT_TRUE(RankCumulativeDefined(p));
}

// n draws from the law q over its tokens by inverse CDF on 53-bit uniforms from mt19937_64
// (whose output sequence the C++ standard fixes).
std::vector<std::int64_t> Draw(std::mt19937_64& gen, const std::vector<double>& q, std::int64_t n) {
  std::vector<double> cdf(q.size());
  double s = 0.0;
  for (double x : q) s += x;
  double run = 0.0;
  for (std::size_t i = 0; i < q.size(); ++i) cdf[i] = (run += q[i] / s);
  std::vector<std::int64_t> counts(q.size(), 0);
  for (std::int64_t d = 0; d < n; ++d) {
    const double u = static_cast<double>(gen() >> 11) * 0x1p-53;
    std::size_t i = 0;
    while (i + 1 < q.size() && u >= cdf[i]) ++i;
    ++counts[i];
  }
  return counts;
}

// A decaying row of 12 tokens with one tie.
std::vector<double> Row() {
  std::vector<double> p;
  for (int i = 0; i < 12; ++i) p.push_back(std::exp(-0.3 * i));
  p[5] = p[4];
  return p;
}

TEST(RankCumulative, SizeUnderTheNullIsAtMostAlpha) {
  // 2000 runs of 1000 draws from p itself, alpha 0.05: the test is conservative (discrete F0,
  // limiting law), so its rejection rate is at most 0.05; 132 rejections is 0.05 * 2000 plus
  // 3.29 standard deviations (one-sided 5e-4 if the true size were 0.05).
  std::mt19937_64 gen(20261124);
  const auto p = Row();
  int rejected = 0;
  for (int run = 0; run < 2000; ++run) rejected += RankCumulativeTest(Draw(gen, p, 1000), p).p_value < 0.05;
  EXPECT_LE(rejected, 132);
  EXPECT_GE(rejected, 20);  // not a test that never rejects (the size is 0.02-0.05 here)
}

TEST(RankCumulative, PowerBoundHoldsUnderATilt) {
  // Draws from p^1.1 (every logit scaled by 1.1), at the first n of a doubling ladder where the
  // bound predicts a power between 0.3 and 0.8 at alpha 0.01. Over 400 runs the observed rate
  // must not fall below the bound by more than 4 binomial standard deviations (the bound looks
  // at one point of the sup only).
  std::mt19937_64 gen(7);
  const auto p = Row();
  std::vector<double> q;
  for (double x : p) q.push_back(std::pow(x, 1.1));
  std::int64_t n = 300;
  while (RankCumulativePower(n, p, q, 0.01) < 0.3 && n < 100000) n *= 2;
  const double bound = RankCumulativePower(n, p, q, 0.01);
  ASSERT_GT(bound, 0.3);
  ASSERT_LT(bound, 0.8);
  int rejected = 0;
  for (int run = 0; run < 400; ++run) rejected += RankCumulativeTest(Draw(gen, q, n), p).p_value < 0.01;
  const double rate = rejected / 400.0;
  EXPECT_GE(rate, bound - 4.0 * std::sqrt(bound * (1.0 - bound) / 400.0)) << "bound " << bound;
}

TEST(RankCumulative, DistanceSampleSize) {
  // alpha 0.01: Q^-1 = 1.6276 (Smirnov's table); power 0.99: z = 2.3263. delta = 0.01:
  // n = ((1.6276 + 1.16317) / 0.01)^2 = 77,884 (by hand, to the rounding of the two quantiles).
  const auto n = RankCumulativeSampleSize(0.01, 0.01, 0.99);
  EXPECT_NEAR(static_cast<double>(n), 77884.0, 40.0);
  EXPECT_GE(RankCumulativeDistancePower(n, 0.01, 0.01), 0.99);
  EXPECT_LT(RankCumulativeDistancePower(n - 200, 0.01, 0.01), 0.99);
  EXPECT_EQ(RankCumulativeDistancePower(100, 0.01, 0.01), 0.0);  // below the critical value: no claim
  // The bound holds for any law at that distance: the two-group row {1/2, 1/2 - ...} moved by
  // delta at its one cut has a point power of at least the distribution-free bound.
  const std::vector<double> p{0.6, 0.4};
  const std::vector<double> q{0.61, 0.39};
  EXPECT_GE(RankCumulativePower(n, p, q, 0.01), RankCumulativeDistancePower(n, 0.01, 0.01));
  EXPECT_THROW(RankCumulativeSampleSize(0.0, 0.01), std::invalid_argument);
}

}  // namespace
}  // namespace sampcheck::statistical
