// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small numeric helpers shared by the statistical library (internal): -inf as f32, a count as a
// double for Boost's distributions, and the standard normal law's CDF.

#include <cstdint>
#include <limits>

#include <boost/math/distributions/normal.hpp>

namespace sampcheck::statistical::detail {

// A masked or filtered-out logit.
inline constexpr float kNegInf = -std::numeric_limits<float>::infinity();

inline double ToDouble(std::int64_t k) { return static_cast<double>(k); }

// Phi(x) = P(Z <= x) for Z ~ N(0, 1).
inline double Phi(double x) { return boost::math::cdf(boost::math::normal_distribution<double>(), x); }

}  // namespace sampcheck::statistical::detail
