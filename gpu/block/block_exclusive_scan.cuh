// SPDX-License-Identifier: Apache-2.0
#pragma once
// The block's exclusive scan of one value per thread (an unsigned count, or gpu-fast's f32
// masses), in thread order, by warps: a butterfly in each warp, then the warp totals through
// shared memory, one barrier (docs/gpu.md "Top-k survivors"). The one scan of a single value
// per thread in the kernels: gpu-fast's inverse CDF (gpu/fast/fast_sampling.cuh), the survivor
// gathers (gpu/block/top_k_survivors.cuh, gpu/fast/fast_top_k_survivors.cuh), the radix select's
// CountFinite, CollectSorted and SlotsOfDigit (gpu/block/radix_select.cuh; the sample select's
// gather too), the sample select's window (gpu/block/sample_select.cuh), the partition's
// survivor count (gpu/kernels/sampling_filters_on_partition.cuh), the degenerate rows' NaN
// counts (gpu/kernels/sampling_filters_degenerate_rows.cuh), logprobs' ranks
// (gpu/kernels/logprobs.cuh) and FlashInfer's NaN count (flashinfer_sampling_from_probs).
//
// Contract:
// - BlockExclusiveScan<kThreads>(block, count, total): a block of kThreads threads (whole
//   warps); returns each thread's sum of count over the threads before it, and sets the block
//   total, in every thread; the type of `total` (T) is the arithmetic's. u32 (wrapping): the
//   callers' counts are at most V < 2^32 in all, and the gathers' packed words
//   (gpu/block/cached_candidates.cuh) never wrap.
// - Steps: the warp butterfly (WarpButterflyScan) over ShuffleXor m = 1, 2, .., 16: each lane
//   holds its aligned group's sum and its prefix within the group; a lane in the upper half of
//   a merged pair adds the lower group's sum to its prefix. Lane 0 of warp w stores the sum;
//   one barrier; lane j of every warp loads warp j's sum (0 past the last warp) and keeps it
//   too where j is below its own warp's index; an xor butterfly of both (ShuffleXor 1, 2, ..,
//   16) gives every lane the sums of the warps before its own and the total: one shared read a
//   thread, not one a warp.
// - One barrier, and none at the end: the caller's next barrier must come before the next
//   call (on the device every call of a kernel uses the same warp_sums array, static as every
//   __shared__ declaration is, which another warp may still read). The emulator gives each
//   call fresh shared arrays, so it cannot see that race: each call site says where its next
//   barrier is.
// - Deterministic: integer sums, exact in any order. f32 sums round in the steps' fixed order
//   (the same bits on every run for one kThreads; not the canonical order), and `total` has the
//   same bits in every thread: each butterfly step adds the same two values in both lanes, and
//   every warp adds the same warp sums.
// Example: counts {3, 9, 0, 1} in the first four threads of a 32-thread block, 0 elsewhere:
//   offsets {0, 3, 12, 12, 13, ..}, total 13 (tests/gpu_kernels_test.cc,
//   "GpuBlockExclusiveScan").

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

// The warp butterfly of the steps above, on its own: sum[t] holds each lane's value and
// becomes its warp's total (in every lane); before[t] gains the sum over the lanes below it in
// its warp (before + value: the inclusive scan). Five ShuffleXor, no barrier, no shared memory.
template <class B, class R>
SAMPCHECK_KERNEL_BODY void WarpButterflyScan(B& block, R& sum, R& before) {
  for (int m = 1; m < kWarpSize; m *= 2) {
    auto other = ShuffleXor(block, sum, m);
    block.ForEachThread([&](Thread t) {
      if ((t.lane() & m) != 0) before[t] += other[t];
      sum[t] += other[t];
    });
  }
}

template <int kThreads, class B, class R, class T>
SAMPCHECK_KERNEL_BODY auto BlockExclusiveScan(B& block, R& count, T& total) {
  static_assert(kThreads % kWarpSize == 0 && kThreads >= kWarpSize && kThreads <= 1024, "whole warps");
  constexpr int kWarps = kThreads / kWarpSize;
  SAMPCHECK_SHARED(block, T, warp_sums, kWarps);
  auto sum = Registers<T>(block);
  auto offset = Registers<T>(block);
  block.ForEachThread([&](Thread t) {
    sum[t] = count[t];
    offset[t] = T{0};
  });
  WarpButterflyScan(block, sum, offset);
  block.ForEachThread([&](Thread t) {
    if (t.lane() == 0) warp_sums.Store(t.warp(), sum[t]);
  });
  block.Sync();
  auto before = Registers<T>(block);
  auto all = Registers<T>(block);
  block.ForEachThread([&](Thread t) {
    const T s = t.lane() < kWarps ? warp_sums.Load(t.lane()) : T{0};
    before[t] = t.lane() < t.warp() ? s : T{0};
    all[t] = s;
  });
  for (int m = 1; m < kWarpSize; m *= 2) {
    auto other_before = ShuffleXor(block, before, m);
    auto other_all = ShuffleXor(block, all, m);
    block.ForEachThread([&](Thread t) {
      before[t] += other_before[t];
      all[t] += other_all[t];
    });
  }
  block.ForEachThread([&](Thread t) {
    offset[t] += before[t];
    total = all[t];
  });
  return offset;
}

}  // namespace sampcheck::gpu
