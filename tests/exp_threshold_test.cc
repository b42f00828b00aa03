// SPDX-License-Identifier: Apache-2.0
// Tests of ExpF32CrThreshold (reference/math/exp_threshold.h, docs/spec/math.md "Threshold of
// exp"): the smallest binary32 d with ExpF32Cr(d) >= r. Labels: unit kat property.
//
// Where expected values come from (never from the code under test):
// - hand arithmetic for r = 1 and r = 1/2 (worked in the comments), and exp.h's contract
//   constants (checked against MPFR in owned_math_test.cc) for the extreme r;
// - MPFR: d is ln(b) rounded up to binary32, b the midpoint below r (the header's argument);
//   MPFR evaluates ln(b) at 200 bits and rounds it upward once more;
// - the definition itself, with ExpF32Cr (correctly rounded, tested over all 2^32 inputs) as
//   the judge: ExpF32Cr(d) >= r and ExpF32Cr(d's predecessor) < r, for every 4099th r of
//   (0, 1] (r above 1: the MPFR sweep, over every binade up to FLT_MAX, and r = +inf).
// False-failure budget: none; every check is deterministic and exact.
#include "reference/math/exp_threshold.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/split_mix64.h"
#include "reference/math/bits.h"
#include "reference/math/exp.h"
#include "tests/support/owned_math_oracle.h"

namespace sampcheck::math {
namespace {

float Below(float x) { return std::nextafter(x, -std::numeric_limits<float>::infinity()); }

// ln(b) rounded up to binary32 by MPFR, b = the midpoint of r and its predecessor (exact in
// binary64). Finite r only.
float MpfrThreshold(testing::MpfrOracle& oracle, float r) {
  const double b = 0.5 * (static_cast<double>(Below(r)) + static_cast<double>(r));
  oracle.Evaluate(testing::MathFn::kLog, b);
  return mpfr_get_flt(oracle.value(), MPFR_RNDU);
}

void ExpectIsThreshold(float r, float d) {
  ASSERT_GE(ExpF32Cr(d), r) << "r = " << std::hexfloat << r << ", d = " << d;
  ASSERT_LT(ExpF32Cr(Below(d)), r) << "r = " << std::hexfloat << r << ", d = " << d;
}

TEST(ExpF32CrThreshold, HandWorkedValues) {
  // r = 1: b = 1 - 2^-25 (the predecessor of 1 is 1 - 2^-24), ln b = -2^-25 - 2^-51 - ...
  // The float -2^-25 lies above ln b; the next below, -2^-25 (1 + 2^-24) = -2^-25 - 2^-49,
  // lies below it. So d = -2^-25: exp(-2^-25) = 1 - 2^-25 + 2^-51 - .. rounds to 1.
  EXPECT_EQ(ExpF32CrThreshold(1.0f), -0x1p-25f);
  // r = 1/2: b = 1/2 - 2^-26, ln b = -ln 2 - 2^-25 - .. = -0.69314721036.. The float
  // -0x1.62e43p-1 = -0.693147182464599609375 (-ln 2 rounded to binary32) lies above it, the
  // next below (-0.69314724206924438) below it.
  EXPECT_EQ(ExpF32CrThreshold(0.5f), -0x1.62e43p-1f);
  // exp.h's contract: -0x1.9fe368p6 is the smallest float with a nonzero exp (2^-149).
  EXPECT_EQ(ExpF32CrThreshold(0x1p-149f), -0x1.9fe368p6f);
  // exp.h's contract: from 0x1.62e430p6 on, exp rounds to +inf; 0x1.62e42ep6's is finite.
  EXPECT_EQ(ExpF32CrThreshold(std::numeric_limits<float>::infinity()), 0x1.62e430p6f);
}

TEST(ExpF32CrThreshold, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ExpF32CrThreshold(0.0f), -inf);
  EXPECT_EQ(ExpF32CrThreshold(-0.0f), -inf);
  EXPECT_EQ(ExpF32CrThreshold(-1.0f), -inf);
  EXPECT_EQ(ExpF32CrThreshold(-inf), -inf);
  const float nan = F32FromBits(0x7fa00001u);  // a signalling NaN: comes back quieted
  EXPECT_EQ(F32Bits(ExpF32CrThreshold(nan)), 0x7fe00001u);
}

TEST(ExpF32CrThreshold, AgreesWithMpfr) {
  testing::MpfrOracle oracle;
  SplitMix64 rng(0x7e5701d);
  for (int i = 0; i < 20000; ++i) {
    // r uniform in bits over (0, FLT_MAX]: every binade equally often.
    const auto bits = static_cast<std::uint32_t>(1 + rng.Next() % 0x7f7fffffu);
    const float r = F32FromBits(bits);
    ASSERT_EQ(ExpF32CrThreshold(r), MpfrThreshold(oracle, r)) << "r = " << std::hexfloat << r;
  }
  for (float r : {1.0f, Below(1.0f), 0.5f, 0.05f, 0.1f, 0x1p-126f, Below(0x1p-126f), 0x1p-149f}) {
    EXPECT_EQ(ExpF32CrThreshold(r), MpfrThreshold(oracle, r)) << "r = " << std::hexfloat << r;
  }
}

TEST(ExpF32CrThreshold, IsTheLeastPassingInput) {
  // Every 4099th float of (0, 1] (2^-149 .. 1 = bits 1 .. 0x3f800000), and 1 itself.
  for (std::uint32_t bits = 1; bits <= 0x3f800000u; bits += 4099) {
    const float r = F32FromBits(bits);
    ExpectIsThreshold(r, ExpF32CrThreshold(r));
  }
  ExpectIsThreshold(1.0f, ExpF32CrThreshold(1.0f));
}

TEST(ExpF32CrThreshold, OneComparisonDecidesLikeExp) {
  // The use: ExpF32Cr(x) >= r  <=>  x >= d, for x spread over [-110, 1] and around d.
  SplitMix64 rng(0x3c0e);
  for (float r : {1.0f, 0.5f, 0.05f, 0.01f, 1e-10f, 0x1p-149f, Below(1.0f)}) {
    const float d = ExpF32CrThreshold(r);
    for (int i = 0; i < 20000; ++i) {
      const float x = i % 2 == 0 ? static_cast<float>(-110.0 + 111.0 * (rng.Next() >> 11) * 0x1p-53)
                                 : F32FromBits(F32Bits(d) + static_cast<std::uint32_t>(rng.Next() % 64) - 32u);
      ASSERT_EQ(x >= d, ExpF32Cr(x) >= r) << "r = " << std::hexfloat << r << ", x = " << x;
    }
  }
}

}  // namespace
}  // namespace sampcheck::math
