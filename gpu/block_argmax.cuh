// SPDX-License-Identifier: Apache-2.0
#pragma once
// Block argmax over (value, index) pairs in the canonical 1024-lane order
// (docs/spec/reductions.md "The order", "Operations": argmax), on the block model
// (gpu/block_model.h), for the draw and speculative kernels (gpu/gumbel_max.cuh,
// gpu/exponential_race.cuh, gpu/qsample.cuh, gpu/seeded_gumbel.cuh, gpu/spec_greedy.cuh,
// gpu/spec_random.cuh). gpu/greedy.cuh runs the same tree inline and writes only thread 0's
// result; this one returns the result in every thread.
//
// Contract:
// - The block has kLanes threads, 1024 (the canonical lanes) or 32 (one warp); thread l has
//   folded (value, index) for its elements l, l + kLanes, ... in increasing order into
//   `value[l]`, `index[l]`, starting from the identity (-inf, kNoIndex) and replacing the pair
//   only when `above(x, i, v, j)`.
// - `above` is a strict total order on pairs (greedy.cuh's ArgmaxAbove: NaN above every number,
//   the larger number above, equal values to the lower index; ArgmaxAboveF64 is its binary64
//   twin). Because the order is total, the winner is the order's maximum whatever the tree and
//   whatever the number of lanes (docs/spec/reductions.md: "Max and argmax are total orders ...
//   their results do not depend on the order at all"); the tree is the canonical one (strides
//   kLanes / 2 .. 32 in shared memory, 16 .. 1 by ShuffleDown in warp 0).
// - Why one warp: the draws and speculative kernels are argmax-only, so the block size is free.
//   Their runners launch one warp per row when V <= kOneWarpVocab (the many small rows of the
//   statistical harness cost 32 emulated threads instead of 1024), 1024 threads above it.
// - On return every thread's `value` and `index` hold the block's winner (broadcast through
//   shared memory); an all-identity block returns (-inf, kNoIndex). Ends with a barrier so that
//   the caller may reduce again.
// Example: lanes holding (1, 7), (3, 900), (3, 5) and the identity elsewhere give (3, 5) in every
// thread (tests/gpu_kernels_test.cc exercises it through the draw kernels).

#include <cstdint>

#include "gpu/block_model.h"
#include "gpu/block_reduce.cuh"
#include "gpu/greedy.cuh"

namespace sampcheck::gpu {

// Up to this V the argmax-only kernels run one warp per row (each thread folds at most 128
// entries); above it the canonical 1024 lanes, as gpu/greedy.cuh.
inline constexpr std::int64_t kOneWarpVocab = 4096;

// greedy.cuh's ArgmaxAbove as a functor (float values).
struct ArgmaxAboveF32 {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool operator()(float x, std::int64_t i, float v, std::int64_t j) const {
    return ArgmaxAbove(x, i, v, j);
  }
};

// The same total order on binary64 values (NaN above every number, equal values to the lower
// index), for multinomial_with_seed's f64 scores.
struct ArgmaxAboveF64 {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool operator()(double x, std::int64_t i, double v,
                                                               std::int64_t j) const {
    const bool xn = x != x;
    const bool vn = v != v;
    if (xn != vn) return xn;
    if (!xn && x != v) return x > v;
    return i < j;
  }
};

template <int kLanes, class T, class B, class RV, class RI, class Above>
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
  block.ForEachThread([&](Thread t) {
    value[t] = arg_value.Load(t.x);
    index[t] = arg_index.Load(t.x);
  });
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

}  // namespace sampcheck::gpu
