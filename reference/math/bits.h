// SPDX-License-Identifier: Apache-2.0
#pragma once
// Exact IEEE-754 bit access for binary32/binary64: reinterpretation, exact powers of two,
// and round-to-nearest-integer, with no libm and no floating-point environment.
//
// Contract:
// - F64Bits/F64FromBits/F32Bits/F32FromBits reinterpret the object representation
//   (__builtin_bit_cast: constexpr, and accepted by GCC >= 11, Clang and nvcc in device code,
//   where std::bit_cast would need --expt-relaxed-constexpr).
// - Pow2F64(k) is exactly 2^k for -1022 <= k <= 1023 (normal range; asserted on the device
//   and host); it is built from the exponent field, never by ldexp.
// - RoundToIntF64(t) is t rounded to the nearest integer, ties to even, exact for
//   |t| < 2^51: (t + 1.5*2^52) - 1.5*2^52 with two IEEE additions (valid only without
//   fast-math / reassociation: sampcheck compiles host code with -fno-fast-math and device
//   code without --use_fast_math).
// - QuietF32/QuietF64 set the quiet bit of a NaN by integer OR, so the result bits are the
//   same on every target (a NaN through an arithmetic op would become CUDA's canonical NaN
//   on the device but keep its payload on x86).
// Example: Pow2F64(-150) == 0x1p-150; RoundToIntF64(2.5) == 2.0; F32Bits(1.0f) == 0x3f800000.

#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/portability.h"

static_assert(std::numeric_limits<double>::is_iec559 && sizeof(double) == 8,
              "reference/math assumes binary64 double");
static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4,
              "reference/math assumes binary32 float");
static_assert(std::numeric_limits<double>::digits == 53 && std::numeric_limits<float>::digits == 24);
static_assert(std::numeric_limits<double>::radix == 2);

namespace sampcheck::math {

namespace detail {
// A namespace-scope constexpr table copied into a value: CUDA device code may not refer to a
// host constexpr array (CUDA C++ Programming Guide, "constexpr variables"), but may use a
// constexpr copy made inside the host-device function; the copy folds to constants.
template <class T, std::size_t N>
struct ConstTable {
  T v[N];
};
template <class T, std::size_t N>
SAMPCHECK_HOST_DEVICE constexpr ConstTable<T, N> AsTable(const T (&a)[N]) {
  ConstTable<T, N> t{};
  for (std::size_t i = 0; i < N; ++i) t.v[i] = a[i];
  return t;
}
}  // namespace detail

// `const T* name` reading `table`: the table itself on the host, a constexpr copy in device
// code (which may not refer to a host constexpr array). Host code stays exactly as before.
#if SAMPCHECK_IS_CUDA_DEVICE
#define SAMPCHECK_CONST_TABLE(name, table)                          \
  constexpr auto name##_copy_ = ::sampcheck::math::detail::AsTable(table); \
  const auto* name = name##_copy_.v
#else
#define SAMPCHECK_CONST_TABLE(name, table) const auto* name = (table)
#endif

SAMPCHECK_HOST_DEVICE constexpr std::uint64_t F64Bits(double x) {
  return __builtin_bit_cast(std::uint64_t, x);
}
SAMPCHECK_HOST_DEVICE constexpr double F64FromBits(std::uint64_t b) {
  return __builtin_bit_cast(double, b);
}
SAMPCHECK_HOST_DEVICE constexpr std::uint32_t F32Bits(float x) {
  return __builtin_bit_cast(std::uint32_t, x);
}
SAMPCHECK_HOST_DEVICE constexpr float F32FromBits(std::uint32_t b) {
  return __builtin_bit_cast(float, b);
}

// binary64 layout: 1 sign bit, 11 exponent bits (bias 1023), 52 fraction bits.
inline constexpr int kF64FractionBits = 52;
inline constexpr int kF64ExponentBias = 1023;
inline constexpr std::uint64_t kF64FractionMask = (std::uint64_t{1} << 52) - 1;
inline constexpr std::uint64_t kF64ExponentMask = std::uint64_t{0x7ff} << 52;
inline constexpr std::uint64_t kF64SignMask = std::uint64_t{1} << 63;
// binary32: quiet bit is the top fraction bit (IEEE 754-2008 6.2.1 recommendation, used by
// x86, ARM and NVIDIA GPUs).
inline constexpr std::uint32_t kF32QuietBit = 0x00400000u;
inline constexpr std::uint64_t kF64QuietBit = std::uint64_t{1} << 51;
// The NaN returned for invalid operations (log(-1), ...): positive, quiet, zero payload.
inline constexpr std::uint32_t kF32DefaultNaNBits = 0x7fc00000u;
inline constexpr std::uint64_t kF64DefaultNaNBits = 0x7ff8000000000000u;

SAMPCHECK_HOST_DEVICE constexpr double Pow2F64(int k) {
  SAMPCHECK_DEVICE_ASSERT(k >= -1022 && k <= 1023);
  return F64FromBits(static_cast<std::uint64_t>(k + kF64ExponentBias) << kF64FractionBits);
}

SAMPCHECK_HOST_DEVICE constexpr double RoundToIntF64(double t) {
  constexpr double kShifter = 0x1.8p52;  // 1.5 * 2^52: ulp 1 over [2^52, 2^53)
  return (t + kShifter) - kShifter;
}

SAMPCHECK_HOST_DEVICE constexpr float QuietF32(float nan) {
  return F32FromBits(F32Bits(nan) | kF32QuietBit);
}
SAMPCHECK_HOST_DEVICE constexpr double QuietF64(double nan) {
  return F64FromBits(F64Bits(nan) | kF64QuietBit);
}

}  // namespace sampcheck::math
