// SPDX-License-Identifier: Apache-2.0
#pragma once
// Power, sample size and effect sizes (docs/spec/statistics.md#power-and-sample-size; docs/method.md
// "Alpha budget": each case derives n for power 0.99 at its declared effect).
//
// Contract:
// - ChiSquarePower(df, lambda, alpha) = P(X > c) for X ~ chi^2(df, lambda), with c the upper
//   alpha quantile of chi^2(df). Noncentral law per chi_square.h: Boost up to lambda = 1e9,
//   Sankaran's normal approximation past it.
// - A chi-square test with per-draw effect w2 has lambda = n w2 (Cohen 1988 w^2 =
//   sum (p1 - p0)^2 / p0; for the Cressie–Read family the same noncentrality holds to first
//   order, Cressie & Read 1984 Section 4). ChiSquareSampleSize returns the least n >= 1 with
//   ChiSquarePower(df, n w2, alpha) >= power (power is increasing in lambda, so this n is exact
//   for the approximation: n - 1 falls short).
// - CohenW2(p0, p1): p0, p1 weights (normalised by their sums), same length; a token with
//   p0 = 0 and p1 > 0 throws (that change is structural, not an omnibus effect).
// - BinomialPower(n, p0, p1, alpha): the one-sided exact binomial test of H0: p = p0 at level
//   alpha, alternative "greater" when p1 > p0, else "less": the critical count is the first k
//   with P(X >= k | p0) <= alpha (or the last with P(X <= k | p0) <= alpha); the power is that
//   tail under p1. Exact (Boost `binomial_distribution`).
// - BinomialSampleSize(p0, p1, alpha, power): exact power saw-tooths in n (discreteness), so
//   "minimal n" is the first crossing found by doubling then bisection keeping
//   power(lo) < target <= power(hi): the returned n has power(n) >= target > power(n - 1).
//   A smaller n on an earlier tooth can exist when the tooth peaks above the target; it is not
//   searched for. p1 == p0 throws.
// - TotalVariation(counts, p, level): estimate (1/2) sum |counts / n - p| (p normalised; n
//   counts every token). Band: the L1 deviation inequality of Weissman, Ordentlich, Seroussi,
//   Verdu & Weinberger (HP Labs HPL-2003-97, 2003, Thm 2.1): P(||q_hat - q||_1 >= e) <=
//   (2^K - 2) exp(-n e^2 / 2) over an alphabet of K symbols, so with probability >= level,
//   ||q_hat - q||_1 <= e = sqrt(2 (K ln 2 + ln(1 / (1 - level))) / n), and by the triangle
//   inequality |TV_hat - TV(q, p)| <= e / 2. K = #{t : p_t > 0} + [any p_t == 0] (tokens of
//   p = 0 merged into one symbol, which leaves TV unchanged). Distribution-free and
//   conservative: at K = 1000, n = 1e6 the half-width is ~0.019, larger than the ~0.013 bias
//   of the plug-in estimate under a perfect sampler (docs/method.md "Reporting").
// - TargetedDelta(k, n, p0, level): estimate k / n - p0 with the Clopper–Pearson interval of
//   k / n shifted by -p0 ("boundary mass +0.0051 [0.0042, 0.0060]").
// Example: BinomialSampleSize(0.005, 0.0, 1e-6, 0.99) == 2757 (docs/method.md: a dropped boundary
//   token of p ~ 0.005 is caught with 2,757 draws).

#include <cstdint>
#include <span>

#include "statistical/interval.h"

namespace sampcheck::statistical {

double ChiSquarePower(double df, double lambda, double alpha);
std::int64_t ChiSquareSampleSize(double df, double w2, double alpha, double power = 0.99);
double CohenW2(std::span<const double> p0, std::span<const double> p1);

double BinomialPower(std::int64_t n, double p0, double p1, double alpha);
std::int64_t BinomialSampleSize(double p0, double p1, double alpha, double power = 0.99);

struct EffectEstimate {
  double estimate = 0.0;
  Interval interval;
};

EffectEstimate TotalVariation(std::span<const std::int64_t> counts, std::span<const double> p, double level = 0.95);
EffectEstimate TargetedDelta(std::int64_t k, std::int64_t n, double p0, double level = 0.95);

}  // namespace sampcheck::statistical
