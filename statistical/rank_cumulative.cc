// SPDX-License-Identifier: Apache-2.0
// The rank-cumulative test (statistical/rank_cumulative.h, docs/spec/statistics.md
// "Rank-cumulative test").
#include "statistical/rank_cumulative.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include <boost/math/distributions/kolmogorov_smirnov.hpp>
#include <boost/math/distributions/normal.hpp>

#include "statistical/detail/checks.h"
#include "statistical/detail/numeric.h"

namespace sampcheck::statistical {
namespace {

using detail::Fail;

// The groups of equal positive weight, most probable first: for each, its tokens.
std::vector<std::vector<std::size_t>> Groups(std::span<const double> p) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] > 0.0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i : order) {
    if (groups.empty() || p[groups.back().front()] != p[i]) groups.emplace_back();
    groups.back().push_back(i);
  }
  return groups;
}

// The cumulative shares of the first k groups, k = 1 .. K - 1, of weights w (normalised).
std::vector<long double> Cumulative(const std::vector<std::vector<std::size_t>>& groups, std::span<const double> w) {
  long double total = 0.0L;
  for (const auto& g : groups) {
    for (std::size_t i : g) total += w[i];
  }
  std::vector<long double> f;
  long double run = 0.0L;
  for (std::size_t k = 0; k + 1 < groups.size(); ++k) {
    for (std::size_t i : groups[k]) run += w[i];
    f.push_back(run / total);
  }
  return f;
}

// Kolmogorov's limiting upper quantile: Q(x) = alpha (Boost's distribution in x sqrt(n), n = 1).
double KolmogorovUpper(double alpha) {
  const boost::math::kolmogorov_smirnov_distribution<double> ks(1.0);
  return boost::math::quantile(boost::math::complement(ks, alpha));
}

using detail::Phi;

void CheckP(const char* fn, std::span<const double> p) {
  detail::CheckWeights(fn, "p", p);
  if (Groups(p).size() < 2) Fail(fn, "p has fewer than two distinct positive weights: no order to test");
}

}  // namespace

bool RankCumulativeDefined(std::span<const double> p) { return Groups(p).size() >= 2; }

RankCumulativeResult RankCumulativeTest(std::span<const std::int64_t> counts, std::span<const double> p, double level) {
  constexpr const char* kFn = "RankCumulativeTest";
  detail::CheckSameSize(kFn, "counts", counts.size(), "p", p.size());
  detail::CheckOpenUnit(kFn, "level", level);
  detail::CheckCounts(kFn, "counts", counts);
  CheckP(kFn, p);
  RankCumulativeResult r;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0 && p[i] == 0.0) {
      Fail(kFn, "counts[" + std::to_string(i) + "] = " + std::to_string(counts[i]) + " on a weight 0");
    }
    r.n += counts[i];
  }
  const auto groups = Groups(p);
  r.groups = static_cast<std::int64_t>(groups.size());
  if (r.n == 0) return r;
  const auto f0 = Cumulative(groups, p);
  std::vector<double> observed(counts.begin(), counts.end());
  const auto fn = Cumulative(groups, observed);
  for (std::size_t k = 0; k < f0.size(); ++k) {
    const double diff = static_cast<double>(fn[k] - f0[k]);
    if (std::fabs(diff) > r.d) {
      r.d = std::fabs(diff);
      r.effect = diff;
      r.at = static_cast<std::int64_t>(k) + 1;
    }
  }
  if (r.at < 0) r.at = 1;  // a perfect fit: D = 0 at the first group end
  const double root_n = std::sqrt(static_cast<double>(r.n));
  r.statistic = root_n * r.d;
  const boost::math::kolmogorov_smirnov_distribution<double> ks(1.0);
  r.p_value = r.statistic > 0.0 ? boost::math::cdf(boost::math::complement(ks, r.statistic)) : 1.0;
  const double e = std::sqrt(std::log(2.0 / (1.0 - level)) / (2.0 * static_cast<double>(r.n)));
  r.interval = {r.effect - e, r.effect + e, level};
  return r;
}

double RankCumulativePower(std::int64_t n, std::span<const double> p, std::span<const double> q, double alpha) {
  constexpr const char* kFn = "RankCumulativePower";
  detail::CheckSameSize(kFn, "p", p.size(), "q", q.size());
  detail::CheckOpenUnit(kFn, "alpha", alpha);
  if (n < 0) Fail(kFn, "n = " + std::to_string(n) + " is negative");
  CheckP(kFn, p);
  detail::CheckWeights(kFn, "q", q);
  if (n == 0) return 0.0;
  const auto groups = Groups(p);
  const auto f0 = Cumulative(groups, p);
  const auto f1 = Cumulative(groups, q);
  const double root_n = std::sqrt(static_cast<double>(n));
  const double c = KolmogorovUpper(alpha);
  double power = 0.0;
  for (std::size_t k = 0; k < f0.size(); ++k) {
    const double sd = std::sqrt(static_cast<double>(f1[k] * (1.0L - f1[k])));
    if (!(sd > 0.0)) continue;
    const double shift = root_n * std::fabs(static_cast<double>(f1[k] - f0[k]));
    power = std::max(power, Phi((shift - c) / sd));
  }
  return power;
}

double RankCumulativeDistancePower(std::int64_t n, double delta, double alpha) {
  constexpr const char* kFn = "RankCumulativeDistancePower";
  if (!(delta > 0.0 && delta < 1.0)) Fail(kFn, "delta = " + detail::Num(delta) + " is not in (0, 1)");
  detail::CheckOpenUnit(kFn, "alpha", alpha);
  if (n < 0) Fail(kFn, "n = " + std::to_string(n) + " is negative");
  const double margin = std::sqrt(static_cast<double>(n)) * delta - KolmogorovUpper(alpha);
  return margin >= 0.0 ? Phi(2.0 * margin) : 0.0;
}

std::int64_t RankCumulativeSampleSize(double delta, double alpha, double power) {
  constexpr const char* kFn = "RankCumulativeSampleSize";
  if (!(delta > 0.0 && delta < 1.0)) Fail(kFn, "delta = " + detail::Num(delta) + " is not in (0, 1)");
  detail::CheckOpenUnit(kFn, "alpha", alpha);
  detail::CheckOpenUnit(kFn, "power", power);
  const double z = boost::math::quantile(boost::math::normal_distribution<double>(), power);
  const double root = (KolmogorovUpper(alpha) + std::max(z, 0.0) / 2.0) / delta;
  return static_cast<std::int64_t>(std::ceil(root * root));
}

}  // namespace sampcheck::statistical
