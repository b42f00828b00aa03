// SPDX-License-Identifier: Apache-2.0
#pragma once
// Tests of continuous noise against U(0,1), Exp(1) and the standard Gumbel law
// (docs/spec/statistics.md#continuous-laws; docs/method.md "Continuous noise in fp32").
//
// Contract:
// - LawCdf: U(0,1): F(x) = clamp(x, 0, 1); Exp(1): F(x) = 1 - exp(-x) for x >= 0, else 0;
//   Gumbel (max, location 0, scale 1): F(x) = exp(-exp(-x)). Boost.Math `uniform`,
//   `exponential`, `extreme_value` distributions; -inf -> 0, +inf -> 1; NaN throws.
//   LawSf is 1 - F computed as Boost's complement (no cancellation in the upper tail).
// - Probability-integral transform: u = F(x). BinnedPitTest puts u into `bins` equiprobable
//   bins [j/k, (j+1)/k) (u = 1 goes to the last bin), expected n / k each, and applies the
//   power-divergence statistic (lambda, default 2/3) with df = k - 1. n / k must reach
//   DefaultEMin(lambda) (5, or 10 for Pearson), else std::invalid_argument: the bins are fixed
//   a priori and never merged.
// - KolmogorovSmirnovTest: D_n = max_i max(i/n - u_(i), u_(i) - (i-1)/n) over the sorted PIT
//   values; p = P(K > sqrt(n) D_n) for Kolmogorov's limiting law (Boost
//   `kolmogorov_smirnov_distribution`, asymptotic only). LARGE n ONLY: the limiting law
//   overstates p for small n (error O(n^-1/2)) and ignores the fp32 lattice; the spec asks for
//   n >= 1000 and prefers the binned PIT test and exact edge/tail counts. n >= 1 required.
// - ExactCountTest(count, n, probability, alternative): the exact binomial test of a count of
//   events of known probability (lattice edges: zeros, ones, smallest values; tail exceedances
//   beyond fixed quantiles) — BinomialTest with level 0.95. CountBelow / CountAbove count
//   samples strictly below / above a threshold, for building those counts.
// Example: BinnedPitTest of {0.05, 0.15, ..., 0.95} x 10 copies under kUniform01 with 10 bins ->
//   every bin holds 10, statistic 0, p = 1.

#include <cstdint>
#include <span>
#include <vector>

#include "statistical/exact_tests.h"
#include "statistical/goodness_of_fit.h"

namespace sampcheck::statistical {

enum class ContinuousLaw { kUniform01, kExponential1, kGumbel };

double LawCdf(ContinuousLaw law, double x);
double LawSf(ContinuousLaw law, double x);
// x with F(x) = probability, probability in [0, 1].
double LawQuantile(ContinuousLaw law, double probability);

struct BinnedPitResult {
  double lambda = kCressieReadLambda;
  double statistic = 0.0;
  double df = 0.0;
  double p_value = 1.0;
  std::int64_t n = 0;
  std::size_t bins = 0;
  double expected_per_bin = 0.0;
  std::vector<std::int64_t> counts;  // per bin
};

struct KolmogorovSmirnovResult {
  double statistic = 0.0;  // D_n
  double p_value = 1.0;    // asymptotic
  std::int64_t n = 0;
};

BinnedPitResult BinnedPitTest(std::span<const double> samples, ContinuousLaw law, std::size_t bins = 100,
                              double lambda = kCressieReadLambda);
KolmogorovSmirnovResult KolmogorovSmirnovTest(std::span<const double> samples, ContinuousLaw law);
BinomialTestResult ExactCountTest(std::int64_t count, std::int64_t n, double probability,
                                  Alternative alternative = Alternative::kTwoSided);
std::int64_t CountBelow(std::span<const double> samples, double threshold);
std::int64_t CountAbove(std::span<const double> samples, double threshold);

}  // namespace sampcheck::statistical
