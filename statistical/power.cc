// SPDX-License-Identifier: Apache-2.0
// Power, sample size and effect sizes (statistical/power.h,
// docs/spec/statistics.md#power-and-sample-size).
#include "statistical/power.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/tools/roots.hpp>

#include "statistical/chi_square.h"
#include "statistical/detail/checks.h"
#include "statistical/detail/numeric.h"
#include "statistical/exact_tests.h"

namespace sampcheck::statistical {
namespace {

using detail::Fail;
using detail::Num;

using detail::ToDouble;

using detail::CheckDf;

// Power at lambda given the critical value c (so c is computed once per search).
double PowerAt(double c, double df, double lambda) { return NoncentralChiSquareSf(c, df, lambda); }

// Power of the one-sided exact test; see the header.
double ExactPower(std::int64_t n, double p0, double p1, double alpha) {
  const boost::math::binomial_distribution<double> null(ToDouble(n), p0), alt(ToDouble(n), p1);
  if (p1 > p0) {
    // P(X >= k | p0) is nonincreasing in k: first k in [0, n + 1] with tail <= alpha.
    std::int64_t lo = 0, hi = n + 1;
    auto tail = [&](std::int64_t k) { return k == 0 ? 1.0 : boost::math::cdf(boost::math::complement(null, ToDouble(k - 1))); };
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (tail(mid) <= alpha) hi = mid; else lo = mid + 1;
    }
    if (lo > n) return 0.0;
    return lo == 0 ? 1.0 : boost::math::cdf(boost::math::complement(alt, ToDouble(lo - 1)));
  }
  // P(X <= k | p0) is nondecreasing in k: last k in [-1, n] with cdf <= alpha.
  std::int64_t lo = -1, hi = n;
  while (lo < hi) {
    const std::int64_t mid = hi - (hi - lo) / 2;
    if (boost::math::cdf(null, ToDouble(mid)) <= alpha) lo = mid; else hi = mid - 1;
  }
  return lo < 0 ? 0.0 : boost::math::cdf(alt, ToDouble(lo));
}

void CheckBinomialArgs(const char* fn, double p0, double p1, double alpha) {
  detail::CheckProbability(fn, "p0", p0);
  detail::CheckProbability(fn, "p1", p1);
  detail::CheckOpenUnit(fn, "alpha", alpha);
}

}  // namespace

double ChiSquarePower(double df, double lambda, double alpha) {
  const char* fn = "ChiSquarePower";
  CheckDf(fn, df);
  detail::CheckOpenUnit(fn, "alpha", alpha);
  if (!(lambda >= 0.0) || !std::isfinite(lambda)) Fail(fn, "lambda = " + Num(lambda) + " is not a finite value >= 0");
  return PowerAt(ChiSquareUpperQuantile(df, alpha), df, lambda);
}

std::int64_t ChiSquareSampleSize(double df, double w2, double alpha, double power) {
  const char* fn = "ChiSquareSampleSize";
  CheckDf(fn, df);
  detail::CheckOpenUnit(fn, "alpha", alpha);
  detail::CheckOpenUnit(fn, "power", power);
  if (!(w2 > 0.0) || !std::isfinite(w2)) Fail(fn, "w2 = " + Num(w2) + " is not a finite value > 0");
  const double c = ChiSquareUpperQuantile(df, alpha);
  if (PowerAt(c, df, 0.0) >= power) return 1;  // only when power <= alpha
  // Bracket the noncentrality, then TOMS 748 on power(lambda) - target (increasing).
  double hi = 1.0;
  while (PowerAt(c, df, hi) < power) hi *= 2.0;
  std::uintmax_t iterations = 200;
  const auto root = boost::math::tools::toms748_solve([&](double l) { return PowerAt(c, df, l) - power; }, 0.0, hi,
                                                      boost::math::tools::eps_tolerance<double>(40), iterations);
  double n_real = std::ceil(root.second / w2);
  if (!(n_real < 9.0e18)) Fail(fn, "the sample size exceeds 9e18 (w2 = " + Num(w2) + ")");
  auto n = std::max<std::int64_t>(1, static_cast<std::int64_t>(n_real));
  // The root is bracketed to ~1e-12 relative; settle the integer exactly.
  while (n > 1 && PowerAt(c, df, ToDouble(n - 1) * w2) >= power) --n;
  while (PowerAt(c, df, ToDouble(n) * w2) < power) ++n;
  return n;
}

double CohenW2(std::span<const double> p0, std::span<const double> p1) {
  const char* fn = "CohenW2";
  detail::CheckSameSize(fn, "p0", p0.size(), "p1", p1.size());
  const double s0 = detail::CheckWeights(fn, "p0", p0), s1 = detail::CheckWeights(fn, "p1", p1);
  double w2 = 0.0;
  for (std::size_t t = 0; t < p0.size(); ++t) {
    const double a = p0[t] / s0, b = p1[t] / s1;
    if (a == 0.0) {
      if (b > 0.0) Fail(fn, "p1[" + std::to_string(t) + "] > 0 where p0 is 0 (a structural change, infinite w2)");
      continue;
    }
    w2 += (b - a) * (b - a) / a;
  }
  return w2;
}

double BinomialPower(std::int64_t n, double p0, double p1, double alpha) {
  const char* fn = "BinomialPower";
  if (n < 1) Fail(fn, "n = " + std::to_string(n) + " is not >= 1");
  CheckBinomialArgs(fn, p0, p1, alpha);
  return ExactPower(n, p0, p1, alpha);
}

std::int64_t BinomialSampleSize(double p0, double p1, double alpha, double power) {
  const char* fn = "BinomialSampleSize";
  CheckBinomialArgs(fn, p0, p1, alpha);
  detail::CheckOpenUnit(fn, "power", power);
  if (p1 == p0) Fail(fn, "p1 = p0 = " + Num(p0) + ": the test has no power");
  if (ExactPower(1, p0, p1, alpha) >= power) return 1;
  std::int64_t lo = 1, hi = 2;  // invariant: power(lo) < target
  while (ExactPower(hi, p0, p1, alpha) < power) {
    lo = hi;
    if (hi > (std::int64_t{1} << 52)) Fail(fn, "no n below 2^53 reaches the power");
    hi *= 2;
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (ExactPower(mid, p0, p1, alpha) >= power) hi = mid; else lo = mid;
  }
  return hi;
}

EffectEstimate TotalVariation(std::span<const std::int64_t> counts, std::span<const double> p, double level) {
  const char* fn = "TotalVariation";
  detail::CheckSameSize(fn, "counts", counts.size(), "p", p.size());
  detail::CheckCounts(fn, "counts", counts);
  const double s = detail::CheckWeights(fn, "p", p);
  detail::CheckOpenUnit(fn, "level", level);
  const std::int64_t n = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  if (n == 0) Fail(fn, "counts sum to 0");
  double l1 = 0.0, symbols = 0.0;
  bool any_zero = false;
  for (std::size_t t = 0; t < p.size(); ++t) {
    l1 += std::abs(ToDouble(counts[t]) / ToDouble(n) - p[t] / s);
    if (p[t] > 0.0) symbols += 1.0; else any_zero = true;
  }
  if (any_zero) symbols += 1.0;
  const double tv = 0.5 * l1;
  const double e = std::sqrt(2.0 * (symbols * std::log(2.0) - std::log1p(-level)) / ToDouble(n));
  return {tv, {std::max(0.0, tv - 0.5 * e), std::min(1.0, tv + 0.5 * e), level}};
}

EffectEstimate TargetedDelta(std::int64_t k, std::int64_t n, double p0, double level) {
  detail::CheckProbability("TargetedDelta", "p0", p0);
  const Interval cp = ClopperPearson(k, n, level);
  return {ToDouble(k) / ToDouble(n) - p0, {cp.lower - p0, cp.upper - p0, level}};
}

}  // namespace sampcheck::statistical
