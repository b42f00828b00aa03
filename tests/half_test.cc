// SPDX-License-Identifier: Apache-2.0
// Tests of core/half.h (docs/spec/dtypes.md): f16/bf16 <-> f32 conversions.
//
// Every expected value comes from the IEEE 754 definition of the formats, evaluated here
// independently of core/half.cc:
//   binary16 word s|e(5)|m(10):  e in 1..30: (-1)^s * 2^(e-15) * (1 + m/2^10)
//                                e == 0:     (-1)^s * 2^-14 * (m/2^10) = (-1)^s * m * 2^-24
//                                e == 31:    m == 0 ? +-inf : NaN
//   bfloat16 word s|e(8)|m(7):   e in 1..254: (-1)^s * 2^(e-127) * (1 + m/2^7)
//                                e == 0:      (-1)^s * m * 2^-133
//                                e == 255:    m == 0 ? +-inf : NaN
// evaluated in double with std::ldexp (exact: every such value has at most 11 significant
// bits and an exponent in double's normal range). Narrowing is checked against
// roundTiesToEven (IEEE 754-2019 4.3.1) at every midpoint between consecutive 16-bit values
// and at its float neighbours, and against GCC's _Float16 conversion (libgcc soft-fp,
// roundTiesToEven in the default rounding mode) over a deterministic sample. The all-2^32
// sweep is tests/half_exhaustive_test.cc (label slow).
// These tests are exact (no thresholds), so the false-failure budget is zero.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "core/half.h"
#include "tests/support/test_support.h"

namespace sampcheck {
namespace {

using testing::Bits;
using testing::Describe;
using testing::FromBits;

// Value of a binary16 word per the definition above. With `extend` a word with e == 31 is
// read as if the exponent range continued (2^16 * (1 + m/2^10)); IEEE overflow is defined by
// rounding "as if the exponent range were unbounded", so 0x7C00 read this way is the
// rounding neighbour above the largest finite value 65504.
double F16Value(std::uint16_t h, bool extend = false) {
  const int s = h >> 15;
  const int e = (h >> 10) & 0x1F;
  const int m = h & 0x3FF;
  double v;
  if (e == 31 && !extend) {
    v = m == 0 ? std::numeric_limits<double>::infinity()
               : std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), -24);
  } else {
    v = std::ldexp(static_cast<double>(1024 + m), e - 15 - 10);
  }
  return s ? -v : v;
}

double BF16Value(std::uint16_t h, bool extend = false) {
  const int s = h >> 15;
  const int e = (h >> 7) & 0xFF;
  const int m = h & 0x7F;
  double v;
  if (e == 255 && !extend) {
    v = m == 0 ? std::numeric_limits<double>::infinity()
               : std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), -133);
  } else {
    v = std::ldexp(static_cast<double>(128 + m), e - 127 - 7);
  }
  return s ? -v : v;
}

std::string Hex16(std::uint16_t h) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", h);
  return buf;
}

// Reports the first kMaxReported mismatches and the total (docs/contributing.md "Tests").
constexpr int kMaxReported = 10;

// ---------------------------------------------------------------------------------------
// Widening

TEST(F16ToF32, MatchesDefinitionForAll65536Patterns) {
  int failures = 0;
  for (std::uint32_t w = 0; w <= 0xFFFF; ++w) {
    const auto h = static_cast<std::uint16_t>(w);
    const float got = F16BitsToF32(h);
    const double want = F16Value(h);
    bool ok;
    if (std::isnan(want)) {
      // NaN: sign kept, the 10 fraction bits (payload and quiet bit 9) become f32 fraction
      // bits 22..13.
      ok = std::isnan(got) && Bits(got) == ((static_cast<std::uint32_t>(h & 0x8000) << 16) |
                                            0x7F800000u | (static_cast<std::uint32_t>(h & 0x3FF)
                                                           << 13));
    } else {
      ok = Bits(got) == Bits(static_cast<float>(want));  // the cast is exact (see header)
    }
    if (!ok && ++failures <= kMaxReported) {
      ADD_FAILURE() << "f16 " << Hex16(h) << ": got " << Describe(got) << ", want "
                    << Describe(static_cast<float>(want));
    }
  }
  EXPECT_EQ(failures, 0) << "mismatching f16 patterns";
}

TEST(BF16ToF32, MatchesDefinitionForAll65536Patterns) {
  int failures = 0;
  for (std::uint32_t w = 0; w <= 0xFFFF; ++w) {
    const auto h = static_cast<std::uint16_t>(w);
    const float got = BF16BitsToF32(h);
    const double want = BF16Value(h);
    bool ok;
    if (std::isnan(want)) {
      // NaN: bfloat16 is the top half of binary32, so the whole word moves up unchanged.
      ok = std::isnan(got) && Bits(got) == (w << 16);
    } else {
      ok = Bits(got) == Bits(static_cast<float>(want));
    }
    if (!ok && ++failures <= kMaxReported) {
      ADD_FAILURE() << "bf16 " << Hex16(h) << ": got " << Describe(got) << ", want "
                    << Describe(static_cast<float>(want));
    }
  }
  EXPECT_EQ(failures, 0) << "mismatching bf16 patterns";
}

TEST(F16ToF32, KeepsSignedZerosSubnormalsAndInfinities) {
  struct Case {
    int line;
    std::uint16_t h;
    std::uint32_t f32_bits;
  };
  const Case cases[] = {
      {__LINE__, 0x0000, 0x00000000},  // +0
      {__LINE__, 0x8000, 0x80000000},  // -0
      {__LINE__, 0x3C00, 0x3F800000},  // 1.0 (header example)
      {__LINE__, 0x0001, 0x33800000},  // 2^-24: f32 exponent -24+127 = 103 = 0x67
      {__LINE__, 0x03FF, 0x387FC000},  // 1023 * 2^-24 = 2^-15 * (1 + 1022/1024)
      {__LINE__, 0x0400, 0x38800000},  // 2^-14, smallest normal: exponent 113 = 0x71
      {__LINE__, 0x7BFF, 0x477FE000},  // 65504 = 2^15 * (1 + 1023/1024)
      {__LINE__, 0x7C00, 0x7F800000},  // +inf
      {__LINE__, 0xFC00, 0xFF800000},  // -inf
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "line " << c.line << ", f16 " << Hex16(c.h));
    EXPECT_EQ(Bits(F16BitsToF32(c.h)), c.f32_bits);
  }
}

// ---------------------------------------------------------------------------------------
// Round trips

TEST(F32ToF16, RoundTripsEveryNonNaNPattern) {
  int failures = 0;
  for (std::uint32_t w = 0; w <= 0xFFFF; ++w) {
    const auto h = static_cast<std::uint16_t>(w);
    const bool is_nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0;
    // Exactly representable values are returned unchanged; a NaN comes back quiet (bit 9
    // set) with its sign and payload.
    const std::uint16_t want = is_nan ? static_cast<std::uint16_t>(h | 0x0200) : h;
    const std::uint16_t got = F32ToF16Bits(F16BitsToF32(h));
    if (got != want && ++failures <= kMaxReported) {
      ADD_FAILURE() << Hex16(h) << " -> " << Hex16(got) << ", want " << Hex16(want);
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(F32ToBF16, RoundTripsEveryNonNaNPattern) {
  int failures = 0;
  for (std::uint32_t w = 0; w <= 0xFFFF; ++w) {
    const auto h = static_cast<std::uint16_t>(w);
    const bool is_nan = (h & 0x7F80) == 0x7F80 && (h & 0x7F) != 0;
    const std::uint16_t want = is_nan ? static_cast<std::uint16_t>(h | 0x0040) : h;
    const std::uint16_t got = F32ToBF16Bits(BF16BitsToF32(h));
    if (got != want && ++failures <= kMaxReported) {
      ADD_FAILURE() << Hex16(h) << " -> " << Hex16(got) << ", want " << Hex16(want);
    }
  }
  EXPECT_EQ(failures, 0);
}

// ---------------------------------------------------------------------------------------
// NaN

TEST(F32ToF16, NaNStaysNaNWithSignQuietAndTopPayload) {
  struct Case {
    int line;
    std::uint32_t f32_bits;
    std::uint16_t want;
  };
  // f16 NaN = sign | 0x7C00 | quiet bit 0x0200 | top 10 of the 23 f32 fraction bits (>> 13).
  const Case cases[] = {
      {__LINE__, 0x7FC00000, 0x7E00},  // default quiet NaN
      {__LINE__, 0xFFC00000, 0xFE00},  // negative quiet NaN keeps its sign
      {__LINE__, 0x7F800001, 0x7E00},  // signalling NaN, payload only in low bits: quietened
      {__LINE__, 0xFF800001, 0xFE00},
      {__LINE__, 0x7FFFFFFF, 0x7FFF},  // all payload bits: top 10 are all ones
      {__LINE__, 0x7F802000, 0x7E01},  // payload bit 13 -> f16 bit 0, plus quiet
      {__LINE__, 0xFFA00000, 0xFF00},  // payload bit 21 -> f16 bit 8, plus quiet
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "line " << c.line);
    EXPECT_EQ(F32ToF16Bits(FromBits(c.f32_bits)), c.want) << Describe(FromBits(c.f32_bits));
  }
}

TEST(F32ToBF16, NaNStaysNaNWithSignQuietAndTopPayload) {
  struct Case {
    int line;
    std::uint32_t f32_bits;
    std::uint16_t want;
  };
  // bf16 NaN = top half of the f32 word with the quiet bit 0x0040 set (no rounding: a
  // rounding carry could otherwise turn a NaN into an infinity, e.g. 0x7F80FFFF).
  const Case cases[] = {
      {__LINE__, 0x7FC00000, 0x7FC0}, {__LINE__, 0xFFC00000, 0xFFC0},
      {__LINE__, 0x7F800001, 0x7FC0}, {__LINE__, 0x7F80FFFF, 0x7FC0},
      {__LINE__, 0xFF812345, 0xFFC1}, {__LINE__, 0x7FFFFFFF, 0x7FFF},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "line " << c.line);
    EXPECT_EQ(F32ToBF16Bits(FromBits(c.f32_bits)), c.want) << Describe(FromBits(c.f32_bits));
  }
}

// ---------------------------------------------------------------------------------------
// Round to nearest, ties to even, at every midpoint

// For each pair of consecutive non-negative finite patterns (p, p+1), plus the pair (largest
// finite, infinity read with an unbounded exponent), and for both signs: the exact midpoint
// (an f32: at most 12 significant bits for f16, 9 for bf16, and every bf16 midpoint is a
// multiple of 2^-134 >= the f32 subnormal step 2^-149) rounds to whichever of p, p+1 is even;
// the f32 just below it rounds to p and the f32 just above to p+1.
template <class Narrow, class ValueOf>
int CheckMidpoints(std::uint16_t largest_finite, Narrow narrow, ValueOf value_of,
                   const char* format) {
  int failures = 0;
  for (std::uint32_t p = 0; p <= largest_finite; ++p) {
    const double lo = value_of(static_cast<std::uint16_t>(p), true);
    const double hi = value_of(static_cast<std::uint16_t>(p + 1), true);
    const auto mid = static_cast<float>((lo + hi) / 2);
    if (static_cast<double>(mid) != (lo + hi) / 2) {
      ADD_FAILURE() << format << " midpoint after " << p << " is not an f32";
      return ++failures;
    }
    for (const std::uint32_t sign : {0u, 0x8000u}) {
      const float m = sign ? -mid : mid;
      const float toward_zero = std::nextafter(m, 0.0f);
      const float away = std::nextafter(m, sign ? -INFINITY : INFINITY);
      const std::uint32_t even = (p % 2 == 0) ? p : p + 1;
      const struct {
        float x;
        std::uint32_t want;
        const char* what;
      } checks[] = {{m, sign | even, "midpoint"},
                    {toward_zero, sign | p, "below midpoint"},
                    {away, sign | (p + 1), "above midpoint"}};
      for (const auto& c : checks) {
        const std::uint16_t got = narrow(c.x);
        if (got != c.want && ++failures <= kMaxReported) {
          ADD_FAILURE() << format << " " << c.what << " " << Describe(c.x) << " between "
                        << Hex16(static_cast<std::uint16_t>(sign | p)) << " and "
                        << Hex16(static_cast<std::uint16_t>(sign | (p + 1))) << ": got "
                        << Hex16(got) << ", want " << Hex16(static_cast<std::uint16_t>(c.want));
        }
      }
    }
  }
  return failures;
}

TEST(F32ToF16, RoundsToNearestTiesToEvenAtEveryMidpoint) {
  // 0x7BFF is the largest finite f16; its upper neighbour 0x7C00 (2^16 when read with an
  // unbounded exponent) is +inf.
  EXPECT_EQ(CheckMidpoints(0x7BFF, F32ToF16Bits, F16Value, "f16"), 0);
}

TEST(F32ToBF16, RoundsToNearestTiesToEvenAtEveryMidpoint) {
  // 0x7F7F is the largest finite bf16; 0x7F80 (2^128 read unbounded) is +inf.
  EXPECT_EQ(CheckMidpoints(0x7F7F, F32ToBF16Bits, BF16Value, "bf16"), 0);
}

// ---------------------------------------------------------------------------------------
// Overflow

TEST(F32ToF16, OverflowsAtTheIeeeThreshold) {
  // Largest finite f16: e = 30, m = 1023: 2^15 * (1 + 1023/1024) = 65504 (0x7BFF). The next
  // value with an unbounded exponent is 2^16 = 65536; their midpoint is 65520. IEEE 754
  // roundTiesToEven overflows to inf when the rounded (unbounded) result exceeds 65504:
  // 65520 is a tie and 0x7BFF is odd, so the tie goes to 2^16 -> inf (0x7C00).
  struct Case {
    int line;
    float x;
    std::uint16_t want;
  };
  const Case cases[] = {
      {__LINE__, 65504.0f, 0x7BFF},
      {__LINE__, std::nextafter(65520.0f, 0.0f), 0x7BFF},  // 65519.996: nearer 65504
      {__LINE__, 65520.0f, 0x7C00},
      {__LINE__, -65520.0f, 0xFC00},
      {__LINE__, std::nextafter(-65520.0f, 0.0f), 0xFBFF},
      {__LINE__, 65536.0f, 0x7C00},
      {__LINE__, std::numeric_limits<float>::max(), 0x7C00},
      {__LINE__, -std::numeric_limits<float>::max(), 0xFC00},
      {__LINE__, INFINITY, 0x7C00},
      {__LINE__, -INFINITY, 0xFC00},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "line " << c.line << ", x = " << Describe(c.x));
    EXPECT_EQ(F32ToF16Bits(c.x), c.want);
  }
}

TEST(F32ToBF16, OverflowsAtTheIeeeThreshold) {
  // Largest finite bf16: e = 254, m = 127: 2^127 * (1 + 127/128) = 2^128 - 2^120 (0x7F7F).
  // The midpoint to 2^128 is 2^128 - 2^119 = 2^127 * (1 + 255/256), the f32 with fraction
  // 255/256 * 2^23 = 0x7F8000: bits 0x7F7F8000. A tie, 0x7F7F is odd -> inf (0x7F80).
  struct Case {
    int line;
    std::uint32_t f32_bits;
    std::uint16_t want;
  };
  const Case cases[] = {
      {__LINE__, 0x7F7F0000, 0x7F7F},  // bf16 max exactly
      {__LINE__, 0x7F7F7FFF, 0x7F7F},  // just below the midpoint
      {__LINE__, 0x7F7F8000, 0x7F80},  // midpoint: tie to even overflows
      {__LINE__, 0x7F7FFFFF, 0x7F80},  // FLT_MAX
      {__LINE__, 0xFF7F8000, 0xFF80},
      {__LINE__, 0xFF7F7FFF, 0xFF7F},
      {__LINE__, 0x7F800000, 0x7F80},  // +inf
      {__LINE__, 0xFF800000, 0xFF80},  // -inf
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "line " << c.line << ", x = " << Describe(FromBits(c.f32_bits)));
    EXPECT_EQ(F32ToBF16Bits(FromBits(c.f32_bits)), c.want);
  }
}

// ---------------------------------------------------------------------------------------
// Tiny values and subnormal inputs

TEST(F32ToF16, TinyValuesRoundToZeroOrSmallestSubnormal) {
  // The smallest f16 subnormal is 2^-24 (0x0001); the midpoint to 0 is 2^-25, a tie that
  // goes to the even pattern 0x0000. Every f32 subnormal is below 2^-126 << 2^-25, so it
  // rounds to a signed zero (by value, not by flushing: the sign is kept).
  struct Case {
    int line;
    std::uint32_t f32_bits;
    std::uint16_t want;
  };
  const Case cases[] = {
      {__LINE__, 0x33000000, 0x0000},  // 2^-25: exponent 102 = 0x66 -> 0x33000000; tie -> 0
      {__LINE__, 0x33000001, 0x0001},  // just above 2^-25
      {__LINE__, 0xB3000001, 0x8001},
      {__LINE__, 0x33C00000, 0x0002},  // 1.5 * 2^-24: tie between 0x0001 and 0x0002 -> even
      {__LINE__, 0x00000001, 0x0000},  // smallest f32 subnormal 2^-149
      {__LINE__, 0x80000001, 0x8000},  // keeps the sign
      {__LINE__, 0x007FFFFF, 0x0000},  // largest f32 subnormal
      {__LINE__, 0x387FE000, 0x0400},  // 2^-14 - 2^-25 (midpoint 0x03FF/0x0400): tie -> even
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "line " << c.line << ", x = " << Describe(FromBits(c.f32_bits)));
    EXPECT_EQ(F32ToF16Bits(FromBits(c.f32_bits)), c.want);
  }
}

TEST(F32ToBF16, SubnormalInputsAreNotFlushed) {
  // bf16 subnormals m * 2^-133 are f32 subnormals with the same top 16 bits, so the f32
  // subnormal range must round like any other input (a flushing implementation returns 0).
  struct Case {
    int line;
    std::uint32_t f32_bits;
    std::uint16_t want;
  };
  const Case cases[] = {
      {__LINE__, 0x00010000, 0x0001},  // 2^-133, smallest bf16 subnormal, exact
      {__LINE__, 0x00400000, 0x0040},  // 2^-127 = 64 * 2^-133
      {__LINE__, 0x007F0000, 0x007F},  // largest bf16 subnormal
      {__LINE__, 0x007FFFFF, 0x0080},  // largest f32 subnormal rounds up to 2^-126
      {__LINE__, 0x00008000, 0x0000},  // 2^-134: tie between 0 and 0x0001 -> even 0
      {__LINE__, 0x00008001, 0x0001},  // just above that tie
      {__LINE__, 0x00018000, 0x0002},  // 1.5 * 2^-133: tie -> even 0x0002
      {__LINE__, 0x80018000, 0x8002},
      {__LINE__, 0x00000001, 0x0000},  // 2^-149 < 2^-134: rounds to +0
      {__LINE__, 0x80000001, 0x8000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "line " << c.line << ", x = " << Describe(FromBits(c.f32_bits)));
    EXPECT_EQ(F32ToBF16Bits(FromBits(c.f32_bits)), c.want);
  }
  // Widening does not flush either: 0x0001 -> 2^-133, an f32 subnormal.
  EXPECT_EQ(Bits(BF16BitsToF32(0x0001)), 0x00010000u);
  EXPECT_EQ(BF16BitsToF32(0x0001), std::ldexp(1.0f, -133));
}

TEST(F32ToF16, HeaderExample) {
  // core/half.h's worked example.
  EXPECT_EQ(F16BitsToF32(0x3C00), 1.0f);
  EXPECT_EQ(F32ToF16Bits(65520.0f), 0x7C00);
}

// ---------------------------------------------------------------------------------------
// Cross-check against the compiler's binary16

__extension__ typedef _Float16 GccF16;

std::uint16_t GccNarrow(float x) {
  const auto h = static_cast<GccF16>(x);  // libgcc __truncsfhf2: roundTiesToEven
  std::uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

TEST(F32ToF16, MatchesGccFloat16OnDeterministicSample) {
  // libgcc's software conversion costs ~70 ns, so all 2^32 inputs would take ~5 minutes;
  // this sample takes every f32 whose low 13 bits (the ones f16 drops from a normal) are one
  // of the rounding-critical values {0, 1, 0x0FFF, 0x1000, 0x1001, 0x1FFF}, i.e. 6 * 2^19
  // inputs covering every f16 result and every rounding case, plus 2^20 inputs spread over
  // the whole range with scrambled low bits. NaNs are compared by class and sign only
  // (their payload rule is checked above).
  int failures = 0;
  long checked = 0;
  auto check = [&](std::uint32_t w) {
    const float x = FromBits(w);
    const std::uint16_t got = F32ToF16Bits(x);
    const std::uint16_t want = GccNarrow(x);
    ++checked;
    const bool ok = std::isnan(x) ? ((got & 0x7C00) == 0x7C00 && (got & 0x3FF) != 0 &&
                                     (got & 0x8000) == (want & 0x8000))
                                  : got == want;
    if (!ok && ++failures <= kMaxReported) {
      ADD_FAILURE() << Describe(x) << ": got " << Hex16(got) << ", _Float16 " << Hex16(want);
    }
  };
  for (std::uint32_t high = 0; high < (1u << 19); ++high) {
    for (std::uint32_t low : {0x0000u, 0x0001u, 0x0FFFu, 0x1000u, 0x1001u, 0x1FFFu}) {
      check((high << 13) | low);
    }
  }
  std::uint32_t state = 0x9E3779B9u;  // xorshift32 (Marsaglia 2003), fixed seed
  for (int i = 0; i < (1 << 20); ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    check(state);
  }
  EXPECT_EQ(failures, 0) << "of " << checked << " inputs";
}

}  // namespace
}  // namespace sampcheck
