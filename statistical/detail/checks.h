// SPDX-License-Identifier: Apache-2.0
#pragma once
// Precondition checks shared by the statistical library (internal). Each throws
// std::invalid_argument naming the function and the argument (docs/contributing.md "Errors").

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>

namespace sampcheck::statistical::detail {

[[noreturn]] inline void Fail(const char* function, const std::string& what) {
  throw std::invalid_argument(std::string(function) + ": " + what);
}

inline std::string Num(double x) {
  // %.17g round-trips a double, so a message shows the exact bad value.
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// A statistic or bound in a reason: 4 significant digits by default (%g-like).
inline std::string Fmt(double x, int digits = 4) {
  std::ostringstream s;
  s.precision(digits);
  s << x;
  return s.str();
}

// alpha (or 1 - level, or a power target) must lie strictly inside (0, 1).
inline void CheckOpenUnit(const char* function, const char* name, double x) {
  if (!(x > 0.0 && x < 1.0)) Fail(function, std::string(name) + " = " + Num(x) + " is not in (0, 1)");
}

// Degrees of freedom of a chi-square law.
inline void CheckDf(const char* function, double df) {
  if (!(df > 0.0) || !std::isfinite(df)) Fail(function, "df = " + Num(df) + " is not a finite value > 0");
}

inline void CheckProbability(const char* function, const char* name, double x) {
  if (!(x >= 0.0 && x <= 1.0)) Fail(function, std::string(name) + " = " + Num(x) + " is not in [0, 1]");
}

inline void CheckCounts(const char* function, const char* name, std::span<const std::int64_t> counts) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] < 0) {
      Fail(function, std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(counts[i]) +
                         " is negative");
    }
  }
}

// Weights that are finite and >= 0 with a positive, finite sum.
inline double CheckWeights(const char* function, const char* name, std::span<const double> p) {
  double sum = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!std::isfinite(p[i]) || p[i] < 0.0) {
      Fail(function, std::string(name) + "[" + std::to_string(i) + "] = " + Num(p[i]) +
                         " is not a finite value >= 0");
    }
    sum += p[i];
  }
  if (!(sum > 0.0) || !std::isfinite(sum)) Fail(function, std::string(name) + " has no positive finite sum");
  return sum;
}

inline void CheckSameSize(const char* function, const char* a, std::size_t na, const char* b, std::size_t nb) {
  if (na != nb) {
    Fail(function, std::string(a) + " has " + std::to_string(na) + " entries but " + b + " has " +
                       std::to_string(nb));
  }
}

}  // namespace sampcheck::statistical::detail
