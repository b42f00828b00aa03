// SPDX-License-Identifier: Apache-2.0
// Continuous noise laws: CDFs, binned PIT chi-square, KS, exact counts
// (statistical/continuous_laws.h, docs/spec/statistics.md#continuous-laws).
#include "statistical/continuous_laws.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/extreme_value.hpp>
#include <boost/math/distributions/kolmogorov_smirnov.hpp>
#include <boost/math/distributions/uniform.hpp>

#include "statistical/chi_square.h"
#include "statistical/detail/checks.h"

namespace sampcheck::statistical {
namespace {

using detail::Fail;
using detail::Num;

void CheckLaw(const char* fn, ContinuousLaw law) {
  if (law != ContinuousLaw::kUniform01 && law != ContinuousLaw::kExponential1 && law != ContinuousLaw::kGumbel) {
    Fail(fn, "law is not kUniform01, kExponential1 or kGumbel");
  }
}

// Boost rejects infinite arguments and, for U(0,1), values outside the support; both ends are
// handled here so every real x has a CDF.
template <bool kComplement>
double Evaluate(const char* fn, ContinuousLaw law, double x) {
  CheckLaw(fn, law);
  if (std::isnan(x)) Fail(fn, "x is NaN");
  const double below = kComplement ? 1.0 : 0.0, above = kComplement ? 0.0 : 1.0;
  if (x == -std::numeric_limits<double>::infinity()) return below;
  if (x == std::numeric_limits<double>::infinity()) return above;
  auto eval = [&](const auto& dist) {
    if constexpr (kComplement) return boost::math::cdf(boost::math::complement(dist, x));
    else return boost::math::cdf(dist, x);
  };
  switch (law) {
    case ContinuousLaw::kUniform01:
      if (x <= 0.0) return below;
      if (x >= 1.0) return above;
      return eval(boost::math::uniform_distribution<double>(0.0, 1.0));
    case ContinuousLaw::kExponential1:
      if (x <= 0.0) return below;
      return eval(boost::math::exponential_distribution<double>(1.0));
    case ContinuousLaw::kGumbel:
      return eval(boost::math::extreme_value_distribution<double>(0.0, 1.0));
  }
  return below;  // unreachable: CheckLaw
}

std::vector<double> SortedPit(const char* fn, std::span<const double> samples, ContinuousLaw law) {
  std::vector<double> u;
  u.reserve(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (std::isnan(samples[i])) Fail(fn, "samples[" + std::to_string(i) + "] is NaN");
    u.push_back(Evaluate<false>(fn, law, samples[i]));
  }
  std::sort(u.begin(), u.end());
  return u;
}

}  // namespace

double LawCdf(ContinuousLaw law, double x) { return Evaluate<false>("LawCdf", law, x); }
double LawSf(ContinuousLaw law, double x) { return Evaluate<true>("LawSf", law, x); }

double LawQuantile(ContinuousLaw law, double probability) {
  const char* fn = "LawQuantile";
  CheckLaw(fn, law);
  detail::CheckProbability(fn, "probability", probability);
  switch (law) {
    case ContinuousLaw::kUniform01:
      return probability;
    case ContinuousLaw::kExponential1:
      if (probability == 1.0) return std::numeric_limits<double>::infinity();
      return boost::math::quantile(boost::math::exponential_distribution<double>(1.0), probability);
    case ContinuousLaw::kGumbel:
      if (probability == 0.0) return -std::numeric_limits<double>::infinity();
      if (probability == 1.0) return std::numeric_limits<double>::infinity();
      return boost::math::quantile(boost::math::extreme_value_distribution<double>(0.0, 1.0), probability);
  }
  return 0.0;  // unreachable: CheckLaw
}

BinnedPitResult BinnedPitTest(std::span<const double> samples, ContinuousLaw law, std::size_t bins, double lambda) {
  const char* fn = "BinnedPitTest";
  CheckLaw(fn, law);
  if (bins < 2) Fail(fn, "bins = " + std::to_string(bins) + " is not >= 2");
  if (!std::isfinite(lambda)) Fail(fn, "lambda = " + Num(lambda) + " is not finite");
  BinnedPitResult r;
  r.lambda = lambda;
  r.n = static_cast<std::int64_t>(samples.size());
  r.bins = bins;
  r.expected_per_bin = static_cast<double>(samples.size()) / static_cast<double>(bins);
  if (r.expected_per_bin < DefaultEMin(lambda)) {
    Fail(fn, "n / bins = " + Num(r.expected_per_bin) + " is below E_min = " + Num(DefaultEMin(lambda)) +
                 " (use fewer bins or more samples)");
  }
  r.counts.assign(bins, 0);
  const double k = static_cast<double>(bins);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (std::isnan(samples[i])) Fail(fn, "samples[" + std::to_string(i) + "] is NaN");
    const double u = Evaluate<false>(fn, law, samples[i]);
    // floor(u k) is exact for k a power of two; otherwise u k may round up across j + 1 only
    // when u is within an ulp of the edge, a 2^-53 relative effect on the bin masses.
    const auto j = std::min(bins - 1, static_cast<std::size_t>(std::floor(u * k)));
    ++r.counts[j];
  }
  std::vector<double> observed(bins), expected(bins, r.expected_per_bin);
  for (std::size_t j = 0; j < bins; ++j) observed[j] = static_cast<double>(r.counts[j]);
  r.statistic = std::max(0.0, PowerDivergence(observed, expected, lambda));  // >= 0 but for rounding
  r.df = k - 1.0;
  r.p_value = ChiSquareSf(r.statistic, r.df);
  return r;
}

KolmogorovSmirnovResult KolmogorovSmirnovTest(std::span<const double> samples, ContinuousLaw law) {
  const char* fn = "KolmogorovSmirnovTest";
  CheckLaw(fn, law);
  if (samples.empty()) Fail(fn, "samples is empty");
  const std::vector<double> u = SortedPit(fn, samples, law);
  const double n = static_cast<double>(u.size());
  double d = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    const double above = static_cast<double>(i + 1) / n - u[i];
    const double below = u[i] - static_cast<double>(i) / n;
    d = std::max(d, std::max(above, below));
  }
  KolmogorovSmirnovResult r;
  r.statistic = d;
  r.n = static_cast<std::int64_t>(u.size());
  r.p_value = boost::math::cdf(boost::math::complement(boost::math::kolmogorov_smirnov_distribution<double>(n), d));
  return r;
}

BinomialTestResult ExactCountTest(std::int64_t count, std::int64_t n, double probability, Alternative alternative) {
  return BinomialTest(count, n, probability, alternative);
}

std::int64_t CountBelow(std::span<const double> samples, double threshold) {
  return static_cast<std::int64_t>(std::count_if(samples.begin(), samples.end(), [&](double x) { return x < threshold; }));
}

std::int64_t CountAbove(std::span<const double> samples, double threshold) {
  return static_cast<std::int64_t>(std::count_if(samples.begin(), samples.end(), [&](double x) { return x > threshold; }));
}

}  // namespace sampcheck::statistical
