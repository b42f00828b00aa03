// SPDX-License-Identifier: Apache-2.0
// f16/bf16 <-> f32 conversions by integer bit manipulation (core/half.h, docs/spec/dtypes.md).
//
// Layouts (IEEE 754-2019 section 3.6 for binary16/binary32; bfloat16 is the top 16 bits of a
// binary32):
//   f32:  sign 1 | exponent 8 (bias 127) | fraction 23
//   f16:  sign 1 | exponent 5 (bias 15)  | fraction 10
//   bf16: sign 1 | exponent 8 (bias 127) | fraction 7
// No floating-point arithmetic is performed, so the results do not depend on the rounding
// mode, FTZ/DAZ or -ffast-math.
#include "core/half.h"

#include <bit>
#include <cstdint>
#include <limits>

namespace sampcheck {
namespace {

static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4,
              "half.cc assumes float is IEEE 754 binary32");

constexpr std::uint32_t kF32ExpMask = 0x7F800000u;
constexpr std::uint32_t kF32FracMask = 0x007FFFFFu;
constexpr std::uint32_t kF32ImplicitBit = 0x00800000u;  // 2^23: the hidden leading 1
constexpr std::uint16_t kF16Inf = 0x7C00u;
constexpr std::uint16_t kF16QuietBit = 0x0200u;   // top fraction bit of binary16
constexpr std::uint16_t kBF16QuietBit = 0x0040u;  // top fraction bit of bfloat16

// Rounds `value >> shift` to nearest, ties to even (1 <= shift <= 31).
constexpr std::uint32_t ShiftRightRoundTiesToEven(std::uint32_t value, int shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((std::uint32_t{1} << shift) - 1);
  const std::uint32_t half = std::uint32_t{1} << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

}  // namespace

float F16BitsToF32(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exp = (bits >> 10) & 0x1Fu;
  std::uint32_t frac = bits & 0x03FFu;
  std::uint32_t out;
  if (exp == 0x1F) {
    // Infinity (frac == 0) or NaN: fraction bits move up unchanged, so payload and quiet bit
    // (f16 bit 9 -> f32 bit 22) are kept.
    out = sign | kF32ExpMask | (frac << 13);
  } else if (exp != 0) {
    // Normal: rebias 15 -> 127.
    out = sign | ((exp + (127 - 15)) << 23) | (frac << 13);
  } else if (frac == 0) {
    out = sign;  // +-0
  } else {
    // Subnormal f16 = frac * 2^-24 with frac in [1, 1023]; every one is a normal f32. With the
    // leading 1 of frac at bit p (0..9), value = 2^(p-24) * 1.rest.
    const int p = 31 - std::countl_zero(frac);
    frac = (frac << (23 - p)) & kF32FracMask;
    out = sign | (static_cast<std::uint32_t>(p - 24 + 127) << 23) | frac;
  }
  return std::bit_cast<float>(out);
}

std::uint16_t F32ToF16Bits(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xFFu;
  const std::uint32_t frac = x & kF32FracMask;
  if (exp == 0xFF) {
    if (frac == 0) return static_cast<std::uint16_t>(sign | kF16Inf);
    // NaN: quiet, sign kept, top 10 payload bits kept.
    return static_cast<std::uint16_t>(sign | kF16Inf | kF16QuietBit | (frac >> 13));
  }
  // f16 biased exponent of the value if it were normal (bias 15 instead of 127).
  const int half_exp = static_cast<int>(exp) - 127 + 15;
  if (half_exp >= 0x1F) return static_cast<std::uint16_t>(sign | kF16Inf);  // >= 2^16
  if (half_exp >= 1) {
    // Normal result: keep 10 of 23 fraction bits. Rounding up may carry into the exponent;
    // the encoding is monotone, so the carry yields the next binade or +-inf (0x7C00)
    // exactly as IEEE overflow requires.
    const std::uint32_t mag = (static_cast<std::uint32_t>(half_exp) << 10) | (frac >> 13);
    const std::uint32_t rest = frac & 0x1FFFu;
    const bool up = rest > 0x1000u || (rest == 0x1000u && (mag & 1u));
    return static_cast<std::uint16_t>(sign | (mag + (up ? 1u : 0u)));
  }
  // Subnormal or zero result. The value is sig * 2^(exp-150) with sig the 24-bit
  // significand (f32 subnormals, exp == 0, are below 2^-126 and have no hidden bit); in units
  // of the f16 subnormal step 2^-24 that is sig * 2^(exp-126), i.e. sig >> (126 - exp).
  const std::uint32_t sig = exp == 0 ? frac : (frac | kF32ImplicitBit);
  const int shift = 126 - static_cast<int>(exp == 0 ? 1 : exp);  // >= 14
  // With shift >= 25 the value is below 2^-25 (half the smallest subnormal): it rounds to 0.
  if (shift > 24) return static_cast<std::uint16_t>(sign);
  // A result of 0x400 (rounded up past the largest subnormal) is the smallest normal.
  return static_cast<std::uint16_t>(sign | ShiftRightRoundTiesToEven(sig, shift));
}

float BF16BitsToF32(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t F32ToBF16Bits(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  if ((x & kF32ExpMask) == kF32ExpMask && (x & kF32FracMask) != 0) {
    // NaN: quiet, sign and top 7 payload bits kept.
    return static_cast<std::uint16_t>((x >> 16) | kBF16QuietBit);
  }
  // Drop the low 16 bits, rounding to nearest even. Within one sign the encoding is
  // monotone in magnitude, so a carry out of the fraction moves to the next binade, and the
  // largest finite magnitude 0x7F7F rounds up to infinity 0x7F80 exactly at and above the
  // IEEE overflow threshold 2^128 - 2^119. The carry never reaches the sign bit: the largest
  // non-NaN word is -inf, 0xFF800000, whose low half is 0.
  return static_cast<std::uint16_t>(ShiftRightRoundTiesToEven(x, 16));
}

}  // namespace sampcheck
