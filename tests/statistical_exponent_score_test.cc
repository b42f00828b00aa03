// SPDX-License-Identifier: Apache-2.0
// The exponent score test (statistical/exponent_score.h): its null moments by hand, its
// statistic on fixed tables by hand, its power formula against an exact binomial power, its
// size and power by simulation with fixed seeds, and bad input.
//
// Error budget: the simulation checks use fixed seeds (SplitMix64 seeded 1000 + rep and 900000 + rep), so they
// are deterministic; their bounds are Clopper–Pearson-style margins at ~4.5 standard errors,
// so a correct implementation fails them with probability < 1e-5 over seeds.
#include "statistical/exponent_score.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <boost/math/distributions/binomial.hpp>

#include "core/split_mix64.h"

namespace sampcheck::statistical {
namespace {

constexpr double kLn2 = std::numbers::ln2;

TEST(ExponentScore, NullMomentsOfADyadicRow) {
  // p = {1/2, 1/4, 1/4}: ln p = {-1, -2, -2} ln 2, mean -1.5 ln 2, E (ln p)^2 = 2.5 (ln 2)^2,
  // variance 0.25 (ln 2)^2 (hand).
  const std::vector<double> p = {2.0, 1.0, 1.0};  // weights: normalised inside
  EXPECT_NEAR(ExponentVariance(p), 0.25 * kLn2 * kLn2, 1e-15);
  const std::vector<std::int64_t> counts = {50, 25, 25};  // exactly the expectation
  const auto r = ExponentScoreTest(counts, p);
  EXPECT_NEAR(r.mean_log_p, -1.5 * kLn2, 1e-15);
  EXPECT_NEAR(r.z, 0.0, 1e-12);
  EXPECT_NEAR(r.p_value, 1.0, 1e-12);
  EXPECT_EQ(r.n, 100);
}

TEST(ExponentScore, StatisticOnAFixedTable) {
  // p = {1/2, 1/4, 1/4}, counts {60, 20, 20}: S = sum n_i (ln p_i - mu0) =
  // 60 (0.5 ln 2) + 40 (-0.5 ln 2) = 10 ln 2; N v0 = 100 * 0.25 (ln 2)^2 = 25 (ln 2)^2;
  // Z = 10 ln 2 / (5 ln 2) = 2; p = 2 Phi(-2) = 0.0455002638963584 (R: 2 * pnorm(-2));
  // estimate S / (N v0) = 0.4 / ln 2.
  const std::vector<double> p = {0.5, 0.25, 0.25};
  const std::vector<std::int64_t> counts = {60, 20, 20};
  const auto r = ExponentScoreTest(counts, p, 0.95);
  EXPECT_NEAR(r.z, 2.0, 1e-12);
  EXPECT_NEAR(r.p_value, 0.0455002638963584, 1e-12);
  EXPECT_NEAR(r.estimate, 0.4 / kLn2, 1e-12);
  // Wald half-width 1.959963984540054 / (5 ln 2) (R: qnorm(0.975)).
  EXPECT_NEAR(r.interval.upper - r.estimate, 1.959963984540054 / (5.0 * kLn2), 1e-9);
}

TEST(ExponentScore, OnTwoTokensItIsTheBinomialTestOfTheirShare) {
  // With two tokens ln p(X) takes two values, so S is an affine map of the count k of token 0
  // and Z is the normal-approximation binomial Z. p = {0.8, 0.2}: p(t) for t = 1.1 gives
  // 0.8^1.1 / (0.8^1.1 + 0.2^1.1) = 0.81069... Compare the normal-approximation power with the
  // exact binomial one-sided power of a same-level test: close at large n.
  const std::vector<double> p = {0.8, 0.2};
  const double t = 1.1, alpha = 1e-4;
  const double p1 = std::pow(0.8, t) / (std::pow(0.8, t) + std::pow(0.2, t));
  const std::int64_t n = ExponentSampleSize(p, t - 1.0, alpha, 0.99);
  // Exact: reject when k >= c with P(K >= c | 0.8) <= alpha / 2 (upper side).
  const boost::math::binomial_distribution<double> h0(static_cast<double>(n), 0.8), h1(static_cast<double>(n), p1);
  double c = std::ceil(0.8 * static_cast<double>(n));
  while (boost::math::cdf(boost::math::complement(h0, c - 1.0)) > alpha / 2.0) c += 1.0;
  const double exact = boost::math::cdf(boost::math::complement(h1, c - 1.0));
  EXPECT_NEAR(exact, 0.99, 0.004) << "n = " << n;
  EXPECT_NEAR(ExponentPower(n, p, t - 1.0, alpha), 0.99, 0.002);
}

// Draws n tokens from p^t by inverse CDF on 53-bit uniforms from SplitMix64.
std::vector<std::int64_t> Draw(const std::vector<double>& p, double t, std::int64_t n, std::uint64_t seed) {
  std::vector<double> cdf;
  double sum = 0.0;
  for (double x : p) sum += std::pow(x, t);
  double acc = 0.0;
  for (double x : p) cdf.push_back(acc += std::pow(x, t) / sum);
  std::vector<std::int64_t> counts(p.size(), 0);
  SplitMix64 rng(seed);
  for (std::int64_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(rng.Next() >> 11) * 0x1p-53;
    std::size_t k = 0;
    while (k + 1 < cdf.size() && u >= cdf[k]) ++k;
    ++counts[k];
  }
  return counts;
}

TEST(ExponentScore, SizeAndPowerBySimulation) {
  // A decaying row of 20 tokens. Size: 2000 replicates of n = 2000 under H0, rejections at
  // level 0.05 must lie within 0.05 +- 4.5 sqrt(0.05 * 0.95 / 2000) = [0.028, 0.072].
  // Power: at the n ExponentSampleSize gives for power 0.9 at t = 1.05, level 0.01, 400
  // replicates from p^1.05 must reject at a rate within 0.9 +- 4.5 sqrt(0.09 / 400) = +-0.0675.
  std::vector<double> p;
  for (int i = 0; i < 20; ++i) p.push_back(std::exp(-0.2 * i));
  int size_rejections = 0;
  for (int rep = 0; rep < 2000; ++rep) {
    const auto counts = Draw(p, 1.0, 2000, 1000 + static_cast<std::uint64_t>(rep));
    size_rejections += ExponentScoreTest(counts, p).p_value < 0.05;
  }
  EXPECT_NEAR(size_rejections / 2000.0, 0.05, 0.022);
  const std::int64_t n = ExponentSampleSize(p, 0.05, 0.01, 0.9);
  EXPECT_NEAR(ExponentPower(n, p, 0.05, 0.01), 0.9, 0.01);
  int power_rejections = 0;
  for (int rep = 0; rep < 400; ++rep) {
    const auto counts = Draw(p, 1.05, n, 900000 + static_cast<std::uint64_t>(rep));
    power_rejections += ExponentScoreTest(counts, p).p_value < 0.01;
  }
  EXPECT_NEAR(power_rejections / 400.0, 0.9, 0.0675) << "n = " << n;
}

TEST(ExponentScore, SampleSizeIsInverseSquareInTheEffect) {
  // n ~ ((z_a + z_b) / ((t - 1) sd))^2 to first order: halving the effect about quadruples n.
  const std::vector<double> p = {0.5, 0.25, 0.125, 0.0625, 0.0625};
  const double n1 = static_cast<double>(ExponentSampleSize(p, 0.01, 1e-6));
  const double n2 = static_cast<double>(ExponentSampleSize(p, 0.005, 1e-6));
  EXPECT_NEAR(n2 / n1, 4.0, 0.05);
}

TEST(ExponentScore, FlatRowsAndBadInput) {
  const std::vector<double> flat = {1.0, 1.0, 1.0};
  EXPECT_EQ(ExponentVariance(flat), 0.0);
  EXPECT_EQ(ExponentPower(1000, flat, 0.01, 1e-6), 0.0);
  const std::vector<std::int64_t> c3 = {1, 1, 1};
  EXPECT_THROW(ExponentScoreTest(c3, flat), std::invalid_argument);
  EXPECT_THROW(ExponentSampleSize(flat, 0.01, 1e-6), std::invalid_argument);
  const std::vector<double> p = {0.5, 0.5, 0.0, 1.0};
  EXPECT_THROW(ExponentScoreTest(std::vector<std::int64_t>{1, 1, 1, 1}, p), std::invalid_argument);   // count on a zero
  EXPECT_THROW(ExponentScoreTest(std::vector<std::int64_t>{1, 1}, p), std::invalid_argument);         // lengths
  EXPECT_THROW(ExponentScoreTest(std::vector<std::int64_t>{1, -1, 0, 1}, p), std::invalid_argument);  // negative
  EXPECT_THROW(ExponentVariance(std::vector<double>{0.5, std::nan("")}), std::invalid_argument);
  EXPECT_THROW(ExponentSampleSize(p, 0.0, 1e-6), std::invalid_argument);
}

}  // namespace
}  // namespace sampcheck::statistical
