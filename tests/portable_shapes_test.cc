// SPDX-License-Identifier: Apache-2.0
// harness/stat_cases/portable_shapes.h (docs/spec/harness.md "Case inputs"): the triangle wave's
// known values, worked by hand from its definition 4 |frac(x / 2 pi) - 1/2| - 1, and the owned
// exp behind PortableExp at points whose correctly rounded value is known exactly.
#include "harness/stat_cases/portable_shapes.h"

#include <gtest/gtest.h>

namespace sampcheck::statistical {
namespace {

constexpr double kPi = 3.141592653589793;

TEST(PortableShapes, TriangleWaveHasCosExtremesAndZeros) {
  EXPECT_EQ(TriangleWave(0.0), 1.0);                 // frac = 0: 4 * 0.5 - 1
  EXPECT_NEAR(TriangleWave(kPi), -1.0, 1e-15);       // frac = 1/2
  EXPECT_NEAR(TriangleWave(kPi / 2), 0.0, 1e-15);    // frac = 1/4: 4 * 0.25 - 1
  EXPECT_NEAR(TriangleWave(3 * kPi / 2), 0.0, 1e-15);
  EXPECT_NEAR(TriangleWave(-kPi / 2), 0.0, 1e-15);   // frac(-1/4) = 3/4
  EXPECT_NEAR(TriangleWave(2 * kPi + 0.5), TriangleWave(0.5), 1e-15);  // period 2 pi
  for (int i = 0; i < 1000; ++i) {
    const double v = TriangleWave(0.7 * i);
    EXPECT_GE(v, -1.0);
    EXPECT_LE(v, 1.0);
  }
}

TEST(PortableShapes, ExpIsTheOwnedCorrectlyRoundedOne) {
  EXPECT_EQ(PortableExp(0.0f), 1.0f);
  EXPECT_EQ(PortableExp(0.0), 1.0);
  // f32(-0.01) = -0.009999999776482582; exp of it = 0.99004983397046143... (mpmath, 200 bits),
  // whose nearest binary32 is 0x1.fae7dp-1.
  EXPECT_EQ(PortableExp(-0.01f), 0x1.fae7dp-1f);
  EXPECT_EQ(PortableExp(1.0f), 0x1.5bf0a8p+1f);  // e = 2.71828182..., nearest binary32 0x1.5bf0a8p+1
}

}  // namespace
}  // namespace sampcheck::statistical
