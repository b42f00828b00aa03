// SPDX-License-Identifier: Apache-2.0
// Tests of ExpF32CrArray (reference/math/exp_array.h, docs/spec/math.md "Vectorised exp"): every
// SIMD path the host has against the scalar ExpF32Cr — the oracle, itself checked against MPFR
// (owned_math_test.cc) and over all 2^32 inputs (owned_math_accuracy_test.cc, which also runs
// the all-2^32 comparison of this function; label slow). Here: IEEE special values and
// thresholds, every 2^10-th bit pattern (2^22 inputs, each NaN class, subnormal and binade
// included), shifted rows like softmax's, lengths that leave a scalar tail, and out == x.
// Labels: unit kat property. False-failure budget: none (deterministic, exact comparisons).
#include "reference/math/exp_array.h"

#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "golden/case_random.h"
#include "reference/math/bits.h"
#include "reference/math/exp.h"

namespace sampcheck::math {
namespace {

std::vector<ExpIsa> HostPaths() {
  std::vector<ExpIsa> paths = {ExpIsa::kPortable};
  if (ExpF32CrArrayIsa() != ExpIsa::kPortable) paths.push_back(ExpIsa::kAvx2);
  if (ExpF32CrArrayIsa() == ExpIsa::kAvx512) paths.push_back(ExpIsa::kAvx512);
  return paths;
}

// Number of i with ExpF32CrArray(x)[i] != ExpF32Cr(x[i] - shift), bitwise.
std::size_t Mismatches(ExpIsa isa, const std::vector<float>& x, float shift) {
  std::vector<float> got(x.size());
  ExpF32CrArrayWith(isa, x.data(), x.size(), shift, got.data());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i) bad += F32Bits(got[i]) != F32Bits(ExpF32Cr(x[i] - shift));
  return bad;
}

TEST(ExpF32CrArray, HeaderExampleAndSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  for (ExpIsa isa : HostPaths()) {
    // exp.h's contract: exp(0) = 1, exp(1) = 0x1.5bf0a8p1, exp(-inf) = +0, exp(+inf) = +inf,
    // the largest finite / smallest nonzero results and the first inputs past them, and NaN
    // payloads quietened.
    std::vector<float> x = {0.0f,         1.0f,          -inf,          inf,
                            0x1.62e42ep6f, 0x1.62e430p6f, -0x1.9fe368p6f, -0x1.9fe36ap6f,
                            -0.0f,        F32FromBits(0x7f800001u), F32FromBits(0xffc01234u), 0x1.63p6f,
                            -0x1.ap6f,    0x1.6300002p6f, -0x1.a00002p6f, -87.5f};
    std::vector<float> y(x.size());
    ExpF32CrArrayWith(isa, x.data(), x.size(), 0.0f, y.data());
    EXPECT_EQ(F32Bits(y[0]), F32Bits(1.0f)) << ExpIsaName(isa);
    EXPECT_EQ(F32Bits(y[1]), F32Bits(0x1.5bf0a8p1f)) << ExpIsaName(isa);
    EXPECT_EQ(F32Bits(y[2]), 0u) << ExpIsaName(isa);
    EXPECT_EQ(F32Bits(y[3]), 0x7f800000u) << ExpIsaName(isa);
    EXPECT_LT(y[4], inf) << ExpIsaName(isa);
    EXPECT_EQ(F32Bits(y[5]), 0x7f800000u) << ExpIsaName(isa);
    EXPECT_EQ(F32Bits(y[6]), 1u) << ExpIsaName(isa);  // 2^-149
    EXPECT_EQ(F32Bits(y[7]), 0u) << ExpIsaName(isa);
    EXPECT_EQ(F32Bits(y[8]), F32Bits(1.0f)) << ExpIsaName(isa);
    EXPECT_EQ(F32Bits(y[9]), 0x7fc00001u) << ExpIsaName(isa);  // signalling NaN quietened
    EXPECT_EQ(F32Bits(y[10]), 0xffc01234u) << ExpIsaName(isa);
    EXPECT_EQ(Mismatches(isa, x, 0.0f), 0u) << ExpIsaName(isa);
  }
}

TEST(ExpF32CrArray, EqualsScalarOnEvery1024thBitPattern) {
  std::vector<float> x(std::size_t{1} << 16);
  for (ExpIsa isa : HostPaths()) {
    std::size_t bad = 0;
    for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += x.size() << 10) {
      // Odd offsets within each stride vary the low bits too.
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = F32FromBits(static_cast<std::uint32_t>(base + (i << 10) + (i % 1021)));
      bad += Mismatches(isa, x, 0.0f);
    }
    EXPECT_EQ(bad, 0u) << ExpIsaName(isa);
  }
}

TEST(ExpF32CrArray, EqualsScalarOnShiftedRowsOfEveryLength) {
  golden::SplitMix64 rng(0xE4A7);
  for (ExpIsa isa : HostPaths()) {
    for (std::size_t n = 0; n <= 70; ++n) {
      std::vector<float> x(n);
      for (float& v : x) v = static_cast<float>(static_cast<std::int64_t>(rng.Below(1u << 24)) - (1 << 23)) * 0x1p-19f;
      if (n > 3) x[n / 2] = -std::numeric_limits<float>::infinity();
      for (float shift : {0.0f, 3.25f, -7.5f, 16.0f}) ASSERT_EQ(Mismatches(isa, x, shift), 0u) << ExpIsaName(isa) << " n " << n;
    }
  }
}

TEST(ExpF32CrArray, OutputMayAliasInput) {
  // Includes inputs the fast path cannot decide (NaN) so that the scalar fallback reads the
  // original value, not the vector lanes already written over it.
  std::vector<float> x = {1.0f, F32FromBits(0x7fa00000u), -2.0f, 0.5f, 3.0f, -std::numeric_limits<float>::infinity(), 7.0f, 1e-3f, 2.0f};
  for (ExpIsa isa : HostPaths()) {
    std::vector<float> y = x;
    ExpF32CrArrayWith(isa, y.data(), y.size(), 1.0f, y.data());
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(F32Bits(y[i]), F32Bits(ExpF32Cr(x[i] - 1.0f))) << i;
  }
}

}  // namespace
}  // namespace sampcheck::math
