// SPDX-License-Identifier: Apache-2.0
// Tests of the Holm and Benjamini–Hochberg adjustments (statistical/multiple_testing.h,
// docs/spec/statistics.md#multiple-testing). Expected vectors worked by hand from the
// definitions (and equal to R's p.adjust(p, "holm") / p.adjust(p, "BH")).
#include "statistical/multiple_testing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace sampcheck::statistical {
namespace {

void ExpectNear(const std::vector<double>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], 1e-15) << "index " << i;
}

TEST(MultipleTesting, HeaderExample) {
  const std::vector<double> p = {0.01, 0.04, 0.03};
  ExpectNear(HolmAdjust(p), {0.03, 0.06, 0.06});
  ExpectNear(BenjaminiHochbergAdjust(p), {0.03, 0.04, 0.04});
}

TEST(MultipleTesting, CapsAtOneKeepsTiesAndEmpty) {
  // m = 5; sorted 0.001, 0.2, 0.2, 0.5, 0.9. Holm: 0.005, 0.8, 0.6 -> 0.8, 1.0 (1.0 capped),
  // 0.9 -> 1.0. BH: m p / i = 0.005, 0.5, 1/3, 0.625, 0.9; running minimum from the top:
  // 0.005, 1/3, 1/3, 0.625, 0.9 (ties share the smaller value, as R).
  const std::vector<double> p = {0.5, 0.001, 0.2, 0.9, 0.2};
  ExpectNear(HolmAdjust(p), {1.0, 0.005, 0.8, 1.0, 0.8});
  ExpectNear(BenjaminiHochbergAdjust(p), {0.625, 0.005, 1.0 / 3, 0.9, 1.0 / 3});
  EXPECT_TRUE(HolmAdjust(std::vector<double>{}).empty());
  EXPECT_TRUE(BenjaminiHochbergAdjust(std::vector<double>{}).empty());
}

TEST(MultipleTesting, BadInputThrows) {
  EXPECT_THROW(HolmAdjust(std::vector<double>{0.1, NAN}), std::invalid_argument);
  EXPECT_THROW(BenjaminiHochbergAdjust(std::vector<double>{1.5}), std::invalid_argument);
  EXPECT_THROW(HolmAdjust(std::vector<double>{-0.1}), std::invalid_argument);
}

std::vector<double> ToP(const std::vector<std::uint32_t>& raw) {
  std::vector<double> p;
  // Exponent spread so that tiny p-values (the 1e-6 regime) are exercised too.
  for (std::uint32_t r : raw) p.push_back(std::ldexp(static_cast<double>(r % 1024) / 1024.0, -static_cast<int>((r >> 10) % 40)));
  return p;
}

RC_GTEST_PROP(MultipleTesting, RawLeBhLeHolmLeOne, (std::vector<std::uint32_t> raw)) {
  const std::vector<double> p = ToP(raw);
  const std::vector<double> holm = HolmAdjust(p), bh = BenjaminiHochbergAdjust(p);
  for (std::size_t i = 0; i < p.size(); ++i) {
    RC_ASSERT(p[i] <= bh[i]);
    RC_ASSERT(bh[i] <= holm[i]);
    RC_ASSERT(holm[i] <= 1.0);
  }
}

RC_GTEST_PROP(MultipleTesting, AdjustmentsPreserveTheOrderOfRawPValues, (std::vector<std::uint32_t> raw)) {
  const std::vector<double> p = ToP(raw);
  const std::vector<double> holm = HolmAdjust(p), bh = BenjaminiHochbergAdjust(p);
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (std::size_t j = 0; j < p.size(); ++j) {
      if (p[i] <= p[j]) {
        RC_ASSERT(holm[i] <= holm[j]);
        RC_ASSERT(bh[i] <= bh[j]);
      }
    }
  }
}

// Lowering one raw p-value never raises any adjusted p-value.
RC_GTEST_PROP(MultipleTesting, MonotoneInEachRawPValue, (std::vector<std::uint32_t> raw, std::size_t which)) {
  std::vector<double> p = ToP(raw);
  RC_PRE(!p.empty());
  std::vector<double> lower = p;
  lower[which % p.size()] *= 0.5;
  const auto h0 = HolmAdjust(p), h1 = HolmAdjust(lower), b0 = BenjaminiHochbergAdjust(p), b1 = BenjaminiHochbergAdjust(lower);
  for (std::size_t i = 0; i < p.size(); ++i) {
    RC_ASSERT(h1[i] <= h0[i]);
    RC_ASSERT(b1[i] <= b0[i]);
  }
}

}  // namespace
}  // namespace sampcheck::statistical
