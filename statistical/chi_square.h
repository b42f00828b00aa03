// SPDX-License-Identifier: Apache-2.0
#pragma once
// Central and noncentral chi-square laws for p-values, power and effect intervals
// (docs/spec/statistics.md#chi-square-laws). Boost.Math does the work; this header fixes the
// range where Boost is used and the normal approximation that takes over past it.
//
// Contract:
// - df > 0 finite; x >= 0 (x may be +inf: survival 0); noncentrality lambda >= 0 finite.
//   Anything else throws std::invalid_argument naming the function and the argument.
// - ChiSquareSf(x, df) = Q(df/2, x/2), Boost `cdf(complement(chi_squared(df), x))`: accurate
//   in the far upper tail (no 1 - cdf cancellation).
// - Noncentral laws: Boost `non_central_chi_squared` for lambda <= kNoncentralBoostMax = 1e9.
//   Boost indexes its Poisson-mixture series with an int (iround(lambda / 2)), which overflows
//   past lambda ~ 4.29e9. Above 1e9, or when Boost throws a std::runtime_error (series not
//   converging, that overflow), Sankaran's (1959) normal approximation is used: with
//   h = 1 - 2/3 (df + lambda)(df + 3 lambda)/(df + 2 lambda)^2, p = (df + 2 lambda)/(df + lambda)^2
//   and m = (h - 1)(1 - 3h), (x / (df + lambda))^h is normal with mean
//   1 + h p (h - 1 - (2 - h) m p / 2) and standard deviation h sqrt(2p) (1 + m p / 2)
//   (Johnson, Kotz & Balakrishnan, Continuous Univariate Distributions vol. 2, ch. 29). At the
//   switch it agrees with Boost to ~1e-12 absolute (measured at x = mean +- 3 sd, df 1 to 1e6);
//   at lambda >= 1e9 a power is 0 or 1 to double precision outside a window of width
//   ~sqrt(lambda) around the critical value.
// - NoncentralityInterval(x, df, level): the equal-tailed confidence interval for lambda from
//   one observation x ~ chi^2(df, lambda): lower solves P(X <= x | lambda) = (1 + level)/2,
//   upper solves P(X <= x | lambda) = (1 - level)/2, each 0 when even lambda = 0 gives a CDF
//   below that target (Boost `find_non_centrality`, whose root search stops at ~1e-9 relative;
//   TOMS 748 on the approximation past 1e9). The CDF decreases in lambda, so inverting the test
//   gives coverage >= level.
// Example: ChiSquareSf(3.841458820694124, 1) == 0.05 (to 1e-15); ChiSquareUpperQuantile(1, 0.05)
//   == 3.841458820694124.

#include "statistical/interval.h"

namespace sampcheck::statistical {

inline constexpr double kNoncentralBoostMax = 1e9;

// P(X > x) for X ~ chi^2(df).
double ChiSquareSf(double x, double df);
// The x with P(X > x) = alpha, alpha in (0, 1).
double ChiSquareUpperQuantile(double df, double alpha);
// P(X <= x) and P(X > x) for X ~ chi^2(df, lambda).
double NoncentralChiSquareCdf(double x, double df, double lambda);
double NoncentralChiSquareSf(double x, double df, double lambda);
// Confidence interval for lambda from one observed statistic x (level in (0, 1)).
Interval NoncentralityInterval(double x, double df, double level = 0.95);

}  // namespace sampcheck::statistical
