// SPDX-License-Identifier: Apache-2.0
#pragma once
// A register combined over each warp's 32 lanes, in every lane, and its smallest value (docs/gpu.md
// "Warp operations"): the split row's list heads (gpu/block/row_slices.cuh), the sample
// select's smallest key (gpu/block/sample_select.cuh) and gpu-fast's walk over the survivors
// (gpu/fast/fast_sampling.cuh); and the warps' values a phase stored, combined in every thread
// (the partition's level 0, gpu/block/radix_partition.cuh).
//
// Contract:
// - WarpAllReduce(block, r, combine), block-level: r[t] becomes combine over t's warp by an
//   xor butterfly: ShuffleXor 1, 2, .., 16, each lane combining its value and its partner's.
//   combine commutative: at each step a lane and its partner combine the same two values, so
//   every lane of the warp ends with the same bits (floats included); combine also associative
//   (integers, minima): that value is the combination in any order (the any-order sum's
//   words, gpu/block/warp_running_sum.cuh). Five ShuffleXor, no barrier, no shared memory.
// - WarpMin(block, r): WarpAllReduce keeping the smaller (operator<).
// - Exact for integers (keys, packed words) whatever the order of the steps: a minimum of a
//   total order. Not for floats with NaN (operator< is not a total order there).
// - CombineWarpValues(block, warps, identity, value_of, combine), block-level, after the
//   barrier that follows the stores: value_of(w) (w < warps <= 32) is warp w's value (a
//   shared load); lane l loads value l (lanes from `warps` on take `identity`, neutral for
//   combine) and WarpAllReduce combines them, so every thread holds the same result after one
//   load, where a loop over the warps loads 32 in sequence. Returned as a block-level value
//   (BlockUniform: the emulator checks that every thread holds the same bits).
// Example: lanes holding 31 - lane, 100 + lane in a second warp: 0 in every lane of the
//   first, 100 in every lane of the second (tests/gpu_kernels_test.cc, "GpuWarpMin").

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

template <class B, class R, class F>
SAMPCHECK_KERNEL_BODY void WarpAllReduce(B& block, R& r, F&& combine) {
  for (int m = 1; m < kWarpSize; m *= 2) {
    auto other = ShuffleXor(block, r, m);
    block.ForEachThread([&](Thread t) { r[t] = combine(r[t], other[t]); });
  }
}

template <class B, class R>
SAMPCHECK_KERNEL_BODY void WarpMin(B& block, R& r) {
  WarpAllReduce(block, r, [](const auto& a, const auto& b) { return b < a ? b : a; });
}

template <class T, class B, class ValueOf, class F>
SAMPCHECK_KERNEL_BODY T CombineWarpValues(B& block, int warps, T identity, ValueOf&& value_of, F&& combine) {
  auto r = Registers<T>(block);
  block.ForEachThread([&](Thread t) { r[t] = t.lane() < warps ? value_of(t.lane()) : identity; });
  WarpAllReduce(block, r, combine);
  return BlockUniform(block, r);
}

}  // namespace sampcheck::gpu
