// SPDX-License-Identifier: Apache-2.0
// Exact binomial and Poisson tests (statistical/exact_tests.h,
// docs/spec/statistics.md#exact-tests).
#include "statistical/exact_tests.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/special_functions/gamma.hpp>

#include "core/split_mix64.h"
#include "statistical/detail/checks.h"
#include "statistical/detail/numeric.h"
#include "statistical/goodness_of_fit.h"

namespace sampcheck::statistical {
namespace {

using detail::Fail;
using detail::Num;

// R's relErr in binom.test / poisson.test: masses within 1e-7 relative count as equal.
constexpr double kRelErr = 1.0 + 1e-7;

using Binomial = boost::math::binomial_distribution<double>;
using Poisson = boost::math::poisson_distribution<double>;

using detail::ToDouble;

// P(X <= k) and P(X >= k) with the empty and full cases explicit.
template <class Law>
double AtMost(const Law& law, std::int64_t k) {
  return k < 0 ? 0.0 : boost::math::cdf(law, ToDouble(k));
}
template <class Law>
double AtLeast(const Law& law, std::int64_t k) {
  return k <= 0 ? 1.0 : boost::math::cdf(boost::math::complement(law, ToDouble(k - 1)));
}

// Smallest j in [lo, hi] with pmf(j) <= bound, given pmf nonincreasing on [lo, hi]; hi + 1 if
// none.
template <class Law>
std::int64_t FirstAtMost(const Law& law, std::int64_t lo, std::int64_t hi, double bound) {
  std::int64_t a = lo, b = hi + 1;
  while (a < b) {
    const std::int64_t mid = a + (b - a) / 2;
    if (boost::math::pdf(law, ToDouble(mid)) <= bound) b = mid; else a = mid + 1;
  }
  return a;
}
// Largest j in [lo, hi] with pmf(j) <= bound, given pmf nondecreasing on [lo, hi]; lo - 1 if
// none.
template <class Law>
std::int64_t LastAtMost(const Law& law, std::int64_t lo, std::int64_t hi, double bound) {
  std::int64_t a = lo - 1, b = hi;
  while (a < b) {
    const std::int64_t mid = b - (b - a) / 2;
    if (boost::math::pdf(law, ToDouble(mid)) <= bound) a = mid; else b = mid - 1;
  }
  return a;
}

double Cap(double p) { return std::min(1.0, p); }

// One-sided interval ends as R: kLess -> [low_end, upper(1 - level)], kGreater ->
// [lower(1 - level), high_end], kTwoSided -> both at (1 - level) / 2.
struct Tails {
  double lower_alpha, upper_alpha;  // 0 means "this end is the natural bound"
};
Tails TailsFor(Alternative a, double level) {
  switch (a) {
    case Alternative::kLess: return {0.0, 1.0 - level};
    case Alternative::kGreater: return {1.0 - level, 0.0};
    case Alternative::kTwoSided: break;
  }
  return {0.5 * (1.0 - level), 0.5 * (1.0 - level)};
}

Interval BinomialInterval(std::int64_t k, std::int64_t n, Tails t, double level) {
  Interval iv{0.0, 1.0, level};
  if (t.lower_alpha > 0.0 && k > 0) {
    iv.lower = Binomial::find_lower_bound_on_p(ToDouble(n), ToDouble(k), t.lower_alpha, Binomial::clopper_pearson_exact_interval);
  }
  if (t.upper_alpha > 0.0 && k < n) {
    iv.upper = Binomial::find_upper_bound_on_p(ToDouble(n), ToDouble(k), t.upper_alpha, Binomial::clopper_pearson_exact_interval);
  }
  return iv;
}

void CheckAlternative(const char* fn, Alternative a) {
  if (a != Alternative::kTwoSided && a != Alternative::kLess && a != Alternative::kGreater) {
    Fail(fn, "alternative is not kTwoSided, kLess or kGreater");
  }
}

}  // namespace

Interval ClopperPearson(std::int64_t k, std::int64_t n, double level) {
  const char* fn = "ClopperPearson";
  if (n < 1) Fail(fn, "n = " + std::to_string(n) + " is not >= 1");
  if (k < 0 || k > n) Fail(fn, "k = " + std::to_string(k) + " is not in [0, n = " + std::to_string(n) + "]");
  detail::CheckOpenUnit(fn, "level", level);
  return BinomialInterval(k, n, TailsFor(Alternative::kTwoSided, level), level);
}

BinomialTestResult BinomialTest(std::int64_t k, std::int64_t n, double p0, Alternative alternative, double level) {
  const char* fn = "BinomialTest";
  if (n < 1) Fail(fn, "n = " + std::to_string(n) + " is not >= 1");
  if (k < 0 || k > n) Fail(fn, "k = " + std::to_string(k) + " is not in [0, n = " + std::to_string(n) + "]");
  detail::CheckProbability(fn, "p0", p0);
  detail::CheckOpenUnit(fn, "level", level);
  CheckAlternative(fn, alternative);

  BinomialTestResult r{k, n, p0, alternative, 1.0, ToDouble(k) / ToDouble(n), {}};
  r.interval = BinomialInterval(k, n, TailsFor(alternative, level), level);
  const Binomial law(ToDouble(n), p0);
  switch (alternative) {
    case Alternative::kLess: r.p_value = AtMost(law, k); return r;
    case Alternative::kGreater: r.p_value = AtLeast(law, k); return r;
    case Alternative::kTwoSided: break;
  }
  if (p0 == 0.0) { r.p_value = k == 0 ? 1.0 : 0.0; return r; }
  if (p0 == 1.0) { r.p_value = k == n ? 1.0 : 0.0; return r; }
  const double m = ToDouble(n) * p0;
  const double bound = boost::math::pdf(law, ToDouble(k)) * kRelErr;
  if (ToDouble(k) == m) {
    r.p_value = 1.0;
  } else if (ToDouble(k) < m) {
    // pmf is nonincreasing on [ceil(m), n]: ceil(n p0) >= floor((n + 1) p0), the mode.
    const std::int64_t j = FirstAtMost(law, static_cast<std::int64_t>(std::ceil(m)), n, bound);
    r.p_value = Cap(AtMost(law, k) + (j > n ? 0.0 : AtLeast(law, j)));
  } else {
    // pmf is nondecreasing on [0, floor(m)]: floor(n p0) <= floor((n + 1) p0).
    const std::int64_t j = LastAtMost(law, 0, static_cast<std::int64_t>(std::floor(m)), bound);
    r.p_value = Cap(AtMost(law, j) + AtLeast(law, k));
  }
  return r;
}

PoissonTestResult PoissonTest(std::int64_t k, double mu, Alternative alternative, double level) {
  const char* fn = "PoissonTest";
  if (k < 0) Fail(fn, "k = " + std::to_string(k) + " is negative");
  if (!(mu > 0.0) || !std::isfinite(mu)) Fail(fn, "mu = " + Num(mu) + " is not a finite value > 0");
  detail::CheckOpenUnit(fn, "level", level);
  CheckAlternative(fn, alternative);

  PoissonTestResult r{k, mu, alternative, 1.0, {}};
  const Tails t = TailsFor(alternative, level);
  r.interval = {0.0, std::numeric_limits<double>::infinity(), level};
  if (t.lower_alpha > 0.0 && k > 0) r.interval.lower = boost::math::gamma_p_inv(ToDouble(k), t.lower_alpha);
  if (t.upper_alpha > 0.0) r.interval.upper = boost::math::gamma_q_inv(ToDouble(k) + 1.0, t.upper_alpha);

  const Poisson law(mu);
  switch (alternative) {
    case Alternative::kLess: r.p_value = AtMost(law, k); return r;
    case Alternative::kGreater: r.p_value = AtLeast(law, k); return r;
    case Alternative::kTwoSided: break;
  }
  const double bound = boost::math::pdf(law, ToDouble(k)) * kRelErr;
  if (ToDouble(k) == mu) {
    r.p_value = 1.0;
  } else if (ToDouble(k) < mu) {
    // pmf(i + 1) / pmf(i) = mu / (i + 1) < 1 for i >= mu: nonincreasing on [ceil(mu), inf).
    // Find a finite end with pmf <= bound by doubling, as R's poisson.test does.
    const std::int64_t lo = static_cast<std::int64_t>(std::ceil(mu));
    std::int64_t hi = std::max<std::int64_t>(lo, static_cast<std::int64_t>(std::ceil(2.0 * mu - ToDouble(k))));
    while (boost::math::pdf(law, ToDouble(hi)) > bound) hi *= 2;
    const std::int64_t j = FirstAtMost(law, lo, hi, bound);
    r.p_value = Cap(AtMost(law, k) + AtLeast(law, j));
  } else {
    const std::int64_t j = LastAtMost(law, 0, static_cast<std::int64_t>(std::floor(mu)), bound);
    r.p_value = Cap(AtMost(law, j) + AtLeast(law, k));
  }
  return r;
}

MonteCarloResult MonteCarloGoodnessOfFit(std::span<const std::int64_t> counts, std::span<const double> p,
                                         double lambda, std::int64_t replicates, std::uint64_t seed) {
  const char* fn = "MonteCarloGoodnessOfFit";
  detail::CheckSameSize(fn, "counts", counts.size(), "p", p.size());
  detail::CheckCounts(fn, "counts", counts);
  const double p_sum = detail::CheckWeights(fn, "p", p);
  if (replicates < 1) Fail(fn, "replicates = " + std::to_string(replicates) + " is not >= 1");
  if (!std::isfinite(lambda)) Fail(fn, "lambda = " + Num(lambda) + " is not finite");

  std::vector<std::size_t> tokens;  // categories: tokens with p > 0
  std::vector<double> observed, expected, cumulative;
  std::int64_t n = 0;
  for (std::size_t t = 0; t < p.size(); ++t) {
    if (p[t] == 0.0) {
      if (counts[t] > 0) Fail(fn, "counts[" + std::to_string(t) + "] > 0 on a token of p = 0 (structural)");
      continue;
    }
    tokens.push_back(t);
    n += counts[t];
  }
  if (n == 0) Fail(fn, "counts sum to 0");
  double c = 0.0;
  for (std::size_t t : tokens) {
    observed.push_back(ToDouble(counts[t]));
    expected.push_back(ToDouble(n) * p[t] / p_sum);
    c += p[t] / p_sum;
    cumulative.push_back(c);
  }
  MonteCarloResult r;
  r.statistic = PowerDivergence(observed, expected, lambda);
  r.replicates = replicates;
  r.seed = seed;
  const double threshold = r.statistic * (1.0 - 64.0 * std::numeric_limits<double>::epsilon());
  SplitMix64 rng(seed);
  std::vector<double> sim(tokens.size());
  for (std::int64_t rep = 0; rep < replicates; ++rep) {
    std::fill(sim.begin(), sim.end(), 0.0);
    for (std::int64_t i = 0; i < n; ++i) {
      // 53-bit uniform in [0, 1), scaled to the cumulative total so rounding of the sum cannot
      // leave a gap at the top.
      const double u = ToDouble(static_cast<std::int64_t>(rng.Next() >> 11)) * 0x1p-53 * cumulative.back();
      const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
      const auto idx = std::min<std::size_t>(static_cast<std::size_t>(it - cumulative.begin()), sim.size() - 1);
      sim[idx] += 1.0;
    }
    if (PowerDivergence(sim, expected, lambda) >= threshold) ++r.at_least_as_extreme;
  }
  r.p_value = (1.0 + ToDouble(r.at_least_as_extreme)) / (1.0 + ToDouble(replicates));
  return r;
}

}  // namespace sampcheck::statistical
