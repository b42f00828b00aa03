// SPDX-License-Identifier: Apache-2.0
#pragma once
// A register combined over each warp's 32 lanes, in every lane, and its smallest value (docs/gpu.md
// "Warp operations"): the split row's list heads (gpu/block/row_slices.cuh), the sample
// select's smallest key (gpu/block/sample_select.cuh) and gpu-fast's walk over the survivors
// (gpu/fast/fast_sampling.cuh).
//
// Contract:
// - WarpAllReduce(block, r, combine), block-level: r[t] becomes combine over t's warp by an
//   xor butterfly: ShuffleXor 1, 2, .., 16, each lane combining its value and its partner's;
//   combine must be associative and commutative, so that every lane holds the same value (the
//   any-order sum's words, gpu/block/warp_running_sum.cuh). Five ShuffleXor, no barrier, no
//   shared memory.
// - WarpMin(block, r): WarpAllReduce keeping the smaller (operator<).
// - Exact for integers (keys, packed words) whatever the order of the steps: a minimum of a
//   total order. Not for floats with NaN (operator< is not a total order there).
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

}  // namespace sampcheck::gpu
