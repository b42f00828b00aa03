// SPDX-License-Identifier: Apache-2.0
#pragma once
// A thread's candidates kept in registers while it counts them, so that a survivor gather
// writes them to shared memory after the scan of the counts without reading the row again,
// and each lane's smallest keys kept while it reads them, so that a gather whose bound comes
// after that read need not read the row a second time; and the count, scan and write of the
// candidates that gpu's and gpu-fast's survivor gathers share (GatherCountedCandidates,
// GatherKeptCandidates, below) (docs/gpu.md "Top-k survivors", "gpu-fast").
//
// Contract:
// - CandidateCache<kCap>: Add(key) in the order the thread meets its candidates (its indices
//   in increasing order); `count` counts every candidate, the first kCap keys are held (or
//   32-bit indices, CandidateCache<kCap, std::uint32_t>: gpu-fast's near-V count read, whose
//   caller makes their keys again).
//   ForEach(f) gives them back in that order; only when !Overflowed() (count <= kCap) are they
//   all the thread's candidates. Add writes its slot through kCap selects, so every index into
//   `key` is a constant after unrolling: registers on the device, not local memory.
// - kCap: CachedCandidatesPerThread<kThreads>() = 8 per 1024 / kThreads virtual lanes. A block
//   of 1024 threads gathering ~50 candidates has about 0.05 per thread; a thread overflows when
//   9 or more of its entries pass the bound, which a row arranged against the shares does (the
//   largest values in one share: tests/gpu_kernels_test.cc "GpuTopKSurvivors",
//   tests/gpu_fast_sampling_test.cc "SurvivorGather"); the caller then reads the row again.
// - The scan word PackCandidateCount(count, kCap): the count, saturated at kCandidates + 1
//   (bits 0 .. 20: 1024 threads x 1025 < 2^21), plus 2^21 when the thread overflowed (bits 21
//   .. 31: at most 1024 threads). A block's exclusive scan of the words in thread order gives
//   each thread its offset and the block its total (CandidatesOfPacked) exactly whenever that
//   total is at most kCandidates (no thread saturated), and AnyOverflowed says whether some
//   thread's cache is short: one scan, no barrier more than the count's scan.
// - LaneKeys<kLanes> (read 1's cache, for gathers whose bound comes after the read): a
//   thread's kLanes lanes' kLaneKept = 6 smallest keys each, ascending, ~0 past a lane's keys
//   (Clear, then Add(lane, key) for every key the lane reads). ForEachCandidate(candidate,
//   f): f(key) for each kept key that passes `candidate` (a predicate monotone in the key: a
//   key below a candidate is one), and returns whether some lane's sixth kept key passes
//   too, i.e. whether the lane may hold candidates that were not kept (then the caller reads
//   the row again; GatherKeptCandidates below writes them, or has the row read again). Why 6:
//   a flat row read by quads (gpu/block/quad_reads.cuh) puts a whole quad, 4 keys, of each of
//   its first k lanes below the k-th lane minimum, and a lane below the head its head element
//   too; on continuous rows a lane holds 2 or more of the ~k candidates about once in a
//   thousand lanes. First(lane) is the lane's smallest key (its minimum, ~0 when it read
//   none). Add's precondition: 0 <= lane < kLanes, a lane's keys come in increasing index
//   order (the low words; every reader here visits a lane's entries so: ForEachQuadElement,
//   strided reads), and every key's value word (the high word) is below 0xffffffff (the
//   descending keys of numbers are at most 0xff800000, NaN's 0). Then a new key is below a
//   kept one exactly when its value word is (a kept key of the same value word has a lower
//   index), and below every empty slot: Add compares value words, one 32-bit compare a slot,
//   the six independent, and each slot then takes its own key, the one before it or the new
//   key, by selects at constant indices (registers, not local memory). The emulator checks
//   the precondition (SAMPCHECK_HOST_ASSERT); on the device it costs nothing. Why not 64-bit
//   compare-exchanges, as until 2026-12-04: docs/gpu.md "Reading the SASS" (their
//   instructions a quad of the read, before and after).
// - Deterministic: integers only.
// Example: kCap = 8, thread counts {3, 9, 0}: words {3, 9 + 2^21, 0}; scanned {0, 3, 12 + 2^21},
//   total 12 + 2^21: 12 candidates, one cache short (tests/gpu_kernels_test.cc,
//   "GpuTopKSurvivors.PacksCountsAndOverflow").

#include <cstdint>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

inline constexpr int kCachedCandidates = 8;  // per thread of a 1024-thread block (16 registers)
inline constexpr std::uint32_t kPackedCountBits = 21;
inline constexpr std::uint32_t kPackedCountMask = (std::uint32_t{1} << kPackedCountBits) - 1u;
inline constexpr std::uint32_t kPackedCountSaturation = 1025;  // kCandidates + 1: "too many"

template <int kThreads>
SAMPCHECK_HOST_DEVICE constexpr int CachedCandidatesPerThread() {
  static_assert(kThreads > 0 && 1024 % kThreads == 0, "a divisor of the 1024 virtual lanes");
  return kCachedCandidates * (1024 / kThreads);
}

template <int kCap, class Entry = std::uint64_t>
struct CandidateCache {
  Entry key[kCap];
  std::uint32_t count;

  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(Entry k) {
    for (int j = 0; j < kCap; ++j) key[j] = j == static_cast<int>(count) ? k : key[j];
    ++count;
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Overflowed() const {
    return count > static_cast<std::uint32_t>(kCap);
  }
  template <class F>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEach(F f) const {
    for (int j = 0; j < kCap; ++j) {
      if (static_cast<std::uint32_t>(j) < count) f(key[j]);
    }
  }
};

// The scan word of a thread's `count` candidates, `short_cache` when some may not be held.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t PackCandidates(std::uint32_t count, bool short_cache) {
  const std::uint32_t c = count < kPackedCountSaturation ? count : kPackedCountSaturation;
  return c | (short_cache ? std::uint32_t{1} << kPackedCountBits : 0u);
}
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t PackCandidateCount(std::uint32_t count, int cap) {
  return PackCandidates(count, count > static_cast<std::uint32_t>(cap));
}
inline constexpr int kLaneKept = 6;
template <int kLanes>
struct LaneKeys {
  std::uint64_t key[kLanes][kLaneKept];

  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Clear() {
    for (int j = 0; j < kLanes; ++j) {
      for (int r = 0; r < kLaneKept; ++r) key[j][r] = ~std::uint64_t{0};
    }
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(int lane, std::uint64_t x) {
    const auto value = static_cast<std::uint32_t>(x >> 32);
    SAMPCHECK_HOST_ASSERT(value != 0xffffffffu && 0 <= lane && lane < kLanes);
    for (int j = 0; j < kLanes; ++j) {
      // With one lane, j is `lane` by the precondition: no compare an entry (nvcc cannot see
      // that a caller's loop over its lanes runs once, and branched around every key on it).
      if (kLanes > 1 && j != lane) continue;
      bool below[kLaneKept];
      for (int r = 0; r < kLaneKept; ++r) {
        SAMPCHECK_HOST_ASSERT(key[j][r] == ~std::uint64_t{0} ||
                              static_cast<std::uint32_t>(x) > static_cast<std::uint32_t>(key[j][r]));
        below[r] = value < static_cast<std::uint32_t>(key[j][r] >> 32);
      }
      for (int r = kLaneKept - 1; r >= 1; --r) key[j][r] = below[r] ? (below[r - 1] ? key[j][r - 1] : x) : key[j][r];
      key[j][0] = below[0] ? x : key[j][0];
    }
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t First(int lane) const {
    std::uint64_t first = ~std::uint64_t{0};
    SAMPCHECK_HOST_ASSERT(0 <= lane && lane < kLanes);
    for (int j = 0; j < kLanes; ++j) first = kLanes == 1 || j == lane ? key[j][0] : first;
    return first;
  }
  template <class Candidate, class F>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool ForEachCandidate(Candidate candidate, F f) const {
    bool short_lane = false;
    for (int j = 0; j < kLanes; ++j) {
      for (int r = 0; r < kLaneKept; ++r) {
        if (candidate(key[j][r])) f(key[j][r]);
      }
      short_lane = short_lane || candidate(key[j][kLaneKept - 1]);
    }
    return short_lane;
  }
};

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t CandidatesOfPacked(std::uint32_t packed) {
  return packed & kPackedCountMask;
}
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool AnyOverflowed(std::uint32_t packed_total) {
  return (packed_total >> kPackedCountBits) != 0;
}

// Read 2's count in thread t, in line: each key own_keys(t, f) gives that passes `candidate`,
// in that order, into the thread's cache. A caller whose read does more an entry passes a count
// of its own that reads the same keys in the same order (gpu-fast's near-V gather sums its
// proposals' masses there, out of line: CountDroppedBeforeProposals, gpu/fast/fast_proposals.cuh).
struct CountInLine {
  template <class OwnKeys, class Candidate, int kCap>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void operator()(Thread t, OwnKeys& own_keys, const Candidate& candidate,
                                                              CandidateCache<kCap>& cache) const {
    own_keys(t, [&](std::uint64_t key) {
      if (candidate(key)) cache.Add(key);
    });
  }
};

// The write tail of both gathers below: each thread writes the keys its_keys(t, put) gives it
// to keys from its scanned offset (offset[t]'s count), the slots from `total` to kSortSlots
// hold ~0, and a barrier follows (a sort's contract, gpu/block/bitonic_sort.cuh).
template <int kThreads, class B, class Offsets, class ItsKeys, class Shared>
SAMPCHECK_KERNEL_BODY void WriteScannedCandidates(B& block, const Offsets& offset, ItsKeys its_keys, Shared& keys,
                                                  std::uint32_t total) {
  block.ForEachThread([&](Thread t) {
    std::uint32_t at = CandidatesOfPacked(offset[t]);
    its_keys(t, [&](std::uint64_t key) { keys.Store(at++, key); });
    PadSortSlots<kThreads>(t, keys, total, kSortSlots);
  });
  block.Sync();
}

// Reads 2 and 3 of a survivor gather (gpu/block/top_k_survivors.cuh,
// gpu/fast/fast_top_k_survivors.cuh): each thread counts the keys own_keys(t, f) gives it that
// pass `candidate`, keeping the first CachedCandidatesPerThread<kThreads>() in registers
// (count_own(t, own_keys, candidate, cache), CountInLine above unless the caller's read does
// more); the scan of the counts in thread order (BlockExclusiveScan: one barrier) gives
// offsets, the total and whether a cache is short. Returns false (nothing written) when the
// total is above `capacity`; else each thread writes its candidates in the order own_keys
// gives them (from its cache, or, some cache short, from read 3: own_keys again) by
// WriteScannedCandidates.
template <int kThreads, class B, class OwnKeys, class Candidate, class Shared, class CountOwn = CountInLine>
SAMPCHECK_KERNEL_BODY bool GatherCountedCandidates(B& block, OwnKeys own_keys, Candidate candidate, Shared& keys,
                                                   std::uint32_t capacity, std::uint32_t& total,
                                                   CountOwn count_own = {}) {
  constexpr int kCap = CachedCandidatesPerThread<kThreads>();
  auto cache = Registers<CandidateCache<kCap>>(block);
  auto packed = Registers<std::uint32_t>(block);
  block.ForEachThread([&](Thread t) {
    count_own(t, own_keys, candidate, cache[t]);
    packed[t] = PackCandidateCount(cache[t].count, kCap);
  });
  std::uint32_t packed_total = 0;
  auto offset = BlockExclusiveScan<kThreads>(block, packed, packed_total);
  total = CandidatesOfPacked(packed_total);
  if (total > capacity) return false;
  const bool cached = !AnyOverflowed(packed_total);
  WriteScannedCandidates<kThreads>(
      block, offset,
      [&](Thread t, auto put) {
        if (cached) {
          cache[t].ForEach(put);
        } else {
          own_keys(t, [&](std::uint64_t key) {
            if (candidate(key)) put(key);
          });
        }
      },
      keys, total);
  return true;
}

// The candidates from read 1's kept keys (LaneKeys in kept[t]): each thread's count of those
// that pass `candidate`, flagged when a lane may hold more (LaneKeys::ForEachCandidate), and
// their scan in thread order (one barrier). No lane short: the writes as
// GatherCountedCandidates' (from the registers), the same return; else, after a barrier (this
// scan's shared words are read before the next scan writes them), `reread()`'s result: the
// caller's reads 2 and 3 (GatherCountedCandidates over its share).
template <int kThreads, class B, class Kept, class Candidate, class Shared, class Reread>
SAMPCHECK_KERNEL_BODY bool GatherKeptCandidates(B& block, Kept& kept, Candidate candidate, Shared& keys,
                                                std::uint32_t capacity, std::uint32_t& total, Reread reread) {
  auto packed = Registers<std::uint32_t>(block);
  block.ForEachThread([&](Thread t) {
    std::uint32_t count = 0;
    const bool short_lane = kept[t].ForEachCandidate(candidate, [&](std::uint64_t) { ++count; });
    packed[t] = PackCandidates(count, short_lane);
  });
  std::uint32_t packed_total = 0;
  auto offset = BlockExclusiveScan<kThreads>(block, packed, packed_total);
  if (AnyOverflowed(packed_total)) {
    block.Sync();
    return reread();
  }
  total = CandidatesOfPacked(packed_total);
  if (total > capacity) return false;
  WriteScannedCandidates<kThreads>(
      block, offset, [&](Thread t, auto put) { (void)kept[t].ForEachCandidate(candidate, put); }, keys, total);
  return true;
}

}  // namespace sampcheck::gpu
