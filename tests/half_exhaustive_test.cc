// SPDX-License-Identifier: Apache-2.0
// Exhaustive check of core/half.h narrowing (docs/spec/dtypes.md) over all 2^32 f32 inputs.
// Label: slow (tens of seconds at -O2; tests/half_test.cc covers every midpoint quickly).
//
// Oracle, independent of core/half.cc's bit manipulation: the IEEE 754 roundTiesToEven
// definition evaluated in double. For |x| with frexp exponent e (|x| = f * 2^e, f in
// [0.5, 1)), the target's quantum at |x| is 2^(max(e - 1, emin) - p) with p fraction bits
// (f16: p = 10, emin = -14; bf16: p = 7, emin = -126). q = floor(|x| / quantum) and the
// remainder are exact in double (power-of-two scaling of a 24-bit significand); the result
// is q or q + 1 quanta, nearer first, ties to even q; a result >= 2^(emax + 1) (2^16 for f16,
// 2^128 for bf16) overflows to infinity. The returned word is decoded by the format
// definition and compared by value and sign. NaN inputs are checked by class and sign.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "core/half.h"
#include "tests/support/test_support.h"

namespace sampcheck {
namespace {

using testing::Describe;
using testing::FromBits;

struct Format {
  const char* name;
  int fraction_bits;
  int exponent_bits;
  int emin;             // smallest normal exponent
  double overflow_at;   // 2^(emax+1)
  std::uint16_t (*narrow)(float);
};

// Decodes a 16-bit word of `f` by the IEEE definition (inf for the all-ones exponent).
double Decode(const Format& f, std::uint16_t h) {
  const int e_max_field = (1 << f.exponent_bits) - 1;
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const int e = (h >> f.fraction_bits) & e_max_field;
  const int m = h & ((1 << f.fraction_bits) - 1);
  double v;
  if (e == e_max_field) {
    v = m == 0 ? std::numeric_limits<double>::infinity()
               : std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), f.emin - f.fraction_bits);
  } else {
    v = std::ldexp(static_cast<double>((1 << f.fraction_bits) + m), e - bias - f.fraction_bits);
  }
  return (h >> 15) ? -v : v;
}

// The roundTiesToEven value of |x| in format f (see the file comment).
double RoundMagnitude(const Format& f, double ax) {
  int e = 0;
  std::frexp(ax, &e);
  const int exponent = std::max(e - 1, f.emin);
  const double quantum = std::ldexp(1.0, exponent - f.fraction_bits);
  const double q = std::floor(ax / quantum);
  const double rest = ax - q * quantum;
  const double half = quantum / 2;
  const bool up = rest > half || (rest == half && std::fmod(q, 2.0) != 0.0);
  const double v = (q + (up ? 1 : 0)) * quantum;
  return v >= f.overflow_at ? std::numeric_limits<double>::infinity() : v;
}

void SweepAllInputs(const Format& f) {
  long failures = 0;
  for (std::uint64_t w = 0; w <= 0xFFFFFFFFull; ++w) {
    const float x = FromBits(static_cast<std::uint32_t>(w));
    const std::uint16_t got = f.narrow(x);
    const bool negative = (w >> 31) != 0;
    const bool got_negative = (got >> 15) != 0;
    const double got_value = Decode(f, got);
    bool ok;
    if (std::isnan(x)) {
      ok = std::isnan(got_value) && got_negative == negative;
    } else {
      const double want = RoundMagnitude(f, std::fabs(static_cast<double>(x)));
      ok = got_negative == negative && std::fabs(got_value) == want;
    }
    if (!ok && ++failures <= 10) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%04x", got);
      ADD_FAILURE() << f.name << " of " << Describe(x) << ": got " << buf << " = " << got_value;
    }
  }
  EXPECT_EQ(failures, 0) << "mismatches out of 2^32 inputs";
}

TEST(F32ToF16, MatchesIeeeRoundTiesToEvenForAllF32Inputs) {
  SweepAllInputs({"f16", 10, 5, -14, 65536.0, F32ToF16Bits});
}

TEST(F32ToBF16, MatchesIeeeRoundTiesToEvenForAllF32Inputs) {
  SweepAllInputs({"bf16", 7, 8, -126, std::ldexp(1.0, 128), F32ToBF16Bits});
}

}  // namespace
}  // namespace sampcheck
