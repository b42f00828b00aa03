// SPDX-License-Identifier: Apache-2.0
#pragma once
// Block reductions in the canonical 1024-lane order (docs/spec/reductions.md), on the block
// model (gpu/block/block_model.h). The same tree as reference/reductions.cc, so the result is
// bit-identical to CanonicalSum / CanonicalMax.
//
// Contract:
// - The block has exactly kCanonicalLanes = 1024 threads; thread l is virtual lane l and has
//   already folded its elements l, l + 1024, ... in increasing index order into `lane[l]`.
// - Tree: for s = 512, 256, ..., 1, lane l < s becomes combine(lane l, lane l + s) (the
//   reference's). Its levels s >= 32 combine lanes of equal l mod 32 (column l mod 32), in the
//   same tree over w = l / 32 with stride s / 32; its levels s < 32 then combine the 32
//   column results. So: the lanes go to a shared array (barrier 1); lane 0 of warp i runs
//   levels 512 .. 32 on column i in registers and stores its result (barrier 2); every warp
//   loads the 32 column results and runs levels 16 .. 1 with ShuffleDown (lane l < s receives
//   lane l + s, the partner the tree names); lane 0 then holds the tree's result, which
//   ShuffleXor 1, 2, .., 16 copies to every lane (a lane with bit m set takes lane l ^ m's, so
//   after step m lanes 0 .. 2m - 1 hold lane 0's). Copying, not an xor butterfly of the
//   combines: the result has lane 0's bits in every thread even where the combine's bits
//   depend on its operand order (a sum of two NaNs).
// - combine's first operand is always the lower lane, as in the reference (it matters only for
//   which NaN's bits a max returns).
// - Returns the result in every thread's register. Two barriers; no barrier at the end: the
//   last phase reads only `column_result`, which the next reduction writes after its own
//   first barrier, and `tree` was last read before barrier 2 (on the device both arrays are
//   the same memory at every call of one instantiation).
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
  constexpr int kColumns = kCanonicalLanes / kWarpSize;
  SAMPCHECK_SHARED(block, T, tree, kCanonicalLanes);
  SAMPCHECK_SHARED(block, T, column_result, kWarpSize);
  block.ForEachThread([&](Thread t) { tree.Store(t.x, lane[t]); });
  block.Sync();
  // Levels 512 .. 32: lane 0 of warp i folds column i (lanes i + 32 w), strides 16 .. 1 in w.
  block.ForEachThread([&](Thread t) {
    if (t.lane() != 0) return;
    T column[kColumns];
    for (int w = 0; w < kColumns; ++w) column[w] = tree.Load(t.warp() + w * kWarpSize);
    for (int s = kColumns / 2; s >= 1; s /= 2) {
      for (int w = 0; w < s; ++w) column[w] = combine(column[w], column[w + s]);
    }
    column_result.Store(t.warp(), column[0]);
  });
  block.Sync();
  // Levels 16 .. 1 in every warp: ShuffleDown gives lane l < s its partner l + s, as the tree;
  // lanes l >= s compute values nobody reads. Then lane 0's result goes to every lane.
  auto r = Registers<T>(block);
  block.ForEachThread([&](Thread t) { r[t] = column_result.Load(t.lane()); });
  for (int s = kWarpSize / 2; s >= 1; s /= 2) {
    auto partner = ShuffleDown(block, r, s);
    block.ForEachThread([&](Thread t) { r[t] = combine(r[t], partner[t]); });
  }
  for (int m = 1; m < kWarpSize; m *= 2) {  // lanes 0 .. 2m - 1 hold lane 0's value after this step
    auto lower = ShuffleXor(block, r, m);
    block.ForEachThread([&](Thread t) {
      if ((t.lane() & m) != 0) r[t] = lower[t];
    });
  }
  return r;
}

}  // namespace sampcheck::gpu
