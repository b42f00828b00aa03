// SPDX-License-Identifier: Apache-2.0
#pragma once
// Gathers the candidates for a row's top k (k <= 1024) into shared memory in two reads of the
// row (one for the slices' kSortedOnly gathers when read 1's kept keys suffice), so that
// top_k and every later filter step work on them, not on V (docs/gpu.md "Top-k
// survivors"; docs/spec/filters.md "Work on the survivors only").
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
// - kSortedOnly (the slices' gathers): read 1 also keeps each thread's 6 smallest keys
//   (LaneKeys, gpu/block/cached_candidates.cuh; since 2026-12-03); when no thread's sixth is
//   a candidate, those kept that are candidates are every candidate, counted and scanned
//   from the registers, and read 2 is not made (the row is read once). kLaneGrouped needs its
//   candidates by canonical lanes, which read 1 by quads does not give: read 2 always.
// - Read 2: each thread counts its candidates (kLaneGrouped: of indices t, t + 1024, ...;
//   kSortedOnly: of its share, as read 1) and keeps the first kCachedCandidates
//   = 8 in registers (gpu/block/cached_candidates.cuh); an exact scan in thread order
//   (BlockExclusiveScan: one barrier) gives offsets and the total, and whether some
//   thread had more than 8. More than kCandidates = 1024 candidates
//   (a row whose largest values crowd into a few lanes, or ties kept across a flat row):
//   nothing is gathered and `ok` is false, so the caller takes its full-row path; the two reads
//   are then spent for nothing (bounded); `total` then only says "more than 1024".
//   `first` = the smallest of the maxima, the row's first key: a NaN's or +inf's
//   (IsDegenerateFirstKey) stops after read 1 with `ok` false, for the caller's degenerate rule.
// - The write: thread t writes its candidates' keys (from its registers, or, when some thread's
//   cache is short, from read 3 of the row: the same keys), in increasing index order, to
//   `grouped` from its offset on (`offset[t]`, `count[t]`; kLaneGrouped only): grouped holds the
//   candidates lane by lane, each lane in index order, which is the canonical reduction order
//   restricted to them (docs/spec/reductions.md). The same keys go to `sorted`, the slots
//   after them kNoKey, and the network sorts the SortSlotsFor(total) slots that hold them (64
//   for ~50 candidates, not 1024): sorted[0 .. total) is the candidates in the canonical order.
// - The values are the keys' value bits (ValueOfDescendingKey): exact except that -0.0 comes
//   back as +0.0, which no probability sees (x - M and exp(+-0) give the same bits); callers
//   that write a value back read it from the row.
// - Deterministic: integer counts, a fixed scan order and a sorting network; every helper ends
//   with a barrier.
// Example: row {1, 3, 3, 2} (4 lanes used), k = 2: maxima keys are the entries themselves; T =
//   the key of (3, index 2); candidates {1, 2}; sorted = keys of (3, 1), (3, 2)
//   (tests/gpu_kernels_test.cc, GpuTopKSurvivors).

#include <cstdint>
#include <cstring>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/cached_candidates.cuh"
#include "gpu/block/quad_reads.cuh"
#include "gpu/block/radix_select.cuh"

namespace sampcheck::gpu {

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

// What a gather leaves besides `sorted`: kLaneGrouped, the canonical lane grouping in
// grouped / offset / count (reads 2 and 3 by canonical lanes); kSortedOnly, nothing (grouped
// untouched, offset / count each thread's own candidates: reads 2 and 3 four to a load too).
enum class GatherOrder { kLaneGrouped, kSortedOnly };

// Returns false (nothing gathered) when there are more than kCandidates candidates; else the
// candidates are in sorted (and with kLaneGrouped in grouped) as above, `total` holds their
// number. 1 <= k <= 1024, k < vocab.
template <GatherOrder kOrder = GatherOrder::kLaneGrouped, class B, class Arr, class Shared, class R>
SAMPCHECK_KERNEL_BODY bool GatherTopKCandidates(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                std::int64_t k, bool ties, Shared& grouped, Shared& sorted, R& offset,
                                                R& count, std::uint32_t& total, std::uint64_t& first) {
  // Four elements a load where every thread gets a quad (so that, as with canonical lanes,
  // 1024 >= k threads hold an entry: the maxima below T are real keys); else canonical lanes.
  const QuadSpan span = QuadSpanOf(row, base, vocab);
  const bool by_quads = span.quads >= kCanonicalLanes;
  auto row_keys = [&](Thread t, bool quads, auto&& f) {
    if (quads) {
      ForEachQuadElement(row, base, span, kCanonicalLanes, t.x,
                         [&](std::int64_t i, float x) { f(OrderKey(x, i, false)); });
    } else {
      for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) f(OrderKey(row.Load(base + i), i, false));
    }
  };
  // Reads 2 and 3: canonical lanes in index order for kLaneGrouped.
  auto own_keys = [&](Thread t, auto&& f) { row_keys(t, kOrder == GatherOrder::kSortedOnly && by_quads, f); };
  // kSortedOnly: read 1 keeps each thread's 6 smallest keys (LaneKeys,
  // gpu/block/cached_candidates.cuh), which hold every candidate unless the sixth is one.
  constexpr bool kKeep = kOrder == GatherOrder::kSortedOnly;
  auto kept = Registers<LaneKeys<1>>(block);
  block.ForEachThread([&](Thread t) {
    std::uint64_t best = kNoKey;
    if constexpr (kKeep) kept[t].Clear();
    row_keys(t, by_quads, [&](std::uint64_t key) {
      if constexpr (kKeep) kept[t].Add(0, key);
      best = key < best ? key : best;
    });
    sorted.Store(t.x, best);
  });
  block.Sync();
  const std::uint64_t bound = KthSmallestSlot<kCanonicalLanes>(block, sorted, k, first);
  if (IsDegenerateFirstKey(first)) return false;
  auto candidate = [&](std::uint64_t key) { return ties ? (key >> 32) <= (bound >> 32) : key <= bound; };
  auto packed = Registers<std::uint32_t>(block);
  std::uint32_t packed_total = 0;
  auto count_and_scan = [&](auto&& count_of) {  // count[t], offset[t] and the packed total
    block.ForEachThread([&](Thread t) {
      bool short_cache = false;
      count[t] = count_of(t, short_cache);
      packed[t] = PackCandidates(count[t], short_cache);
    });
    auto scanned = BlockExclusiveScan<kCanonicalLanes>(block, packed, packed_total);
    block.ForEachThread([&](Thread t) { offset[t] = CandidatesOfPacked(scanned[t]); });
  };
  bool from_kept = false;
  if constexpr (kKeep) {
    count_and_scan([&](Thread t, bool& short_lane) {
      std::uint32_t c = 0;
      short_lane = kept[t].ForEachCandidate(candidate, [&](std::uint64_t) { ++c; });
      return c;
    });
    from_kept = !AnyOverflowed(packed_total);
    if (!from_kept) block.Sync();  // the scan's shared words read before read 2's scan writes them
  }
  // Read 2 (unless read 1's keys were enough): the count, with each thread's first
  // kCachedCandidates candidates kept in registers.
  auto cache = Registers<CandidateCache<kCachedCandidates>>(block);
  if (!from_kept) {
    count_and_scan([&](Thread t, bool& short_cache) {
      auto& c = cache[t];
      own_keys(t, [&](std::uint64_t key) {
        if (candidate(key)) c.Add(key);
      });
      short_cache = c.Overflowed();
      return c.count;
    });
  }
  total = CandidatesOfPacked(packed_total);
  if (total > static_cast<std::uint32_t>(kCandidates)) return false;
  // The kept or cached candidates, or (a thread's cache short) read 3: the row again.
  const bool cached = !AnyOverflowed(packed_total);
  block.ForEachThread([&](Thread t) {
    std::uint32_t at = offset[t];
    auto put = [&](std::uint64_t key) {
      if constexpr (kOrder == GatherOrder::kLaneGrouped) grouped.Store(at, key);
      sorted.Store(at, key);
      ++at;
    };
    if (from_kept) {
      (void)kept[t].ForEachCandidate(candidate, put);
    } else if (cached) {
      cache[t].ForEach(put);
    } else {
      own_keys(t, [&](std::uint64_t key) {
        if (candidate(key)) put(key);
      });
    }
    PadSortSlots<kCanonicalLanes>(t, sorted, total, kSortSlots);
  });
  block.Sync();
  BitonicSortSlots<kCanonicalLanes>(block, sorted, total);  // the candidates' slots only
  return true;
}

}  // namespace sampcheck::gpu
