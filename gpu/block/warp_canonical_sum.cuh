// SPDX-License-Identifier: Apache-2.0
#pragma once
// The canonical sum (docs/spec/reductions.md) of at most 64 entries of a row, by one warp in
// its registers: no barrier and no shared memory, the bits CanonicalBlockReduce gives over the
// 1024 lanes that fold them (docs/gpu.md "Top-k survivors", "The survivor chain in warp 0").
//
// Contract:
// - Warp-level code (inside ForWarps of one warp). Slot c of the warp's 64 is lane c mod 32,
//   register c / 32 (the warps' merge tree's layout, gpu/block/warp_merge_tree.cuh).
// - CanonicalOrderKey(index, position): the canonical fold's order of an entry of the row,
//   (lane, index) with lane = index mod 1024 taken bit-reversed (BitReverseLane: the tree's
//   levels combine lanes l and l + s for s = 512 .. 1, so lanes that one level joins are
//   neighbours in that order), the entry's own slot `position` (< 1024) in the low bits;
//   index < 2^32, so (reversed lane, index) order. WarpSortPairs (gpu/block/lane_key_tree.cuh)
//   sorts a warp's 64 keys ascending in the slots (kNoKey padding last).
// - WarpCanonicalSum(block, order, value): order ascending over the slots (WarpSortPairs of
//   CanonicalOrderKey, kNoKey padding), value[c] the f32 term of slot c, -0.0 for an entry left
//   out. Returns in every lane of the warp the sum CanonicalBlockReduce returns (SumCombine)
//   when lane l of the block folds, from -0.0 in index order, the terms of its entries: the
//   same bits. Why: -0.0 is the sum's identity (x + -0.0 = x for every x, +0.0 and NaN
//   included), so a lane with no entry, an entry left out, and a tree node with one side empty
//   pass the other side on unchanged; the tree restricted to the lanes present is the tree.
// - Steps: slots of one lane are neighbours (the key's high bits): the first of each folds the
//   others in order, one slot a step (a ballot and four shuffles a step; none when every lane
//   holds one entry); then level i = 1 .. 10 joins the groups of equal reversed lane >> i: the
//   first slot of each adds the first slot of the next group of level i - 1 when that one has
//   the same reversed lane >> i (its lower lane first, as the tree), two ballots and four
//   shuffles a level. Slot 0 ends with the sum, copied to every lane. Padding (kNoKey: its
//   reversed lane field past 1023) never joins a real slot.
// - Helpers of warp-level code on the 64 slots: SlotMask(block, pred) the mask of the slots
//   whose pred(t, r) holds (bit c for slot c, two ballots, the same in every lane);
//   FromSlots(block, value, at) each slot's f32 from slot at[t].v[r] (four shuffles).
// Example: entries of indices 3 and 1027 (both lane 3) and 515 (lane 515) with terms 1, 2^-24
//   and 2^-24: lane 3 folds 1 + 2^-24 = 1 (ties to even), level s = 512 joins lanes 3 and 515:
//   1 + 2^-24 = 1 (tests/gpu_warp_canonical_sum_test.cc, "ByHand").

#include <cstdint>
#include <type_traits>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/lane_key_tree.cuh"
#include "gpu/block/merge_runs.cuh"
#include "gpu/block/warp_merge_tree.cuh"

namespace sampcheck::gpu {

// A warp's 64 f32 values, or ints, slot c in lane c mod 32, register c / 32.
struct SlotFloats {
  float v[2];
};
struct SlotInts {
  int v[2];
};

// Bits 0 .. 9 of lane l (< 1024) in reverse order.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t BitReverseLane(std::uint64_t l) {
  std::uint64_t r = 0;
  for (int b = 0; b < 10; ++b) r |= ((l >> b) & 1u) << (9 - b);
  return r;
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t CanonicalOrderKey(std::uint64_t index, int position) {
  return BitReverseLane(index % kCanonicalLanes) << 42 | index << 10 | static_cast<std::uint64_t>(position);
}

// The lowest set bit of m above bit c (c < 64), 64 when none: a binary search for the lowest
// bit of the bits above c (six steps, no loop over the 64).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int NextSlotAbove(std::uint64_t m, int c) {
  std::uint64_t x = c >= 63 ? 0 : m >> (c + 1) << (c + 1);
  if (x == 0) return 64;
  int n = 0;
  for (int w = 32; w >= 1; w /= 2) {
    if ((x & ((std::uint64_t{1} << w) - 1)) == 0) n += w, x >>= w;
  }
  return n;
}

// The 64-bit mask of the slots whose predicate holds (bit c for slot c): two ballots.
template <class B, class Pred>
SAMPCHECK_KERNEL_BODY std::uint64_t SlotMask(B& block, const Pred& pred) {
  std::uint64_t mask = 0;
  auto p = Registers<bool>(block);
  for (int r = 0; r < 2; ++r) {
    block.ForEachThread([&](Thread t) { p[t] = pred(t, r); });
    mask |= static_cast<std::uint64_t>(BlockUniform(block, Ballot(block, p))) << (32 * r);
  }
  return mask;
}

// Each slot's value from slot at[t].v[r] (its own where it takes nothing): four shuffles.
// Slots: SlotFloats, or SlotKeys<2> for 64-bit words.
template <class Slots = SlotFloats, class B, class RV, class RA>
SAMPCHECK_KERNEL_BODY auto FromSlots(B& block, const RV& value, const RA& at) {
  using T = std::remove_cv_t<std::remove_reference_t<decltype(Slots{}.v[0])>>;
  auto got = Registers<Slots>(block);
  auto one = Registers<int>(block);
  for (int r = 0; r < 2; ++r) {
    block.ForEachThread([&](Thread t) { one[t] = at[t].v[r]; });
    const auto v = TreePositionValue<T>(block, [&](Thread t, int q) { return value[t].v[q]; }, one);
    block.ForEachThread([&](Thread t) { got[t].v[r] = v[t]; });
  }
  return got;
}

template <class B, class RK, class RV>
SAMPCHECK_KERNEL_BODY auto WarpCanonicalSum(B& block, const RK& order, const RV& value) {
  auto group = Registers<SlotKeys<2>>(block);     // the reversed lane (padding: past 1023)
  auto acc = Registers<SlotFloats>(block);
  auto at = Registers<SlotInts>(block);
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < 2; ++r) {
      const int c = r * kWarpSize + t.lane();
      group[t].v[r] = order[t].v[r] >> 42;
      acc[t].v[r] = value[t].v[r];
      at[t].v[r] = c == 0 ? 0 : c - 1;
    }
  });
  auto previous = FromSlots<SlotKeys<2>>(block, group, at);  // slot c - 1's (slot 0: none, kNoKey)
  block.ForEachThread([&](Thread t) {
    if (t.lane() == 0) previous[t].v[0] = kNoKey;
  });
  // Slot c starts a group of level i when its reversed lane >> i differs from slot c - 1's.
  auto starts = [&](int i) {
    return SlotMask(block, [&](Thread t, int r) { return (group[t].v[r] >> i) != (previous[t].v[r] >> i); });
  };
  // The lanes' folds: a lane's first slot adds its next ones in order (padding folds nothing).
  const std::uint64_t heads = starts(0);
  for (int s = 1; s < 2 * kWarpSize; ++s) {
    auto wants = [&](Thread t, int r) {
      const int c = r * kWarpSize + t.lane();
      return group[t].v[r] < kCanonicalLanes && (heads >> c & 1u) != 0 && c + s < NextSlotAbove(heads, c);
    };
    if (SlotMask(block, wants) == 0) break;
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < 2; ++r) at[t].v[r] = wants(t, r) ? r * kWarpSize + t.lane() + s : r * kWarpSize + t.lane();
    });
    const auto term = FromSlots(block, value, at);
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < 2; ++r) {
        if (wants(t, r)) acc[t].v[r] = acc[t].v[r] + term[t].v[r];
      }
    });
  }
  // The tree: level i joins the two groups of level i - 1 under each group of level i.
  std::uint64_t below = heads;
  for (int i = 1; i <= 10; ++i) {
    const std::uint64_t level = starts(i);
    auto joins = [&](Thread t, int r) {
      const int c = r * kWarpSize + t.lane();
      const int next = NextSlotAbove(below, c);
      return (level >> c & 1u) != 0 && next < 2 * kWarpSize && (level >> next & 1u) == 0;
    };
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < 2; ++r) {
        const int c = r * kWarpSize + t.lane();
        at[t].v[r] = joins(t, r) ? NextSlotAbove(below, c) : c;
      }
    });
    const auto right = FromSlots(block, acc, at);
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < 2; ++r) {
        if (joins(t, r)) acc[t].v[r] = acc[t].v[r] + right[t].v[r];
      }
    });
    below = level;
  }
  return TreeFirstValue<float>(block, [&](Thread t, int r) { return acc[t].v[r]; });
}

}  // namespace sampcheck::gpu
