// SPDX-License-Identifier: Apache-2.0
#pragma once
// The tree path of a top-k gather for k <= kTreeKept = 64 (docs/gpu.md "Top-k survivors"):
// the k smallest of the 1024 virtual lanes' three smallest kept keys by the warps' merge tree,
// and a block vote that says whether they hold every candidate of the row's top k. gpu's
// bit-exact gather (gpu/block/top_k_survivors.cuh, ties kept or not) and gpu-fast's
// (gpu/fast/fast_top_k_survivors.cuh) take it; else, or when the vote says a lane fell short,
// both gather the candidates up to the tree's k-th key as before.
//
// Contract:
// - kThreads threads (whole warps dividing 1024), each holding kRegs = 1024 / kThreads virtual
//   lanes' LaneKeys (gpu/block/cached_candidates.cuh): lane t + r kThreads's kLaneKept
//   smallest keys of its share of the row, ascending, kTreeAbove past its keys. Keys are
//   distinct integers (order keys carry their index); 1 <= k <= kTreeKept.
// - LaneKeyRuns: each warp's run of the 64 smallest of its 32 lanes' kTreeLaneKeys = 3
//   smallest keys, in the warps' merge tree's layout (gpu/block/warp_merge_tree.cuh), made in
//   registers without a barrier: the lanes' firsts, seconds and thirds each sorted across the
//   warp (WarpSortSlots), the firsts (padded) the run, the seconds and then the thirds merged
//   in by KeepLowestWithRun (the first half of a bitonic merge with the next run reversed).
// - LaneKeyTree(block, kept, k, ties, keys, place, decide): the runs' store and MergeTreeRuns
//   over the 32 runs (3 levels); its last level's phase stores merged key e < k (with ties
//   every e < 64) at keys[e] and calls place(t, e, key_e) for e < k. T = key k - 1 (the
//   returned `kth`), the row's first key (`first`). The candidates are the keys <= T, or with
//   ties those whose value key is <= T's (T's ties after it); `count` is their number among the
//   64 merged keys: k, or with ties the length of their prefix (ballots over the merged keys).
//   Each warp stores its lanes' smallest fourth kept key (WarpMin, gpu/block/warp_min.cuh) in
//   level 2's interval into region 4 of `keys` (MergeTreeRuns' `between`, which no later level
//   touches); `short_lane` says whether the smallest of them is a candidate (a candidate is a
//   key at or below a bound, so one lane's fourth key is one exactly when the smallest is), or
//   (ties) all 64 merged keys are.
// - The decision: in the last level's interval warp 0 alone (ForWarps) takes T and the first
//   key from its registers (TreePositionValue, TreeFirstValue: lane 0's first register), the
//   warps' fourth keys (one load a lane, CombineWarpValues), the count (two ballots), and calls
//   decide(block, result): block-level code of warp 0, whose value (the same in every lane; 0 by
//   default) comes back as `decided`. A slice's gather takes the row's ticket there when the
//   keys stand (TicketInTree, gpu/block/last_block.cuh): the tree's barrier then tells the
//   block, and LastBlockOf's barrier is not made. Lane 0 stores count, short and decided in one
//   word (region 4, past the fourth keys); after the tree's last barrier every thread reads it,
//   T (keys[k - 1]) and the first key (keys[0]). keys: 1024 slots; on return keys[0 .. count)
//   holds the smallest of the lanes' three, ascending, the other slots are unspecified.
// - Exact: a warp's keys past its run's 64th cannot be among the k smallest (64 keys of the
//   warp below one would put T past rank 64), so keys[0 .. k) are the k smallest of all the
//   lanes' three; when no lane's fourth kept key is <= T, every key of the row <= T is among
//   the lanes' three (a lane's keys are ascending), so they are the row's top k and T its
//   k-th key. With ties the candidates are a prefix of the key order too: when no lane's
//   fourth is one, all are among the lanes' three, and when fewer than 64 of the merged keys
//   are, no warp's run dropped one (a dropped candidate follows 64 of its warp's, all
//   candidates, which would fill the 64), so keys[0 .. count) are every candidate of the row.
//   Else T still bounds the row's k-th key from above (keys[0 .. k) are k distinct keys of
//   the row): the callers gather the candidates up to T by their rule.
// - How often short: a lane holds 4 of the top k on continuous rows in about 1024 C(k, 4) /
//   1024^4 of the blocks (2e-4 at k = 50); on every flat row, whose quads put 4 keys of each
//   of the first lanes at the front. With two keys a lane a lane holding 3 of them (1024 C(k, 3)
//   / 1024^3, 2 % of the blocks at k = 50) would fall short, and a launch waits for its
//   slowest block: about 9 in 10 launches at 64 x 128256 (128 slices of 50) would have one.
// - Barriers: 4 (the runs' store, the tree's 2, the one after the tree's last level), which
//   the caller's next phase follows (7 until 2026-12-07: the warps' votes took one of their own,
//   and levels of two runs 4 where levels of four take 2); with ties two ballots more, no
//   barrier. Deterministic: integer keys, a sorting network, fixed warps.
// Example: one warp's lanes 0 .. 31 holding keys {l, 32 + l, 64 + l, 96 + l} (every other
//   warp none), k = 40: keys[0 .. 40) = 0 .. 39, T = 39, first = 0, and lane 0's fourth key
//   96 > 39: not short (tests/gpu_kernels_test.cc, "GpuLaneKeyTree").

#include <cstdint>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/cached_candidates.cuh"
#include "gpu/block/merge_runs.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/warp_merge_tree.cuh"
#include "gpu/block/warp_min.cuh"

namespace sampcheck::gpu {

// The keys of each virtual lane the tree merges: its three smallest.
inline constexpr int kTreeLaneKeys = 3;

struct LaneKeyTreeResult {
  std::uint64_t kth = 0;      // T: keys[k - 1]
  std::uint64_t first = 0;    // keys[0], the row's first key
  std::uint32_t count = 0;    // the candidates among keys[0 .. 64): k, or with ties those of T's value or below
  bool short_lane = false;    // a lane's fourth kept key is a candidate, or (ties) all 64 are
  std::uint32_t decided = 0;  // the caller's decision (LaneKeyTree's `decide`)
};

// LaneKeyTree's `decide`: nothing (0).
struct NoTreeDecision {
  template <class B>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t operator()(B&, const LaneKeyTreeResult&) const {
    return 0;
  }
};

// A gather's placing of the top k (LaneKeyTree's `place`): nothing.
struct NoPlace {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void operator()(Thread, std::int64_t, std::uint64_t) const {}
};

namespace lane_tree_detail {

// Where the tree's side words lie in `keys`: the warps' fourth keys and the result's word
// (region 4, which MergeTreeRuns leaves alone after level 1: its contract "between"; the
// result's word past the fourths, written in the last level's interval after warp 0 read
// those).
inline constexpr int kFourthsAt = 4 * 64;
inline constexpr int kResultAt = kFourthsAt + kWarpSize;

// runs (each warp's run of 64 ascending in the warps' merge tree's layout, element l in
// runs[t].v[2 r], 32 + l in v[2 r + 1]) becomes the 64 smallest of itself and next (a run of
// 32 ascending across the same lanes, register r): the first half of a bitonic merge of runs
// with next reversed (lane l ^ 31 = 31 - l) and padded with kTreeAbove keeps, at element
// 32 + l, the smaller of run element 32 + l and next element 31 - l (element l's partner is
// padding), and sorts those 64 (stage 32 inside the lane, stages 16 .. 1 by WarpBitonicMerge).
// No barrier, no shared memory.
template <int kRegs, class B, class Runs, class Next>
SAMPCHECK_KERNEL_BODY void KeepLowestWithRun(B& block, Runs& runs, const Next& next) {
  auto lane = Registers<std::uint64_t>(block);
  for (int r = 0; r < kRegs; ++r) {
    block.ForEachThread([&](Thread t) { lane[t] = next[t].v[r]; });
    auto reversed = ShuffleXor(block, lane, kWarpSize - 1);
    block.ForEachThread([&](Thread t) {
      tree_detail::KeepLowerPair(runs[t].v[2 * r], runs[t].v[2 * r + 1], kTreeAbove, reversed[t]);
    });
  }
  tree_detail::WarpBitonicMerge<2 * kRegs>(block, runs);
}

}  // namespace lane_tree_detail

// keys' 64 slots sorted ascending in place: each register's 32 across the lanes
// (WarpSortSlots), then the two merged as the gathers' lane runs are (KeepLowestWithRun:
// Batcher's network, exact on distinct keys and on kTreeAbove padding). GroupCandidatesByLane's
// lane-order keys and WarpCanonicalSum's order keys (gpu/block/warp_canonical_sum.cuh) take it.
template <class B, class Keys>
SAMPCHECK_KERNEL_BODY void WarpSortPairs(B& block, Keys& keys) {
  auto pair = Registers<SlotKeys<2>>(block);
  auto next = Registers<SlotKeys<1>>(block);
  block.ForEachThread([&](Thread t) {
    pair[t].v[0] = keys[t].v[0];
    pair[t].v[1] = kTreeAbove;
    next[t].v[0] = keys[t].v[1];
  });
  WarpSortSlots<1>(block, pair);  // register 0 only
  WarpSortSlots<1>(block, next);
  lane_tree_detail::KeepLowestWithRun<1>(block, pair, next);
  block.ForEachThread([&](Thread t) { keys[t] = pair[t]; });
}

template <int kThreads, class B, class Kept, class Runs>
SAMPCHECK_KERNEL_BODY void LaneKeyRuns(B& block, const Kept& kept, Runs& runs) {
  constexpr int kRegs = kTreeRuns * kWarpSize / kThreads;
  static_assert(kLaneKept > kTreeLaneKeys, "the key after a lane's merged ones is kept");
  auto nth = Registers<SlotKeys<kRegs>>(block);
  for (int j = 0; j < kTreeLaneKeys; ++j) {
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) nth[t].v[r] = kept[t].key[r][j];
    });
    WarpSortSlots<kRegs>(block, nth);
    if (j == 0) {
      block.ForEachThread([&](Thread t) {
        for (int r = 0; r < kRegs; ++r) {
          runs[t].v[2 * r] = nth[t].v[r];
          runs[t].v[2 * r + 1] = kTreeAbove;
        }
      });
    } else {
      lane_tree_detail::KeepLowestWithRun<kRegs>(block, runs, nth);
    }
  }
}

template <int kThreads, class B, class Kept, class Shared, class Place, class Decide = NoTreeDecision>
SAMPCHECK_KERNEL_BODY LaneKeyTreeResult LaneKeyTree(B& block, const Kept& kept, std::int64_t k, bool ties,
                                                    Shared& keys, Place& place, Decide decide = {}) {
  constexpr int kRegs = kTreeRuns * kWarpSize / kThreads;
  constexpr int kWarps = kThreads / kWarpSize;
  SAMPCHECK_HOST_ASSERT(1 <= k && k <= kTreeKept);
  auto runs = Registers<SlotKeys<2 * kRegs>>(block);
  LaneKeyRuns<kThreads>(block, kept, runs);
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < kRegs; ++r) {
      const int v = TreeRunOf<kThreads>(t, r);
      if (v % 2 == 1) StoreTreeRun(t, v, runs[t].v[2 * r], runs[t].v[2 * r + 1], false, keys);
    }
  });
  block.Sync();
  // Each warp's smallest fourth kept key, stored in level 2's interval into region 4, which no
  // later level touches (MergeTreeRuns' `between`), so that warp 0 reads them in the last
  // level's interval. A candidate is a key at or below a bound (WithinTopKBound), so a lane's
  // fourth key is one exactly when the smallest of them all is: one minimum to test.
  auto store_fourths = [&](B& b) {
    auto fourth = Registers<std::uint64_t>(b);
    b.ForEachThread([&](Thread t) {
      std::uint64_t x = kTreeAbove;
      for (int r = 0; r < kRegs; ++r) x = kept[t].key[r][kTreeLaneKeys] < x ? kept[t].key[r][kTreeLaneKeys] : x;
      fourth[t] = x;
    });
    WarpMin(b, fourth);
    b.ForEachThread([&](Thread t) {
      if (t.lane() == 0) keys.Store(lane_tree_detail::kFourthsAt + t.warp(), fourth[t]);
    });
  };
  auto merged = Registers<SlotKeys<2>>(block);  // warp 0's: element e in lane e mod 32, register e / 32
  MergeTreeRuns<kThreads>(
      block, keys, runs, kTreeRuns, false,
      [&](Thread t, int e, std::uint64_t x) {
        merged[t].v[e / kWarpSize] = x;
        if (!ties && e >= k) return;
        keys.Store(e, x);
        if (e < k) place(t, e, x);
      },
      tree_detail::PartnerInSlots{}, store_fourths);
  // Warp 0 decides in the last level's interval, from its registers and the warps' fourth keys
  // (where every thread read them after one more barrier until 2026-12-07), and lane 0 stores
  // the result for the barrier every caller's next phase needs anyway.
  block.ForWarps(WarpZero{}, [&] {
    LaneKeyTreeResult mine;
    auto at = Registers<int>(block);
    block.ForEachThread([&](Thread t) { at[t] = static_cast<int>(k - 1); });
    auto of = [&](Thread t, int r) { return merged[t].v[r]; };
    const auto kth = TreePositionValue<std::uint64_t>(block, of, at);
    const auto first = TreeFirstValue<std::uint64_t>(block, of);
    const std::uint64_t lowest_fourth = CombineWarpValues<std::uint64_t>(
        block, kWarps, kTreeAbove, [&](int w) { return keys.Load(lane_tree_detail::kFourthsAt + w); },
        [](std::uint64_t a, std::uint64_t b) { return b < a ? b : a; });
    mine.kth = BlockUniform(block, kth);
    mine.first = BlockUniform(block, first);
    mine.count = static_cast<std::uint32_t>(k);
    mine.short_lane = WithinTopKBound(lowest_fourth, mine.kth, ties);
    if (ties) {  // the merged keys ascend: the candidates are a prefix, counted by two ballots
      auto low = Registers<bool>(block);
      auto high = Registers<bool>(block);
      block.ForEachThread([&](Thread t) {
        low[t] = WithinTopKBound(merged[t].v[0], mine.kth, true);
        high[t] = WithinTopKBound(merged[t].v[1], mine.kth, true);
      });
      const auto low_mask = Ballot(block, low);
      const auto high_mask = Ballot(block, high);
      auto counted = Registers<std::uint32_t>(block);
      block.ForEachThread([&](Thread t) {
        counted[t] = static_cast<std::uint32_t>(HighestLane(low_mask[t]) + 1 + HighestLane(high_mask[t]) + 1);
      });
      mine.count = BlockUniform(block, counted);
      mine.short_lane = mine.short_lane || mine.count == kTreeKept;  // the candidates may go on past the 64
    }
    const std::uint32_t decided = decide(block, mine);  // the same in every lane (block-level code)
    block.ForEachThread([&](Thread t) {  // count <= 64 in 8 bits, short one bit, decided the high word
      if (t.lane() == 0) {
        keys.Store(lane_tree_detail::kResultAt,
                   std::uint64_t{mine.count} | std::uint64_t{mine.short_lane} << 8 | std::uint64_t{decided} << 32);
      }
    });
  });
  block.Sync();  // the merged keys and the result word, before every thread's reads
  LaneKeyTreeResult result;
  block.ForEachThread([&](Thread) {
    result.kth = keys.Load(static_cast<int>(k - 1));
    result.first = keys.Load(0);
    const std::uint64_t word = keys.Load(lane_tree_detail::kResultAt);
    result.count = static_cast<std::uint32_t>(word & 0xffu);
    result.short_lane = (word >> 8 & 1u) != 0;
    result.decided = static_cast<std::uint32_t>(word >> 32);
  });
  return result;
}

}  // namespace sampcheck::gpu
