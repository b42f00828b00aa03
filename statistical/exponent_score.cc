// SPDX-License-Identifier: Apache-2.0
// The exponent score test (statistical/exponent_score.h, docs/spec/statistics.md "Exponent score test").
#include "statistical/exponent_score.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <boost/math/distributions/normal.hpp>

#include "statistical/detail/checks.h"
#include "statistical/detail/numeric.h"

namespace sampcheck::statistical {
namespace {

using detail::Fail;
using detail::Num;

// Normalised weights and their logs over the support (p > 0); long double sums.
struct Support {
  std::vector<long double> p, log_p;
  long double mu0 = 0.0L, v0 = 0.0L;
};

Support Normalise(const char* fn, std::span<const double> p) {
  long double sum = 0.0L;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] >= 0.0) || !std::isfinite(p[i]))
      Fail(fn, "p[" + std::to_string(i) + "] = " + Num(p[i]) + " is not a finite weight >= 0");
    sum += p[i];
  }
  if (!(sum > 0.0L)) Fail(fn, "p has no positive weight");
  Support s;
  for (double x : p) {
    const long double q = x > 0.0 ? x / sum : 0.0L;
    s.p.push_back(q);
    s.log_p.push_back(q > 0.0L ? std::log(q) : 0.0L);
  }
  for (std::size_t i = 0; i < s.p.size(); ++i) s.mu0 += s.p[i] * s.log_p[i];
  for (std::size_t i = 0; i < s.p.size(); ++i) {
    const long double d = s.log_p[i] - s.mu0;
    s.v0 += s.p[i] * d * d;
  }
  return s;
}

// Mean and variance of ln p(X) - mu0 for X ~ p(t) proportional to p^t.
void Tilted(const Support& s, double t, long double& mean, long double& var) {
  long double max_log = -1e300L;
  for (std::size_t i = 0; i < s.p.size(); ++i) {
    if (s.p[i] > 0.0L) max_log = std::max(max_log, t * s.log_p[i]);
  }
  long double z = 0.0L;
  std::vector<long double> w(s.p.size(), 0.0L);
  for (std::size_t i = 0; i < s.p.size(); ++i) {
    if (s.p[i] > 0.0L) {
      w[i] = std::exp(t * s.log_p[i] - max_log);
      z += w[i];
    }
  }
  mean = 0.0L;
  for (std::size_t i = 0; i < s.p.size(); ++i) mean += w[i] / z * (s.log_p[i] - s.mu0);
  var = 0.0L;
  for (std::size_t i = 0; i < s.p.size(); ++i) {
    const long double d = s.log_p[i] - s.mu0 - mean;
    var += w[i] / z * d * d;
  }
}

double UpperZ(double alpha) {
  const boost::math::normal_distribution<double> unit;
  return boost::math::quantile(boost::math::complement(unit, alpha));
}

using detail::Phi;

void CheckMde(const char* fn, double mde) {
  if (!(mde > 0.0 && mde < 1.0)) Fail(fn, "mde = " + Num(mde) + " is not in (0, 1)");
}

// A support on which no t moves the law (v0 ~ 0 relative to the scale of ln p).
bool Flat(const Support& s) { return !(s.v0 > 1e-24L); }

}  // namespace

double ExponentVariance(std::span<const double> p) {
  const Support s = Normalise("ExponentVariance", p);
  return Flat(s) ? 0.0 : static_cast<double>(s.v0);
}

ExponentScoreResult ExponentScoreTest(std::span<const std::int64_t> counts, std::span<const double> p, double level) {
  constexpr const char* kFn = "ExponentScoreTest";
  if (counts.size() != p.size()) {
    Fail(kFn, "counts has " + std::to_string(counts.size()) + " entries, p has " + std::to_string(p.size()));
  }
  detail::CheckOpenUnit(kFn, "level", level);
  detail::CheckCounts(kFn, "counts", counts);
  const Support s = Normalise(kFn, p);
  if (Flat(s)) Fail(kFn, "p is flat over its support: no exponent t changes it, the test is undefined");
  ExponentScoreResult r;
  long double score = 0.0L;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    if (s.p[i] == 0.0L)
      Fail(kFn, "counts[" + std::to_string(i) + "] = " + std::to_string(counts[i]) + " on a weight 0");
    r.n += counts[i];
    score += static_cast<long double>(counts[i]) * (s.log_p[i] - s.mu0);
  }
  r.mean_log_p = static_cast<double>(s.mu0);
  r.variance = static_cast<double>(s.v0);
  if (r.n == 0) return r;
  const long double info = static_cast<long double>(r.n) * s.v0;  // Fisher information of t at 1
  r.z = static_cast<double>(score / std::sqrt(info));
  r.p_value = std::min(1.0, 2.0 * Phi(-std::fabs(r.z)));
  r.estimate = static_cast<double>(score / info);
  const double half = UpperZ((1.0 - level) / 2.0) / static_cast<double>(std::sqrt(info));
  r.interval = {r.estimate - half, r.estimate + half, level};
  return r;
}

double ExponentPower(std::int64_t n, std::span<const double> p, double mde, double alpha) {
  constexpr const char* kFn = "ExponentPower";
  CheckMde(kFn, mde);
  detail::CheckOpenUnit(kFn, "alpha", alpha);
  if (n < 0) Fail(kFn, "n = " + std::to_string(n) + " is negative");
  const Support s = Normalise(kFn, p);
  if (Flat(s)) return 0.0;
  const double z = UpperZ(alpha / 2.0);
  const double sd0 = static_cast<double>(std::sqrt(s.v0));
  double power = 1.0;
  for (double t : {1.0 + mde, 1.0 - mde}) {
    long double m = 0.0L, v = 0.0L;
    Tilted(s, t, m, v);
    const double shift = std::sqrt(static_cast<double>(n)) * static_cast<double>(m);
    const double sd = static_cast<double>(std::sqrt(v));
    power = std::min(power, Phi((shift - z * sd0) / sd) + Phi((-shift - z * sd0) / sd));
  }
  return power;
}

std::int64_t ExponentSampleSize(std::span<const double> p, double mde, double alpha, double power) {
  constexpr const char* kFn = "ExponentSampleSize";
  CheckMde(kFn, mde);
  detail::CheckOpenUnit(kFn, "alpha", alpha);
  detail::CheckOpenUnit(kFn, "power", power);
  const Support s = Normalise(kFn, p);
  if (Flat(s)) Fail(kFn, "p is flat over its support: no exponent t changes it, no n has power");
  const double z = UpperZ(alpha / 2.0), zp = UpperZ(1.0 - power);
  double n = 1.0;
  for (double t : {1.0 + mde, 1.0 - mde}) {
    long double m = 0.0L, v = 0.0L;
    Tilted(s, t, m, v);
    const double root = (z * static_cast<double>(std::sqrt(s.v0)) + zp * static_cast<double>(std::sqrt(v))) /
                        std::fabs(static_cast<double>(m));
    n = std::max(n, std::ceil(root * root));
  }
  return static_cast<std::int64_t>(n);
}

}  // namespace sampcheck::statistical
