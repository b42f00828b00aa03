// SPDX-License-Identifier: Apache-2.0
#pragma once
// A row's copy and a tally of it in the same read, for the filter kernels' degenerate-row rules
// (docs/spec/filters.md "Degenerate rows"): whether the row holds a NaN or a +inf, and where
// its NaNs rank, is decided by the kernel that filters it, not by the host.
//
// Contract:
// - CopyRowTally<T>(block, src, src_base, dst, dst_base, vocab, weigh): dst[i] = src[i] for
//   i < vocab (CopyRow's copy) and returns, in every thread, the sum over the row of weigh(x)
//   (an unsigned integer: exact in any order), reduced by the canonical tree
//   (gpu/block/block_reduce.cuh). The caller's weights must not overflow T over the row (a
//   u32 count, or two u32 counts packed in a u64: V <= 65535 x 1024 < 2^32).
// - One read of src, one write of dst, the reduction's barriers.
// Example: {NaN, 1, +inf, -NaN} with weigh = IsNan ? 1 : 0 copies the row and returns 2
//   (tests/gpu_kernels_test.cc, GpuFilterDegenerateRows).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"

namespace sampcheck::gpu {

// An integer sum's combine (exact, so the order is free; the canonical tree is used anyway).
template <class T>
struct IntegerSumCombine {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE T operator()(T a, T b) const { return a + b; }
};

template <class T, class B, class Src, class Dst, class Weigh>
SAMPCHECK_KERNEL_BODY T CopyRowTally(B& block, Src src, std::int64_t src_base, Dst dst, std::int64_t dst_base,
                                     std::int64_t vocab, Weigh weigh) {
  auto lane = Registers<T>(block);
  block.ForEachThread([&](Thread t) {
    T sum = 0;
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
      const float x = src.Load(src_base + i);
      dst.Store(dst_base + i, x);
      sum += weigh(x);
    }
    lane[t] = sum;
  });
  auto total = CanonicalBlockReduce<T>(block, lane, IntegerSumCombine<T>{});
  return BlockUniform(block, total);
}

}  // namespace sampcheck::gpu
