// SPDX-License-Identifier: Apache-2.0
#pragma once
// Several blocks per row (docs/gpu.md "Several blocks per row"): how many contiguous slices a
// row of a small batch is split into, so that rows x slices blocks cover the device's SMs
// (the slices' sorted top-k lists are merged by gpu/block/merge_runs.cuh). Shared by
// gpu-fast (gpu/fast/fast_sampling_slices.cuh) and the bit-exact filters
// (gpu/kernels/sampling_filters_slices.cuh): the same rule, written once.
//
// Contract:
// - RowSliceBudget(rows, V): floor(kRowSliceSms / rows) slices per row, at most V / kMinRowSlice,
//   at least 1 (rows > kRowSliceSms / 2: no row is split). rows x slices <= kRowSliceSms: the
//   slice kernels run one block per SM (gpu/cost/kernel_occupancy_sm90.inc), so the blocks are
//   one wave; rounding up gave a second, mostly idle wave (64 rows: 192 blocks on 132 SMs).
// - TopKRowSlices(budget, V, k): the slices a row whose top k is gathered per slice takes: 1
//   unless 1 <= k <= kRowSliceSlots and k < V; else the budget capped at kRowSliceSlots / k
//   (the lists fill at most kRowSliceSlots merge slots) and at V / (k + 1) (every slice longer
//   than k).
// - Slice g of n: [SliceBegin(g), SliceBegin(g + 1)) with SliceBegin(g) = g V / n: contiguous,
//   in order, covering the row, each at least floor(V / n) entries.
// - SliceListHeads(block, n, missing, head, smallest), block-level: whether none of the n
//   lists' first keys head(g) is `missing` (a slice whose candidates did not fit marks its
//   list so), and the smallest of them in `smallest`, the same in every thread. Lane j of
//   every warp reads heads j, j + 32, .. (one read a thread up to 32 slices); a Ballot and an
//   xor butterfly of minima (ShuffleXor 1 .. 16) give every lane the answers. The callers
//   read the heads from the lists they staged in shared memory (StageRuns,
//   gpu/block/merge_runs.cuh, which then also loads an incomplete list's stale slots, never
//   merged). Until 2026-12-01 every thread loaded all n heads from global memory in turn
//   before staging (20 loads in sequence at one row).
// - MergeSliceLists<kThreads>(block, lists, base, n, list, missing, staging, first, place): a
//   row's n sorted lists of `list` keys each (lists[base + g list ..]) merged when every one is
//   complete (SliceListHeads over their heads, loaded from `lists`: one load a lane): place(t,
//   position, key) for each of the first `list` keys of their multiset, ascending, in one phase
//   with no barrier after it (the caller's), `first` the smallest head; returns false (nothing
//   placed, no barrier) when a list is incomplete. list <= 64 and n <= 32 (the typical top-k):
//   the warps' merge tree (gpu/block/warp_merge_tree.cuh), the warp of each list 0 mod f =
//   TreeLoadedFan(n) (n / 4 rounded up, at least 4) loading it into registers and, at level 1,
//   its f - 1 partner lists too (two loads a lane each), so that at most 4 lists remain: one
//   barrier from 5 lists on, 2 reads a partner at level 2 (since 2026-12-03; the odd lists
//   stored and read back through `staging`, one barrier more, until 2026-12-07, then two lists
//   a level, then levels of four: 20 lists took 2 barriers until later that day);
//   else the lists staged in `staging` (StageRuns) and
//   merged by binary searches (MergeRuns, gpu/block/merge_runs.cuh), 2 ceil(log2 n) - 1
//   barriers. `staging`: 1024 keys of shared memory (kMergeSlots).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/merge_runs.cuh"
#include "gpu/block/warp_merge_tree.cuh"
#include "gpu/block/warp_min.cuh"

namespace sampcheck::gpu {

// The SMs the slices fill: the H100 SXM5's 132 (the cost model's DeviceConstants::H100Sxm;
// an H200 has as many). A constant, not the running device's count: the slicing is part of
// the launch description, the same on the emulator and on any device.
inline constexpr std::int64_t kRowSliceSms = 132;
// Merge slots per row: a row's slices hold at most this many keys in all (slices x k).
inline constexpr std::int64_t kRowSliceSlots = 1024;
// No slice shorter than 4096 entries (16 KiB of f32, four per virtual lane of a gather):
// shorter rows stay one block, where a block's fixed costs (its launch, two sorting networks)
// outweigh the bytes it would save; the conformance rows (V <= 8193) take at most 2 slices.
inline constexpr std::int64_t kMinRowSlice = 4096;

SAMPCHECK_HOST_DEVICE constexpr std::int64_t RowSliceBudget(std::int64_t rows, std::int64_t vocab) {
  if (rows <= 0 || rows >= kRowSliceSms) return 1;
  std::int64_t g = kRowSliceSms / rows;
  if (g > vocab / kMinRowSlice) g = vocab / kMinRowSlice;
  return g < 1 ? 1 : g;
}

SAMPCHECK_HOST_DEVICE constexpr std::int64_t TopKRowSlices(std::int64_t budget, std::int64_t vocab, std::int64_t k) {
  if (budget <= 1 || k <= 0 || k >= vocab || k > kRowSliceSlots) return 1;
  std::int64_t g = budget;
  if (g > kRowSliceSlots / k) g = kRowSliceSlots / k;
  if (g > vocab / (k + 1)) g = vocab / (k + 1);
  return g < 1 ? 1 : g;
}

SAMPCHECK_HOST_DEVICE constexpr std::int64_t SliceBegin(std::int64_t g, std::int64_t slices, std::int64_t vocab) {
  return g * vocab / slices;
}

template <class B, class Head>
SAMPCHECK_KERNEL_BODY bool SliceListHeads(B& block, std::int64_t lists, std::uint64_t missing, Head head,
                                          std::uint64_t& smallest) {
  auto seen_missing = Registers<bool>(block);
  auto least = Registers<std::uint64_t>(block);
  block.ForEachThread([&](Thread t) {
    bool seen = false;
    std::uint64_t m = ~std::uint64_t{0};
    for (std::int64_t g = t.lane(); g < lists; g += kWarpSize) {
      const std::uint64_t h = head(g);
      seen = seen || h == missing;
      m = h < m ? h : m;
    }
    seen_missing[t] = seen;
    least[t] = m;
  });
  // Every warp loaded the same heads, so the answers are block-uniform.
  const std::uint32_t missing_lanes = BlockUniform(block, Ballot(block, seen_missing));
  WarpMin(block, least);
  smallest = BlockUniform(block, least);
  return missing_lanes == 0;
}

template <int kThreads, class B, class Lists, class Shared, class Place>
SAMPCHECK_KERNEL_BODY bool MergeSliceLists(B& block, Lists lists, std::int64_t base, std::int64_t n, std::int64_t list,
                                           std::uint64_t missing, Shared& staging, std::uint64_t& first,
                                           Place place) {
  if (!SliceListHeads(
          block, n, missing, [&](std::int64_t g) { return lists.Load(base + g * list); }, first)) {
    return false;
  }
  auto placed = [&](Thread t, int position, std::uint64_t x) {
    if (position < list) place(t, position, x);
  };
  if (list <= kTreeKept && n <= kTreeRuns) {
    constexpr int kPairs = kTreeRuns / (kThreads / kWarpSize);
    const bool half = list <= kWarpSize;
    auto runs = Registers<SlotKeys<2 * kPairs>>(block);
    auto element = [&](int v, std::int64_t e) {
      return v < n && e < list ? lists.Load(base + v * list + e) : kTreeAbove;
    };
    // The runs 0 mod TreeLoadedFan(n) only: level 1 loads the others from the lists itself
    // (MergeTreeRuns' `partner`), where the odd runs were loaded, stored into `staging` and read
    // back after a barrier of their own until 2026-12-07.
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kPairs; ++r) {
        const int v = TreeRunOf<kThreads>(t, r);
        const bool own = v % TreeLoadedFan(static_cast<int>(n)) == 0;
        runs[t].v[2 * r] = own ? element(v, t.lane()) : kTreeAbove;
        runs[t].v[2 * r + 1] = own ? element(v, kWarpSize + t.lane()) : kTreeAbove;
      }
    });
    MergeTreeRuns<kThreads>(block, staging, runs, static_cast<int>(n), half, placed, element);
    return true;
  }
  auto held = Registers<SlotKeys<kMergeSlots / kThreads>>(block);
  StageRuns<kThreads>(block, staging, held, static_cast<int>(n * list), [&](int s) { return lists.Load(base + s); });
  MergeRuns<kThreads>(block, staging, held, static_cast<int>(list), static_cast<int>(n), static_cast<int>(list),
                      placed);
  return true;
}

}  // namespace sampcheck::gpu
