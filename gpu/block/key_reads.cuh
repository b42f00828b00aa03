// SPDX-License-Identifier: Apache-2.0
#pragma once
// A row's keys read with several loads in flight a thread: key sources whose load is apart
// from their key (SplitKeySource), and the loops that issue a group of loads before making
// the group's keys (docs/gpu.md "Reading the SASS").
//
// Contract:
// - A SplitKeySource K: K.Load(i) is the row's value at index i (one global load), K.Key(i, x)
//   its key, and K(i) = K.Key(i, K.Load(i)). Any other callable key_of(i) is read one index at
//   a time, as written.
// - ForEachKey(key_of, first, end, stride, visit): visit(i, key_of(i)) for i = first, first +
//   stride, ... < end, in that order, whatever the source.
// - ForEachKeyUntil(key_of, first, end, stride, visit): the same, ending after the first visit
//   that returns true; returns whether one did. A SplitKeySource's group may load up to
//   kKeyGroup - 1 indices past that one (inside [first, end)); they are never visited.
// - ReversedKeys{K}: the source of ~K(i) (the reversed order), split as K is, by quads as K is.
// - A QuadKeySource K: a SplitKeySource whose values are a global array's, with that array's
//   Load4(i) and BoundaryGap(i) (gpu/block/quad_reads.cuh), so that a read whose result does
//   not depend on which thread sees which index takes them four a load: ForEachQuadKey<kGroup>(
//   key_of, span, threads, t, visit) is ForEachQuadElement<kGroup> over [0, n) with visit(i,
//   K.Key(i, x)).
// - KeyPartition, PartitionKeys(key_of, n, threads, fixed = false): which keys of [0, n) each of
//   `threads` (>= 4) threads reads, for a read whose result does not depend on the partition
//   (exact counts, minima, candidates sorted or ranked afterwards): a QuadKeySource's four a load
//   (QuadSpanOf; FixedQuadSpanOf when `fixed`, for a caller that also sums over the shares in a
//   free order, which must not depend on the row's address), any other source's strided
//   (thread t: t, t + threads, ...). ForEachPartitionKey(key_of, part, t, visit): visit(i, key)
//   over thread t's keys, each index of [0, n) by one thread.
// Why: a key that divides (gpu-fast's s_i = x_i / t until 2026-12-04) has the IEEE division's
// check followed by a call to its slow path, and nvcc moves no load above that call, so a loop
// that made its keys one at a time waited for each load before issuing the next: one load in
// flight a thread (the SASS of nvcc 13.0 for sm_90). Here a group's kKeyGroup loads come first and LoadedHere
// (core/portability.h) keeps nvcc from moving them back down to their divisions.
// Example: a SplitKeySource over 10 indices, first 1, stride 2: visits 1, 3, 5, 7 after
//   loading all four, then 9 alone (tests/gpu_key_reads_test.cc).

#include <concepts>
#include <cstdint>

#include "core/portability.h"
#include "gpu/block/quad_reads.cuh"

namespace sampcheck::gpu {

template <class K>
concept SplitKeySource = requires(const K& key_of, std::int64_t i, float x) {
  { key_of.Load(i) } -> std::convertible_to<float>;
  { key_of.Key(i, x) } -> std::convertible_to<std::uint64_t>;
};

inline constexpr int kKeyGroup = 4;

template <class KeyOf, class Visit>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool ForEachKeyUntil(const KeyOf& key_of, std::int64_t first,
                                                                std::int64_t end, std::int64_t stride, Visit visit) {
  std::int64_t i = first;
  if constexpr (SplitKeySource<KeyOf>) {
    for (; i + (kKeyGroup - 1) * stride < end; i += kKeyGroup * stride) {
      float x[kKeyGroup];
      for (int u = 0; u < kKeyGroup; ++u) x[u] = key_of.Load(i + u * stride);
      for (int u = 0; u < kKeyGroup; ++u) LoadedHere(x[u]);
      for (int u = 0; u < kKeyGroup; ++u) {
        if (visit(i + u * stride, key_of.Key(i + u * stride, x[u]))) return true;
      }
    }
  }
  for (; i < end; i += stride) {
    if (visit(i, key_of(i))) return true;
  }
  return false;
}

template <class KeyOf, class Visit>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEachKey(const KeyOf& key_of, std::int64_t first, std::int64_t end,
                                                           std::int64_t stride, Visit visit) {
  (void)ForEachKeyUntil(key_of, first, end, stride, [&](std::int64_t i, std::uint64_t key) {
    visit(i, key);
    return false;
  });
}

template <class K>
concept QuadKeySource = SplitKeySource<K> && requires(const K& key_of, std::int64_t i) {
  key_of.Load4(i);
  { key_of.BoundaryGap(i) } -> std::convertible_to<std::int64_t>;
};

template <int kGroup = 1, class KeyOf, class Visit>
  requires QuadKeySource<KeyOf>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEachQuadKey(const KeyOf& key_of, const QuadSpan& span, int threads,
                                                               int t, Visit visit) {
  ForEachQuadElement<kGroup>(key_of, 0, span, threads, t,
                             [&](std::int64_t i, float x) { visit(i, key_of.Key(i, x)); });
}

struct KeyPartition {
  std::int64_t n = 0;
  int threads = 1;
  QuadSpan span{};  // a QuadKeySource's
};

template <class KeyOf>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE KeyPartition PartitionKeys(const KeyOf& key_of, std::int64_t n,
                                                                        int threads, bool fixed = false) {
  KeyPartition p;
  p.n = n;
  p.threads = threads;
  if constexpr (QuadKeySource<KeyOf>) p.span = fixed ? FixedQuadSpanOf(key_of, 0, n) : QuadSpanOf(key_of, 0, n);
  return p;
}

template <class KeyOf, class Visit>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEachPartitionKey(const KeyOf& key_of, const KeyPartition& part,
                                                                      int t, Visit visit) {
  if constexpr (QuadKeySource<KeyOf>) {
    ForEachQuadKey(key_of, part.span, part.threads, t, visit);
  } else {
    ForEachKey(key_of, t, part.n, part.threads, visit);
  }
}

template <class K>
struct ReversedKeys {
  K keys;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Load(std::int64_t i) const
    requires SplitKeySource<K>
  {
    return keys.Load(i);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t Key(std::int64_t i, float x) const
    requires SplitKeySource<K>
  {
    return ~keys.Key(i, x);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE auto Load4(std::int64_t i) const
    requires QuadKeySource<K>
  {
    return keys.Load4(i);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t BoundaryGap(std::int64_t i) const
    requires QuadKeySource<K>
  {
    return keys.BoundaryGap(i);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t operator()(std::int64_t i) const { return ~keys(i); }
};

}  // namespace sampcheck::gpu
