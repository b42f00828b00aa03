// SPDX-License-Identifier: Apache-2.0
#pragma once
// Block reductions in the canonical 1024-lane order (docs/spec/reductions.md), on the block
// model (gpu/block/block_model.h). The same tree as reference/reductions.cc, so the result is
// bit-identical to CanonicalSum / CanonicalMax.
//
// Contract:
// - The block has exactly kCanonicalLanes = 1024 threads; thread l is virtual lane l and has
//   already folded its elements l, l + 1024, ... in increasing index order into `lane[l]`.
// - Tree: for s = 512, 256, ..., 32 through a shared array with a barrier after each level
//   (lane l < s becomes combine(lane l, lane l + s)), then s = 16, ..., 1 inside warp 0 with
//   ShuffleDown (lane l receives lane l + s, which is exactly the partner the tree names; lanes
//   l >= s compute values nobody reads). combine's first operand is always the lower lane, as
//   in the reference (it matters only for which NaN's bits a max returns).
// - Returns the result in every thread's register. Uses one shared array of 1024 T's; ends
//   with a barrier so that the next reduction may reuse it.
// Example: a block whose lanes hold 1.0f each sums to 1024.0f (tests/gpu_emulator_test.cc).

#include <cstdint>
#include <cstring>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

inline constexpr int kCanonicalLanes = 1024;

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool SignBit(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return (u >> 31) != 0;
}
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool IsNan(float x) { return x != x; }
// +-inf: the largest finite float is below it; no libm classification call, host and device.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool IsInf(float x) {
  return x > 0x1.fffffep+127f || x < -0x1.fffffep+127f;
}

// CanonicalMax's combine: NaN beats every number (the first operand's NaN first); among numbers
// the larger wins and +0.0 beats -0.0.
struct MaxCombine {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float operator()(float a, float b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    if (a > b) return a;
    if (b > a) return b;
    return SignBit(a) ? b : a;
  }
};

// CanonicalSum's combine: one IEEE f32 addition, lower lane first.
struct SumCombine {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float operator()(float a, float b) const { return a + b; }
};

template <class T, class B, class R, class Combine>
SAMPCHECK_KERNEL_BODY auto CanonicalBlockReduce(B& block, R& lane, Combine combine) {
  SAMPCHECK_SHARED(block, T, tree, kCanonicalLanes);
  block.ForEachThread([&](Thread t) { tree.Store(t.x, lane[t]); });
  block.Sync();
  for (int s = kCanonicalLanes / 2; s >= kWarpSize; s /= 2) {
    block.ForEachThread([&](Thread t) {
      if (t.x < s) tree.Store(t.x, combine(tree.Load(t.x), tree.Load(t.x + s)));
    });
    block.Sync();
  }
  auto w = Registers<T>(block);
  block.ForEachThread([&](Thread t) { w[t] = tree.Load(t.x); });
  for (int s = kWarpSize / 2; s >= 1; s /= 2) {
    auto partner = ShuffleDown(block, w, s);
    block.ForEachThread([&](Thread t) { w[t] = combine(w[t], partner[t]); });
  }
  block.Sync();
  block.ForEachThread([&](Thread t) {
    if (t.x == 0) tree.Store(0, w[t]);
  });
  block.Sync();
  auto result = Registers<T>(block);
  block.ForEachThread([&](Thread t) { result[t] = tree.Load(0); });
  block.Sync();
  return result;
}

}  // namespace sampcheck::gpu
