// SPDX-License-Identifier: Apache-2.0
#pragma once
// A thread's share of a row, as a list: which indices of [0, n) thread t of a block reads, in
// ascending order, for reads whose per-thread results a later step walks back by position
// (gpu-fast's proposals: a thread's mass from one read, then the owner's indices walked to
// the one that mass points at, gpu/fast/fast_proposals.cuh) (docs/gpu.md "Quad reads").
//
// Contract:
// - ShareOf(key_of, n, threads): by quads (FixedQuadSpanOf over [0, n), gpu/block/quad_reads.cuh:
//   quads from index 0 whatever the row's address, loaded one element at a time off a 16-byte
//   boundary, so that a thread's list, hence a draw or a free-order sum over the shares, does
//   not depend on where the batch puts the row) when key_of is a QuadKeySource
//   (gpu/block/key_reads.cuh) and [0, n) holds at least kQuadShareMinQuads quads, else strided. Strided: thread t's indices t, t + threads, ... < n.
//   Quads (span.head is always 0): ForEachQuadElement's, in its order: the four of each of
//   quads t, t + threads, ..., then tail element t (t < tail).
// - Count(t): the length of t's list; IndexAt(t, j) for 0 <= j < Count(t): its j-th index.
// - ForEachShareKey(key_of, share, t, visit): visit(i, key_of's key of i) over t's list in
//   order (quads: one Load4 each). ForEachShareKeyUntil(key_of, share, t, lo, hi, visit):
//   positions lo .. hi - 1 of t's list in order, ending after the first visit that returns
//   true (returns whether one did); a SplitKeySource's loads issued kKeyGroup at a time.
// - Why kQuadShareMinQuads = 1024 (kThreads dividing 1024): gpu-fast's lane minima read 1024
//   virtual lanes (thread t of kThreads: lanes t, t + kThreads, ...) by quads from 1024 quads
//   on (StoreLaneMinima, gpu/fast/fast_top_k_survivors.cuh); the union of a thread's lanes'
//   quads, q = l mod 1024 over its lanes l, is q = t mod kThreads, its share here, and so are
//   the tail elements (lanes 0 .. 2 belong to threads 0 .. 2; with a visit, a head-0 span there
//   too) and, strided, the indices. So a mass that thread summed there is the mass of its list here.
// Example: a share by quads of n = 10 (2 quads, a tail of 2; a span given by hand) among 4
//   threads: thread 0's list is 0, 1, 2, 3, 8; thread 1's 4, 5, 6, 7, 9; thread 2's empty
//   (tests/gpu_emulator_test.cc, "GpuThreadShare").

#include <cstdint>

#include "core/portability.h"
#include "gpu/block/key_reads.cuh"
#include "gpu/block/quad_reads.cuh"

namespace sampcheck::gpu {

inline constexpr std::int64_t kQuadShareMinQuads = 1024;

struct ThreadShare {
  std::int64_t n = 0;
  int threads = 1;
  bool quads = false;
  QuadSpan span{};  // FixedQuadSpanOf's: head 0

  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t QuadsOf(std::int64_t t) const {
    return t < span.quads ? (span.quads - t + threads - 1) / threads : 0;
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t Count(std::int64_t t) const {
    if (!quads) return t < n ? (n - t + threads - 1) / threads : 0;
    return 4 * QuadsOf(t) + (t < span.tail ? 1 : 0);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t IndexAt(std::int64_t t, std::int64_t j) const {
    if (!quads) return t + j * threads;
    if (j < 4 * QuadsOf(t)) return 4 * (t + (j / 4) * threads) + j % 4;
    return 4 * span.quads + t;
  }
};

template <class KeyOf>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE ThreadShare ShareOf(const KeyOf& key_of, std::int64_t n, int threads) {
  ThreadShare s;
  s.n = n;
  s.threads = threads;
  if constexpr (QuadKeySource<KeyOf>) {
    s.span = FixedQuadSpanOf(key_of, 0, n);
    s.quads = s.span.quads >= kQuadShareMinQuads;
  }
  return s;
}

template <class KeyOf, class Visit>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool ForEachShareKeyUntil(const KeyOf& key_of, const ThreadShare& share,
                                                                       int t, std::int64_t lo, std::int64_t hi,
                                                                       Visit visit) {
  const int stride = share.threads;
  if (!share.quads) return ForEachKeyUntil(key_of, t + lo * stride, t + hi * stride, stride, visit);
  std::int64_t j = lo;
  if constexpr (SplitKeySource<KeyOf>) {
    for (; j + kKeyGroup <= hi; j += kKeyGroup) {
      std::int64_t at[kKeyGroup];
      float x[kKeyGroup];
      for (int u = 0; u < kKeyGroup; ++u) at[u] = share.IndexAt(t, j + u);
      for (int u = 0; u < kKeyGroup; ++u) x[u] = key_of.Load(at[u]);
      for (int u = 0; u < kKeyGroup; ++u) LoadedHere(x[u]);
      for (int u = 0; u < kKeyGroup; ++u) {
        if (visit(at[u], key_of.Key(at[u], x[u]))) return true;
      }
    }
  }
  for (; j < hi; ++j) {
    const std::int64_t i = share.IndexAt(t, j);
    if (visit(i, key_of(i))) return true;
  }
  return false;
}

template <class KeyOf, class Visit>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEachShareKey(const KeyOf& key_of, const ThreadShare& share, int t,
                                                                  Visit visit) {
  if (!share.quads) return ForEachKey(key_of, t, share.n, share.threads, visit);
  if constexpr (QuadKeySource<KeyOf>) {
    ForEachQuadKey(key_of, share.span, share.threads, t, visit);
  } else {  // a share by quads over a source without Load4 (tests): position by position
    (void)ForEachShareKeyUntil(key_of, share, t, 0, share.Count(t), [&](std::int64_t i, std::uint64_t key) {
      visit(i, key);
      return false;
    });
  }
}

}  // namespace sampcheck::gpu
