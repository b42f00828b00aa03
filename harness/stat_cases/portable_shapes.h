// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shapes for the statistical cases' inputs that give the same bits on every platform
// (docs/spec/harness.md "Case inputs"): the owned, correctly rounded exp of reference/math/ in
// place of libm's (whose last bit differs between libms), and a triangle wave in place of
// cos, built from IEEE operations that round the same way everywhere (*, /, -, floor, fabs).
// A verdict then depends on the seed alone, never on the machine's libm.
#include <cmath>

#include "reference/math/exp.h"

namespace sampcheck::statistical {

// exp(x) correctly rounded to f32 / to within 0.5 + 2^-11 ulp in f64 (docs/spec/math.md).
inline float PortableExp(float x) { return math::ExpF32Cr(x); }
inline double PortableExp(double x) { return math::ExpF64Dd(x); }

// A period-2*pi wave with cos's extremes: 1 at x = 0 (mod 2 pi), -1 at pi, linear between.
// Example: TriangleWave(0) = 1, TriangleWave(pi) = -1, TriangleWave(pi / 2) = 0 (to rounding).
inline double TriangleWave(double x) {
  constexpr double kTwoPi = 6.283185307179586;
  const double t = x / kTwoPi;
  const double f = t - std::floor(t);  // in [0, 1)
  return 4.0 * std::fabs(f - 0.5) - 1.0;
}

}  // namespace sampcheck::statistical
