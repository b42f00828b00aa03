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

#include <cstdint>

#include "gpu/block/block_model.h"

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

}  // namespace sampcheck::gpu
