// SPDX-License-Identifier: Apache-2.0
#pragma once
// Exact binomial and Poisson tests, Clopper–Pearson and Garwood intervals, and a Monte-Carlo
// power-divergence test for tiny tables (docs/spec/statistics.md#exact-tests; docs/method.md L2, L4).
//
// Contract:
// - BinomialTest(k, n, p0, alternative): 0 <= k <= n, n >= 1, p0 in [0, 1].
//     kGreater: P(X >= k), kLess: P(X <= k), X ~ Bin(n, p0) (Boost `binomial_distribution`).
//     kTwoSided: minimum likelihood, as R's binom.test: the sum of P(X = i) over every i with
//     P(X = i) <= P(X = k) * (1 + 1e-7), capped at 1; the 1 + 1e-7 factor (R's relErr) keeps
//     ties of equal mass on both sides despite rounding. p0 = 0 or 1: p = [k is the only
//     possible value].
//   interval: Clopper–Pearson at `level` for the binomial proportion, two-sided for kTwoSided,
//   [0, upper] for kLess and [lower, 1] for kGreater (as R).
// - ClopperPearson(k, n, level): Boost `binomial_distribution::find_lower_bound_on_p` /
//   `find_upper_bound_on_p` with `clopper_pearson_exact_interval`, alpha = (1 - level) / 2
//   each side; lower = 0 when k = 0, upper = 1 when k = n.
// - PoissonTest(k, mu, alternative): k >= 0, mu > 0 finite. One-sided tails from Boost
//   `poisson_distribution`; kTwoSided by minimum likelihood as R's poisson.test (relErr 1e-7).
//   interval: Garwood's exact interval for the mean, [Q_gamma(k, a), Q_gamma(k + 1, 1 - a)]
//   with a = (1 - level) / 2 (lower 0 when k = 0), one-sided as for the binomial.
// - MonteCarloGoodnessOfFit: for tables too small for the chi-square approximation. No pooling:
//   categories are the tokens with p > 0 (counts on p = 0 tokens throw: they are structural).
//   R replicates of n = sum(counts) draws from p (inverse CDF on the cumulative sum of the
//   normalised p, uniforms (word >> 11) * 2^-53 from SplitMix64(seed)), the power-divergence
//   statistic T of each; p = (1 + #{T_sim >= T_obs (1 - 64 eps)}) / (1 + R). The 64 eps slack
//   (R's chisq.test uses the same) counts tables equal to the observed one despite summation
//   order. Same inputs and seed give the same p on every platform (integer generator, no
//   std:: distributions); cost O(R n log V).
// Example: BinomialTest(7, 20, 0.5, kTwoSided).p_value == 0.26317596435546875 (R binom.test).

#include <cstdint>
#include <span>

#include "statistical/interval.h"

namespace sampcheck::statistical {

enum class Alternative { kTwoSided, kLess, kGreater };

struct BinomialTestResult {
  std::int64_t k = 0;
  std::int64_t n = 0;
  double p0 = 0.0;
  Alternative alternative = Alternative::kTwoSided;
  double p_value = 1.0;
  double estimate = 0.0;  // k / n
  Interval interval;      // Clopper–Pearson
};

struct PoissonTestResult {
  std::int64_t k = 0;
  double mu = 0.0;
  Alternative alternative = Alternative::kTwoSided;
  double p_value = 1.0;
  Interval interval;  // Garwood, for the mean
};

struct MonteCarloResult {
  double statistic = 0.0;
  double p_value = 1.0;
  std::int64_t replicates = 0;
  std::int64_t at_least_as_extreme = 0;  // #{T_sim >= T_obs}
  std::uint64_t seed = 0;
};

BinomialTestResult BinomialTest(std::int64_t k, std::int64_t n, double p0,
                                Alternative alternative = Alternative::kTwoSided, double level = 0.95);
Interval ClopperPearson(std::int64_t k, std::int64_t n, double level = 0.95);
PoissonTestResult PoissonTest(std::int64_t k, double mu, Alternative alternative = Alternative::kTwoSided,
                              double level = 0.95);
MonteCarloResult MonteCarloGoodnessOfFit(std::span<const std::int64_t> counts, std::span<const double> p,
                                         double lambda, std::int64_t replicates, std::uint64_t seed);

}  // namespace sampcheck::statistical
