// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one portability header: host/device attribute, force-inline, a device assert that
// traps, and feature flags that are always defined to 0 or 1.
//
// Contract:
// - SAMPCHECK_HOST_DEVICE expands to `__host__ __device__` when the translation unit is
//   compiled by nvcc (or clang in CUDA mode), i.e. under __CUDACC__, and to nothing otherwise.
//   Shared numerical headers (reference/math/) mark every function with it.
// - SAMPCHECK_FORCE_INLINE is `__forceinline__` under CUDA, `inline` plus always_inline on
//   GCC/Clang, `__forceinline` on MSVC. It includes `inline`, so it may stand alone.
// - SAMPCHECK_OUT_OF_LINE is `__noinline__` under CUDA and nothing elsewhere: a device function
//   kept out of its caller, so that its loop is register-allocated on its own, away from the
//   values its caller keeps live (a kernel at 64 registers a thread spills those; ptxas had
//   put a spilled reload in a sequential loop, one local-memory round trip an iteration). The
//   host has no such limit and inlines as it likes.
// - LoadedHere(x) (a float): on the device, an empty `asm volatile` that takes x, so that the
//   load that made x is issued before this point: nvcc otherwise moves a load down to its
//   first use, and in a loop that makes keys by IEEE division, past the division's slow-path
//   call, which leaves one load in flight a thread (gpu/block/key_reads.cuh, ForEachKey).
//   It emits no instruction. Nothing on the host.
// - SAMPCHECK_DEVICE_ASSERT(cond): on the device, executes `__trap()` when cond is false (the
//   kernel aborts with cudaErrorLaunchFailure / an illegal-instruction error); on the host it
//   prints "file:line: assertion failed: cond" to stderr and calls std::abort(). It is active
//   in every build type (unlike <cassert>): the device trap does not honour NDEBUG either,
//   and host and device must agree on what is checked.
// - SAMPCHECK_HOST_ASSERT(cond): SAMPCHECK_DEVICE_ASSERT's host half alone, nothing on the
//   device: a kernel's precondition that the emulator checks where the device's check would
//   cost a hot loop's instructions (gpu/block/cached_candidates.cuh, LaneKeys::Add).
// - Feature flags, each always defined to 0 or 1 so `#if FLAG` is valid under -Wundef:
//     SAMPCHECK_IS_CUDA_COMPILER  1 when compiled by a CUDA compiler (host or device pass)
//     SAMPCHECK_IS_CUDA_DEVICE    1 only in the device pass (__CUDA_ARCH__ defined)
//     SAMPCHECK_HOST_HAS_FMA      1 when the host target has a hardware FMA instruction
//                                 enabled at compile time (__FMA__, e.g. -mfma); 0 means
//                                 std::fma is a libm call (still correctly rounded on glibc)
// - No exceptions, no iostreams, no allocation: usable from device code and from the
//   header self-containment target.
// Example: `SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int Twice(int v) { return 2 * v; }`
// compiles with g++ -Wundef and with nvcc; `#if SAMPCHECK_IS_CUDA_DEVICE` selects device code.

#include <cstdio>
#include <cstdlib>

#if defined(__CUDACC__)
#define SAMPCHECK_IS_CUDA_COMPILER 1
#else
#define SAMPCHECK_IS_CUDA_COMPILER 0
#endif

#if defined(__CUDA_ARCH__)
#define SAMPCHECK_IS_CUDA_DEVICE 1
#else
#define SAMPCHECK_IS_CUDA_DEVICE 0
#endif

#if defined(__FMA__)
#define SAMPCHECK_HOST_HAS_FMA 1
#else
#define SAMPCHECK_HOST_HAS_FMA 0
#endif

#if SAMPCHECK_IS_CUDA_COMPILER
#define SAMPCHECK_HOST_DEVICE __host__ __device__
#define SAMPCHECK_FORCE_INLINE __forceinline__
#define SAMPCHECK_OUT_OF_LINE __noinline__
#elif defined(__GNUC__) || defined(__clang__)
#define SAMPCHECK_HOST_DEVICE
#define SAMPCHECK_FORCE_INLINE inline __attribute__((always_inline))
#define SAMPCHECK_OUT_OF_LINE
#elif defined(_MSC_VER)
#define SAMPCHECK_HOST_DEVICE
#define SAMPCHECK_FORCE_INLINE __forceinline
#define SAMPCHECK_OUT_OF_LINE
#else
#define SAMPCHECK_HOST_DEVICE
#define SAMPCHECK_FORCE_INLINE inline
#define SAMPCHECK_OUT_OF_LINE
#endif

namespace sampcheck {

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void LoadedHere(float x) {
#if SAMPCHECK_IS_CUDA_DEVICE
  asm volatile("" ::"f"(x));
#else
  (void)x;
#endif
}

}  // namespace sampcheck

namespace sampcheck::detail {

// Host half of SAMPCHECK_DEVICE_ASSERT; out of line of the macro so the check stays cheap.
[[noreturn]] inline void HostAssertFail(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, expr);
  std::abort();
}

}  // namespace sampcheck::detail

#if SAMPCHECK_IS_CUDA_DEVICE
#define SAMPCHECK_HOST_ASSERT(cond) \
  do {                              \
  } while (0)
#define SAMPCHECK_DEVICE_ASSERT(cond) \
  do {                                \
    if (!(cond)) __trap();            \
  } while (0)
#else
#define SAMPCHECK_HOST_ASSERT(cond) SAMPCHECK_DEVICE_ASSERT(cond)
#define SAMPCHECK_DEVICE_ASSERT(cond)                                      \
  do {                                                                     \
    if (!(cond)) ::sampcheck::detail::HostAssertFail(#cond, __FILE__, __LINE__); \
  } while (0)
#endif
