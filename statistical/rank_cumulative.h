// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rank-cumulative test: a one-sample Kolmogorov–Smirnov test on the cumulative distribution
// of the draws with the categories ordered from the most to the least probable, the test that
// sees a monotone tilt of the law (mass moved from the head to the tail, or back) whatever its
// functional form (docs/spec/statistics.md "Rank-cumulative test", docs/spec/harness.md
// "Layers per row"). The exponent score test (exponent_score.h) is the most powerful test
// against the one family p^t; this one keeps power against every tilt that moves the
// cumulative share of the head, p^t included.
//
// Contract:
// - p: weights over the categories (normalised here; entries 0 are outside the support and
//   must have count 0); counts: the draws per category, N = sum. Throws std::invalid_argument
//   (naming the function) on mismatched lengths, a negative, NaN or infinite weight, no
//   positive weight, a negative count, a count on a zero weight, or fewer than two distinct
//   positive weights (no order, no test).
// - Order: the positive weights grouped by equal value (exact equality of the given doubles),
//   the groups in decreasing weight. Tokens inside a group are exchangeable under any tilt that
//   depends on the weight alone, so the cumulative is taken only at group ends:
//   F0_k = sum of the first k groups' p, Fn_k = their share of the N draws, k = 1 .. K - 1.
// - Statistic D = max_k |Fn_k - F0_k|; effect: Fn_k - F0_k at the first k where the maximum is
//   reached (positive: the head drawn too often, a law too cold, as t > 1 in p^t).
// - p-value: Q(sqrt(N) D), Q Kolmogorov's limiting survival function
//   Q(x) = 2 sum_{j >= 1} (-1)^(j-1) exp(-2 j^2 x^2) (Boost's kolmogorov_smirnov_distribution).
//   Conservative here on both counts: a discrete F0 evaluated at K - 1 points makes the
//   statistic stochastically smaller than the continuous one (Noether 1963, "Note on the
//   Kolmogorov statistic in the discrete case", Metrika 7), and for continuous F0 the finite-N
//   statistic is itself smaller than its limit to first order (Stephens 1970: the corrected
//   statistic is D (sqrt(N) + 0.12 + 0.11 / sqrt(N)) > D sqrt(N)).
// - Interval: the DKW band with Massart's constant, D_true in [D - e, D + e] (clipped at 0),
//   e = sqrt(ln(2 / (1 - level)) / (2 N)), for the signed effect likewise.
// - Power at an alternative law q (RankCumulativePower): a lower bound, the probability that
//   the one point k* where |F1_k - F0_k| is largest alone exceeds the critical value
//   c = Q^-1(alpha) / sqrt(N), with N Fn_k* ~ Binomial(N, F1_k*) in its normal approximation:
//   Phi((sqrt(N) |F1_k* - F0_k*| - c sqrt(N)) / sqrt(F1_k* (1 - F1_k*))).
// - Declared effect: a KS distance delta, any tilt that moves some cumulative share of the head
//   by delta or more. As F1 (1 - F1) <= 1/4, the bound above is at least
//   RankCumulativeDistancePower(N, delta, alpha) = Phi(2 (sqrt(N) delta - Q^-1(alpha))) when
//   sqrt(N) delta >= Q^-1(alpha) (0 otherwise: no claim), for every alternative at that
//   distance and every p; RankCumulativeSampleSize inverts it:
//   N = ceil(((Q^-1(alpha) + z_power / 2) / delta)^2).
// - Deterministic; long double sums; libm only for p-values and powers (not bit-exact outputs).
// Example: p = {1/2, 1/4, 1/4}, counts {40, 30, 30}: groups {0}, {1, 2}; F0 = 1/2, Fn = 0.4,
// D = 0.1, sqrt(N) D = 1 (tests/statistical_rank_cumulative_test.cc).
#include <cstdint>
#include <span>

#include "statistical/interval.h"

namespace sampcheck::statistical {

struct RankCumulativeResult {
  double d = 0.0;          // max_k |Fn_k - F0_k|
  double statistic = 0.0;  // sqrt(N) D
  double p_value = 1.0;
  std::int64_t n = 0;
  std::int64_t groups = 0;  // K, the distinct positive weights
  std::int64_t at = -1;     // k (1-based count of groups) where D is first reached; -1 when N = 0
  double effect = 0.0;      // Fn_k - F0_k there
  Interval interval;        // the DKW band around `effect` at `level`
};

RankCumulativeResult RankCumulativeTest(std::span<const std::int64_t> counts, std::span<const double> p,
                                        double level = 0.99);
// Lower bound on the power of the test at level alpha after n draws from q (same order as p).
double RankCumulativePower(std::int64_t n, std::span<const double> p, std::span<const double> q, double alpha);
// Distribution-free lower bound on the power against every law at KS distance >= delta.
double RankCumulativeDistancePower(std::int64_t n, double delta, double alpha);
// The n at which that bound reaches `power`.
std::int64_t RankCumulativeSampleSize(double delta, double alpha, double power = 0.99);
// True when p has at least two distinct positive weights (the test is defined).
bool RankCumulativeDefined(std::span<const double> p);

}  // namespace sampcheck::statistical
