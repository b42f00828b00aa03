// SPDX-License-Identifier: Apache-2.0
#pragma once
// The first 64 keys of up to 32 sorted runs of at most 64 keys each, merged in the warps'
// registers: bitonic merges (Batcher 1968) of 2 or 4 runs a level, the runs exchanged through
// shared memory, one barrier a level (docs/gpu.md "Sorting networks and the canonical
// reduction"). KthSmallestSlot (gpu/block/bitonic_sort.cuh) takes it for 4 <= k <= 64, and
// gpu's and gpu-fast's split rows for the merge of their slices' lists (MergeSliceLists,
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
//   barrier precedes it: level 1's readers load their partners' elements themselves,
//   partner(u, e) (kTreeAbove past its keys), so the caller loads the runs v = 0 mod
//   TreeLoadedFan(count) only: the others' registers are not read.
// - Levels: level s has a span (1 at level 1, then the span times the level's fan-in) and a
//   fan-in f (TreeFan: 2 at a level 1 read from the slots, whose 16 regions of 64 hold the 16
//   odd runs and no more; at a level 1 that loads its partners TreeLoadedFan(count), count / 4
//   rounded up and at least 4, so that at most 4 readers remain: two levels for any count <= 32;
//   4 elsewhere); the levels go on while the span is below count (32 stored runs: fan-ins 2, 4,
//   4; 20 lists with `partner`: 5, 4, where 4, 4, 4 took a barrier more until 2026-12-07). Run
//   v = 0 mod (span f)
//   with a partner v + span below count is a reader; its partners are v + i span, i = 1 .. f - 1,
//   those below count. It merges partner 1 into its run (the partner's elements 63 - l and 31 -
//   l, its first 64 reversed: the lower half of the bitonic sequence, its run ascending then the
//   partner's descending, is the 64 smallest of the 128; stage 32 inside each lane, stages 16 ..
//   1 by ShuffleXor), and with f = 4, in the same stages, partners 2 (elements l and 32 + l) and
//   3 (reversed) into a second pair of registers sorted descending, then that pair into its run
//   (its run ascending, the pair descending: one more merge, no load). At f = 4 a level whose
//   reader 0 has no partner 2 makes the first merge only; a reader without partners 2 and 3 at a
//   level that makes both merges kTreeAbove. At f > 4 (loaded partners) the reader also merges,
//   in the same stages, partners 4 and 5 into a third pair sorted descending and 6 and 7 into a
//   fourth ascending (kTreeAbove past f - 1), then, beside its run's merge with the second pair,
//   the fourth into the third (descending), and last the third into its run: one merge more on
//   its chain than at f = 4, where a level of its own took a barrier, a store and a load more.
// - Regions: partner u at level s lies in region R = (u + S) / 2 of `keys` (slots 64 R .. 64 R
//   + 63), S the sum of the spans of the levels before s; with `partner`, from level 2 on, R =
//   (u + S - 1) / 4. Element e is at slot 64 R + (e XOR 32) at odd levels and 64 R + (e XOR 31)
//   at even ones. R is the region u read its partner 1 from at level s - 1 (or one nobody read
//   there: u had no partner 1, or level s - 1 loaded from global memory), and a partner of
//   level s + 1 stores its merged elements l and 32 + l, lane l, into the two slots it read its
//   partner 1's elements 63 - l and 31 - l from (63 - l XOR c = l XOR (c XOR 63)): so no thread
//   writes a slot another thread reads between two barriers, and the regions of a level are
//   distinct (at most 15: 32 stored runs read regions 0 .. 15, then 1 .. 15 but 4, 8 and 12,
//   then 5, 9 and 13).
// - After the last level run 0 holds the first 64 keys of the runs' multiset, ascending (a
//   sorting network: ties give the sorted multiset's bits); last(t, e, key) is called for each
//   of its elements e < 64 by the lane that holds it (warp 0, pair 0), in the last level's
//   phase (count = 1: the first phase), with no barrier after it: the caller's.
// - Level s runs in the warps holding a run v = 0 mod (span f) below count only (ForWarps,
//   gpu/block/block_model.h: a reader, or a run the next level reads); the others' runs are
//   not read again, and their registers are left as they were.
// - between(block), when given: block-level code called once, after level 1's barrier (in
//   level 2's interval; never with a single level). With stored runs no level reads or writes
//   region 4 (slots 256 .. 319) from there on: run 9 lay there for level 1, and the later
//   levels' regions are others (above). So between may store words there that the last
//   level's phase reads (LaneKeyTree: the warps' fourth keys).
// - keys: 1024 slots, of which the call reads and writes regions 0 .. 15 only as above; its last
//   reads are in the last level's phase. Barriers: one fewer than the levels (32 stored runs 2,
//   where pairwise levels took 4; with `partner` at most 1: 20 lists 1, 2 until 2026-12-07).
//   Accesses of a thread of 1024 (one run): 2 reads a partner (1 at level 1 when `half`; global
//   ones at level 1 with `partner`), 2 stores a level but the last.
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
// Level 1's fan-in with `partner` (contract "Levels"): count / 4 rounded up, at least 4 (at most
// 8 for count <= 32), so that at most 4 readers remain and the tree has two levels.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int TreeLoadedFan(int count) {
  const int fan = (count + 3) / 4;
  return fan < 4 ? 4 : fan;
}

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
// `descending`: the pair ordered the other way, for a merge that stages 16 .. 1 sort descending.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void KeepLowerPair(std::uint64_t& lo, std::uint64_t& hi,
                                                                std::uint64_t b_lo, std::uint64_t b_hi,
                                                                bool descending = false) {
  const std::uint64_t a0 = lo < b_lo ? lo : b_lo;
  const std::uint64_t a1 = hi < b_hi ? hi : b_hi;
  const bool ordered = (a0 < a1) != descending;
  lo = ordered ? a0 : a1;
  hi = ordered ? a1 : a0;
}

// One compare-exchange stage between lanes: each thread's register r against register r of
// lane ^ mask, the thread keeping the smaller where lower(t) and the larger elsewhere.
// ExchangeXor (a shuffle and the lane's select), no barrier, no shared memory; the bitonic
// sort's stages in a warp and across warps (transposed) are this step too.
template <class B, class Slots, class Lower>
SAMPCHECK_KERNEL_BODY SAMPCHECK_FORCE_INLINE void LaneStage(B& block, Slots& slots, int r, int mask, Lower lower) {
  ExchangeXor(
      block, mask, [&](Thread t) -> std::uint64_t& { return slots[t].v[r]; },
      [&](Thread t, std::uint64_t mine, std::uint64_t partner) { return KeepAscending(lower(t), mine, partner); });
}

// Stages j = 16 .. 1 of an ascending bitonic merge of every register's 32 keys across its
// warp's lanes (lane l holds element l) and, given `down`, of a descending one of each of its
// registers, stage by stage side by side (independent shuffles): ShuffleXor, no barrier, no
// shared memory.
template <int kRegs, class B, class Slots>
SAMPCHECK_KERNEL_BODY void WarpBitonicMerge(B& block, Slots& slots, Slots* down = nullptr) {
  for (int j = kWarpSize / 2; j >= 1; j /= 2) {
    for (int r = 0; r < kRegs; ++r) {
      LaneStage(block, slots, r, j, [&](Thread t) { return (t.lane() & j) == 0; });
      if (down != nullptr) LaneStage(block, *down, r, j, [&](Thread t) { return (t.lane() & j) != 0; });
    }
  }
}

// MergeTreeRuns' level 1 without a loader: the partners stored their runs into the slots.
struct PartnerInSlots {};

// MergeTreeRuns' hook after level 1's barrier: nothing.
struct NothingBetween {
  template <class B>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void operator()(B&) const {}
};

// Runs merged a reader at level s (contract "Levels"): 2 at a level 1 read from the slots, whose
// 16 regions hold the 16 odd runs and no more; TreeLoadedFan(count) at a level 1 that loads its
// partners; 4 elsewhere.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int TreeFan(bool loads_partner, int s, int count) {
  if (s != 1) return 4;
  return loads_partner ? TreeLoadedFan(count) : 2;
}

// The slot of element e of partner u at level s, `spans` the sum of the spans of the levels
// before s (contract "Regions").
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int TreeSlot(bool loads_partner, int s, int spans, int u, int e) {
  const int region = loads_partner ? (u + spans - 1) / 4 : (u + spans) / 2;
  return 64 * region + (e ^ (s % 2 == 1 ? 32 : 31));
}

}  // namespace tree_detail

template <int kThreads, class B, class Shared, class Runs, class Last, class Partner = tree_detail::PartnerInSlots,
          class Between = tree_detail::NothingBetween>
SAMPCHECK_KERNEL_BODY void MergeTreeRuns(B& block, Shared& keys, Runs& runs, int count, bool half, Last last,
                                         Partner partner = {}, Between between = {}) {
  constexpr bool kLoadsPartner = !std::is_same_v<Partner, tree_detail::PartnerInSlots>;
  static_assert(kThreads % kWarpSize == 0 && kThreads <= 1024 && 1024 % kThreads == 0,
                "whole warps that divide the 1024 slots");
  constexpr int kPairs = kTreeRuns / (kThreads / kWarpSize);  // runs a thread holds
  constexpr int kWarps = kThreads / kWarpSize;
  if (count <= 1) {
    block.ForEachThread([&](Thread t) {
      if (t.warp() != 0) return;
      last(t, t.lane(), runs[t].v[0]);
      last(t, kWarpSize + t.lane(), runs[t].v[1]);
    });
    return;
  }
  auto other = Registers<SlotKeys<2 * kPairs>>(block);  // a reader's merge of its partners 2 and 3
  // A wide level's (fan-in above 4, loaded partners only) merges of its partners 4 and 5
  // (descending) and 6 and 7 (ascending), then of those two (descending).
  auto wide_down = Registers<SlotKeys<2 * kPairs>>(block);
  auto wide_up = Registers<SlotKeys<2 * kPairs>>(block);
  int span = 1, spans = 0;  // spans: the sum of the levels' spans before this one (contract "Regions")
  for (int s = 1;; ++s) {
    const int fan = tree_detail::TreeFan(kLoadsPartner, s, count);
    const int next = span * fan;
    const bool final_level = next >= count;
    const bool from_global = kLoadsPartner && s == 1;
    const bool half_runs = half && s == 1;
    // Some reader has a partner 2 (reader 0 has, when any has): then every reader merges its
    // partners 2 and 3 too, a reader without them merging kTreeAbove, so the warps' shuffles
    // stay uniform.
    const bool second = fan >= 4 && 2 * span < count;
    // Partners 4 .. fan - 1 (a level 1 loading its partners, fan-in 5 to 8).
    const bool wide = kLoadsPartner && fan > 4 && 4 * span < count;
    // The warps holding a run v = 0 mod next below count (a reader, or a run without a partner
    // that the next level reads); the others' runs were stored as partners and are not read
    // again, so they sit the level out (ForWarps).
    auto merging = [&](int w) {
      for (int r = 0; r < kPairs; ++r) {
        const int v = r * kWarps + w;
        if (v % next == 0 && v < count) return true;
      }
      return false;
    };
    // Element e of partner u at this level (kTreeAbove past count, and past 32 for level 1's
    // half runs).
    auto element = [&](int u, int e) -> std::uint64_t {
      if (u >= count || (half_runs && e >= kWarpSize)) return kTreeAbove;
      if constexpr (kLoadsPartner) {
        if (from_global) return partner(u, e);
      }
      return keys.Load(tree_detail::TreeSlot(kLoadsPartner, s, spans, u, e));
    };
    block.ForWarps(merging, [&] {
      block.ForEachThread([&](Thread t) {
        const int l = t.lane();
        for (int r = 0; r < kPairs; ++r) {
          const int v = TreeRunOf<kThreads>(t, r);
          const bool reads = v % next == 0 && v + span < count;
          if (reads) {
            tree_detail::KeepLowerPair(runs[t].v[2 * r], runs[t].v[2 * r + 1], element(v + span, 63 - l),
                                       element(v + span, 31 - l));
          }
          if (second) {
            std::uint64_t lo = kTreeAbove, hi = kTreeAbove;
            if (reads) {
              lo = element(v + 2 * span, l), hi = element(v + 2 * span, kWarpSize + l);
              tree_detail::KeepLowerPair(lo, hi, element(v + 3 * span, 63 - l), element(v + 3 * span, 31 - l),
                                         true);
            }
            other[t].v[2 * r] = lo, other[t].v[2 * r + 1] = hi;
          }
          if constexpr (kLoadsPartner) {
            if (wide) {  // partners 4 and 5 into wide_down (descending), 6 and 7 into wide_up
              auto partner_of = [&](int i, int e) { return reads && i < fan ? element(v + i * span, e) : kTreeAbove; };
              std::uint64_t lo = partner_of(4, l), hi = partner_of(4, kWarpSize + l);
              tree_detail::KeepLowerPair(lo, hi, partner_of(5, 63 - l), partner_of(5, 31 - l), true);
              wide_down[t].v[2 * r] = lo, wide_down[t].v[2 * r + 1] = hi;
              lo = partner_of(6, l), hi = partner_of(6, kWarpSize + l);
              tree_detail::KeepLowerPair(lo, hi, partner_of(7, 63 - l), partner_of(7, 31 - l));
              wide_up[t].v[2 * r] = lo, wide_up[t].v[2 * r + 1] = hi;
            }
          }
        }
      });
      // Stages 16 .. 1 of the merges side by side.
      tree_detail::WarpBitonicMerge<2 * kPairs>(block, runs, second ? &other : nullptr);
      if (wide) tree_detail::WarpBitonicMerge<2 * kPairs>(block, wide_up, &wide_down);
      if (second) {  // partners 0 and 1 ascending, 2 and 3 descending: one bitonic sequence
        block.ForEachThread([&](Thread t) {
          for (int r = 0; r < kPairs; ++r) {
            tree_detail::KeepLowerPair(runs[t].v[2 * r], runs[t].v[2 * r + 1], other[t].v[2 * r],
                                       other[t].v[2 * r + 1]);
            if (wide) {  // partners 6 and 7 ascending, 4 and 5 descending: the lower half, descending
              tree_detail::KeepLowerPair(wide_down[t].v[2 * r], wide_down[t].v[2 * r + 1], wide_up[t].v[2 * r],
                                         wide_up[t].v[2 * r + 1], true);
            }
          }
        });
        tree_detail::WarpBitonicMerge<2 * kPairs>(block, runs, wide ? &wide_down : nullptr);
      }
      if (wide) {  // partners 0 .. 3 ascending, 4 .. 7 descending
        block.ForEachThread([&](Thread t) {
          for (int r = 0; r < kPairs; ++r) {
            tree_detail::KeepLowerPair(runs[t].v[2 * r], runs[t].v[2 * r + 1], wide_down[t].v[2 * r],
                                       wide_down[t].v[2 * r + 1]);
          }
        });
        tree_detail::WarpBitonicMerge<2 * kPairs>(block, runs);
      }
      block.ForEachThread([&](Thread t) {
        for (int r = 0; r < kPairs; ++r) {
          const int v = TreeRunOf<kThreads>(t, r);
          if (final_level) {
            if (v != 0) continue;
            last(t, t.lane(), runs[t].v[2 * r]);
            last(t, kWarpSize + t.lane(), runs[t].v[2 * r + 1]);
          } else if (v % next == 0 && v % (next * tree_detail::TreeFan(kLoadsPartner, s + 1, count)) != 0 &&
                     v < count) {
            // The next level's partner: into the slots it read its partner 1 from (contract).
            const int up = spans + span;
            keys.Store(tree_detail::TreeSlot(kLoadsPartner, s + 1, up, v, t.lane()), runs[t].v[2 * r]);
            keys.Store(tree_detail::TreeSlot(kLoadsPartner, s + 1, up, v, kWarpSize + t.lane()),
                       runs[t].v[2 * r + 1]);
          }
        }
      });
    });
    if (final_level) return;
    block.Sync();
    if (s == 1) between(block);
    spans += span;
    span = next;
  }
}

// In each lane of warp 0, the value at position at[t] of the tree's layout after its last
// level (lane e mod 32, register e / 32, as `last` gets them; of(t, r) is lane t's register r):
// ShuffleFrom of both registers of lane e mod 32, the lane keeping register e / 32's.
// Block-level code of warp 0 (ForWarps).
template <class T, class B, class Of, class RI>
SAMPCHECK_KERNEL_BODY auto TreePositionValue(B& block, const Of& of, const RI& at) {
  auto from = Registers<int>(block);
  auto low = Registers<T>(block);
  auto high = Registers<T>(block);
  block.ForEachThread([&](Thread t) {
    from[t] = at[t] % kWarpSize;
    low[t] = of(t, 0);
    high[t] = of(t, 1);
  });
  auto a = ShuffleFrom(block, low, from);
  auto b = ShuffleFrom(block, high, from);
  auto value = Registers<T>(block);
  block.ForEachThread([&](Thread t) { value[t] = at[t] < kWarpSize ? a[t] : b[t]; });
  return value;
}

// Element 0 of the layout (lane 0's register 0, of(t, 0)) in every lane of the warp: one shuffle
// where TreePositionValue takes two.
template <class T, class B, class Of>
SAMPCHECK_KERNEL_BODY auto TreeFirstValue(B& block, const Of& of) {
  auto zero = Registers<int>(block);
  auto mine = Registers<T>(block);
  block.ForEachThread([&](Thread t) {
    zero[t] = 0;
    mine[t] = of(t, 0);
  });
  return ShuffleFrom(block, mine, zero);
}

}  // namespace sampcheck::gpu
