// SPDX-License-Identifier: Apache-2.0
#pragma once
// greedy kernel: argmax of each row, bit-exact with reference/greedy.h (docs/spec/greedy.md).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32, row b's V entries at
//   b * pitch + [0, V), pitch >= V; the entries at [V, pitch) are padding and are NEVER read,
//   so no pad lane can win. token: rows i64.
// - Order (docs/spec/reductions.md): thread l folds (value, index) for indices l, l + 1024,
//   ... < V in increasing order, starting from the identity (-inf, kNoIndex); then the
//   canonical tree (strides 512 .. 32 in shared memory, 16 .. 1 by ShuffleDown in warp 0).
// - Total order (torch.argmax's): NaN above every number, equal values (+0 == -0, NaN == NaN)
//   to the lower index. kNoIndex is larger than every index, so an empty lane (V < 1024) loses
//   every tie against a real entry: V = 1 returns 0 whatever x_0 is (-inf and NaN included).
// - Exact tier, no randomness.
// Example: {1, 3, 3, -inf} -> 1; {-inf, -inf} -> 0; {5, NaN, NaN} -> 1 (tests/gpu_kernels_test.cc).

#include <cstdint>

#include "gpu/block_model.h"
#include "gpu/block_reduce.cuh"

namespace sampcheck::gpu {

inline constexpr std::int64_t kNoIndex = INT64_MAX;

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float NegativeInfinity() {
  const std::uint32_t bits = 0xff800000u;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Whether (x, i) ranks above (v, j) in argmax's total order.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool ArgmaxAbove(float x, std::int64_t i, float v, std::int64_t j) {
  const bool xn = IsNan(x);
  const bool vn = IsNan(v);
  if (xn != vn) return xn;
  if (!xn && x != v) return x > v;
  return i < j;
}

struct GreedyKernel {
  static constexpr const char* kName = "greedy";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class In, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Out token, std::int64_t vocab,
                                        std::int64_t pitch) const {
    const std::int64_t row = block.index();
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    block.ForEachThread([&](Thread t) {
      float v = NegativeInfinity();
      std::int64_t j = kNoIndex;
      for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
        const float x = logits.Load(row * pitch + i);
        if (ArgmaxAbove(x, i, v, j)) {
          v = x;
          j = i;
        }
      }
      value[t] = v;
      index[t] = j;
    });
    // The canonical tree on (value, index) pairs, kept in two arrays (a shuffle moves one word).
    SAMPCHECK_SHARED(block, float, tree_value, kCanonicalLanes);
    SAMPCHECK_SHARED(block, std::int64_t, tree_index, kCanonicalLanes);
    block.ForEachThread([&](Thread t) {
      tree_value.Store(t.x, value[t]);
      tree_index.Store(t.x, index[t]);
    });
    block.Sync();
    for (int s = kCanonicalLanes / 2; s >= kWarpSize; s /= 2) {
      block.ForEachThread([&](Thread t) {
        if (t.x >= s) return;
        const float x = tree_value.Load(t.x + s);
        const std::int64_t i = tree_index.Load(t.x + s);
        if (ArgmaxAbove(x, i, tree_value.Load(t.x), tree_index.Load(t.x))) {
          tree_value.Store(t.x, x);
          tree_index.Store(t.x, i);
        }
      });
      block.Sync();
    }
    block.ForEachThread([&](Thread t) {
      value[t] = tree_value.Load(t.x);
      index[t] = tree_index.Load(t.x);
    });
    for (int s = kWarpSize / 2; s >= 1; s /= 2) {
      auto other_value = ShuffleDown(block, value, s);
      auto other_index = ShuffleDown(block, index, s);
      block.ForEachThread([&](Thread t) {
        if (ArgmaxAbove(other_value[t], other_index[t], value[t], index[t])) {
          value[t] = other_value[t];
          index[t] = other_index[t];
        }
      });
    }
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, index[t]);
    });
  }
};

}  // namespace sampcheck::gpu
