// SPDX-License-Identifier: Apache-2.0
// Cressie–Read goodness of fit (statistical/goodness_of_fit.h,
// docs/spec/statistics.md#goodness-of-fit).
#include "statistical/goodness_of_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "statistical/chi_square.h"
#include "statistical/detail/checks.h"
#include "statistical/pooling.h"

namespace sampcheck::statistical {
namespace {

using detail::Fail;
using detail::Num;

double Term(double o, double e, double lambda) {
  if (lambda == 1.0) return (o - e) * (o - e) / e;
  if (lambda == 0.0) return o == 0.0 ? 0.0 : 2.0 * o * std::log(o / e);
  if (lambda == -1.0) return o == 0.0 ? std::numeric_limits<double>::infinity() : 2.0 * e * std::log(e / o);
  if (o == 0.0) return lambda > -1.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return 2.0 / (lambda * (lambda + 1.0)) * o * std::expm1(lambda * std::log(o / e));
}

}  // namespace

double DefaultEMin(double lambda) { return lambda == kPearsonLambda ? 10.0 : 5.0; }

double PowerDivergence(std::span<const double> observed, std::span<const double> expected, double lambda) {
  const char* fn = "PowerDivergence";
  detail::CheckSameSize(fn, "observed", observed.size(), "expected", expected.size());
  if (!std::isfinite(lambda)) Fail(fn, "lambda = " + Num(lambda) + " is not finite");
  double sum = 0.0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (!(observed[i] >= 0.0) || !std::isfinite(observed[i])) {
      Fail(fn, "observed[" + std::to_string(i) + "] = " + Num(observed[i]) + " is not a finite value >= 0");
    }
    if (!(expected[i] > 0.0) || !std::isfinite(expected[i])) {
      Fail(fn, "expected[" + std::to_string(i) + "] = " + Num(expected[i]) + " is not a finite value > 0");
    }
    sum += Term(observed[i], expected[i], lambda);
  }
  return sum;
}

GoodnessOfFitResult GoodnessOfFitTest(std::span<const std::int64_t> counts, std::span<const double> p,
                                      const GoodnessOfFitOptions& options) {
  const char* fn = "GoodnessOfFitTest";
  detail::CheckSameSize(fn, "counts", counts.size(), "p", p.size());
  detail::CheckCounts(fn, "counts", counts);
  const double p_sum = detail::CheckWeights(fn, "p", p);
  if (!std::isfinite(options.lambda)) Fail(fn, "options.lambda = " + Num(options.lambda) + " is not finite");
  if (options.e_min < 0.0 || !std::isfinite(options.e_min)) {
    Fail(fn, "options.e_min = " + Num(options.e_min) + " is not a finite value >= 0");
  }
  detail::CheckOpenUnit(fn, "options.level", options.level);

  GoodnessOfFitResult r;
  r.lambda = options.lambda;
  r.e_min = options.e_min > 0.0 ? options.e_min : DefaultEMin(options.lambda);
  std::vector<double> q(p.size());
  for (std::size_t t = 0; t < p.size(); ++t) {
    q[t] = p[t] / p_sum;
    if (p[t] == 0.0) {
      if (counts[t] > 0) r.structural_violations.push_back({static_cast<std::int64_t>(t), counts[t]});
    } else {
      r.n += counts[t];
    }
  }
  r.effect_interval = {0.0, 0.0, options.level};
  if (r.n == 0) return r;

  const double n = static_cast<double>(r.n);
  const std::vector<Bin> bins = PoolCategories(q, n, r.e_min);
  r.bins = bins.size();
  std::vector<double> observed(bins.size(), 0.0), expected(bins.size(), 0.0);
  for (std::size_t b = 0; b < bins.size(); ++b) {
    double o = 0.0;
    for (std::int64_t t : bins[b].tokens) o += static_cast<double>(counts[static_cast<std::size_t>(t)]);
    observed[b] = o;
    expected[b] = bins[b].expected;
  }
  std::vector<std::size_t> order(bins.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto residual = [&](std::size_t b) { return (observed[b] - expected[b]) / std::sqrt(expected[b]); };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return std::abs(residual(a)) > std::abs(residual(b)); });
  for (std::size_t i = 0; i < std::min(options.top_bins, order.size()); ++i) {
    const std::size_t b = order[i];
    r.top_bins.push_back({bins[b].tokens, observed[b], expected[b], residual(b)});
  }
  if (bins.size() < 2) return r;

  // The expected counts sum to the observed total, so the divergence is >= 0 in exact
  // arithmetic; its terms have both signs, and rounding can leave about -1e-13 when the counts
  // equal their expectation.
  r.statistic = std::max(0.0, PowerDivergence(observed, expected, options.lambda));
  r.df = static_cast<double>(bins.size() - 1);
  r.p_value = ChiSquareSf(r.statistic, r.df);
  r.effect = (r.statistic - r.df) / n;
  if (std::isfinite(r.statistic)) {
    const Interval nc = NoncentralityInterval(r.statistic, r.df, options.level);
    r.effect_interval = {nc.lower / n, nc.upper / n, options.level};
  } else {
    r.effect_interval = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                         options.level};
  }
  return r;
}

}  // namespace sampcheck::statistical
