// SPDX-License-Identifier: Apache-2.0
// Known answers at the edge words of every uniform -> uniform-float / exponential / Gumbel
// conversion the project uses (docs/spec/rng.md "Uniform conversions" and "Noise laws"): 0, 1,
// the last word below and the first word at each end of the interval, 2^24 - 1 and 2^32 - 1
// for the 32-bit paths, and the all-zero / all-one 52- and 53-bit mantissas for the 64-bit
// paths. An endpoint that is not excluded, or a conversion that keeps fewer bits than the spec
// says, fails here instead of hiding below statistical resolution.
//
// Sources of the expected values: the uniform conversions by hand (each derivation is in the
// comment beside it); the composed noise values from mpmath at 200 bits, rounded as the
// function rounds (binary64 after each log, then binary32), with the script in the comment.
#include <bit>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "reference/rng/noise.h"
#include "reference/rng/uniform.h"

namespace sampcheck::rng {
namespace {

::testing::AssertionResult SameF32(float got, float want) {
  if (std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << std::hexfloat << got << " (0x" << std::hex
                                       << std::bit_cast<std::uint32_t>(got) << "), want " << std::hexfloat << want;
}
::testing::AssertionResult SameF64(double got, double want) {
  if (std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << std::hexfloat << got << ", want " << want;
}

constexpr float kInfF32 = std::numeric_limits<float>::infinity();

// (w >> 8) 2^-24: the 256 words below 0x100 give 0; 0x100 is the first positive value;
// 2^24 - 1 keeps only its top 16 bits (0xffff 2^-24); 2^32 - 1 gives the largest, 1 - 2^-24.
TEST(RngEdgeWords, UniformClosedOpen24F32) {
  EXPECT_TRUE(SameF32(UniformClosedOpen24F32(0u), 0.0f));
  EXPECT_TRUE(SameF32(UniformClosedOpen24F32(1u), 0.0f));
  EXPECT_TRUE(SameF32(UniformClosedOpen24F32(0xffu), 0.0f));
  EXPECT_TRUE(SameF32(UniformClosedOpen24F32(0x100u), 0x1p-24f));
  EXPECT_TRUE(SameF32(UniformClosedOpen24F32(0x00ffffffu), 0x1.fffep-9f));  // 0xffff 2^-24
  EXPECT_TRUE(SameF32(UniformClosedOpen24F32(0xffffffffu), 0x1.fffffep-1f));
}

// RN_f32(RN_f32(w) 2^-32 + 2^-33): 0 -> 2^-33; 1 -> 3 2^-33 = 0x1.8p-32 (exact);
// 2^24 - 1 -> (2^24 - 1) 2^-32 + 2^-33 = 2^-8 - 2^-33, a tie between 2^-8 - 2^-32 (odd
// significand 0xffffff) and 2^-8 (even): 2^-8. 0xffffff7f: RN_f32(2^32 - 129) = 2^32 - 256
// (127 below vs 129 above), so u = 1 - 2^-24 + 2^-33 -> 1 - 2^-24: the last word below 1.
// 0xffffff80: 2^32 - 128 is a tie between 2^32 - 256 (odd) and 2^32 (even): 2^32, u -> 1.0:
// the first word mapping to the closed end; so does 2^32 - 1.
TEST(RngEdgeWords, UniformOpenClosedCurandF32) {
  EXPECT_TRUE(SameF32(UniformOpenClosedCurandF32(0u), 0x1p-33f));
  EXPECT_TRUE(SameF32(UniformOpenClosedCurandF32(1u), 0x1.8p-32f));
  EXPECT_TRUE(SameF32(UniformOpenClosedCurandF32(0x00ffffffu), 0x1p-8f));
  EXPECT_TRUE(SameF32(UniformOpenClosedCurandF32(0xffffff7fu), 0x1.fffffep-1f));
  EXPECT_TRUE(SameF32(UniformOpenClosedCurandF32(0xffffff80u), 1.0f));
  EXPECT_TRUE(SameF32(UniformOpenClosedCurandF32(0xffffffffu), 1.0f));
}

// RN_f64(h / (2^32 - 1)): both ends included, 0 only at h = 0 and 1 only at h = 2^32 - 1;
// h = 2^32 - 2 is the last word below 1: 1 - 1 / (2^32 - 1) = 1 - 2^-32 - 2^-64 - ..., and
// 2^-64 is far below half an ulp of binary64 below 1 (2^-54): 1 - 2^-32 = 0x1.fffffffep-1.
TEST(RngEdgeWords, UniformSglangF64) {
  EXPECT_TRUE(SameF64(UniformSglangF64(0u), 0.0));
  EXPECT_TRUE(SameF64(UniformSglangF64(0xffffffffu), 1.0));
  EXPECT_TRUE(SameF64(UniformSglangF64(0xfffffffeu), 0x1.fffffffep-1));
}

// ((w1 << 32 | w0) >> 11) 2^-53: the all-zero 53-bit mantissa gives 0, the all-one one
// 1 - 2^-53; the 11 low bits of w0 are dropped (0x7ff -> 0, 0x800 -> 2^-53).
TEST(RngEdgeWords, UniformClosedOpen53F64) {
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0u, 0u), 0.0));
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0x7ffu, 0u), 0.0));
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0x800u, 0u), 0x1p-53));
  EXPECT_TRUE(SameF64(UniformClosedOpen53F64(0xffffffffu, 0xffffffffu), 0x1.fffffffffffffp-1));
}

// RN((x ^ (y << 21)) 2^-53 + 2^-54) with z = x ^ (y << 21) a 53-bit mantissa: z = 0 -> 2^-54;
// z = 2^52 - 1 (all-one 52 bits) -> (2^53 - 1) 2^-54 = 0.5 - 2^-54, exact in binary64;
// z = 2^53 - 2 -> 1 - 3 2^-54, a tie between 1 - 2^-52 (even) and 1 - 2^-53 (odd): 1 - 2^-52;
// z = 2^53 - 1 (all-one 53 bits) -> 1 - 2^-54, a tie between 1 - 2^-53 (odd) and 1 (even): 1.
TEST(RngEdgeWords, UniformOpenClosedCurandF64) {
  EXPECT_TRUE(SameF64(UniformOpenClosedCurandF64(0u, 0u), 0x1p-54));
  EXPECT_TRUE(SameF64(UniformOpenClosedCurandF64(0xffffffffu, 0x7ffff800u), 0x1.fffffffffffffp-2));  // z = 2^52 - 1
  EXPECT_TRUE(SameF64(UniformOpenClosedCurandF64(0x001ffffeu, 0xffffffffu), 0x1.ffffffffffffep-1));  // z = 2^53 - 2
  EXPECT_TRUE(SameF64(UniformOpenClosedCurandF64(0x001fffffu, 0xffffffffu), 1.0));  // z = 2^53 - 1
}

// PyTorch CUDA's exponential on cuRAND uniforms (vLLM's q; the draw harness's Exp(1) noise):
// the last word below 1 (0xffffff7f -> 1 - 2^-24) is already clamped to 2^-24, as is every
// word mapping to 1; the smallest uniform 2^-33 (w = 0) gives the finite top, RN_f32(33 ln2).
// So no word gives +inf or 0: the law is truncated to [2^-24, 0x1.6dfb52p+4].
TEST(RngEdgeWords, ExponentialTorchCudaOnCurandWords) {
  EXPECT_TRUE(SameF32(ExponentialTorchCudaF32(UniformOpenClosedCurandF32(0u)), 0x1.6dfb52p+4f));
  EXPECT_TRUE(SameF32(ExponentialTorchCudaF32(UniformOpenClosedCurandF32(0xffffff7fu)), 0x1p-24f));
  EXPECT_TRUE(SameF32(ExponentialTorchCudaF32(UniformOpenClosedCurandF32(0xffffff80u)), 0x1p-24f));
  EXPECT_TRUE(SameF32(ExponentialTorchCudaF32(UniformOpenClosedCurandF32(0xffffffffu)), 0x1p-24f));
}

// -log(u) and -log1p(-u) on the 24-bit law's ends: u = 0 (words 0 .. 0xff) gives +inf for
// -log(u) (an endpoint the law does not exclude: P = 2^-24) and +0 for -log1p(-u).
TEST(RngEdgeWords, ExponentialOn24BitWords) {
  EXPECT_TRUE(SameF32(ExponentialNegLogF32(UniformClosedOpen24F32(0xffu)), kInfF32));
  EXPECT_TRUE(SameF32(ExponentialNegLog1pNegF32(UniformClosedOpen24F32(0xffu)), 0.0f));
  EXPECT_TRUE(SameF32(ExponentialNegLog1pNegF32(UniformClosedOpen24F32(0xffffffffu)), 0x1.0a2b24p+4f));  // RN(24 ln2)
}

// The draw harness's Gumbel (cell centres, binary64 logs, one rounding to binary32). mpmath:
//   u = ((w >> 8) + 0.5) 2^-24; inner = RN64(-ln u); RN32(RN64(-ln inner)).
// w = 0 and 0xff share the first cell (u = 2^-25): -0x1.6d1a3ap+1; w = 0x100: u = 3 2^-25:
// -0x1.64b802p+1; w = 0x80000000: u = 0.5 + 2^-25: 0x1.774f30p-2; w = 2^32 - 1: u = 1 - 2^-25,
// inner = 0x1.0000004000001p-25: 0x1.154246p+4. Both ends finite.
TEST(RngEdgeWords, GumbelCellCentreF32) {
  EXPECT_TRUE(SameF32(GumbelCellCentreF32(0u), -0x1.6d1a3ap+1f));
  EXPECT_TRUE(SameF32(GumbelCellCentreF32(0xffu), -0x1.6d1a3ap+1f));
  EXPECT_TRUE(SameF32(GumbelCellCentreF32(0x100u), -0x1.64b802p+1f));
  EXPECT_TRUE(SameF32(GumbelCellCentreF32(0x80000000u), 0x1.774f30p-2f));
  EXPECT_TRUE(SameF32(GumbelCellCentreF32(0xffffffffu), 0x1.154246p+4f));
}

}  // namespace
}  // namespace sampcheck::rng
