// SPDX-License-Identifier: Apache-2.0
// Central and noncentral chi-square laws (statistical/chi_square.h,
// docs/spec/statistics.md#chi-square-laws).
#include "statistical/chi_square.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/tools/roots.hpp>

#include "statistical/detail/checks.h"

namespace sampcheck::statistical {
namespace {

using detail::Fail;
using detail::Num;

using detail::CheckDf;

void CheckX(const char* function, double x) {
  if (!(x >= 0.0)) Fail(function, "x = " + Num(x) + " is not >= 0");
}

void CheckLambda(const char* function, double lambda) {
  if (!(lambda >= 0.0) || !std::isfinite(lambda)) {
    Fail(function, "lambda = " + Num(lambda) + " is not a finite value >= 0");
  }
}

// Sankaran's approximation (chi_square.h): returns {P(X <= x), P(X > x)}, each from the normal
// law's own tail so that neither is 1 - the other.
std::pair<double, double> Sankaran(double x, double df, double lambda) {
  const double kl = df + lambda;
  const double h = 1.0 - 2.0 / 3.0 * kl * (df + 3.0 * lambda) / ((df + 2.0 * lambda) * (df + 2.0 * lambda));
  const double p = (df + 2.0 * lambda) / (kl * kl);
  const double m = (h - 1.0) * (1.0 - 3.0 * h);
  const double mean = 1.0 + h * p * (h - 1.0 - 0.5 * (2.0 - h) * m * p);
  const double sd = h * std::sqrt(2.0 * p) * (1.0 + 0.5 * m * p);
  const double z = (std::pow(x / kl, h) - mean) / sd;
  const boost::math::normal_distribution<double> unit;
  return {boost::math::cdf(unit, z), boost::math::cdf(boost::math::complement(unit, z))};
}

bool UseBoost(double lambda) { return lambda <= kNoncentralBoostMax; }

// {cdf, sf} of chi^2(df, lambda) at x.
std::pair<double, double> Noncentral(double x, double df, double lambda) {
  if (std::isinf(x)) return {1.0, 0.0};
  if (x == 0.0) return {0.0, 1.0};
  if (UseBoost(lambda)) {
    try {
      const boost::math::non_central_chi_squared_distribution<double> law(df, lambda);
      return {boost::math::cdf(law, x), boost::math::cdf(boost::math::complement(law, x))};
    } catch (const std::runtime_error&) {
      // Series did not converge: fall through to the approximation (chi_square.h contract).
    }
  }
  return Sankaran(x, df, lambda);
}

// lambda with P(X <= x | lambda) = target; 0 when P(X <= x | 0) <= target already.
double SolveNoncentrality(double x, double df, double target) {
  if (Noncentral(x, df, 0.0).first <= target) return 0.0;
  try {
    const double lambda = boost::math::non_central_chi_squared_distribution<double>::find_non_centrality(df, x, target);
    if (UseBoost(lambda)) return lambda;
  } catch (const std::runtime_error&) {
  }
  // Past Boost's range: bracket [0, hi] with the CDF below target at hi, then TOMS 748.
  double hi = std::max(1.0, 2.0 * x);
  while (Noncentral(x, df, hi).first > target) hi *= 2.0;
  auto f = [&](double lambda) { return Noncentral(x, df, lambda).first - target; };
  std::uintmax_t iterations = 200;
  const auto root = boost::math::tools::toms748_solve(f, 0.0, hi, boost::math::tools::eps_tolerance<double>(50), iterations);
  return 0.5 * (root.first + root.second);
}

}  // namespace

double ChiSquareSf(double x, double df) {
  CheckDf("ChiSquareSf", df);
  CheckX("ChiSquareSf", x);
  if (std::isinf(x)) return 0.0;
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared_distribution<double>(df), x));
}

double ChiSquareUpperQuantile(double df, double alpha) {
  CheckDf("ChiSquareUpperQuantile", df);
  detail::CheckOpenUnit("ChiSquareUpperQuantile", "alpha", alpha);
  return boost::math::quantile(boost::math::complement(boost::math::chi_squared_distribution<double>(df), alpha));
}

double NoncentralChiSquareCdf(double x, double df, double lambda) {
  CheckDf("NoncentralChiSquareCdf", df);
  CheckX("NoncentralChiSquareCdf", x);
  CheckLambda("NoncentralChiSquareCdf", lambda);
  return Noncentral(x, df, lambda).first;
}

double NoncentralChiSquareSf(double x, double df, double lambda) {
  CheckDf("NoncentralChiSquareSf", df);
  CheckX("NoncentralChiSquareSf", x);
  CheckLambda("NoncentralChiSquareSf", lambda);
  return Noncentral(x, df, lambda).second;
}

Interval NoncentralityInterval(double x, double df, double level) {
  CheckDf("NoncentralityInterval", df);
  detail::CheckOpenUnit("NoncentralityInterval", "level", level);
  if (!(x >= 0.0) || !std::isfinite(x)) Fail("NoncentralityInterval", "x = " + Num(x) + " is not a finite value >= 0");
  const double tail = 0.5 * (1.0 - level);
  return {SolveNoncentrality(x, df, 1.0 - tail), SolveNoncentrality(x, df, tail), level};
}

}  // namespace sampcheck::statistical
