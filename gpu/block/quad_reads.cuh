// SPDX-License-Identifier: Apache-2.0
#pragma once
// A phase's read of n consecutive 4-byte elements of a global array four to a 16-byte load
// (GlobalArray::Load4), for reads whose result does not depend on which thread sees which
// element (docs/gpu.md "Quad reads").
//
// Contract:
// - QuadSpanOf(arr, base, n): head = the elements from base up to the array's next 16-byte
//   address boundary (0 to 3, at most n), quads = the whole groups of four after them, tail =
//   the rest (0 to 3).
// - ForEachQuadElement<kGroup = 1>(arr, base, span, threads, t, f), in thread t's phase (t <
//   threads, threads >= 4): f(i, x) with x = arr[base + i] for head element t when t < head,
//   the four elements of quads q = t, t + threads, ... (head + 4q .. head + 4q + 3, one Load4
//   each) in that order, and tail element t when t < tail. Every element of [0, n) once, by
//   one thread: a thread of 1024 makes about n / 4096 loads where the canonical lanes' read
//   (thread t: indices t, t + 1024, ...) makes n / 1024. The quads go in groups of kGroup
//   consecutive ones of the thread, each group's loads made before its first f, so that
//   kGroup x 16 bytes are in flight a thread, not 16 (docs/gpu.md "Quad reads"); the loads
//   and the order of f are the same for every kGroup.
// - The head depends on the array's addresses: the device's rows of V = 128256 floats start on
//   16-byte boundaries, a row of odd V does not; the emulator's host vectors may differ from
//   the device's. So with QuadSpanOf which thread sees an element is not part of any result:
//   callers take a bound from each thread's minimum (any partition of the row into 1024 parts
//   bounds the k-th key alike) or count and cache candidates per thread and sort them
//   afterwards.
// - FixedQuadSpanOf(arr, base, n): the same split as if the range started on a boundary (head
//   0, quads n / 4, tail n % 4), so that which thread sees an element depends on n alone, for
//   reads whose result does (free-order sums, a draw's order): a row's token must not depend on
//   where its batch puts it. When it does not start on a boundary (`scalar`), each quad's four
//   elements are loaded one at a time: rows of V = 0 mod 4 in an aligned batch keep their
//   16-byte loads.
// - A source of several arrays read at once (gpu-fast's speculative entries: target, draft and q
//   rows, each at its own address) has no one head: it gives OffBoundary(i) (whether any of its
//   reads at i starts off a 16-byte boundary) instead of BoundaryGap(i). FixedQuadSpanOf takes
//   either (OffBoundaryAt); QuadSpanOf, whose head is the gap, does not compile with it.
// - LoadQuad(arr, i, scalar): elements i .. i + 3 as a Quad (gpu/block/quad.h): one Load4, or
//   four Loads when `scalar` (a FixedQuadSpanOf quad off a boundary). Every quad read here and
//   by the callers of FixedQuadSpanOf takes it.
// - RowOf{arr, base}: the elements from base on as an array indexed from 0 (Load, Load4,
//   BoundaryGap at base + i), for the callers that take a row's values as a source of their
//   own (the free-order inverse CDF's weights, gpu/fast/fast_sampling.cuh ValueWeights).
// Example: base 1 of an array that starts on a boundary, n = 10, 4 threads: head 3 (elements
//   0, 1, 2 by threads 0, 1, 2), one quad (elements 3 .. 6 by thread 0), tail 3 (elements 7,
//   8, 9 by threads 0, 1, 2) (tests/gpu_emulator_test.cc, "GpuQuadReads").

#include <cstdint>

#include "core/portability.h"

// `#pragma unroll` in the device pass, nothing elsewhere, before ForEachQuadElement's loops over
// a group: unrolled before register allocation, the group's array is registers; left to ptxas in
// an out-of-line function (gpu-fast's Row), it kept a stack copy of each quad, whose store waited
// for the load and so put one load in flight again (nvcc 13.0, sm_90).
#if SAMPCHECK_IS_CUDA_DEVICE
#define SAMPCHECK_UNROLL_GROUP _Pragma("unroll")
#else
#define SAMPCHECK_UNROLL_GROUP
#endif

namespace sampcheck::gpu {

// The group of the reads that carry a launch's first pass over the row (gpu-fast's survivors'
// read 1, the greedy argmax): 64 bytes in flight a thread, 64 KB a block of 1024, where one
// quad at a time kept 16 KB in flight a block (docs/gpu.md "Quad reads", "Loads in flight").
inline constexpr int kQuadGroup = 4;

struct QuadSpan {
  std::int64_t head = 0;
  std::int64_t quads = 0;
  std::int64_t tail = 0;
  bool scalar = false;  // the quads' elements one load each (FixedQuadSpanOf off a boundary)
};

template <class Arr>
  requires requires(const Arr& arr, std::int64_t i) { arr.BoundaryGap(i); }
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE QuadSpan QuadSpanOf(const Arr& arr, std::int64_t base, std::int64_t n) {
  QuadSpan s;
  const std::int64_t gap = arr.BoundaryGap(base);
  s.head = gap < n ? gap : n;
  s.quads = (n - s.head) / 4;
  s.tail = n - s.head - 4 * s.quads;
  return s;
}

// What FixedQuadSpanOf takes: quads, and a boundary by either of the two names (contract).
template <class Arr>
concept FixedQuadSource = requires(const Arr& arr, std::int64_t i) {
  arr.Load4(i);
  requires requires { arr.BoundaryGap(i); } || requires { arr.OffBoundary(i); };
};

template <FixedQuadSource Arr>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool OffBoundaryAt(const Arr& arr, std::int64_t base) {
  if constexpr (requires { arr.OffBoundary(base); }) {
    return arr.OffBoundary(base);
  } else {
    return arr.BoundaryGap(base) != 0;
  }
}

template <FixedQuadSource Arr>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE QuadSpan FixedQuadSpanOf(const Arr& arr, std::int64_t base,
                                                                      std::int64_t n) {
  return {0, n / 4, n % 4, OffBoundaryAt(arr, base)};
}

template <class Arr>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE auto LoadQuad(const Arr& arr, std::int64_t i, bool scalar) {
  if (!scalar) return arr.Load4(i);
  decltype(arr.Load4(i)) x;
  for (int j = 0; j < 4; ++j) x.v[j] = arr.Load(i + j);
  return x;
}

template <class Arr>
struct RowOf {
  Arr arr;
  std::int64_t base = 0;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE auto Load(std::int64_t i) const { return arr.Load(base + i); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE auto Load4(std::int64_t i) const { return arr.Load4(base + i); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t BoundaryGap(std::int64_t i) const {
    return arr.BoundaryGap(base + i);
  }
};
template <class Arr>
RowOf(Arr, std::int64_t) -> RowOf<Arr>;

template <int kGroup = 1, class Arr, class F>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEachQuadElement(const Arr& arr, std::int64_t base,
                                                                     const QuadSpan& s, int threads, int t, F&& f) {
  static_assert(kGroup >= 1, "a group holds a quad at least");
  if (t < s.head) f(std::int64_t{t}, arr.Load(base + t));
  for (std::int64_t q = t; q < s.quads; q += std::int64_t{kGroup} * threads) {
    // The group's loads first (quad q is in the span; a later one past it is not loaded), then
    // its visits.
    decltype(LoadQuad(arr, base, s.scalar)) x[kGroup];
    bool in_span[kGroup];
    SAMPCHECK_UNROLL_GROUP
    for (int u = 0; u < kGroup; ++u) {
      const std::int64_t qu = q + std::int64_t{u} * threads;
      in_span[u] = u == 0 || qu < s.quads;
      if (in_span[u]) x[u] = LoadQuad(arr, base + s.head + 4 * qu, s.scalar);
    }
    SAMPCHECK_UNROLL_GROUP
    for (int u = 0; u < kGroup; ++u) {
      if (!in_span[u]) continue;
      const std::int64_t i = s.head + 4 * (q + std::int64_t{u} * threads);
      for (int j = 0; j < 4; ++j) f(i + j, x[u].v[j]);
    }
  }
  const std::int64_t after = s.head + 4 * s.quads;
  if (t < s.tail) f(after + t, arr.Load(base + after + t));
}

}  // namespace sampcheck::gpu
