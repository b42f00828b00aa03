// SPDX-License-Identifier: Apache-2.0
#pragma once
// The smallest value of a register over each warp's 32 lanes, in every lane (docs/gpu.md
// "Warp operations"): the split row's list heads (gpu/block/row_slices.cuh), the sample
// select's smallest key (gpu/block/sample_select.cuh) and gpu-fast's walk over the survivors
// (gpu/fast/fast_sampling.cuh).
//
// Contract:
// - WarpMin(block, r), block-level: r[t] becomes the smallest r over t's warp (operator<),
//   by an xor butterfly: ShuffleXor 1, 2, .., 16, each lane keeping the smaller of its value
//   and its partner's. Five ShuffleXor, no barrier, no shared memory.
// - Exact for integers (keys, packed words) whatever the order of the steps: a minimum of a
//   total order. Not for floats with NaN (operator< is not a total order there).
// Example: lanes holding 31 - lane, 100 + lane in a second warp: 0 in every lane of the
//   first, 100 in every lane of the second (tests/gpu_kernels_test.cc, "GpuWarpMin").

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

template <class B, class R>
SAMPCHECK_KERNEL_BODY void WarpMin(B& block, R& r) {
  for (int m = 1; m < kWarpSize; m *= 2) {
    auto other = ShuffleXor(block, r, m);
    block.ForEachThread([&](Thread t) { r[t] = other[t] < r[t] ? other[t] : r[t]; });
  }
}

}  // namespace sampcheck::gpu
