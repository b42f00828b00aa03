// SPDX-License-Identifier: Apache-2.0
#pragma once
// An f32's bits in the low half of a u64 word and back, for block code that passes floats
// through a shared array of u64 words (shared arrays are typed, and the kernels at the 48 KiB
// of static shared memory reuse their u64 buffers rather than declare float ones).
//
// Contract: WordFloat(FloatWord(x)) has x's bits for every bit pattern (-0.0 and NaN payloads
// included); FloatWord leaves the high half zero, so a caller may pack a second value there.
// Example: FloatWord(1.0f) = 0x3f800000 and WordFloat(0x3f800000) = 1.0f (tests/gpu_kernels_test.cc,
//   "GpuFloatWord").

#include <cstdint>
#include <cstring>

#include "core/portability.h"

namespace sampcheck::gpu {

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t FloatWord(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float WordFloat(std::uint64_t w) {
  const auto u = static_cast<std::uint32_t>(w);
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

}  // namespace sampcheck::gpu
