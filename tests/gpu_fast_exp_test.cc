// SPDX-License-Identifier: Apache-2.0
// The binary32 exponential of gpu-fast's weights and of the partition's reach
// (gpu/block/fast_exp.cuh): within one ulp of the correctly rounded ExpF32Cr
// (reference/math/exp.h, itself checked against MPFR and over every binary32), exact where its
// contract says so, and its special values.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gpu/block/fast_exp.cuh"
#include "reference/math/exp.h"

namespace sampcheck::gpu {
namespace {

std::uint32_t Bits(float x) { return std::bit_cast<std::uint32_t>(x); }
float FromBits(std::uint32_t u) { return std::bit_cast<float>(u); }
// Results are non-negative, so their bit patterns are in the order of their values: the
// distance between two patterns is the number of ulps (subnormal ones included) between them.
std::uint32_t UlpDistance(float a, float b) { return Bits(a) > Bits(b) ? Bits(a) - Bits(b) : Bits(b) - Bits(a); }

TEST(GpuFastExp, SpecialValues) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Bits(FastExpF32(0.0f)), Bits(1.0f));
  EXPECT_EQ(Bits(FastExpF32(-0.0f)), Bits(1.0f));
  EXPECT_EQ(Bits(FastExpF32(-kInf)), Bits(0.0f));
  EXPECT_EQ(Bits(FastExpF32(-104.0f)), Bits(0.0f));  // exp(-104) = 6.8e-46 < 2^-150
  EXPECT_EQ(FastExpF32(kInf), kInf);
  EXPECT_EQ(FastExpF32(89.0f), kInf);  // exp(89) = 4.5e38 > FLT_MAX
  EXPECT_TRUE(std::isnan(FastExpF32(std::numeric_limits<float>::quiet_NaN())));
  // e = 2.71828182845904.. rounds to 0x1.5bf0a8p+1; one ulp either side is allowed.
  EXPECT_LE(UlpDistance(FastExpF32(1.0f), 0x1.5bf0a8p+1f), 1u);
  // The smallest subnormal: exp(-103.27893) = 2^-149 (x = -149 ln 2).
  EXPECT_LE(UlpDistance(FastExpF32(-103.278930f), FromBits(1u)), 1u);
}

// Every 61st binary32 of [-104, 89] (both signs: 3.7e7 inputs, every binade and both halves of
// each k's interval), and every input within 64 ulps of each switch of k ((k + 1/2) ln 2):
// within one ulp of the correctly rounded exp.
TEST(GpuFastExp, WithinOneUlpOfTheCorrectlyRoundedExp) {
  std::uint32_t worst = 0;
  float worst_x = 0.0f;
  auto check = [&](float x) {
    const std::uint32_t d = UlpDistance(FastExpF32(x), math::ExpF32Cr(x));
    if (d > worst) {
      worst = d;
      worst_x = x;
    }
  };
  for (std::uint64_t u = Bits(-0.0f); u <= Bits(-104.0f); u += 61) check(FromBits(static_cast<std::uint32_t>(u)));
  for (std::uint64_t u = 0; u <= Bits(89.0f); u += 61) check(FromBits(static_cast<std::uint32_t>(u)));
  for (int k = -150; k <= 128; ++k) {
    const auto edge = static_cast<float>((k + 0.5) * 0.6931471805599453);
    for (int d = -64; d <= 64; ++d) check(FromBits(static_cast<std::uint32_t>(static_cast<std::int64_t>(Bits(edge)) + d)));
  }
  EXPECT_LE(worst, 1u) << "at x = " << worst_x;
}

}  // namespace
}  // namespace sampcheck::gpu
