// SPDX-License-Identifier: Apache-2.0
#pragma once
// gpu-fast's top-k survivors: the k <= 1024 smallest order keys of a row gathered into shared
// memory in one read of the row (two or three when a lane holds 6 or more of the candidates),
// by a block of any power-of-two size up to 1024, so that top-p, min-p and the draw work on
// them, not on V (docs/gpu.md "gpu-fast"). The bit-exact twin for blocks of 1024 threads is
// gpu/block/top_k_survivors.cuh (the count, scan and write of both:
// gpu/block/cached_candidates.cuh); this one serves the fast kernel's smaller emulated blocks
// and reads keys through a callback (the scaled logits).
//
// Contract:
// - key_of(i) is the order key of index i (smaller = earlier; unique per row), the same bits
//   at every call. 1 <= k <= kFastSurvivorSlots and k < vocab.
// - Read 1: virtual lane l (0 <= l < 1024; thread t owns l = t, t + kThreads, ...) takes the
//   smallest key of its share of the row: with a QuadKeySource of at least 1024 quads, quads
//   l, l + 1024, ... four a load (ForEachQuadKey, gpu/block/key_reads.cuh; since 2026-12-03),
//   else the indices l, l + 1024, ...; the k-th smallest T of these 1024 lane
//   minima (KthSmallestSlot) is at or after the row's k-th key (the k lane minima up to T are k distinct keys),
//   so {i : key_i <= T} holds the top k. GatherFastSurvivors' read 1 also keeps each lane's
//   6 smallest keys in registers (LaneKeys, gpu/block/cached_candidates.cuh; since
//   2026-12-03): when no lane's sixth kept key is <= T, the kept keys <= T are every
//   candidate, and read 2 is not made (the row is read once). A lane holding more (a row
//   arranged against the lanes) makes reads 2 and 3 as before, the same candidates.
// - Read 2: each thread counts its keys <= T (indices t, t + kThreads, ...; a QuadKeySource's
//   quads t, t + kThreads, ...; a caller's count, CountUpToBound's, reads them itself), keeping the first
//   CachedCandidatesPerThread<kThreads>() = 8 x 1024 / kThreads of them in registers
//   (gpu/block/cached_candidates.cuh); their scan in thread order (BlockExclusiveScan,
//   one barrier) also tells whether some thread had more. More than kFastSurvivorSlots candidates (the largest
//   values crowded into few lanes): returns false and the caller takes its full-row path (two
//   reads spent, bounded).
// - The write: each thread writes its candidates at its offset (from its registers, or, when
//   some thread's cache is short, from read 3 of the row: the same keys); the slots after them
//   hold kNoKey; a bitonic network over the next power of two >= total slots
//   (gpu/block/bitonic_sort.cuh) sorts them ascending: keys[0 .. total) is the candidates in
//   order, keys[0 .. k) the top k.
// - The tree path (GatherFastSurvivors, k <= kTreeKept = 64; since 2026-12-05): read 1 stores
//   no lane minimum; LaneKeyTree (gpu/block/lane_key_tree.cuh, the exactness argument and how
//   often a lane falls short there) merges the lanes' 3 smallest kept keys by the warps' merge
//   tree into keys[0 .. k), the k-th T. When no lane's fourth kept key is <= T they are the
//   row's top k (total = k; the later slots unspecified): the row read once and no candidate
//   scanned, written or sorted. Else (on continuous rows 2e-4 of the blocks at k = 50; every
//   flat row) T bounds the candidates above, as the k-th lane minimum does, and the kept keys
//   up to it are gathered as in "Read 2" and "The write". Barriers: 7 in the tree path where
//   the lane minima's bound, the candidates' scan and write and a sort of 64 slots take 12; in
//   the other case those 7 replace the 7 of the lane minima's bound (the minima's store and
//   KthSmallestSlot's 6): 12 either way.
// - Deterministic for a given kThreads (integer counts, fixed scan, a sorting network); every
//   helper ends with a barrier.
// Example: row {1, 3, 3, 2}, k = 2: keys sorted = (3, index 1), (3, index 2), then (2, 3) and
//   (1, 0) if they are candidates (tests/gpu_fast_sampling_test.cc, "SurvivorGather").

#include <cstdint>
#include <type_traits>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/cached_candidates.cuh"
#include "gpu/block/key_reads.cuh"
#include "gpu/block/lane_key_tree.cuh"
#include "gpu/block/thread_share.cuh"

namespace sampcheck::gpu::fast_detail {

inline constexpr int kFastSurvivorSlots = 1024;
inline constexpr std::uint64_t kNoSurvivor = ~std::uint64_t{0};

// Sorts keys[0, count) ascending in place, the slots from count to the next power of two
// (at least 32) holding kNoSurvivor (gpu/block/bitonic_sort.cuh: two barriers per merge level
// whose stages cross warps, their stages shuffles between two exchanges through shared memory,
// none for the stages inside a warp or a thread; two buffers, so no barrier more at the end).
template <int kThreads, class B, class Shared>
SAMPCHECK_KERNEL_BODY void SortSurvivorSlots(B& block, Shared& keys, std::uint32_t count) {
  static_assert(kFastSurvivorSlots == kSortSlots, "the network's capacity is the survivor slots");
  BitonicSortSlots<kThreads, true>(block, keys, count);
}

// A read's per-entry work that a caller fuses into read 1: nothing.
struct NoLaneVisit {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void operator()(std::int64_t, std::uint64_t) const {}
};

// Read 1's keys kept per virtual lane (contract "Read 1"): none, or LaneKeys
// (gpu/block/cached_candidates.cuh).
struct NoLaneKeys {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(int, std::uint64_t) const {}
};

// A lane's minimum: the kept keys' first (LaneKeys::First), else the minimum `best` the read
// took itself (then dead code, dropped by the compiler, when the keys are kept).
template <class Kept>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t LaneMinimum(const Kept& kept, int lane, std::uint64_t best) {
  if constexpr (std::is_same_v<std::remove_cvref_t<Kept>, NoLaneKeys>) {
    return best;
  } else {
    return kept.First(lane);
  }
}

// Read 1 in thread t: the smallest key of each of its virtual lanes' shares (contract above)
// to keys[l]; visit(i, key) sees every index's key once, lane by lane, in index order within
// a lane (a caller fuses other per-index work into it: gpu-fast's near-V top-k takes the
// row's first key and its proposals' masses in the same read). With a visit, the quads are
// FixedQuadSpanOf's (gpu/block/quad_reads.cuh: the masses' shares must not depend on the
// row's address); without, QuadSpanOf's (the minima's bound does not depend on the split).
template <int kThreads, class Shared, class KeyOf, class Visit, class Kept = NoLaneKeys>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void StoreLaneMinima(Thread t, std::int64_t vocab, Shared& keys,
                                                                  const KeyOf& key_of, Visit visit, Kept&& kept = {}) {
  if constexpr (QuadKeySource<KeyOf>) {
    const QuadSpan span =
        std::is_same_v<Visit, NoLaneVisit> ? QuadSpanOf(key_of, 0, vocab) : FixedQuadSpanOf(key_of, 0, vocab);
    // Every virtual lane holds a quad; a thread's lanes then read its share of the row
    // (gpu/block/thread_share.cuh), which gpu-fast's proposals walk back.
    static_assert(kQuadShareMinQuads == kFastSurvivorSlots, "a share is the union of its thread's lanes");
    if (span.quads >= kFastSurvivorSlots) {
      for (int l = t.x, lane = 0; l < kFastSurvivorSlots; l += kThreads, ++lane) {
        std::uint64_t best = kNoSurvivor;
        ForEachQuadKey<kQuadGroup>(key_of, span, kFastSurvivorSlots, l, [&](std::int64_t i, std::uint64_t key) {
          visit(i, key);
          kept.Add(lane, key);
          best = key < best ? key : best;
        });
        keys.Store(l, LaneMinimum(kept, lane, best));
      }
      return;
    }
  }
  for (int l = t.x, lane = 0; l < kFastSurvivorSlots; l += kThreads, ++lane) {
    std::uint64_t best = kNoSurvivor;
    ForEachKey(key_of, l, vocab, kFastSurvivorSlots, [&](std::int64_t i, std::uint64_t key) {
      visit(i, key);
      kept.Add(lane, key);
      best = key < best ? key : best;
    });
    keys.Store(l, LaneMinimum(kept, lane, best));
  }
}

// Reads 2 and 3 for a given bound (GatherCountedCandidates, gpu/block/cached_candidates.cuh):
// the keys <= bound into `keys`, unsorted, `total` their number. Returns false, with `keys`
// undefined, when they do not fit. `count` (optional) is read 2's count of thread t:
// count(t, key_of, part, candidate, cache) adds thread t's keys of `part` (ForEachPartitionKey)
// that pass `candidate` to `cache` in that order, and may do more in the same loop (gpu-fast's
// near-V gather sums the masses before its proposals there, out of line:
// CountDroppedBeforeProposals, gpu/fast/fast_proposals.cuh).
template <int kThreads, class B, class KeyOf, class Shared, class Count = CountInLine>
SAMPCHECK_KERNEL_BODY bool CountUpToBound(B& block, std::int64_t vocab, std::uint64_t bound, KeyOf key_of,
                                          Shared& keys, std::uint32_t& total, Count count = {}) {
  // Thread t's keys: four a load from a QuadKeySource (the candidates are sorted below whoever
  // read them, and a caller's count only sums: its sums must not depend on the row's address,
  // fixed).
  static_assert(kThreads >= 4, "ForEachQuadElement's head and tail take a thread each");
  constexpr bool kInLine = std::is_same_v<Count, CountInLine>;
  const KeyPartition part = PartitionKeys(key_of, vocab, kThreads, !kInLine);
  auto own_keys = [&](Thread t, auto&& f) {
    ForEachPartitionKey(key_of, part, t.x, [&](std::int64_t, std::uint64_t key) { f(key); });
  };
  auto candidate = [bound](std::uint64_t key) { return key <= bound; };
  // `keys` is free: the caller's last reads of it are behind a barrier.
  constexpr auto kCapacity = static_cast<std::uint32_t>(kFastSurvivorSlots);
  if constexpr (kInLine) {
    return GatherCountedCandidates<kThreads>(block, own_keys, candidate, keys, kCapacity, total);
  } else {
    return GatherCountedCandidates<kThreads>(block, own_keys, candidate, keys, kCapacity, total,
                                             [&](Thread t, auto&, const auto&, auto& cache) {
                                               count(t, key_of, part, candidate, cache);
                                             });
  }
}

// CountUpToBound, then the sort: keys[0, total) the keys <= bound ascending (exactly the top k
// when bound is the k-th key).
template <int kThreads, class B, class KeyOf, class Shared, class Count = CountInLine>
SAMPCHECK_KERNEL_BODY bool GatherUpToBound(B& block, std::int64_t vocab, std::uint64_t bound, KeyOf key_of,
                                           Shared& keys, std::uint32_t& total, Count count = {}) {
  if (!CountUpToBound<kThreads>(block, vocab, bound, key_of, keys, total, count)) return false;
  SortSurvivorSlots<kThreads>(block, keys, total);
  return true;
}

// Read 2 (and 3 when a cache is short) after StoreLaneMinima and a barrier: the candidates (contract above) into
// `keys`, sorted; `total` is their number. Returns false, with `keys` undefined, when they do
// not fit.
template <int kThreads, class B, class KeyOf, class Shared, class Count = CountInLine>
SAMPCHECK_KERNEL_BODY bool GatherBelowLaneBound(B& block, std::int64_t vocab, std::int64_t k, KeyOf key_of,
                                                Shared& keys, std::uint32_t& total, Count count = {}) {
  static_assert(kFastSurvivorSlots == kSortSlots, "the selection reads every survivor slot");
  // The lane minima are distinct but for kNoSurvivor padding (lanes past V), above the k-th.
  const std::uint64_t bound = KthSmallestSlot<kThreads>(block, keys, k);
  return GatherUpToBound<kThreads>(block, vocab, bound, key_of, keys, total, count);
}

// Read 1's lane minima into `keys`, or nowhere on the tree path (its keys stay in registers):
// one read loop for both.
template <class Shared>
struct LaneMinimaTo {
  Shared& keys;
  bool store;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Store(int l, std::uint64_t x) const {
    if (store) keys.Store(l, x);
  }
};

// The reads in one call: read 1 keeps each lane's kLaneKept smallest keys. For k <= kTreeKept
// (contract "The tree path") the warps' merge tree takes the k smallest of each lane's three
// smallest, exact unless some lane's fourth is among them; else, or then, the candidates come
// from the kept keys up to a bound (the tree's k-th, or the k-th lane minimum) unless a lane's
// last kept key is at or below it (contract "Read 1"), and are sorted. place(t, j, key) gets
// key j < k of the top k in a phase with a barrier after it; a later call for the same j (the
// tree's keys, then the sorted candidates') replaces an earlier one. tree_place(t, j, key) gets
// the tree's keys alone, in its last level (lane j mod 32 of warp 0: MergeTreeRuns' `last`),
// and *tree_stands (when given) says whether they are the top k (no lane's fourth among them).
// decide: LaneKeyTree's (warp 0's decision before the tree's barrier: a slice's ticket), its
// value in *decided (0 without the tree).
template <int kThreads, class B, class KeyOf, class Shared, class Place = NoPlace, class TreePlace = NoPlace,
          class Decide = NoTreeDecision>
SAMPCHECK_KERNEL_BODY bool GatherFastSurvivors(B& block, std::int64_t vocab, std::int64_t k, KeyOf key_of,
                                               Shared& keys, std::uint32_t& total, Place place = {},
                                               TreePlace tree_place = {}, bool* tree_stands = nullptr,
                                               Decide decide = {}, std::uint32_t* decided = nullptr) {
  static_assert(kFastSurvivorSlots == kSortSlots, "the selection reads every survivor slot");
  auto kept = Registers<LaneKeys<kFastSurvivorSlots / kThreads>>(block);
  const bool tree = k <= kTreeKept;
  const LaneMinimaTo<Shared> minima{keys, !tree};
  block.ForEachThread([&](Thread t) {
    kept[t].Clear();
    StoreLaneMinima<kThreads>(t, vocab, minima, key_of, NoLaneVisit{}, kept[t]);
  });
  std::uint64_t bound = 0;
  if (tree_stands != nullptr) *tree_stands = false;
  if (decided != nullptr) *decided = 0;
  if (tree) {
    auto both = [&](Thread t, std::int64_t j, std::uint64_t key) {
      place(t, j, key);
      tree_place(t, j, key);
    };
    const LaneKeyTreeResult tree_keys = LaneKeyTree<kThreads>(block, kept, k, false, keys, both, decide);
    if (decided != nullptr) *decided = tree_keys.decided;
    bound = tree_keys.kth;
    if (tree_stands != nullptr) *tree_stands = !tree_keys.short_lane;
    if (!tree_keys.short_lane) {
      total = static_cast<std::uint32_t>(k);
      return true;
    }
  } else {
    block.Sync();
    bound = KthSmallestSlot<kThreads>(block, keys, k);
  }
  auto up_to_bound = [bound](std::uint64_t key) { return key <= bound; };
  // The kept candidates, or (a lane's sixth is one) reads 2 and 3 as without the keys.
  auto reread = [&] { return CountUpToBound<kThreads>(block, vocab, bound, key_of, keys, total); };
  const bool fit = GatherKeptCandidates<kThreads>(block, kept, up_to_bound, keys,
                                                  static_cast<std::uint32_t>(kFastSurvivorSlots), total, reread);
  if (!fit) return false;
  SortSurvivorSlots<kThreads>(block, keys, total);
  if constexpr (!std::is_same_v<Place, NoPlace>) {
    block.ForEachThread([&](Thread t) {
      for (std::int64_t j = t.x; j < k; j += kThreads) place(t, j, keys.Load(j));
    });
    block.Sync();
  }
  return true;
}

}  // namespace sampcheck::gpu::fast_detail
