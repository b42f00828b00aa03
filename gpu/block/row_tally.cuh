// SPDX-License-Identifier: Apache-2.0
#pragma once
// A row's copy and a tally of it in the same read, for the filter kernels' degenerate-row rules
// (docs/spec/filters.md "Degenerate rows"): whether the row holds a NaN or a +inf, and where
// its NaNs rank, is decided by the kernel that filters it, not by the host.
//
// Contract:
// - CopyRowTally<T, Combine>(block, src, src_base, dst, dst_base, vocab, weigh, map):
//   dst[i] = map(src[i]) for i < vocab (CopyRow's copy when map is the identity, the default;
//   logprobs divides by the temperature) and returns, in every thread, the combination over
//   the row of weigh(dst[i]) by the canonical tree (gpu/block/block_reduce.cuh). Combine is an
//   exact one: the integer sum (the default; the caller's weights must not overflow T over the
//   row: a u32 count, or two u32 counts packed in a u64, V <= 65535 x 1024 < 2^32), or the
//   float max of 0 / 1 weights (an "any" that reuses the shared array of the softmax's max,
//   so a filter kernel that already holds one needs no more shared memory for it).
// - RowTally<T, Combine>(block, row, base, vocab, weigh): the same, reading the row only.
// - One read of src (and one write of dst), the reduction's barriers; a lane's entries read
//   four at a time (ForEachLaneEntry, gpu/block/lane_scan.cuh).
// Example: {NaN, 1, +inf, -NaN} with weigh = IsNan ? 1 : 0 copies the row and returns 2
//   (tests/gpu_kernels_test.cc, GpuFilterDegenerateRows).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/lane_scan.cuh"

namespace sampcheck::gpu {

// An integer sum's combine (exact, so the order is free; the canonical tree is used anyway).
template <class T>
struct IntegerSumCombine {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE T operator()(T a, T b) const { return a + b; }
};

struct IdentityMap {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float operator()(float x) const { return x; }
};

// The tally of both forms: load(i) reads entry i, visit(i, x) copies it and returns the value
// weighed. A lane's entries kLaneSumGroup loads at a time (ForEachLaneEntry): the same copies
// and combinations in the same order, four loads in flight where the copy's store before the
// next load left one.
template <class T, class Combine, class B, class Load, class Visit, class Weigh>
SAMPCHECK_KERNEL_BODY T TallyRow(B& block, std::int64_t vocab, Load load, Visit visit, Weigh weigh) {
  auto lane = Registers<T>(block);
  block.ForEachThread([&](Thread t) {
    T acc = 0;
    ForEachLaneEntry<kLaneSumGroup>(t.x, vocab, kCanonicalLanes, load,
                                    [&](std::int64_t i, float x) { acc = Combine{}(acc, weigh(visit(i, x))); });
    lane[t] = acc;
  });
  auto total = CanonicalBlockReduce<T>(block, lane, Combine{});
  return BlockUniform(block, total);
}

template <class T, class Combine = IntegerSumCombine<T>, class B, class Src, class Dst, class Weigh,
          class Map = IdentityMap>
SAMPCHECK_KERNEL_BODY T CopyRowTally(B& block, Src src, std::int64_t src_base, Dst dst, std::int64_t dst_base,
                                     std::int64_t vocab, Weigh weigh, Map map = {}) {
  return TallyRow<T, Combine>(
      block, vocab, [&](std::int64_t i) { return src.Load(src_base + i); },
      [&](std::int64_t i, float loaded) {
        const float x = map(loaded);
        dst.Store(dst_base + i, x);
        return x;
      },
      weigh);
}

template <class T, class Combine = IntegerSumCombine<T>, class B, class Arr, class Weigh>
SAMPCHECK_KERNEL_BODY T RowTally(B& block, Arr row, std::int64_t base, std::int64_t vocab, Weigh weigh) {
  return TallyRow<T, Combine>(
      block, vocab, [&](std::int64_t i) { return row.Load(base + i); }, [](std::int64_t, float x) { return x; }, weigh);
}

}  // namespace sampcheck::gpu
