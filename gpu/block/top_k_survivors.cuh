// SPDX-License-Identifier: Apache-2.0
#pragma once
// Gathers the candidates for a row's top k (k <= 1024) into shared memory in one read of the
// row (two or three when a thread's share holds 6 or more of them), so that top_k and every
// later filter step work on them, not on V (docs/gpu.md "Top-k survivors"; docs/spec/filters.md
// "Work on the survivors only").
//
// Contract:
// - Keys are the descending order keys of gpu/block/radix_select.cuh (OrderKey, ascending =
//   false): smaller key = earlier in the canonical order; keys are unique per row.
// - Read 1: thread t's smallest key over its share of the row: four elements to a 16-byte load
//   (ForEachQuadElement, gpu/block/quad_reads.cuh) when the row holds at least 1024 quads
//   (every thread gets one); else, and until 2026-12-03, indices t, t + 1024, ..., one load
//   each. The k-th smallest T of these 1024 maxima (KthSmallestSlot,
//   gpu/block/bitonic_sort.cuh: the maxima are distinct but for kNoKey padding, which is above T
//   as k < vocab) bounds the k-th key of the row K from above: the k maxima with key <= T are k
//   distinct entries of the row, so K <= T, whichever partition of the row into 1024 parts the
//   threads' shares are.
//   The candidates are the entries with key <= T (exactly k: they hold every key <= K), or with
//   value key <= T's value key (ties kept: they hold every value tied with K's).
// - Read 1 also keeps each thread's 6 smallest keys (LaneKeys, gpu/block/cached_candidates.cuh;
//   the slices' gathers since 2026-12-03, the one-block rows' since the lane grouping below
//   went to a merge of the sorted candidates, later that day): when no
//   thread's sixth is a candidate, those kept that are candidates are every candidate, counted
//   and scanned from the registers, and read 2 is not made (the row is read once).
// - The tree path (k <= kTreeKept = 64; since 2026-12-05): read 1 stores no maximum;
//   LaneKeyTree (gpu/block/lane_key_tree.cuh, gpu-fast's too) merges the threads' 3 smallest
//   kept keys into sorted, T the k-th of them, `first` sorted[0]. When no thread's fourth kept
//   key is a candidate (by the rule above against this T) and, with ties, fewer than 64 of
//   the merged keys are, sorted[0 .. total) is every candidate (total = k, or with ties the
//   candidates' count; the later slots unspecified). Else T bounds the row's k-th key from
//   above as the maxima's does, and the kept candidates up to it are gathered as below.
//   place(t, j, key) (the slices' gathers: the list's store) gets key j < k of the candidates
//   in a phase with a barrier after it: the tree's, or after the sort below.
// - Read 2 (a thread's sixth kept key is a candidate): each thread counts the candidates of its
//   share, as read 1, and keeps the first kCachedCandidates = 8 in registers
//   (gpu/block/cached_candidates.cuh). Either count goes through an exact scan in thread order
//   (BlockExclusiveScan: one barrier), which gives offsets and the total, and whether some
//   thread's keys are short (read 2: more than 8). More than kCandidates = 1024 candidates
//   (a row whose largest values crowd into a few lanes, or ties kept across a flat row):
//   nothing is gathered and `ok` is false, so the caller takes its full-row path; the reads
//   are then spent for nothing (bounded); `total` then only says "more than 1024".
//   `first` = the smallest of the maxima, the row's first key: a NaN's or +inf's
//   (IsDegenerateFirstKey) stops after read 1 with `ok` false, for the caller's degenerate rule.
// - The write: thread t writes its candidates' keys (from its registers, or, when some thread's
//   cache is short, from read 3 of the row: the same keys), in increasing index order, to
//   `sorted` from its offset on, the slots after them kNoKey, and the network sorts the
//   SortSlotsFor(total) slots that hold them (64 for ~50 candidates, not 1024): sorted[0 ..
//   total) is the candidates in the canonical order.
// - GatherTopKCandidates (the one-block rows): then GroupCandidatesByLane (below) puts them
//   in `grouped` lane by lane (lane = index mod 1024), each lane in index order, which is the
//   canonical reduction order restricted to them (docs/spec/reductions.md), with lane t's first
//   place and number in offset[t] / count[t]. Until 2026-12-03 reads 2 and 3 went by
//   canonical lanes, one element a load, and wrote `grouped` in lane order from a scan in lane
//   order, so the one-block rows always read the row twice. GatherSortedTopKCandidates (the
//   slices' gathers) stops at `sorted`.
// - The values are the keys' value bits (ValueOfDescendingKey): exact except that -0.0 comes
//   back as +0.0, which no probability sees (x - M and exp(+-0) give the same bits); callers
//   that write a value back read it from the row.
// - Deterministic: integer counts, a fixed scan order, a sorting network and merges. The
//   gather ends with a barrier after its last writes (GatherTopKCandidates: before the lane
//   counts' reads of `grouped`, which the caller orders before rewriting it).
// Example: row {1, 3, 3, 2} (4 lanes used), k = 2: maxima keys are the entries themselves; T =
//   the key of (3, index 2); candidates {1, 2}; sorted = keys of (3, 1), (3, 2)
//   (tests/gpu_kernels_test.cc, GpuTopKSurvivors).

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/cached_candidates.cuh"
#include "gpu/block/lane_key_tree.cuh"
#include "gpu/block/quad_reads.cuh"
#include "gpu/block/radix_select.cuh"

namespace sampcheck::gpu {

// Read 1's group of quads (gpu/block/quad_reads.cuh): 48 bytes in flight a thread. At
// kQuadGroup's 4, ptxas (64 registers) spilled more of the sampling filter kernels (spill loads
// 76 -> 436 bytes in the slice kernel, 188 at 3) and put 3 local loads into the canonical lanes'
// read loop (docs/gpu.md "Quad reads").
inline constexpr int kGatherQuadGroup = 3;

// The value whose descending key's high word is `key >> 32` (OrderKey's inverse on the value;
// -0.0 folds to +0.0). Not for NaN keys (value key 0), which the filters never see.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float ValueOfDescendingKey(std::uint64_t key) {
  const std::uint32_t ascending = ~static_cast<std::uint32_t>(key >> 32);
  const std::uint32_t u = (ascending & 0x80000000u) != 0 ? (ascending & 0x7fffffffu) : ~ascending;
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t IndexOfKey(std::uint64_t key) {
  return static_cast<std::int64_t>(key & 0xffffffffu);
}

// The lane grouping of sorted[0, list) (1 <= list <= kCandidates; lane = index mod 1024, index
// order within a lane): grouped[0, list) the keys in that order, offset[t] / count[t] lane t's
// first place and number. Each key becomes a lane-order key (lane << 42 | index << 10 | its
// place in sorted: the index is below 2^32, so the order is (lane, index)); the warps sort
// their 32 in registers (WarpSortSlots) and store them to `grouped`, where MergeRuns merges the
// runs; each key's thread keeps the place the merge gives it and, after a barrier (the merge's
// searches read `grouped`), stores there the key of sorted it names; then each thread counts
// lane t's keys and those before it by two binary searches over grouped's lanes (at most 2
// (floor(log2 list) + 1) reads). Until 2026-12-01 every thread compared its lane with all
// list keys (52 reads in sequence at top-k 50); until 2026-12-03 the lane-order keys had a
// buffer of their own (512 keys, so only a split row's lists were grouped this way).
// At most 64 keys (the typical top-k; since 2026-12-07) warp 0 alone sorts their lane-order
// keys, two a lane, in its registers (each run of 32 by WarpSortSlots, the two merged by
// KeepLowestWithRun, the gathers' lane runs' bitonic merge: Batcher's network, exact on
// distinct keys) and stores grouped from them: no merge in shared
// memory, the same grouped, one barrier where the warps' runs, their merge and the stores took
// three. Since later that day warp 0 takes each grouped place's key from the lane that holds
// it (two shuffles), not from sorted, and a caller whose merge tree left the keys in warp 0's
// registers (`tree`: sorted[e] in lane e mod 32, register e / 32; MergeTopKCandidates in
// gpu/kernels/sampling_filters_slices.cuh) passes them, so no barrier need follow sorted's
// stores (the barrier at the end orders them before any reader's loads); without `tree` the
// lanes load them from sorted, after the caller's barrier. Barriers: 1 at list <= 64, else 3 +
// 2 (levels - 1), levels = ceil(log2 ceil(list / 32)). Ends with a barrier after the last
// writes of `grouped`; sorted is only read.
template <class B, class Shared, class R, class Tree = decltype(Registers<SlotKeys<2>>(std::declval<B&>()))>
SAMPCHECK_KERNEL_BODY void GroupCandidatesByLane(B& block, Shared& sorted, int list, Shared& grouped, R& offset,
                                                 R& count, const Tree* tree = nullptr) {
  auto lane_order_key = [](std::uint64_t key, int p) {  // (lane, index) order, p in the low bits
    const auto index = static_cast<std::uint64_t>(IndexOfKey(key));
    return (index % kCanonicalLanes) << 42 | index << 10 | static_cast<std::uint64_t>(p);
  };
  if (list <= 2 * kWarpSize) {
    // The keys in the merge tree's layout in warp 0 (sorted[e] in lane e mod 32, register e /
    // 32): the caller's tree left them there, or lanes load them. Their lane-order keys sorted
    // by WarpSortPairs (gpu/block/lane_key_tree.cuh: each register's 32 across the lanes, then
    // merged as the lane runs are): all 64 ascending, element e in lane e mod 32's register e /
    // 32; each grouped place takes its key from the lane that holds it (TreePositionValue).
    auto keys = Registers<SlotKeys<2>>(block);
    auto pair = Registers<SlotKeys<2>>(block);
    block.ForWarps(WarpZero{}, [&] {
      block.ForEachThread([&](Thread t) {
        for (int r = 0; r < 2; ++r) {
          const int p = r * kWarpSize + t.lane();
          keys[t].v[r] = p >= list ? kNoKey : tree != nullptr ? (*tree)[t].v[r] : sorted.Load(p);
          pair[t].v[r] = p < list ? lane_order_key(keys[t].v[r], p) : kNoKey;
        }
      });
      WarpSortPairs(block, pair);
      auto at = Registers<int>(block);
      for (int r = 0; r < 2; ++r) {
        block.ForEachThread([&](Thread t) { at[t] = static_cast<int>(pair[t].v[r] % kCanonicalLanes); });
        const auto key = TreePositionValue<std::uint64_t>(block, [&](Thread t, int q) { return keys[t].v[q]; }, at);
        block.ForEachThread([&](Thread t) {
          if (r * kWarpSize + t.lane() < list) grouped.Store(r * kWarpSize + t.lane(), key[t]);
        });
      }
    });
  } else {
    const int runs = (list + kWarpSize - 1) / kWarpSize;
    auto held = Registers<SlotKeys<kMergeSlots / kCanonicalLanes>>(block);
    block.ForEachThread([&](Thread t) { held[t].v[0] = t.x < list ? lane_order_key(sorted.Load(t.x), t.x) : kNoKey; });
    WarpSortSlots<kMergeSlots / kCanonicalLanes>(block, held);
    block.ForEachThread([&](Thread t) {
      if (t.x < runs * kWarpSize) grouped.Store(t.x, held[t].v[0]);
    });
    block.Sync();
    auto place = Registers<int>(block);  // the key's place in grouped, -1 for none
    auto from = Registers<int>(block);   // its place in sorted
    block.ForEachThread([&](Thread t) { place[t] = -1; });
    MergeRuns<kCanonicalLanes>(block, grouped, held, kWarpSize, runs, list, [&](Thread t, int at, std::uint64_t x) {
      place[t] = at;
      from[t] = static_cast<int>(x % kCanonicalLanes);
    });
    block.Sync();  // the merge's last searches read grouped
    block.ForEachThread([&](Thread t) {
      if (place[t] >= 0) grouped.Store(place[t], sorted.Load(from[t]));
    });
  }
  block.Sync();
  // grouped's lanes, ascending along it: the keys at most lane t - 1, then at most lane t.
  struct Lanes {
    Shared& keys;
    SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t Load(int p) const {
      return static_cast<std::uint64_t>(IndexOfKey(keys.Load(p)) % kCanonicalLanes);
    }
  } lanes{grouped};
  const int top = merge_detail::FloorPow2(list);
  block.ForEachThread([&](Thread t) {
    const int before = t.x == 0 ? 0 : merge_detail::CountAtMost(lanes, 0, list, top, t.x - 1u);
    offset[t] = static_cast<std::uint32_t>(before);
    count[t] = static_cast<std::uint32_t>(merge_detail::CountAtMost(lanes, 0, list, top, t.x) - before);
  });
}

// Returns false (nothing gathered) when there are more than kCandidates candidates; else the
// candidates are in sorted in the canonical order as above, `total` holds their number (the
// slices' gathers: no lane order). 1 <= k <= 1024, k < vocab. place: contract "The tree path".
// decide: LaneKeyTree's (warp 0's decision before the tree's barrier: a slice's ticket), its
// value in *decided (0 without the tree).
template <class B, class Arr, class Shared, class Place = NoPlace, class Decide = NoTreeDecision>
SAMPCHECK_KERNEL_BODY bool GatherSortedTopKCandidates(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                      std::int64_t k, bool ties, Shared& sorted, std::uint32_t& total,
                                                      std::uint64_t& first, Place place = {}, Decide decide = {},
                                                      std::uint32_t* decided = nullptr) {
  // Four elements a load where every thread gets a quad (so that, as with canonical lanes,
  // 1024 >= k threads hold an entry: the maxima below T are real keys); else canonical lanes.
  const QuadSpan span = QuadSpanOf(row, base, vocab);
  const bool by_quads = span.quads >= kCanonicalLanes;
  auto own_keys = [&](Thread t, auto&& f) {
    if (by_quads) {
      ForEachQuadElement<kGatherQuadGroup>(row, base, span, kCanonicalLanes, t.x,
                                           [&](std::int64_t i, float x) { f(OrderKey(x, i, false)); });
    } else {
      for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) f(OrderKey(row.Load(base + i), i, false));
    }
  };
  // Read 1 keeps each thread's 6 smallest keys (LaneKeys, gpu/block/cached_candidates.cuh),
  // which hold every candidate unless the sixth is one.
  auto kept = Registers<LaneKeys<1>>(block);
  // The tree path (contract): the maxima stay in registers.
  const bool tree = k <= kTreeKept;
  block.ForEachThread([&](Thread t) {
    kept[t].Clear();
    own_keys(t, [&](std::uint64_t key) { kept[t].Add(0, key); });
    if (!tree) sorted.Store(t.x, kept[t].First(0));  // the thread's minimum (kNoKey: it read none)
  });
  std::uint64_t bound = 0;
  if (decided != nullptr) *decided = 0;
  if (tree) {
    const LaneKeyTreeResult tree_keys = LaneKeyTree<kCanonicalLanes>(block, kept, k, ties, sorted, place, decide);
    if (decided != nullptr) *decided = tree_keys.decided;
    first = tree_keys.first;
    if (IsDegenerateFirstKey(first)) return false;
    if (!tree_keys.short_lane) {
      total = tree_keys.count;
      return true;
    }
    bound = tree_keys.kth;
  } else {
    block.Sync();
    bound = KthSmallestSlot<kCanonicalLanes>(block, sorted, k, first);
    if (IsDegenerateFirstKey(first)) return false;
  }
  auto candidate = [&](std::uint64_t key) { return WithinTopKBound(key, bound, ties); };
  // The kept candidates, or (a thread's sixth is one) reads 2 and 3 (gpu/block/cached_candidates.cuh).
  const bool fit = GatherKeptCandidates<kCanonicalLanes>(block, kept, candidate, sorted, kCandidates, total, [&] {
    return GatherCountedCandidates<kCanonicalLanes>(block, own_keys, candidate, sorted, kCandidates, total);
  });
  if (!fit) return false;
  BitonicSortSlots<kCanonicalLanes>(block, sorted, total);  // the candidates' slots only
  if constexpr (!std::is_same_v<Place, NoPlace>) {
    block.ForEachThread([&](Thread t) {
      for (std::int64_t j = t.x; j < k; j += kCanonicalLanes) place(t, j, sorted.Load(j));
    });
    block.Sync();
  }
  return true;
}

// GatherSortedTopKCandidates, then the candidates by canonical lanes in grouped / offset /
// count (GroupCandidatesByLane): the one-block rows.
template <class B, class Arr, class Shared, class R>
SAMPCHECK_KERNEL_BODY bool GatherTopKCandidates(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                std::int64_t k, bool ties, Shared& grouped, Shared& sorted, R& offset,
                                                R& count, std::uint32_t& total, std::uint64_t& first) {
  if (!GatherSortedTopKCandidates(block, row, base, vocab, k, ties, sorted, total, first)) return false;
  GroupCandidatesByLane(block, sorted, static_cast<int>(total), grouped, offset, count);
  return true;
}

}  // namespace sampcheck::gpu
