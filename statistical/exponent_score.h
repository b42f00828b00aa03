// SPDX-License-Identifier: Apache-2.0
#pragma once
// The exponent score test: a one-degree-of-freedom test against the smooth family
// p_i(t) = p_i^t / sum_j p_j^t (every logit scaled by t: a temperature off by the factor 1/t),
// the diffuse fault an omnibus chi-square with many bins barely sees
// (docs/spec/statistics.md "Exponent score test", docs/spec/harness.md "Layers per row").
//
// Contract:
// - p: weights over the categories (normalised here; entries 0 are outside the support and
//   must have count 0: a draw there is structural, not this test's business); counts: the
//   draws per category, N = sum. Throws std::invalid_argument (naming the function) on
//   mismatched lengths, a negative, NaN or infinite weight, no positive weight, a negative
//   count or a count on a zero weight.
// - Under H0 (t = 1) the draws are i.i.d. from p. The score of t at t = 1 is
//   S = sum_i n_i (ln p_i - mu0), mu0 = sum_i p_i ln p_i; E S = 0 and Var S = N v0 with
//   v0 = sum_i p_i (ln p_i - mu0)^2 (the variance of ln p(X) for one draw X ~ p). The
//   statistic Z = S / sqrt(N v0) is asymptotically N(0, 1) (central limit theorem on the
//   bounded variable ln p(X)); the p-value is two-sided, 2 Phi(-|Z|). By the Neyman–Pearson
//   lemma applied locally, this is the locally most powerful test of t = 1 against t != 1
//   (Cox & Hinkley 1974, Section 4.8): its noncentrality is N (t - 1)^2 v0 against 1 df,
//   where an omnibus test spreads the same signal over |S| - 1 df.
// - Effect: the one-step estimate of t - 1, S / (N v0), with the Wald interval
//   +- z_{(1 + level) / 2} / sqrt(N v0).
// - A row with v0 = 0 (a flat support: every p_i equal) is unchanged by any t; the test is
//   then undefined and ExponentScoreTest throws; ExponentVariance says so first (returns 0).
// - Power at t (two-sided, level alpha): under p(t), ln p(X) - mu0 has mean m_t and variance
//   v_t (computed exactly from p(t)); Z ~ N(sqrt(N) m_t / sqrt(v0), v_t / v0), so
//   power = Phi((sqrt(N) m_t - z sqrt(v0)) / sqrt(v_t)) + Phi((-sqrt(N) m_t - z sqrt(v0)) / sqrt(v_t)),
//   z = z_{1 - alpha / 2}. ExponentPower takes the smaller of t = 1 + mde and t = 1 - mde.
//   ExponentSampleSize returns ceil(max over both t of ((z sqrt(v0) + z_power sqrt(v_t)) / m_t)^2),
//   which reaches the power on the near tail alone (the far tail only adds).
// - Deterministic; ln from the C library (a p-value, not a bit-exact output: a last-bit
//   difference moves p by ~1e-16 relative).
// Example: p = {1/2, 1/4, 1/4}: mu0 = -1.5 ln 2, v0 = 0.25 (ln 2)^2 (tests/statistical_exponent_score_test.cc).
#include <cstdint>
#include <span>

#include "statistical/interval.h"

namespace sampcheck::statistical {

struct ExponentScoreResult {
  double z = 0.0;
  double p_value = 1.0;
  std::int64_t n = 0;
  double mean_log_p = 0.0;  // mu0
  double variance = 0.0;    // v0
  double estimate = 0.0;    // one-step estimate of t - 1
  Interval interval;        // its Wald interval at `level`
};

double ExponentVariance(std::span<const double> p);  // v0 (0 for a flat support)
ExponentScoreResult ExponentScoreTest(std::span<const std::int64_t> counts, std::span<const double> p,
                                      double level = 0.99);
double ExponentPower(std::int64_t n, std::span<const double> p, double mde, double alpha);
std::int64_t ExponentSampleSize(std::span<const double> p, double mde, double alpha, double power = 0.99);

}  // namespace sampcheck::statistical
