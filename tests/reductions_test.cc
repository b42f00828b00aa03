// SPDX-License-Identifier: Apache-2.0
// Tests of the canonical reductions (reference/reductions.h, docs/spec/reductions.md): the
// optimised versions are bitwise equal to the order written out literally, here, from the
// spec — lane l folds l, l + 1024, ... then a halving tree — on every row length 1..5000 and
// on large vocabulary sizes.
#include "reference/reductions.h"

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "golden/case_random.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

using reference::CanonicalArgmax;
using reference::CanonicalMax;
using reference::CanonicalSum;
constexpr std::size_t kLanes = 1024;
constexpr float kInf = std::numeric_limits<float>::infinity();

// --- The spec, literally. ---
float LiteralSum(const std::vector<float>& x) {
  std::vector<float> lane(kLanes, -0.0f);
  for (std::size_t l = 0; l < kLanes; ++l) {
    for (std::size_t i = l; i < x.size(); i += kLanes) lane[l] = lane[l] + x[i];
  }
  for (std::size_t s = kLanes / 2; s >= 1; s /= 2) {
    for (std::size_t l = 0; l < s; ++l) lane[l] = lane[l] + lane[l + s];
  }
  return lane[0];
}

bool Beats(float a, float b) {  // a ranks above b in the max order
  if (std::isnan(b)) return false;
  if (std::isnan(a)) return true;
  if (a != b) return a > b;
  return !std::signbit(a) && std::signbit(b);
}

float LiteralMax(const std::vector<float>& x) {
  std::vector<float> lane(kLanes, -kInf);
  for (std::size_t l = 0; l < kLanes; ++l) {
    for (std::size_t i = l; i < x.size(); i += kLanes) lane[l] = Beats(x[i], lane[l]) ? x[i] : lane[l];
  }
  for (std::size_t s = kLanes / 2; s >= 1; s /= 2) {
    for (std::size_t l = 0; l < s; ++l) lane[l] = Beats(lane[l + s], lane[l]) ? lane[l + s] : lane[l];
  }
  return lane[0];
}

std::int64_t LiteralArgmax(const std::vector<float>& x) {
  std::vector<std::int64_t> lane(kLanes, -1);
  auto better = [&](std::int64_t a, std::int64_t b) {  // candidate a ranks above b
    if (b < 0) return a >= 0;
    if (a < 0) return false;
    const float va = x[static_cast<std::size_t>(a)], vb = x[static_cast<std::size_t>(b)];
    if (std::isnan(va) != std::isnan(vb)) return std::isnan(va);
    if (!std::isnan(va) && va != vb) return va > vb;
    return a < b;
  };
  for (std::size_t l = 0; l < kLanes; ++l) {
    for (std::size_t i = l; i < x.size(); i += kLanes) {
      if (better(static_cast<std::int64_t>(i), lane[l])) lane[l] = static_cast<std::int64_t>(i);
    }
  }
  for (std::size_t s = kLanes / 2; s >= 1; s /= 2) {
    for (std::size_t l = 0; l < s; ++l) lane[l] = better(lane[l + s], lane[l]) ? lane[l + s] : lane[l];
  }
  return lane[0];
}

// Values spread over many binades so that the order of additions changes the rounding, with
// frequent ties, zeros of both signs and (optionally) NaN.
std::vector<float> Row(golden::SplitMix64& rng, std::size_t n, bool with_nan) {
  std::vector<float> x(n);
  for (auto& v : x) {
    const std::uint64_t r = rng.Next();
    const auto mantissa = static_cast<float>((r >> 40) & 0xFF);  // 0..255: many ties
    const int exponent = static_cast<int>((r >> 8) % 40) - 20;
    v = std::ldexp(mantissa, exponent) * ((r & 1) ? -1.0f : 1.0f);
    if ((r >> 16) % 97 == 0) v = (r & 2) ? -0.0f : 0.0f;
  }
  if (with_nan && n > 0) x[static_cast<std::size_t>(rng.Below(n))] = std::bit_cast<float>(0x7FC01234u);
  return x;
}

void ExpectSame(const std::vector<float>& x) {
  ASSERT_EQ(Bits(CanonicalSum(x)), Bits(LiteralSum(x))) << "sum, n = " << x.size();
  ASSERT_EQ(Bits(CanonicalMax(x)), Bits(LiteralMax(x))) << "max, n = " << x.size();
  ASSERT_EQ(CanonicalArgmax(x), LiteralArgmax(x)) << "argmax, n = " << x.size();
}

TEST(Reductions, MatchLiteralOrderOnEveryLengthUpTo5000) {
  SplitMix64 rng(0x5EED0001);
  for (std::size_t n = 1; n <= 5000; ++n) ExpectSame(Row(rng, n, /*with_nan=*/n % 7 == 0));
}

TEST(Reductions, MatchLiteralOrderOnLargeVocabularies) {
  SplitMix64 rng(0x5EED0002);
  for (std::size_t n : {32000u, 32768u, 128256u, 151936u, 152064u, 256000u}) {
    ExpectSame(Row(rng, n, false));
    ExpectSame(Row(rng, n, true));
  }
}

TEST(Reductions, HeaderExampleSumDiffersFromLeftToRight) {
  // {2^-24, 2^-24, 1}: lane order gives 1 (2^-24 + 1 ties to even, twice); left to right gives
  // 2^-23 + 1 = 1 + 2^-23 exactly.
  const std::vector<float> x = {0x1p-24f, 0x1p-24f, 1.0f};
  EXPECT_EQ(CanonicalSum(x), 1.0f);
  EXPECT_EQ((x[0] + x[1]) + x[2], 1.0f + 0x1p-23f);
}

TEST(Reductions, SpecialValues) {
  EXPECT_EQ(Bits(CanonicalSum(std::vector<float>{-0.0f, -0.0f})), 0x80000000u);  // identity -0.0
  EXPECT_EQ(Bits(CanonicalSum(std::vector<float>{-0.0f, 0.0f})), 0x00000000u);
  EXPECT_TRUE(std::isnan(CanonicalSum(std::vector<float>{kInf, -kInf})));
  EXPECT_EQ(Bits(CanonicalMax(std::vector<float>{-0.0f, 0.0f, -0.0f})), 0x00000000u);  // +0 beats -0
  EXPECT_EQ(CanonicalMax(std::vector<float>{-kInf, -kInf}), -kInf);
  EXPECT_TRUE(std::isnan(CanonicalMax(std::vector<float>{1.0f, std::nanf(""), 2.0f})));
  EXPECT_EQ(CanonicalArgmax(std::vector<float>{1.0f, std::nanf(""), 2.0f, std::nanf("")}), 1);
  EXPECT_EQ(CanonicalArgmax(std::vector<float>{-0.0f, 0.0f}), 0);  // equal: lower index
  EXPECT_EQ(CanonicalArgmax(std::vector<float>{-kInf, -kInf, -kInf}), 0);
  EXPECT_EQ(CanonicalArgmax(std::vector<float>{}), -1);
}

}  // namespace
}  // namespace sampcheck::testing
