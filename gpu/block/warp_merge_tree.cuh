// SPDX-License-Identifier: Apache-2.0
#pragma once
// The first 64 keys of up to 32 sorted runs of at most 64 keys each, merged pairwise in the
// warps' registers: a bitonic merge (Batcher 1968) a level, the runs exchanged through shared
// memory, one barrier a level (docs/gpu.md "Sorting networks and the canonical reduction").
// KthSmallestSlot (gpu/block/bitonic_sort.cuh) takes it for 4 <= k <= 64, and gpu's and
// gpu-fast's split rows for the merge of their slices' lists (MergeSliceLists,
// gpu/block/row_slices.cuh); the bitonic sort's stages between lanes take its LaneStage,
// WarpBitonicMerge and KeepAscending.
//
// Contract:
// - Runs: run v (0 <= v < kTreeRuns = 32) is held by warp v mod kWarps of a block of kThreads
//   threads (whole warps dividing 1024) in its register pair r = v / kWarps (TreeRunOf(t, r)):
//   lane l holds the run's elements l and 32 + l in runs[t].v[2 r] and v[2 r + 1], ascending,
//   kTreeAbove (~0, above every key) past the run's keys.
// - Before MergeTreeRuns, in a phase the caller ends with a barrier: each odd run v < count has
//   stored its elements into `keys` by StoreTreeRun (element e at 64 (v - 1) / 2 + (e + 32) mod
//   64; only e < 32 when `half`, the runs having at most 32 keys: then element l of run v goes
//   to slot 32 v + l, where a block that loaded slot t + r kThreads into run v's lane l read it).
// - Or, with `partner` (MergeTreeRuns' last argument, a caller whose runs lie in global memory:
//   MergeSliceLists, gpu/block/row_slices.cuh), nothing is stored before the call and no
//   barrier precedes it: level 1's readers load the partner's elements themselves,
//   partner(v + 1, e) (kTreeAbove past its keys), and an odd run's registers are not read.
// - MergeTreeRuns(block, keys, runs, count, half, last): levels s = 1, 2, .. while 2^(s-1) <
//   count. Run v = 0 mod 2^s whose partner v + 2^(s-1) is below count reads the partner's
//   elements 63 - l and 31 - l (its first 64, reversed) from region R = v / 2 + 2^(s-1) - 1 of
//   `keys` (slots 64 R .. 64 R + 63), keeps the lower half of the bitonic sequence (its own run
//   ascending, then the partner's descending: the 64 smallest of the 128) and sorts it: stage
//   32 inside each lane, stages 16 .. 1 by ShuffleXor (WarpBitonicMerge). A run that is the
//   next level's partner (v = 2^s mod 2^(s+1)) then stores its merged run into the very slots
//   each lane read (its region R, which the next level's reader reads): so no thread writes a
//   slot another thread reads between two barriers. Layouts of a region: level 1 as stored
//   above; even levels element e at 63 - e; odd levels from 3 on element e at e.
// - After the last level run 0 holds the first 64 keys of the runs' multiset, ascending (a
//   sorting network: ties give the sorted multiset's bits); last(t, e, key) is called for each
//   of its elements e < 64 by the lane that holds it (warp 0, pair 0), in the last level's
//   phase (count = 1: the first phase), with no barrier after it: the caller's.
// - Level s runs in the warps holding a run v = 0 mod 2^s below count only (ForWarps,
//   gpu/block/block_model.h: a reader, or a run the next level reads); the others' runs are
//   not read again, and their registers are left as they were.
// - keys: 1024 slots, of which the call reads and writes regions 0 .. 15 only as above; its last
//   reads are in the last level's phase. Barriers: ceil(log2 count) - 1. Accesses of a thread
//   of 1024 (one run): 2 reads a level (1 at level 1 when `half`; global ones at level 1 with
//   `partner`), 2 stores a level but the last.
// Example: runs {1, 4}, {2, 3} (count 2, half): run 1 stores 2 and 3 at slots 32 and 33; run
//   0 reads 3 and 2 there, keeps {1, 2, 3, 4, ~0, ..}: last(t, 0, 1) .. last(t, 3, 4)
//   (tests/gpu_warp_merge_tree_test.cc, "ContractExample").

#include <cstdint>
#include <type_traits>

#include "gpu/block/block_model.h"
#include "gpu/block/merge_runs.cuh"

namespace sampcheck::gpu {

inline constexpr int kTreeRuns = 32;
inline constexpr int kTreeKept = 64;
inline constexpr std::uint64_t kTreeAbove = ~std::uint64_t{0};

template <int kThreads>
SAMPCHECK_KERNEL_BODY SAMPCHECK_FORCE_INLINE int TreeRunOf(Thread t, int r) {
  return r * (kThreads / kWarpSize) + t.warp();
}

// Element l (and 32 + l unless `half`) of odd run v, held by thread t (contract).
template <class Shared>
SAMPCHECK_KERNEL_BODY SAMPCHECK_FORCE_INLINE void StoreTreeRun(Thread t, int v, std::uint64_t lo, std::uint64_t hi,
                                                               bool half, Shared& keys) {
  const int base = 64 * ((v - 1) / 2);
  keys.Store(base + 32 + t.lane(), lo);
  if (!half) keys.Store(base + t.lane(), hi);
}

namespace tree_detail {

// Slot s's half of an ascending compare-exchange with partner value b (the lower slot keeps the
// smaller).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t KeepAscending(bool lower, std::uint64_t a,
                                                                         std::uint64_t b) {
  return lower ? (a < b ? a : b) : (a < b ? b : a);
}

// Stage 32 of a level, in one lane: run elements l and 32 + l (lo, hi) against the partner's
// elements 63 - l and 31 - l (b_lo, b_hi) keep the smaller of each pair, the lower half of the
// bitonic sequence, ordered within the lane (kTreeAbove for a partner's padding). Also the
// lanes' key runs of the gathers' tree path (KeepLowestWithRun, gpu/block/lane_key_tree.cuh).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void KeepLowerPair(std::uint64_t& lo, std::uint64_t& hi,
                                                                std::uint64_t b_lo, std::uint64_t b_hi) {
  const std::uint64_t a0 = lo < b_lo ? lo : b_lo;
  const std::uint64_t a1 = hi < b_hi ? hi : b_hi;
  lo = a0 < a1 ? a0 : a1;
  hi = a0 < a1 ? a1 : a0;
}

// One compare-exchange stage between lanes: each thread's register r against register r of
// lane ^ mask, the thread keeping the smaller where lower(t) and the larger elsewhere. `lane`
// is the caller's scratch register (one for all its stages). ShuffleXor, no barrier, no shared
// memory; the bitonic sort's stages in a warp and across warps (transposed) are this step too.
template <class B, class Lane, class Slots, class Lower>
SAMPCHECK_KERNEL_BODY SAMPCHECK_FORCE_INLINE void LaneStage(B& block, Lane& lane, Slots& slots, int r, int mask,
                                                            Lower lower) {
  block.ForEachThread([&](Thread t) { lane[t] = slots[t].v[r]; });
  auto partner = ShuffleXor(block, lane, mask);
  block.ForEachThread([&](Thread t) { slots[t].v[r] = KeepAscending(lower(t), lane[t], partner[t]); });
}

// Stages j = 16 .. 1 of an ascending bitonic merge of every register's 32 keys across its
// warp's lanes (lane l holds element l): ShuffleXor, no barrier, no shared memory.
template <int kRegs, class B, class Slots>
SAMPCHECK_KERNEL_BODY void WarpBitonicMerge(B& block, Slots& slots) {
  auto lane = Registers<std::uint64_t>(block);
  for (int r = 0; r < kRegs; ++r) {
    for (int j = kWarpSize / 2; j >= 1; j /= 2) {
      LaneStage(block, lane, slots, r, j, [&](Thread t) { return (t.lane() & j) == 0; });
    }
  }
}

// MergeTreeRuns' level 1 without a loader: the partners stored their runs into the slots.
struct PartnerInSlots {};

}  // namespace tree_detail

template <int kThreads, class B, class Shared, class Runs, class Last, class Partner = tree_detail::PartnerInSlots>
SAMPCHECK_KERNEL_BODY void MergeTreeRuns(B& block, Shared& keys, Runs& runs, int count, bool half, Last last,
                                         Partner partner = {}) {
  constexpr bool kLoadsPartner = !std::is_same_v<Partner, tree_detail::PartnerInSlots>;
  static_assert(kThreads % kWarpSize == 0 && kThreads <= 1024 && 1024 % kThreads == 0,
                "whole warps that divide the 1024 slots");
  constexpr int kPairs = kTreeRuns / (kThreads / kWarpSize);  // runs a thread holds
  int levels = 0;
  while ((1 << levels) < count) ++levels;
  if (levels == 0) {
    block.ForEachThread([&](Thread t) {
      if (t.warp() != 0) return;
      last(t, t.lane(), runs[t].v[0]);
      last(t, kWarpSize + t.lane(), runs[t].v[1]);
    });
    return;
  }
  constexpr int kWarps = kThreads / kWarpSize;
  for (int s = 1; s <= levels; ++s) {
    const int step = 1 << s;
    const bool final_level = s == levels;
    // The warps holding a run v = 0 mod step below count (a reader, or a run without a partner
    // that the next level reads): the others' runs were stored as partners and are not read
    // again, so they sit the level out (ForWarps): at 1024 threads, ceil(count / step) of the 32
    // warps merge, 31 warp-levels for 32 runs where every warp ran 5.
    auto merging = [&](int w) {
      for (int r = 0; r < kPairs; ++r) {
        const int v = r * kWarps + w;
        if (v % step == 0 && v < count) return true;
      }
      return false;
    };
    const bool reversed = s % 2 == 0;  // even levels: element e at 63 - e
    // The slots lane l of reader v writes elements l and 32 + l to after reading the partner's
    // elements 63 - l and 31 - l from them (level 1: the other way round).
    auto slot = [&](Thread t, int v, bool high) {
      const int base = 64 * (v / 2 + step / 2 - 1), l = t.lane();
      if (reversed) return base + (high ? 32 + l : l);
      return base + (high ? 31 - l : 63 - l);
    };
    block.ForWarps(merging, [&] {
      block.ForEachThread([&](Thread t) {
        for (int r = 0; r < kPairs; ++r) {
          const int v = TreeRunOf<kThreads>(t, r);
          if (v % step != 0 || v + step / 2 >= count) continue;
          const bool level1 = s == 1;  // elements 63 - l and 31 - l in the high and low slots
          std::uint64_t b0 = kTreeAbove, b1 = kTreeAbove;
          if constexpr (kLoadsPartner) {
            if (level1) {
              b0 = half ? kTreeAbove : partner(v + 1, 63 - t.lane());
              b1 = partner(v + 1, 31 - t.lane());
            }
          }
          if (!kLoadsPartner || !level1) {
            b0 = level1 && half ? kTreeAbove : keys.Load(slot(t, v, level1));
            b1 = keys.Load(slot(t, v, !level1));
          }
          tree_detail::KeepLowerPair(runs[t].v[2 * r], runs[t].v[2 * r + 1], b0, b1);
        }
      });
      tree_detail::WarpBitonicMerge<2 * kPairs>(block, runs);
      block.ForEachThread([&](Thread t) {
        for (int r = 0; r < kPairs; ++r) {
          const int v = TreeRunOf<kThreads>(t, r);
          if (final_level) {
            if (v != 0) continue;
            last(t, t.lane(), runs[t].v[2 * r]);
            last(t, kWarpSize + t.lane(), runs[t].v[2 * r + 1]);
          } else if (v % (2 * step) == step && v < count) {  // the next level's partner
            keys.Store(slot(t, v, false), runs[t].v[2 * r]);
            keys.Store(slot(t, v, true), runs[t].v[2 * r + 1]);
          }
        }
      });
    });
    if (!final_level) block.Sync();
  }
}

}  // namespace sampcheck::gpu
