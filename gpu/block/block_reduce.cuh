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
//   column results. So: the lanes go to a shared array (barrier 1); warp i loads column i,
//   lane w holding lane i + 32 w, and runs levels 512 .. 32 as the fold below; lane 0 stores
//   the column's result (barrier 2); every warp loads the 32 column results and runs levels
//   16 .. 1 the same way. The fold: ShuffleDown 16, 8, .., 1 (lane w < d receives lane w + d,
//   the partner the tree names; lanes w >= d compute values no later level reads); lane 0
//   then holds the fold's result. Last, ShuffleXor 1, 2, .., 16 copies lane 0's to every lane
//   (a lane with bit m set takes lane l ^ m's, so after step m lanes 0 .. 2m - 1 hold lane
//   0's). Copying, not an xor butterfly of the combines: the result has lane 0's bits in every
//   thread even where the combine's bits depend on its operand order (a sum of two NaNs).
// - The shared array is swizzled: lane 32 w + j at 32 w + (j ^ w), so that both the warps'
//   stores (a row of 32) and the columns' loads (one entry of each row) touch 32 different
//   banks; one shared read a thread where lane 0 of each warp read 32 in turn.
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
#include "gpu/block/swizzled_slot.h"

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

// Lanes 0 .. d - 1 of each warp fold in the tree's order, d = 16, 8, .., 1 (contract above):
// lane 0 ends with the combine of the warp's 32 values.
template <class B, class R, class Combine>
SAMPCHECK_KERNEL_BODY void WarpTreeFold(B& block, R& r, Combine combine) {
  for (int d = kWarpSize / 2; d >= 1; d /= 2) {
    auto partner = ShuffleDown(block, r, d);
    block.ForEachThread([&](Thread t) { r[t] = combine(r[t], partner[t]); });
  }
}

// Where lane l = 32 w + j sits in the reduction's shared array (the swizzle above, w < 32).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int CanonicalTreeSlot(int w, int j) {
  return SwizzledSlot(w * kWarpSize + j);
}

template <class T, class B, class R, class Combine>
SAMPCHECK_KERNEL_BODY auto CanonicalBlockReduce(B& block, R& lane, Combine combine) {
  static_assert(kCanonicalLanes == kWarpSize * kWarpSize, "one column of the tree per warp, one lane per row");
  SAMPCHECK_SHARED(block, T, tree, kCanonicalLanes);
  SAMPCHECK_SHARED(block, T, column_result, kWarpSize);
  block.ForEachThread([&](Thread t) { tree.Store(CanonicalTreeSlot(t.warp(), t.lane()), lane[t]); });
  block.Sync();
  // Levels 512 .. 32: lane w of warp i holds column i's entry w (lane i + 32 w), strides 16 .. 1 in w.
  auto r = Registers<T>(block);
  block.ForEachThread([&](Thread t) { r[t] = tree.Load(CanonicalTreeSlot(t.lane(), t.warp())); });
  WarpTreeFold(block, r, combine);
  block.ForEachThread([&](Thread t) {
    if (t.lane() == 0) column_result.Store(t.warp(), r[t]);
  });
  block.Sync();
  // Levels 16 .. 1 in every warp, then lane 0's result to every lane.
  block.ForEachThread([&](Thread t) { r[t] = column_result.Load(t.lane()); });
  WarpTreeFold(block, r, combine);
  for (int m = 1; m < kWarpSize; m *= 2) {  // lanes 0 .. 2m - 1 hold lane 0's value after this step
    auto lower = ShuffleXor(block, r, m);
    block.ForEachThread([&](Thread t) {
      if ((t.lane() & m) != 0) r[t] = lower[t];
    });
  }
  return r;
}

}  // namespace sampcheck::gpu
