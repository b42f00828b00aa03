// SPDX-License-Identifier: Apache-2.0
// Known answers of SplitMix64 (core/split_mix64.h): the first outputs for seed 0 of Vigna's
// reference implementation (prng.di.unimi.it/splitmix64.c), as published with it and
// reproduced in many ports: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F.
#include "core/split_mix64.h"

#include <gtest/gtest.h>

namespace sampcheck {
namespace {

TEST(SplitMix64, MatchesReferenceOutputsForSeedZero) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(rng.Next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(rng.Next(), 0x06C45D188009454Full);
}

TEST(SplitMix64, BelowAndBetweenStayInRange) {
  SplitMix64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    EXPECT_LT(rng.Below(151936), 151936u);
    const auto v = rng.Between(-4096, 4096);
    EXPECT_GE(v, -4096);
    EXPECT_LE(v, 4096);
  }
}

}  // namespace
}  // namespace sampcheck
