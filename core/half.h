// SPDX-License-Identifier: Apache-2.0
#pragma once
// Exact conversions between f32 and the 16-bit floats f16 (IEEE 754 binary16) and bf16
// (bfloat16: the top half of a binary32).
//
// Contract (docs/spec/dtypes.md):
// - Widening (f16 -> f32, bf16 -> f32) is exact for every one of the 65536 bit patterns:
//   signed zeros, subnormals, infinities and NaNs (payload and sign kept, quiet bit as in
//   the source) are preserved.
// - Narrowing (f32 -> f16, f32 -> bf16) rounds to nearest, ties to even, as IEEE 754
//   roundTiesToEven: overflow goes to +-inf, results below the smallest subnormal round to
//   +-0 or the smallest subnormal, subnormal f32 inputs are not flushed. A NaN stays a NaN
//   with its sign; it is made quiet and keeps the top payload bits that fit.
// - Pure integer bit manipulation: no floating-point environment, no FTZ/DAZ dependence,
//   usable on host and device.
// Example: F16BitsToF32(0x3C00) == 1.0f; F32ToF16Bits(65520.0f) == 0x7C00 (+inf: 65520 is
// the midpoint between 65504 and 2^16 and rounds to the even, overflowing, side).

#include <cstdint>

namespace sampcheck {

float F16BitsToF32(std::uint16_t bits);
std::uint16_t F32ToF16Bits(float value);
float BF16BitsToF32(std::uint16_t bits);
std::uint16_t F32ToBF16Bits(float value);

}  // namespace sampcheck
