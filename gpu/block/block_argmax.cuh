// SPDX-License-Identifier: Apache-2.0
#pragma once
// Row argmax on the block model (gpu/block/block_model.h) in the canonical 1024-lane order
// (docs/spec/reductions.md "The order", "Operations": argmax): the total order argmax uses, the
// canonical tree over (value, index) pairs, and RowArgmax, the one per-thread fold every argmax
// kernel runs (gpu/kernels/greedy.cuh, gpu/kernels/gumbel_max.cuh, gpu/kernels/exponential_race.cuh, gpu/kernels/qsample.cuh,
// gpu/kernels/seeded_gumbel.cuh, gpu/kernels/spec_greedy.cuh, gpu/kernels/spec_random.cuh); the kernels differ only in
// the score they give each index. gpu/kernels/sglang_rank_draw.cuh ranks by (rank, index) keys rather
// than indices, so it folds its own keys and shares only the tree.
//
// Contract:
// - Total order (torch.argmax's, ArgmaxAbove): NaN above every number, the larger number
//   above, equal values (+0 == -0, NaN == NaN) to the lower index. kNoIndex is larger than every
//   index, so the identity (-inf, kNoIndex) loses every tie against a real entry. Ties go to the
//   lowest index whatever the thread layout: the order is total, so the winner is its maximum
//   whatever the tree and the number of lanes ("Max and argmax are total orders ... their
//   results do not depend on the order at all").
// - RowArgmax<kLanes, T>(block, n, value, index, above, score): the block has kLanes threads,
//   1024 (the canonical lanes) or 32 (one warp). Thread l folds i = l, l + kLanes, ... < n in
//   increasing order from the identity: score(t, i, x) says whether i is a candidate and sets
//   its value x; the pair (x, i) replaces the thread's pair only when above(x, i, v, j). Then
//   the canonical tree (strides kLanes / 2 .. 32 in shared memory, 16 .. 1 by ShuffleDown in
//   warp 0, the other warps skipping it: ForWarps) leaves the winner in `value` and `index` of
//   every thread (kAllThreads) or of thread 0 only (kThreadZero, one broadcast fewer); a block
//   with no candidate gives (-inf, kNoIndex).
//   Ends with a barrier, so the caller may reduce again.
// - WarpFirstBlockArgmax: the same winner, in thread 0 only, by a warp-first tree with one
//   barrier (the order is total, so any tree gives it); no barrier at the end.
// - Why one warp: the draws and speculative kernels are argmax-only, so the block size is free.
//   Their runners launch one warp per row when V <= kOneWarpVocab (the many small rows of the
//   statistical harness cost 32 emulated threads instead of 1024), 1024 threads above it.
// Example: lanes holding (1, 7), (3, 900), (3, 5) and the identity elsewhere give (3, 5)
// (tests/gpu_kernels_test.cc exercises it through greedy and the draw kernels).

#include <cstdint>
#include <cstring>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/float_word.cuh"
#include "gpu/block/quad_reads.cuh"

namespace sampcheck::gpu {

inline constexpr std::int64_t kNoIndex = INT64_MAX;

// Up to this V the argmax-only kernels run one warp per row (each thread folds at most 128
// entries); above it the canonical 1024 lanes, as gpu/kernels/greedy.cuh.
inline constexpr std::int64_t kOneWarpVocab = 4096;

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float NegativeInfinity() {
  const std::uint32_t bits = 0xff800000u;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE double NegativeInfinityF64() {
  const std::uint64_t bits = 0xfff0000000000000ull;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// Whether (x, i) ranks above (v, j) in argmax's total order.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool ArgmaxAbove(float x, std::int64_t i, float v, std::int64_t j) {
  const bool xn = IsNan(x);
  const bool vn = IsNan(v);
  if (xn != vn) return xn;
  if (!xn && x != v) return x > v;
  return i < j;
}

// ArgmaxAbove as a functor (float values).
struct ArgmaxAboveF32 {
  using Value = float;
  static SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Identity() { return NegativeInfinity(); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool operator()(float x, std::int64_t i, float v, std::int64_t j) const {
    return ArgmaxAbove(x, i, v, j);
  }
};

// The same total order on binary64 values (NaN above every number, equal values to the lower
// index), for multinomial_with_seed's f64 scores.
struct ArgmaxAboveF64 {
  using Value = double;
  static SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE double Identity() { return NegativeInfinityF64(); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool operator()(double x, std::int64_t i, double v,
                                                               std::int64_t j) const {
    const bool xn = x != x;
    const bool vn = v != v;
    if (xn != vn) return xn;
    if (!xn && x != v) return x > v;
    return i < j;
  }
};

// Where the tree leaves its winner.
enum class ArgmaxResult { kAllThreads, kThreadZero };

// The tree's levels 16 .. 1 within each warp (ShuffleDown: lane l < s receives lane l + s):
// lane 0 of each warp ends with its warp's winner.
template <class B, class RV, class RI, class Above>
SAMPCHECK_KERNEL_BODY void WarpArgmax(B& block, RV& value, RI& index, Above above) {
  for (int s = kWarpSize / 2; s >= 1; s /= 2) {
    auto other_value = ShuffleDown(block, value, s);
    auto other_index = ShuffleDown(block, index, s);
    block.ForEachThread([&](Thread t) {
      if (above(other_value[t], other_index[t], value[t], index[t])) {
        value[t] = other_value[t];
        index[t] = other_index[t];
      }
    });
  }
}

template <int kLanes, class T, ArgmaxResult kResult = ArgmaxResult::kAllThreads, class B, class RV, class RI,
          class Above>
SAMPCHECK_KERNEL_BODY void CanonicalBlockArgmax(B& block, RV& value, RI& index, Above above) {
  static_assert(kLanes == kWarpSize || kLanes == kCanonicalLanes, "one warp or the canonical 1024 lanes");
  SAMPCHECK_SHARED(block, T, arg_value, kLanes);
  SAMPCHECK_SHARED(block, std::int64_t, arg_index, kLanes);
  block.ForEachThread([&](Thread t) {
    arg_value.Store(t.x, value[t]);
    arg_index.Store(t.x, index[t]);
  });
  block.Sync();
  for (int s = kLanes / 2; s >= kWarpSize; s /= 2) {
    block.ForEachThread([&](Thread t) {
      if (t.x >= s) return;
      const T x = arg_value.Load(t.x + s);
      const std::int64_t i = arg_index.Load(t.x + s);
      if (above(x, i, arg_value.Load(t.x), arg_index.Load(t.x))) {
        arg_value.Store(t.x, x);
        arg_index.Store(t.x, i);
      }
    });
    block.Sync();
  }
  // Levels 16 .. 1 in warp 0 alone (ForWarps): the other warps' slots hold nothing the tree
  // still needs (they took part until 2026-12-06).
  block.ForWarps(WarpZero{}, [&] {
    block.ForEachThread([&](Thread t) {
      value[t] = arg_value.Load(t.x);
      index[t] = arg_index.Load(t.x);
    });
    WarpArgmax(block, value, index, above);
  });
  if constexpr (kResult == ArgmaxResult::kAllThreads) {
    // Broadcast lane 0's pair: a barrier first, since every thread read the arrays above.
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      arg_value.Store(0, value[t]);
      arg_index.Store(0, index[t]);
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      value[t] = arg_value.Load(0);
      index[t] = arg_index.Load(0);
    });
    block.Sync();
  }
}

// The winner of a block's pairs (kThreads threads, whole warps, at most 1024; the canonical
// 1024 unless given) in thread 0's `value` and `index` with one barrier: each warp's winner by
// ShuffleDown 16 .. 1, then warp 0 alone (ForWarps) over the warps' winners the same way (lanes
// past the last warp hold the identity). The order is total, so this is CanonicalBlockArgmax's winner
// (contract above) with 1 barrier instead of 6. No barrier at the end: a caller that reduces
// again syncs first (the sampling filters' seeded draw,
// gpu/kernels/sampling_filters_on_survivors.cuh, is the kernel's last step).
template <class T, int kThreads = kCanonicalLanes, class B, class RV, class RI, class Above>
SAMPCHECK_KERNEL_BODY void WarpFirstBlockArgmax(B& block, RV& value, RI& index, Above above) {
  static_assert(kThreads % kWarpSize == 0 && kThreads >= kWarpSize && kThreads <= kCanonicalLanes,
                "whole warps, at most 1024 threads");
  constexpr int kWarps = kThreads / kWarpSize;
  SAMPCHECK_SHARED(block, T, warp_value, kWarps);
  SAMPCHECK_SHARED(block, std::int64_t, warp_index, kWarps);
  WarpArgmax(block, value, index, above);
  block.ForEachThread([&](Thread t) {
    if (t.lane() != 0) return;
    warp_value.Store(t.warp(), value[t]);
    warp_index.Store(t.warp(), index[t]);
  });
  block.Sync();
  block.ForWarps(WarpZero{}, [&] {  // the warps' winners in warp 0 alone
    block.ForEachThread([&](Thread t) {
      const bool held = t.lane() < kWarps;
      value[t] = held ? warp_value.Load(t.lane()) : Above::Identity();
      index[t] = held ? warp_index.Load(t.lane()) : kNoIndex;
    });
    WarpArgmax(block, value, index, above);
  });
}

// The argmax of arr[base + i], i in [0, n), by a block of kThreads threads: each thread folds
// its share from the identity, four entries a load (ForEachQuadElement over QuadSpanOf,
// gpu/block/quad_reads.cuh: which thread sees an entry is no part of the result, the order
// being total), then WarpFirstBlockArgmax: thread 0 ends with the winner (value, i), (-inf,
// kNoIndex) when n = 0; one barrier, none at the end. The greedy kernel's read
// (gpu/kernels/greedy.cuh) and gpu-fast's greedy rows' (gpu/fast/fast_sampling.cuh,
// gpu/fast/fast_sampling_slices.cuh): one compare of floats an entry, where a minimum of 64-bit
// order keys spent a key's construction on each (gpu-fast's greedy rows until 2026-12-04).
template <int kThreads, class B, class Arr, class RV, class RI>
SAMPCHECK_KERNEL_BODY void QuadRangeArgmaxF32(B& block, const Arr& arr, std::int64_t base, std::int64_t n, RV& value,
                                              RI& index) {
  const QuadSpan span = QuadSpanOf(arr, base, n);
  block.ForEachThread([&](Thread t) {
    float v = ArgmaxAboveF32::Identity();
    std::int64_t j = kNoIndex;
    ForEachQuadElement<kQuadGroup>(arr, base, span, kThreads, t.x, [&](std::int64_t i, float x) {
      if (ArgmaxAbove(x, i, v, j)) v = x, j = i;
    });
    value[t] = v;
    index[t] = j;
  });
  WarpFirstBlockArgmax<float, kThreads>(block, value, index, ArgmaxAboveF32{});
}

// Rows split into slices (the greedy kernel, gpu/kernels/greedy.cuh; gpu-fast's greedy rows,
// gpu/fast/fast_sampling_slices.cuh): each slice's block stores its winner (value, index in the
// row) as two words, words[at] = FloatWord(value) and words[at + 1] = the index (thread 0; a
// slice is never empty, so the index is a real one); the row's last block then merges the
// row's slices' pairs from words[first + 2 g], g in [0, slices): lane l of warp 0 folds slices
// l, l + 32, ... in order, then the warp's winner by ShuffleDown (WarpArgmax; the other warps
// skip it: ForWarps, gpu/block/block_model.h): thread 0 holds the row's winner, the whole row's
// (the order is total). No barrier in either.
template <class B, class Words, class RV, class RI>
SAMPCHECK_KERNEL_BODY void StoreSliceWinnerF32(B& block, const Words& words, std::int64_t at, std::int64_t begin,
                                               RV& value, RI& index) {
  block.ForEachThread([&](Thread t) {
    if (t.x != 0) return;
    words.Store(at, FloatWord(value[t]));
    words.Store(at + 1, static_cast<std::uint64_t>(begin + index[t]));
  });
}
template <class B, class Words, class RV, class RI>
SAMPCHECK_KERNEL_BODY void MergeSliceWinnersF32(B& block, const Words& words, std::int64_t first, std::int64_t slices,
                                                RV& value, RI& index) {
  block.ForWarps(WarpZero{}, [&] {
    block.ForEachThread([&](Thread t) {
      float v = ArgmaxAboveF32::Identity();
      std::int64_t j = kNoIndex;
      for (std::int64_t g = t.lane(); g < slices; g += kWarpSize) {
        const float x = WordFloat(words.Load(first + 2 * g));
        const auto i = static_cast<std::int64_t>(words.Load(first + 2 * g + 1));
        if (ArgmaxAbove(x, i, v, j)) v = x, j = i;
      }
      value[t] = v;
      index[t] = j;
    });
    WarpArgmax(block, value, index, ArgmaxAboveF32{});
  });
}

// RowArgmax's per-thread fold alone (thread l over l, l + kLanes, ... < n), for a caller that
// combines the threads with another tree (WarpFirstBlockArgmax).
template <int kLanes, class B, class RV, class RI, class Above, class Score>
SAMPCHECK_KERNEL_BODY void FoldRowArgmax(B& block, std::int64_t n, RV& value, RI& index, Above above, Score score) {
  using T = typename Above::Value;
  block.ForEachThread([&](Thread t) {
    T v = Above::Identity();
    std::int64_t j = kNoIndex;
    for (std::int64_t i = t.x; i < n; i += kLanes) {
      T x = v;
      if (!score(t, i, x)) continue;
      if (above(x, i, v, j)) {
        v = x;
        j = i;
      }
    }
    value[t] = v;
    index[t] = j;
  });
}

template <int kLanes, ArgmaxResult kResult = ArgmaxResult::kAllThreads, class B, class RV, class RI, class Above,
          class Score>
SAMPCHECK_KERNEL_BODY void RowArgmax(B& block, std::int64_t n, RV& value, RI& index, Above above, Score score) {
  FoldRowArgmax<kLanes>(block, n, value, index, above, score);
  CanonicalBlockArgmax<kLanes, typename Above::Value, kResult>(block, value, index, above);
}

}  // namespace sampcheck::gpu
