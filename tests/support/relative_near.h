// SPDX-License-Identifier: Apache-2.0
#pragma once
// Relative-tolerance comparison for the statistical tests (test-only): p-values must match
// independent mpmath values to 1e-10 relative (docs/method.md "Testing the harness itself").

#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>

namespace sampcheck::testing {

inline ::testing::AssertionResult RelativeNear(double actual, double expected, double relative) {
  const double err = std::abs(actual - expected);
  if (err <= relative * std::abs(expected) || (expected == 0.0 && actual == 0.0)) {
    return ::testing::AssertionSuccess();
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "actual %.17g (%a), expected %.17g, relative error %.3g > %.3g", actual, actual,
                expected, expected != 0.0 ? err / std::abs(expected) : err, relative);
  return ::testing::AssertionFailure() << buf;
}

}  // namespace sampcheck::testing
