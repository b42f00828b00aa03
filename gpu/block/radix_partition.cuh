// SPDX-License-Identifier: Apache-2.0
#pragma once
// Visits the entries of a row in the canonical order (or vLLM's ascending order) in sorted
// chunks of at most 1024 keys, by an MSD radix partition of their order keys into global
// scratch: a bounded number of reads of the row, whatever the data, so a sequential walk over
// a large prefix of the order (top_p's f32 running sum near p = 1, after a top-k near V) reads
// the row a few times instead of once per 1024 entries (docs/gpu.md "Top-p over a sorted
// scratch"; docs/spec/filters.md "Order", "Selection instead of a full sort").
//
// Contract:
// - Keys are OrderKey(row[i], i, ascending) (gpu/block/radix_select.cuh): unique per row, so
//   "sorted by key" is one sequence. Visited: the entries with lo < key <= hi (`has_lo` false:
//   no lower bound), in increasing key order.
// - scratch: 2 x vocab u64 from scratch_base on (two buffers of vocab keys); never read
//   before written here.
// - Level 0 (from the row): with vocab > 1024 and sample_first, a sample of 1024 entries
//   (indices t x vocab / 1024) is sorted first (a bitonic network) and, with at least 16 sampled keys in
//   range, gives 15 splitters that cut the keys into 16 buckets of about n / 16; level 0's
//   reads take a key's bucket from a table of 4096 cells filled after them (one phase and a
//   barrier, partition_detail::CellTable): one shared read for most keys, where a binary search
//   of the splitters takes 4. One read then gives the count n, the smallest and the largest
//   key (four entries a load from a global f32 row when it takes neither a sample nor held
//   keys: RowOrderKeys, gpu/block/radix_select.cuh), and counts each thread's entries per
//   bucket; a scan in (bucket, thread) order gives every thread its slots. n <= 1024 with
//   gather_small: the entries are gathered and sorted in shared memory
//   (CollectSorted, two reads) and visited at once. Otherwise one read scatters the keys into
//   buffer 0: the 16 buckets in order (each bucket in no particular order). Without a sample
//   (or fewer than 16 sampled keys in range), the buckets are the 4 bits whose top bit is the
//   highest bit where the smallest and largest keys differ, counted by a read of their own.
// - Buckets are then taken front first from a stack in shared memory. Adjacent buckets of at
//   most 1024 keys in all form one entry (one chunk), so chunks are seldom small; a chunk is
//   put in order by a merge-rank sort (each key's rank in its warp by shuffles, stored in a
//   second buffer, PartitionWarpSlots, plus its rank in each other warp's sorted keys by a
//   binary search: at most 187 shared reads per thread, 219 with the next key the chunk loop
//   wants) and visited by the chunk loop below,
//   one barrier per chunk (the rank's chunk is sorted into `sorted` by pairwise merges of its
//   warps' sorted runs, MergeRuns: 10 barriers, at most 40 shared reads a key). A
//   larger bucket is partitioned again (its keys counted by the next digit, repeated one
//   digit lower while a single digit holds the whole bucket, then scattered into the other
//   buffer at the same positions; a bucket of at most 16 x 1024 keys is read once into
//   registers for both, a larger one once per count and once for the scatter) and its
//   sub-buckets pushed in reverse digit order. A splitter bucket [lo, hi]'s first digit is
//   (key - lo) / w, w = (hi - lo) / P + 1 (P parts of equal width: 32 below 2^16 keys in the
//   visit's refinements, counted two to a 32-bit counter in 16-bit halves, else 16; refine takes
//   the count from its caller), and each part's next one the 4 bits ending at the highest bit
//   where the part's bounds differ; a radix bucket's keys share every bit above the previous
//   digit, so its next digit is the 4 bits below it. Keys are unique, so every bucket is finally
//   at most 1024 keys; at most 16 levels. A count's slots take one barrier (DigitSlots; one
//   more when a single digit holds the bucket, before it is counted again), and the scatter
//   pushes the sub-buckets in its own phase (every thread computes the new depth, thread j
//   writes the j-th entry): one barrier, so 2 barriers a refinement.
// - The visit is a WeightedVisit (below). Its key_visit(m, key_of) is block-level code called
//   with key_of(j), j < m, the next m keys of the order where they are known at once (a flat
//   row's, computed; a small row's, gathered into `sorted`: contract "Flat rows" and gather_small);
//   it returns true to stop, and ends with a barrier after its reads of key_of.
// - Hooks (PartitionAndVisit; VisitKeysInOrder passes none): level0(n, smallest, largest)
//   after the first read may stop there (-1), or name a rank r: then the entry holding the r-th
//   key is refined until it is a chunk, which is sorted to give that key; the entries before it
//   are set aside (in order, aside entry j by thread j, with no barrier) and put back on top
//   (by the same threads, after the sort's barriers), those after it
//   stay below, so the stack still holds the whole order and nothing is refined twice. With a bound other
//   than kAll (VisitBound) and a level-0 sample, the stack holds only level 0's buckets up to
//   the rank's (kRankKey) or up to the last that may hold a key of the rank's value
//   (kRankValue): the later ones are not scattered (about 15/16 of the scatter's stores saved
//   at a rank in the first bucket), and the visit ends after them; the visitor must need no
//   key past them. The fold (NoPartitionFold) sees thread t's keys in index order during
//   level 0's scatter read (a fused lane sum): Take(t) gives the thread's state as a value of
//   the read's own, whose Add(key) each key calls, and Give(t, mine) takes it back after them.
//   ready(kth) runs before the visit and may skip it. Without gather_small, n <= 1024 takes
//   the scatter too (so the fold runs) instead of CollectSorted.
// - Reach (the last hook, NoPartitionReach: none): with a level-0 sample and Active(), the
//   first read also sums Mass(ref, key) per bucket (ref: the sample's smallest key), and the
//   scatter stores only the first buckets whose running sum reaches Fraction() of the total
//   (all of them when it is not finite), plus, with a rank and a bound, the rank's buckets. The
//   buckets in between are pushed as one entry marked kUnscattered; a visit that pops it counts
//   and scatters its keys into their level-0 slots by two reads of the row of their own and
//   goes on, so the order visited does not depend on the reach, only the cost does.
// - Held keys (the hook after the reach, NoPartitionHold: none): with Active(), the first read
//   offers each thread's in-range keys to the hook in index order, and Publish(block) follows
//   that read before its counts' barrier (the hook may store what it kept in shared
//   memory for level0 to read); with a level-0 sample and a rank, a thread that holds all of its keys up to the last stored bucket's upper bound
//   scatters them from the hook instead of reading its entries, and the fold sees none of its
//   keys (no Take, Add or Give): its caller must use the held keys, not the fold, for every
//   such thread.
// - Held buckets (with a level-0 sample): the first two level-0 buckets of more than 1024 keys
//   to be refined (the rank's, then the stored ones in order) stay in registers from the
//   scatter read: each thread keeps its keys of them in the kCachedKeys slots a refinement
//   reads its keys into (the first bucket's first, about 7.8 keys a thread each at V = 128256)
//   and stores only those that do not fit, at their slots; their refinements take the keys
//   from there, so about two buckets' keys are neither stored by level 0 nor loaded again
//   (0.2 row passes of 8-byte keys loaded, and as many stored, at V = 128256). While a held bucket waits, no other
//   refinement loads its keys into those slots (it reads them once per count instead).
// - Chunk loop (every chunk of every visit: sampling_filters' top_p walk, top_p's full-row
//   walks, VisitKeysInOrder's callers): the chunks are not handed over as keys but as weights
//   at their ranks (weight(key), computed by the thread that places the key), and the walk
//   (warp 0's sum, then thread 0's steps: gpu/kernels/top_p.cuh TopPWalkChunk) is a phase of
//   the loop, so a chunk costs one barrier: each step walks chunk a, places
//   chunk b and warp-sorts chunk c (the warps' slots alternate between PartitionWarpSlots and
//   `sorted`, the weights between the two buffers of PartitionChunkWeights), then its barrier,
//   then a's verdict. The weights go two to an 8-byte word (ranks 2j and 2j + 1), written by
//   the thread that places rank 2j, which also finds the key of rank 2j + 1 (one shared read
//   a warp more), so that the walk reads two weights per shared access. The walk reports
//   positions, and the key of the one it ends on comes from the registers of the thread that
//   placed it (one barrier, once). A walk that needs keys (kSglang's
//   drops, a test's record of the order) marks positions (a bit each, in level 0's `low`, two
//   slots): after the step's barrier each thread that placed a marked key of a is given it. A chunk
//   whose walk marked nothing (a walk of another rule, or sglang's before its first drop) stores
//   none of its 16 mark words and has none read back: thread 0 flags the chunk's verdict, which
//   every thread reads anyway. The walk also says how many keys after it cannot end it: a chunk is
//   read while a waits only if a cannot end the walk, a refinement or the reach's gap only once no
//   waiting chunk can; otherwise the pipeline drains first (so at most one chunk of 1024 scratch
//   keys is read for nothing where the walk ends). The entry after chunk c, when it is to be
//   refined and none of a, b and c can end the walk, is refined in c's step (its count's barrier
//   is the step's, its scatter's one more), so the pipeline keeps a chunk to place. A walk that
//   cannot bound that number (0) costs 2 barriers per chunk: a step walks a alone, the next sorts
//   the chunk after.
// - Chunks in any order (a WeightedVisit with an active AnyOrderWalk): the chunks after the
//   visit's first are not sorted. c's keys are only loaded; b's weights are stored at its keys'
//   slots (slot j is thread 1023 - j's; two to a word, the odd slot's weight from the
//   neighbour lane by one shuffle), no rank, and with an any-order grid (AnyOrderWalk::grid)
//   each warp's part of them on that grid (StoreAnyOrderParts: a store by lane 0, in words
//   512 .. 575 of `weights`, past its weights; 32 a buffer), which a's walk reads in place of
//   the chunk's 512 words when E is on that grid; a's walk is any_order.walk. When it answers
//   kPartitionChunkUnordered, a is sorted then from its keys in registers (each warp's keys
//   in its lanes, stored in PartitionWarpSlots, a barrier; pairwise merges of the 32 runs,
//   MergeRuns, 8 barriers; each key stored at its place, a barrier; the weights stored again
//   in a's buffer, a barrier), walked in order, and its verdict read after one more barrier:
//   the pipeline sorts only the visit's first chunk (its walk starts from E = 0, on no
//   weight's grid), so those slots are free. A first chunk of more than 512 keys is sorted so
//   too, without its any-order walk (the merges' ~50 reads a thread against the ranks' 7 for
//   each other warp that holds its keys). An unsorted chunk's walk ends only at its last
//   position, its largest key: finish takes it by a WarpMin of the complements, one barrier
//   and CombineWarpValues.
// - Flat rows (n = vocab and one value key: the smallest and largest keys differ in their
//   index bits alone): the order is the index order and entry i's key is the value key and i,
//   so nothing is partitioned or read again: the rank's key, the fold's keys (with or without
//   a rank: its one caller decides in level0 whether it folds) and the visit's keys are computed, and the
//   visit is one call of key_visit with m = vocab keys (no chunk loads, no barrier per 1024 keys).
// - Reads: the sample (1024 entries), 2 of the row (3 without a sample; at most 3 when n <=
//   1024), then for every bucket refined, one read of its keys (8 bytes each) per level (2
//   or more above 16 x 1024 keys; none at level 1 for a held bucket's kept keys), and one read
//   of each visited key. Flat rows: the sample
//   and 1 read, nothing more.
// - Deterministic: integer counts and scans in a fixed order, ranks of unique keys; no atomics.
// Example: row {1, 3, 3, 2} is visited as (3, 1), (3, 2), (2, 3), (1, 0), one chunk;
//   tests/gpu_kernels_test.cc (GpuRadixPartition) visits rows of 5000 entries (8 tied levels
//   and -inf; continuous), a flat row of 3000 and a row of 700, both orders, and compares the
//   indices with a stable sort of the floats themselves.

#include <cstdint>
#include <type_traits>
#include <utility>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/float_word.cuh"
#include "gpu/block/lane_scan.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/warp_min.cuh"
#include "gpu/block/warp_running_sum.cuh"

namespace sampcheck::gpu {

// A row-sized scratch is absent: the callers fall back to their chunked walk.
struct NoScratch {};

// Pending entries: at most 15 siblings per level (16 levels) on each of two paths (the rank's and
// the visit's), plus one.
inline constexpr int kPartitionStack = 512;

namespace partition_detail {

// Highest set bit of x (x != 0).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int HighestBit(std::uint64_t x) {
  int h = 0;
  while (x >> 1 != 0) x >>= 1, ++h;
  return h;
}

// The digit shift whose 4 bits end at the highest bit where lo and hi differ (lo != hi).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int ShiftFor(std::uint64_t lo, std::uint64_t hi) {
  const int h = HighestBit(lo ^ hi);
  return h >= 3 ? h - 3 : 0;
}

// The first slot of each digit (s[p], p < 16) and the total (s[16]) after DigitSlots: a
// block-level value, computed alike by every thread, so that the caller reads it at once,
// without a barrier after the scan (a shared copy written after the scan's one barrier could
// not be read before the next).
struct DigitStarts {
  std::uint32_t s[17];
};

// Digits: 16 of them, or 32 (`parts`, a splitter bucket's first refinement) for an entry of
// fewer than 2^16 keys, two to a counter: digit p < 16 in the low 16 bits of counter p, digit
// 16 + p in the high 16 bits (DigitSlots' sums and differences of such words are the two halves'
// own, none of them reaching 2^16), the high halves' slots after every low one. The first slot
// of digit p (p = parts: the total):
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t PartStart(const DigitStarts& start, std::uint32_t p,
                                                                     std::uint32_t parts) {
  if (parts <= 16) return start.s[p];
  if (p < 16) return start.s[p] & 0xffffu;
  return (start.s[16] & 0xffffu) + (start.s[p - 16] >> 16);
}

// Per thread: in[t].c[d] counts -> out[t].c[d] the thread's first slot for digit d, in
// (digit, warp, lane) order (within a warp the later lanes first); start.s[d] the first slot
// of bucket d, start.s[16] the total. One barrier: each warp's counts by shuffles, lane 0
// storing the warp's totals of digits 2j and 2j + 1 in one word of `warp_pairs` (8 x 32
// u64); after the barrier each warp reads the 32 warps' words of two digits, one a lane, and
// one xor butterfly of (total, total if the lane's warp is before this one) per digit gives
// every thread the digit's total and its warp's offset at once, so no warp hands another its
// result through shared memory (a second barrier). 8 stores and 8 loads a thread, where lane
// 0 stored 16 totals and every thread loaded 16 (until 2026-12-02). The suffixes stay a
// ShuffleDown scan: a butterfly scan would give every lane the totals (one store a lane),
// but it made ptxas's stack frames of sampling_filters 312 bytes larger (CUDA 13.0, sm_90),
// where this one's are 128 smaller than before. It ends with a phase that reads warp_pairs,
// so the caller puts a barrier before the next call.
template <class B, class R, class SharedU64>
SAMPCHECK_KERNEL_BODY void DigitSlots(B& block, R& in, R& out, SharedU64& warp_pairs, DigitStarts& start) {
  auto suffix = Registers<DigitCounts>(block);
  auto even = Registers<std::uint32_t>(block);  // digit 2j's warp total, stored with 2j + 1's
  for (int digit = 0; digit < 16; ++digit) {
    auto c = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) { c[t] = in[t].c[digit]; });
    for (int s = 1; s < kWarpSize; s *= 2) {
      auto partner = ShuffleDown(block, c, s);
      block.ForEachThread([&](Thread t) {
        if (t.lane() + s < kWarpSize) c[t] += partner[t];
      });
    }
    block.ForEachThread([&](Thread t) {
      suffix[t].c[digit] = c[t] - in[t].c[digit];
      if (digit % 2 == 0) {
        even[t] = c[t];
      } else if (t.lane() == 0) {
        warp_pairs.Store((digit / 2) * kWarpSize + t.warp(), std::uint64_t{even[t]} | std::uint64_t{c[t]} << 32);
      }
    });
  }
  block.Sync();
  // Per digit, lane w of every warp holds warp w's total; the butterfly sums the pair (total
  // << 32 | total if w is before the thread's warp): no carry crosses the halves, as the
  // digit's total is below 2^32 (and each 16-bit half of a word of two digits below 2^16).
  start.s[0] = 0;
  auto odd = Registers<std::uint32_t>(block);  // digit 2j + 1's half of the word loaded for 2j
  for (int digit = 0; digit < 16; ++digit) {
    auto pair = Registers<std::uint64_t>(block);
    block.ForEachThread([&](Thread t) {
      std::uint32_t x = 0;
      if (digit % 2 == 0) {
        const std::uint64_t word = warp_pairs.Load((digit / 2) * kWarpSize + t.lane());
        x = static_cast<std::uint32_t>(word);
        odd[t] = static_cast<std::uint32_t>(word >> 32);
      } else {
        x = odd[t];
      }
      pair[t] = (static_cast<std::uint64_t>(x) << 32) | (t.lane() < t.warp() ? x : 0u);
    });
    for (int m = 1; m < kWarpSize; m *= 2) {
      auto other = ShuffleXor(block, pair, m);
      block.ForEachThread([&](Thread t) { pair[t] += other[t]; });
    }
    auto total = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) {
      out[t].c[digit] = start.s[digit] + static_cast<std::uint32_t>(pair[t]) + suffix[t].c[digit];
      total[t] = static_cast<std::uint32_t>(pair[t] >> 32);
    });
    start.s[digit + 1] = start.s[digit] + BlockUniform(block, total);
  }
}

// A refined entry of at most kCachedKeys x 1024 keys is read once into registers for its
// counts and its scatter (16 keys, 32 registers a thread: a level-0 bucket holds about
// n / 16 keys, 8016 on average at V = 128256 and at most 16384 unless the sample misses).
inline constexpr int kCachedKeys = 16;
struct CachedKeys {
  std::uint64_t k[kCachedKeys];
};

// The shared arrays of PartitionAndVisit, declared in a function that depends on the block
// type only, so that every instantiation of PartitionAndVisit (one per set of hooks) uses the
// same storage on the device.
template <class B>
SAMPCHECK_KERNEL_BODY auto SharedArrays(B& block) {
  SAMPCHECK_SHARED(block, std::uint64_t, warp_pairs, 8 * kWarpSize);
  SAMPCHECK_SHARED(block, std::uint64_t, low, kWarpSize);
  SAMPCHECK_SHARED(block, std::uint64_t, high, kWarpSize);
  SAMPCHECK_SHARED(block, std::uint32_t, many, kWarpSize);
  SAMPCHECK_SHARED(block, std::uint64_t, stack_range, kPartitionStack);
  SAMPCHECK_SHARED(block, std::uint32_t, stack_digit, kPartitionStack);
  SAMPCHECK_SHARED(block, std::uint64_t, uniform, 3);
  SAMPCHECK_SHARED(block, std::uint64_t, splitter, 15);
  using U32 = decltype(many);  // the block's shared array types
  using U64 = decltype(low);
  struct Arrays {
    U64 warp_pairs;
    U64 low, high;
    U32 many;
    U64 stack_range;
    U32 stack_digit;
    U64 uniform, splitter;
  };
  return Arrays{std::move(warp_pairs), std::move(low),         std::move(high),
                std::move(many),       std::move(stack_range), std::move(stack_digit),
                std::move(uniform),    std::move(splitter)};
}

}  // namespace partition_detail

// The chunk buffer the visit sorts into (kCandidates keys), one storage per block type for
// every caller (top_p's walk, sampling_filters' partition path): see SharedArrays.
template <class B>
SAMPCHECK_KERNEL_BODY auto PartitionChunk(B& block) {
  SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
  return sorted;
}

// The chunk sort's second buffer (each warp's keys in order, before they are placed in the
// chunk buffer): one storage per kernel on the device, shared with the survivor path's grouped
// candidates (GroupedCandidateSlots, gpu/kernels/sampling_filters_slices.cuh), which are dead
// once a row takes the partition (a kernel declares at most 48 KiB of shared memory).
template <class B>
SAMPCHECK_KERNEL_BODY auto PartitionWarpSlots(B& block) {
  SAMPCHECK_SHARED(block, std::uint64_t, grouped, kCandidates);
  return grouped;
}

// The chunk loop's third and fourth buffers (contract "Chunk loop"): the probabilities of
// two chunks, two to an 8-byte word (ranks 2j and 2j + 1 in word j, low half first), so that
// the walk reads two per shared access; `wide` (shared with the survivor path's sorted
// candidates, SortedCandidateSlots in gpu/kernels/sampling_filters_slices.cuh, dead once a row
// takes the partition) uses its first kCandidates / 2 words, `narrow` has no more (a kernel
// declares at most 48 KiB statically).
template <class B>
SAMPCHECK_KERNEL_BODY auto PartitionChunkWeights(B& block) {
  SAMPCHECK_SHARED(block, std::uint64_t, sorted_candidates, kCandidates);
  SAMPCHECK_SHARED(block, std::uint64_t, chunk_weights, kCandidates / 2);
  struct Buffers {
    decltype(sorted_candidates) wide;
    decltype(chunk_weights) narrow;
  };
  return Buffers{std::move(sorted_candidates), std::move(chunk_weights)};
}

// No marks (WeightedVisit's default): the walk is called without its marks argument.
struct NoPartitionMarks {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void operator()(Thread, std::uint64_t, std::uint64_t) const {}
};

// The verdict's flag (contract "Chunk loop"): the walk marked a position of its chunk.
inline constexpr std::uint64_t kPartitionChunkMarked = std::uint64_t{1} << 61;
// The verdict's code 3 (contract "Chunk loop"): an any-order walk that needs its chunk in order.
inline constexpr std::uint64_t kPartitionChunkUnordered = std::uint64_t{3} << 62;
// A chunk's marks: a bit per position, in words of 64.
inline constexpr std::int64_t kPartitionMarkWords = kCandidates / 64;

// A walk's marks of one chunk (contract "Chunk loop"): Mark(j), for increasing j, builds each
// word of 64 positions in a register and stores it once into `words` (a shared array's View())
// from `base`; Close() stores the words after the last one when any position was marked and
// says whether one was. A value the walk copies: its loop keeps it in registers.
template <class SharedView>
struct PartitionChunkMarks {
  SharedView words;
  std::int64_t base = 0;
  std::int64_t at = 0;  // the word being built; the ones before it are stored
  std::uint64_t bits = 0;
  bool any = false;
  SAMPCHECK_KERNEL_BODY void Mark(std::uint32_t j) {
    for (; at < j / 64; ++at, bits = 0) words.Store(base + at, bits);
    bits |= std::uint64_t{1} << (j % 64);
    any = true;
  }
  SAMPCHECK_KERNEL_BODY bool Close() {
    if (!any) return false;
    for (; at < kPartitionMarkWords; ++at, bits = 0) words.Store(base + at, bits);
    return true;
  }
};

// A walk without marks (every rule but kSglang): the same calls, nothing stored.
struct NoChunkMarks {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Mark(std::uint32_t) const {}
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Close() const { return false; }
};

// A WeightedVisit's any-order walk: `walk` is called only when `active` (a block-level value);
// `grid` (a block-level value; 0: none) the grid the chunk loop sums each warp's positions on
// ahead for it (AnyOrderParts, gpu/block/warp_running_sum.cuh).
template <class Walk>
struct AnyOrderWalk {
  bool active = false;
  Walk walk;
  std::uint32_t grid = 0;
};
// None (WeightedVisit's default): every chunk is sorted before its walk.
struct NoAnyOrderWalk {
  bool active = false;
};

// A visit by weights, the only form the chunk loop takes (contract "Chunk loop"): key_visit(m,
// key_of) the visit of keys known at once (flat rows, small rows: contract "The visit is a
// WeightedVisit"); weight(key) a key's float weight, computed by the thread that places it; walk(m,
// words) the walk over the next m weights of the order (words, a shared array's View(): Load(i)
// the weights of the chunk's positions 2i and 2i + 1, low half first, as FloatWords),
// block-level code with no barrier and no shared store but thread 0's marks, returning
// registers whose thread 0 holds a verdict word: code << 62 | safe << 32 | position (code 0: go
// on; 1: stop, position the cut's; 2: over, position the last walked; positions count from 1 over
// the whole visit, below 2^32; safe < 2^29: a number of keys after these that cannot end the
// walk); finish(stopped, key) block-level, with the key of that position. With marks (Marked not
// NoPartitionMarks), walk takes a third argument, a PartitionChunkMarks whose Mark(j) marks the
// chunk's position j (j increasing), and sets kPartitionChunkMarked in its verdict when Close()
// says it marked one; marked(t, key, position) is then called after the walk's barrier by the
// thread that placed each marked key (a chunk with no mark costs no mark stores nor reads:
// "Chunk loop"). With an active any-order walk (AnyOrderWalk), every chunk after the visit's
// first is handed to any_order.walk(m, words) unsorted (its weights at the chunk's slots, in no
// particular order): block-level code with no barrier and no shared store, whose verdict is
// walk's for the sorted chunk, or kPartitionChunkUnordered when the walk needs the order (its
// state left as it was): then the chunk is sorted and given to walk ("Chunk loop"). Its third
// argument, an AnyOrderParts on any_order.grid, holds the parts of the chunk's positions summed
// by the warps that placed them (none stored when grid is 0).
template <class KeyVisit, class Weight, class Walk, class Finish, class Marked = NoPartitionMarks,
          class AnyOrder = NoAnyOrderWalk>
struct WeightedVisit {
  KeyVisit key_visit;
  Weight weight;
  Walk walk;
  Finish finish;
  Marked marked{};
  AnyOrder any_order{};
  template <class KeyOf>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool operator()(std::uint32_t m, KeyOf&& key_of) const {
    return key_visit(m, key_of);
  }
};
template <class V>
inline constexpr bool kWeightedVisit = false;
template <class KeyVisit, class Weight, class Walk, class Finish, class Marked, class AnyOrder>
inline constexpr bool kWeightedVisit<WeightedVisit<KeyVisit, Weight, Walk, Finish, Marked, AnyOrder>> = true;


// What a visit after a rank must cover (PartitionAndVisit, contract "Hooks"): every key, the keys
// up to the rank's key, or up to the last key of the rank's value (the ties of top_k's k-th
// value); the buckets of level 0 past those are counted but never scattered nor visited.
enum class VisitBound { kAll, kRankKey, kRankValue };

// No-op hooks of PartitionAndVisit (VisitKeysInOrder's). A fold's state is a value of the read
// (Mine, from Take) so that it stays in registers across the read's stores, which a state
// reached through the hook's references may alias (reloaded from the stack frame at every key).
struct NoPartitionFold {
  struct Mine {
    SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(std::uint64_t) {}
  };
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE Mine Take(Thread) const { return {}; }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Give(Thread, const Mine&) const {}
};

// How far the visit may go, by mass (PartitionAndVisit, contract "Reach"): Active() says whether
// a bound is wanted, Mass(ref, key) is a key's weight relative to the sample's smallest key
// `ref` (finite and positive, or +inf or NaN: then no bound), and Fraction() the share of the
// total weight whose buckets are scattered at first. This one bounds nothing.
struct NoPartitionReach {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Active() const { return false; }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Mass(std::uint64_t, std::uint64_t) const { return 0.0f; }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Fraction() const { return 1.0f; }
};

// Keys a thread keeps in registers during the first read (PartitionAndVisit, contract "Held
// keys"): Active() whether it keeps any; Take(t) thread t's state as a value (Mine), whose
// Offer(key) the read calls with each of the thread's in-range keys in index order, and Give(t,
// mine) after them; Publish(block) block-level code after the read (no barrier of its own: the
// read's counts follow, and their barrier orders its shared stores before level0), Holds(t,
// bound) whether it kept every one of them up to bound, ForEach(t, f) the kept ones in the order
// offered. This one keeps none.
struct NoPartitionHold {
  struct Mine {
    SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Offer(std::uint64_t) {}
  };
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Active() const { return false; }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE Mine Take(Thread) const { return {}; }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Give(Thread, const Mine&) const {}
  template <class B>
  SAMPCHECK_KERNEL_BODY void Publish(B&) const {}
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Holds(Thread, std::uint64_t) const { return false; }
  template <class F>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEach(Thread, F&&) const {}
};

namespace partition_detail {

// A thread's weight per level-0 bucket during the first read (contract "Reach").
struct BucketMass {
  float m[16];
};

// The keys a thread's Hold keeps at most (sampling_filters' SmallestKeys).
inline constexpr int kHeldKeysPerThread = 24;

// The number of the 15 ascending splitters below `key` (level 0's bucket): a branch-free binary
// search, 4 shared reads.
template <class Splitters>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t SplitterBucket(Splitters& splitter, std::uint64_t key) {
  std::uint32_t b = key > splitter.Load(7) ? 8u : 0u;
  b += key > splitter.Load(b + 3) ? 4u : 0u;
  b += key > splitter.Load(b + 1) ? 2u : 0u;
  b += key > splitter.Load(b) ? 1u : 0u;
  return b;
}

// Level 0's bucket table (contract "Level 0"): 4096 cells of the keys, by the 12 bits that end at
// the highest bit where the first and the last splitter differ (with logits of both signs, a
// value's sign, exponent and 3 leading significand bits: an eighth of a binade; with a flat
// row's, 32 indices). Cell c's byte holds the buckets of its smallest and largest keys, lo and
// hi, so a key's bucket is lo plus the splitters below it among lo .. hi - 1, and for a cell
// that holds one splitter (hi = lo + 1) also the eighth of the cell it lies in:
// - code < kCellOneSplitter: no splitter in the cell, the bucket is the code (no more read);
// - code < kCellSplitters: one, splitter lo, in eighth e of the cell, code = kCellOneSplitter + 8
//   lo + e: a key in another eighth lies below it (bucket lo) or above it (lo + 1) with no more
//   read, one in the same eighth reads it;
// - else two or more, code = kCellSplitters + 8 lo + min(hi - lo - 2, 7) (7: search up to the
//   last splitter), searched by halving.
// Where the cells hold the splitters of dense logits, about a third of a row's keys lie in a
// cell with one splitter (level 0's two reads at 64 x 128256 read a splitter for 47 of a
// thread's 126 keys in each, until 2026-12-02, with lo | hi << 4 in each byte). A key whose bits
// above the cells' are not the splitters' lies below the first splitter (bucket 0) or above the
// last (15). The table takes kCellTableWords 8-byte words, 8 cells a word (cell c: word c / 8,
// byte c % 8). A block-level value: every thread holds the same.
inline constexpr std::int64_t kCellTableWords = 512;
inline constexpr std::uint32_t kCellOneSplitter = 16;
inline constexpr std::uint32_t kCellSplitters = kCellOneSplitter + 15 * 8;  // 136; the last code 136 + 13 x 8 + 7 = 247
struct CellTable {
  int cell_shift = 0;     // the cells' lowest bit
  int prefix_shift = 64;  // the bits above the cells' (64: none)
  std::uint64_t prefix = 0;
  // Cell c's smallest key.
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t First(std::uint64_t c) const {
    return (prefix_shift < 64 ? prefix << prefix_shift : 0u) | c << cell_shift;
  }
  // The eighth of its cell a key lies in (cell_shift <= 52: no bit is lost).
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t Eighth(std::uint64_t key) const {
    return static_cast<std::uint32_t>(((key & ((std::uint64_t{1} << cell_shift) - 1)) << 3) >> cell_shift);
  }
  template <class Splitters, class Words>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t Bucket(Splitters& splitter, Words& words, std::int64_t at,
                                                                    std::uint64_t key) const {
    if (prefix_shift < 64 && key >> prefix_shift != prefix) return key >> prefix_shift < prefix ? 0u : 15u;
    const auto cell = static_cast<std::uint32_t>((key >> cell_shift) & 4095u);
    const auto code = static_cast<std::uint32_t>(words.Load(at + cell / 8) >> (8 * (cell % 8))) & 0xffu;
    if (code < kCellOneSplitter) return code;
    std::uint32_t lo = 0, hi = 0;
    if (code < kCellSplitters) {
      lo = (code - kCellOneSplitter) / 8;
      const std::uint32_t mine = Eighth(key), its = (code - kCellOneSplitter) % 8;
      if (mine != its) return mine < its ? lo : lo + 1;
      hi = lo + 1;
    } else {
      lo = (code - kCellSplitters) / 8;
      const std::uint32_t more = (code - kCellSplitters) % 8;
      hi = more == 7 ? 15u : lo + 2 + more;
    }
    while (lo < hi) {  // the first splitter of lo .. hi - 1 not below the key
      const std::uint32_t mid = (lo + hi) / 2;
      if (splitter.Load(mid) < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
};

// Fills the table into words[at, at + kCellTableWords) from the 15 ascending, distinct splitters
// (stored before a barrier), and ends with a barrier: thread t < kCellTableWords fills word t,
// its first cell's lo by SplitterBucket and each next bound by stepping past the splitters below
// it (about 20 shared reads).
template <class B, class Splitters, class Words>
SAMPCHECK_KERNEL_BODY CellTable FillCellTable(B& block, Splitters& splitter, Words& words, std::int64_t at) {
  CellTable table{};
  block.ForEachThread([&](Thread t) {
    const std::uint64_t first_splitter = splitter.Load(0);
    const int h = HighestBit(first_splitter ^ splitter.Load(14));
    table.cell_shift = h >= 11 ? h - 11 : 0;  // the same in every thread
    table.prefix_shift = table.cell_shift + 12;
    table.prefix = table.prefix_shift < 64 ? first_splitter >> table.prefix_shift : 0u;
    if (t.x >= kCellTableWords) return;
    const auto c0 = 8 * static_cast<std::uint64_t>(t.x);
    std::uint32_t lo = SplitterBucket(splitter, table.First(c0));
    std::uint64_t word = 0;
    for (std::uint64_t k = 0; k < 8; ++k) {
      const std::uint64_t first = table.First(c0 + k);
      const std::uint64_t last = first | ((std::uint64_t{1} << table.cell_shift) - 1);
      std::uint64_t below_last = 0;  // the last splitter below `last`
      while (lo < 15 && splitter.Load(lo) < first) ++lo;  // lo: the splitters below `first`
      std::uint32_t hi = lo;
      while (hi < 15) {
        const std::uint64_t s = splitter.Load(hi);
        if (s >= last) break;
        below_last = s;
        ++hi;
      }
      std::uint32_t code = lo;
      if (hi == lo + 1) {
        code = kCellOneSplitter + 8 * lo + table.Eighth(below_last);
      } else if (hi > lo + 1) {
        code = kCellSplitters + 8 * lo + (hi - lo - 2 < 7 ? hi - lo - 2 : 7u);
      }
      word |= static_cast<std::uint64_t>(code) << (8 * k);
    }
    words.Store(at + t.x, word);
  });
  block.Sync();
  return table;
}

// The reach's first buckets (contract "Reach"): the fewest first level-0 buckets whose weight
// reaches `fraction` of the total weight, 16 when the total is not finite; sums.Load(b x 32 +
// w) is warp w's sum of bucket b (a FloatWord). Bucket b's weight m_b: lane w of every warp
// loads warp w's sum and an xor butterfly adds them (the same bits in every lane,
// WarpAllReduce); every lane adds the running sums c_b = m_0 + .. + m_b in bucket order, lane b
// keeping c_b, and one ballot of c_b >= fraction x c_15 gives the first bucket reached: 16 loads
// a thread, where a loop over the warps loaded 512. The sums only shape the cost, and the answer
// is the same in every thread even when a weight is NaN (c_15 is then NaN in every lane).
// Block-level, after the barrier that follows the sums' stores; no barrier.
template <class B, class Words>
SAMPCHECK_KERNEL_BODY std::uint32_t ReachBuckets(B& block, Words& sums, float fraction) {
  auto cum = Registers<float>(block);   // c_b in every lane after bucket b
  auto mine = Registers<float>(block);  // lane b's c_b
  block.ForEachThread([&](Thread t) { cum[t] = 0.0f, mine[t] = 0.0f; });
  for (int b = 0; b < 16; ++b) {
    auto m = Registers<float>(block);
    block.ForEachThread([&](Thread t) { m[t] = WordFloat(sums.Load(b * kWarpSize + t.lane())); });
    WarpAllReduce(block, m, [](float x, float y) { return x + y; });
    block.ForEachThread([&](Thread t) {
      cum[t] = cum[t] + m[t];
      if (t.lane() == b) mine[t] = cum[t];
    });
  }
  auto reached = Registers<bool>(block);
  block.ForEachThread([&](Thread t) {
    const float total = cum[t];
    reached[t] = total <= 0x1.fffffep+127f && t.lane() < 16 && mine[t] >= total * fraction;
  });
  auto first = Ballot(block, reached);
  block.ForEachThread([&](Thread t) {  // 1 + the lowest lane reached
    const int b = LowestLane(first[t]);
    first[t] = b >= 0 ? static_cast<std::uint32_t>(b + 1) : 16u;
  });
  return BlockUniform(block, first);
}

// A stack entry whose keys were counted by level 0 but not scattered (a gap: contract "Reach").
inline constexpr std::uint32_t kUnscattered = 1u << 24;

// The level-0 buckets whose keys the scatter read leaves in registers (contract "Held
// buckets"): the first two refined. A bucket holds about n / 16 keys, 7.8 a thread at
// V = 128256, so two share a thread's kCachedKeys slots, the first taking what it needs.
inline constexpr int kHeldBuckets = 2;
// No bucket held: differs from every digit of every level.
inline constexpr std::uint32_t kNoHeldBucket = ~0u;
// Per thread, per held bucket: its first slot in buffer 0, its number of keys, and the first
// of its `cache` slots.
struct HeldRanges {
  std::uint32_t first[kHeldBuckets], count[kHeldBuckets], at[kHeldBuckets];
};

}  // namespace partition_detail

// The entries a thread of the partition's reads by canonical lanes (level 0's first read
// with a sample or held keys, the scatters' reads of the row, a refinement's read of its
// entry's keys in scratch) loads at a time: ScanLane's group, 4 loads in flight where the plain
// loop had 1 (gpu/block/lane_scan.cuh).
inline constexpr int kRowKeysGroup = 4;

// The general form (contract above, "Hooks"): `level0(n, smallest, largest)` is block-level code
// run after the first read, returning -1 to stop there, 0 to partition and visit, or a rank r
// (1 <= r <= n) whose key is found first; `fold` (NoPartitionFold) sees thread t's in-range keys
// in index order during level 0's scatter read; `ready(kth)` is block-level code run before the
// visit (kth: the key of rank r, kNoKey without a rank), returning false to visit nothing.
// sample_first: take level 0's sample before the first read, so that read also counts the
// keys per bucket (one read of the row less whenever the partition follows; the sample, 1024
// entries, spent for nothing when level0 stops).
template <class B, class Arr, class Scratch, class Shared, class Level0, class Fold, class Ready, class Visit,
          class Reach = NoPartitionReach, class Hold = NoPartitionHold>
SAMPCHECK_KERNEL_BODY void PartitionAndVisit(B& block, Arr row, std::int64_t base, std::int64_t vocab, bool ascending,
                                             bool has_lo, std::uint64_t lo, std::uint64_t hi, Scratch scratch,
                                             std::int64_t scratch_base, Shared& sorted, bool gather_small,
                                             bool sample_first, VisitBound bound, Level0&& level0, Fold&& fold,
                                             Ready&& ready,
                                             Visit&& visit, Reach reach = {}, Hold hold = {}) {
  using partition_detail::CachedKeys;
  using partition_detail::DigitSlots;
  using partition_detail::kCachedKeys;
  using partition_detail::kHeldBuckets;
  using partition_detail::kNoHeldBucket;
  using partition_detail::ShiftFor;
  // One storage for every instantiation (partition_detail::Arrays): on the device each
  // __shared__ declaration is static per function, so arrays declared here would be
  // allocated once per set of hooks.
  auto arrays = partition_detail::SharedArrays(block);
  auto& warp_pairs = arrays.warp_pairs;
  partition_detail::DigitStarts start{};  // the last DigitSlots' bucket starts (block-level)
  auto& low = arrays.low;
  auto& high = arrays.high;
  auto& many = arrays.many;
  // Stack entries: (first slot << 32 | count) and (bucket << 16 | buffer << 8 | shift of the
  // next digit) from slot 0 up; the entries set aside while the rank's bucket is refined
  // from the last slot down.
  auto& stack_range = arrays.stack_range;
  auto& stack_digit = arrays.stack_digit;
  auto& uniform = arrays.uniform;
  auto& splitter = arrays.splitter;  // level 0's 15 splitters
  auto in_range = [has_lo, lo, hi](std::uint64_t key) { return (!has_lo || key > lo) && key <= hi; };
  const auto order_keys = OrderKeysOf(row, base, ascending);  // key_of(i), or four a load (below)
  auto sorted_key = [&](std::int64_t j) { return sorted.Load(j); };  // a chunk's keys, for visit

  // Level 0's buckets. With at least 16 sampled keys in range: 15 splitters from a sample of
  // 1024 entries (sample sort; Frazer and McKellar 1970), so each bucket holds about n / 16
  // keys whatever the bits of the values (a radix digit of floats splits them mostly by
  // exponent: buckets of a quarter of the row on the benchmark's logits). Bucket j holds the
  // keys in (splitter[j - 1], splitter[j]] (bucket 0 from the smallest key, bucket 15 up to
  // the largest), refined by the digit ending at the highest bit where its bounds differ. The
  // sample only shapes the buckets: the visit's order is the keys' whatever it picks. The
  // sample is sorted in `sorted` (BitonicSortSlots, gpu/block/bitonic_sort.cuh; its keys are
  // distinct: vocab > 1024 gives distinct indices, and the kNoKey of keys out of range sort
  // last); `valid`, the keys in range, comes from a binary search for the first kNoKey, and
  // thread j < 15 copies the key of rank (j + 1) x valid / 16 - 1 to splitter j, thread 15 the
  // smallest (the reach's reference). Until 2026-12-01 every thread ranked its key against
  // all 1024 (1024 shared reads in sequence; two barriers where the network takes 12, 21
  // until 2026-12-06).
  bool sampled = false;
  if (sample_first && vocab > kCanonicalLanes) {
    block.ForEachThread([&](Thread t) {
      const std::uint64_t key = order_keys(t.x * vocab / kCanonicalLanes);
      sorted.Store(t.x, in_range(key) ? key : kNoKey);
    });
    block.Sync();
    BitonicSortSlots<kCanonicalLanes>(block, sorted, kCanonicalLanes);
    std::int64_t valid = 0;
    block.ForEachThread([&](Thread t) {
      const int v = merge_detail::CountAtMost(sorted, 0, kCanonicalLanes, kCanonicalLanes, kNoKey - 1);
      valid = v;  // the same in every thread
      if (v < 16) return;
      if (t.x < 15) splitter.Store(t.x, sorted.Load((t.x + 1) * v / 16 - 1));
      if (t.x == 15) uniform.Store(0, sorted.Load(0));  // the sample's smallest key: the reach's reference
    });
    block.Sync();
    sampled = valid >= 16;
  }
  // The reach (contract "Reach"): the first read also sums each thread's weight per bucket;
  // the warps' sums go to the chunk sort's second buffer (free until the first chunk) before
  // DigitSlots' barrier, and every thread adds them up after it.
  const bool use_reach = sampled && reach.Active();
  const bool hold_active = hold.Active();
  std::uint64_t reach_ref = 0;
  if (use_reach) block.ForEachThread([&](Thread) { reach_ref = uniform.Load(0); });
  auto warp_slots = PartitionWarpSlots(block);
  auto mass = Registers<partition_detail::BucketMass>(block);
  auto bucket = [&](std::uint64_t key) { return partition_detail::SplitterBucket(splitter, key); };
  // Level 0's two reads take a key's bucket from a table (partition_detail::CellTable) in the
  // chunk buffer's upper half, free until the first chunk (its first 128 words hold the warps'
  // largest keys, HeldSmallestKeys).
  constexpr std::int64_t kCellTableAt = kCandidates - partition_detail::kCellTableWords;
  partition_detail::CellTable cells{};
  if (sampled) cells = partition_detail::FillCellTable(block, splitter, sorted, kCellTableAt);
  // By value (the table's shifts and the arrays' handles): the reads copy it into each
  // thread's lambda, where the table's address stays in a register; reached by reference, it
  // was loaded from the stack frame for every key (two dependent LDL before the table's load).
  auto level0_bucket = [cells, words = sorted.View(), splitters = splitter.View()](std::uint64_t key) {
    return cells.Bucket(splitters, words, kCellTableAt, key);
  };

  // The first read: count, smallest and largest key (warp shuffles, then the 32 warps' values
  // read by every thread), and with a sample each thread's keys per bucket, scanned into slots.
  auto counts = Registers<DigitCounts>(block);
  auto slots = Registers<DigitCounts>(block);
  auto n_t = Registers<std::uint32_t>(block);
  auto min_t = Registers<std::uint64_t>(block);
  auto max_t = Registers<std::uint64_t>(block);
  // Without a sample or held keys the read gives the count, the smallest and the largest key
  // alone, which no partition of the row changes: four entries a load from a global f32 row
  // (RowOrderKeys, PartitionKeys; min_p alone at V = 128256: about 32 loads a thread where
  // one entry a load takes 125). Held keys are each thread's canonical lane's, in index order:
  // strided.
  const bool any_partition = !sampled && !hold_active;
  const KeyPartition level0_part = PartitionKeys(order_keys, vocab, kCanonicalLanes);
  block.ForEachThread([&](Thread t) {
    std::uint32_t c = 0;
    std::uint64_t a = kNoKey, z = 0;
    DigitCounts d{};
    partition_detail::BucketMass w{};
    const auto bucket_of = level0_bucket;
    // The hold's state of this thread as a local of the read (the hook's Take / Give): offered
    // through the hook's pointer, each key loaded the held count, the root and `dropped` by
    // generic loads, again after every store of the counts below (which they may alias).
    auto held_keys = hold_active ? hold.Take(t) : typename Hold::Mine{};
    auto take = [&](std::int64_t, std::uint64_t key) {  // a key in range
      ++c;
      a = key < a ? key : a;
      z = key > z ? key : z;
      if (hold_active) held_keys.Offer(key);
      if (!sampled) return;
      const std::uint32_t b = bucket_of(key);
      // Indexed by the run-time bucket, not AddAt's 16 selects (radix_select.cuh): in this read
      // and in the scatter below the 16 counts (and masses) do not stay in registers beside the
      // rest of a 1024-thread block's state at 64 registers; nvcc spilled the selects' every word
      // instead (95 to 110 frame accesses an iteration of this read's loop, 24 to 51 a key in the
      // scatter; an indexed array takes a load and a store: docs/gpu.md "Reading the SASS").
      // The same additions in the same order: counts, slots and masses are unchanged.
      SAMPCHECK_HOST_ASSERT(b < 16u);  // the emulator checks the index the device trusts
      d.c[b] += 1u;
      if (use_reach) w.m[b] += reach.Mass(reach_ref, key);
    };
    if (any_partition) {
      ForEachPartitionKey(order_keys, level0_part, t.x, [&](std::int64_t i, std::uint64_t key) {
        if (in_range(key)) take(i, key);
      });
    } else {
      // Held keys are each lane's in index order: by canonical lanes, a group of entries in
      // flight (ScanLane; its keep tests the range, so `take` does not again).
      ScanLane<kRowKeysGroup>(
          t.x, vocab, kCanonicalLanes, order_keys, [&](std::uint64_t key, std::int64_t) { return in_range(key); },
          [](std::int64_t, std::uint64_t) {}, take);
    }
    n_t[t] = c, min_t[t] = a, max_t[t] = z;
    counts[t] = d;
    mass[t] = w;
    if (hold_active) hold.Give(t, held_keys);
  });
  if (hold_active) hold.Publish(block);  // its stores: before the barriers below
  if (use_reach) {
    for (int b = 0; b < 16; ++b) {
      auto v = Registers<float>(block);
      block.ForEachThread([&](Thread t) { v[t] = mass[t].m[b]; });
      for (int s = kWarpSize / 2; s >= 1; s /= 2) {
        auto o = ShuffleDown(block, v, s);
        block.ForEachThread([&](Thread t) {
          if (t.lane() + s < kWarpSize) v[t] = v[t] + o[t];
        });
      }
      block.ForEachThread([&](Thread t) {
        if (t.lane() == 0) warp_slots.Store(b * kWarpSize + t.warp(), FloatWord(v[t]));
      });
    }
  }
  for (int s = kWarpSize / 2; s >= 1; s /= 2) {
    auto c = ShuffleDown(block, n_t, s);
    auto a = ShuffleDown(block, min_t, s);
    auto z = ShuffleDown(block, max_t, s);
    block.ForEachThread([&](Thread t) {
      n_t[t] += t.lane() + s < kWarpSize ? c[t] : 0u;
      min_t[t] = a[t] < min_t[t] ? a[t] : min_t[t];
      max_t[t] = z[t] > max_t[t] ? z[t] : max_t[t];
    });
  }
  block.ForEachThread([&](Thread t) {
    if (t.lane() != 0) return;
    many.Store(t.warp(), n_t[t]);
    low.Store(t.warp(), min_t[t]);
    high.Store(t.warp(), max_t[t]);
  });
  if (sampled) {
    DigitSlots(block, counts, slots, warp_pairs, start);  // its barrier ends the stores above
  } else {
    block.Sync();
  }
  // The warps' values, one load a thread each and a butterfly (written once: no barrier
  // after the reads).
  constexpr int kWarps = kCanonicalLanes / kWarpSize;
  const std::uint64_t n = CombineWarpValues<std::uint64_t>(
      block, kWarps, 0, [&](int w) { return std::uint64_t{many.Load(w)}; },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
  const std::uint64_t smallest = CombineWarpValues<std::uint64_t>(
      block, kWarps, kNoKey, [&](int w) { return low.Load(w); },
      [](std::uint64_t a, std::uint64_t b) { return b < a ? b : a; });
  const std::uint64_t largest = CombineWarpValues<std::uint64_t>(
      block, kWarps, 0, [&](int w) { return high.Load(w); },
      [](std::uint64_t a, std::uint64_t b) { return b > a ? b : a; });
  const std::int64_t rank = level0(n, smallest, largest);
  if (rank < 0 || n == 0) {
    block.Sync();
    return;
  }
  // A flat row (every entry in range, one value key): the keys differ in their index bits
  // alone, so the order is the index order and entry i's key is (value key, i), known without
  // reading the row. No partition and no further read: the rank's key is entry rank - 1's, the
  // fold gets the computed keys (registers only: its caller folds with or without a rank),
  // and the visit sees the whole row at once (one verdict, not one load and barrier per 1024
  // entries: 2 barriers and 1024 reads of the row per chunk before, 2026-11-29).
  if (n == static_cast<std::uint64_t>(vocab) && (smallest >> 32) == (largest >> 32)) {
    const std::uint64_t value_key = (smallest >> 32) << 32;
    auto flat_key = [value_key](std::int64_t i) { return value_key | static_cast<std::uint32_t>(i); };
    if (!std::is_same_v<std::decay_t<Fold>, NoPartitionFold>) {
      block.ForEachThread([&](Thread t) {  // registers only: no barrier
        auto mine = fold.Take(t);
        for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) mine.Add(flat_key(i));
        fold.Give(t, mine);
      });
    }
    const std::uint64_t flat_kth = rank > 0 ? flat_key(rank - 1) : kNoKey;
    if (!ready(flat_kth)) return;
    (void)visit(static_cast<std::uint32_t>(vocab), flat_key);
    return;
  }
  if (gather_small && n <= static_cast<std::uint64_t>(kCandidates)) {
    if (!ready(kNoKey)) return;
    const std::uint32_t m = CollectSorted(block, row, base, vocab, ascending, has_lo, lo, hi, sorted);
    (void)visit(m, sorted_key);
    return;
  }

  // Counts the keys given by for_each(t, f) (f(key) per key of thread t) per digit and gives
  // every thread its slots; returns false when one digit holds all `size` keys (then after a
  // barrier, so that it can be called again).
  auto count = [&](auto&& for_each, auto&& digit_of, std::uint64_t size, std::uint32_t parts = 16) {
    block.ForEachThread([&](Thread t) {
      DigitCounts d{};
      for_each(t, [&](std::uint64_t key) {
        const std::uint32_t p = digit_of(key);
        AddAt(d.c, p & 15u, 1u << (16u * (p >> 4)));
      });
      counts[t] = d;
    });
    DigitSlots(block, counts, slots, warp_pairs, start);
    bool split = true;
    block.ForEachThread([&](Thread) {
      const partition_detail::DigitStarts starts = start;  // a copy of the thread's (as the scatter's)
      split = true;
      std::uint32_t b = partition_detail::PartStart(starts, 0, parts);  // digit d's first slot
      for (std::uint32_t d = 0; d < parts; ++d) {
        const std::uint32_t e = partition_detail::PartStart(starts, d + 1, parts);
        split = split && e - b != size;
        b = e;
      }
    });
    if (!split) block.Sync();
    return split;
  };
  // Scatters the counted keys into buffer `to` at first + their slot and pushes the non-empty
  // buckets (reverse digit order, so the first is on top) with the next digit's shift, in the
  // same phase: every thread computes the stack's new depth from `start`, thread j writes the
  // scatter's entry j (at most 33: one store each to both arrays, where thread 0 wrote them all
  // in sequence); one barrier.
  std::int64_t depth = 0;
  // next_of(digit): the shift of the digit that refines that bucket.
  // Digits in [gap_lo, gap_hi) are not stored: they are pushed as one entry marked
  // kUnscattered (the reach's gap), scattered by a read of their own if the visit gets there.
  // buckets > 16: 32 digits counted two to a counter (partition_detail::PartStart).
  // Level 0's scatter (held_bucket set: contract "Held buckets"): each thread keeps its keys
  // of the held buckets in `cache` instead of storing them, the first bucket's from slot 0,
  // the second's after them, as many as fit; the others go to their slots (all reserved).
  auto cache = Registers<CachedKeys>(block);
  auto held = Registers<partition_detail::HeldRanges>(block);
  std::uint32_t held_bucket[kHeldBuckets] = {kNoHeldBucket, kNoHeldBucket};  // block-level
  int held_left = 0;  // held buckets not yet refined: no other refinement may load `cache`
  auto scatter = [&](auto&& for_each, auto&& digit_of, auto&& next_of, std::int64_t first, int to,
                     std::uint32_t buckets, std::uint32_t gap_lo = 16, std::uint32_t gap_hi = 16,
                     bool hold_buckets = false) {
    const std::int64_t out = scratch_base + to * vocab + first;
    const std::uint32_t parts = buckets > 16 ? 32u : 16u;
    std::int64_t pushed = depth;
    block.ForEachThread([&](Thread t) {
      DigitCounts at = slots[t];
      const std::uint32_t high_first = parts > 16 ? start.s[16] & 0xffffu : 0u;  // the high halves' first slot
      // The held buckets and this thread's ranges of them as values of the read's own (as
      // level 0's read takes the bucket rule): through references each key loaded them again.
      partition_detail::HeldRanges ranges{};
      std::uint32_t held_of[kHeldBuckets]{};
      if (hold_buckets) {
        std::uint32_t used = 0;
        for (int h = 0; h < kHeldBuckets; ++h) {
          held_of[h] = held_bucket[h];
          const std::uint32_t b = held_of[h] == kNoHeldBucket ? 0u : held_of[h];
          ranges.first[h] = at.c[b];
          ranges.count[h] = held_of[h] == kNoHeldBucket ? 0u : counts[t].c[b];
          ranges.at[h] = used;
          used += ranges.count[h];
          used = used < static_cast<std::uint32_t>(kCachedKeys) ? used : static_cast<std::uint32_t>(kCachedKeys);
        }
        held[t] = ranges;
      }
      const auto digit = digit_of;  // a copy in the thread's lambda, as level 0's read takes it
      const auto keys_out = scratch;  // likewise: by reference, its address was loaded every key
      for_each(t, [&](std::uint64_t key) {
        const std::uint32_t d = digit(key);
        if (d >= buckets || (d >= gap_lo && d < gap_hi)) return;
        const std::uint32_t word = at.c[d & 15u];  // indexed, as level 0's counts above
        const std::uint32_t slot = parts <= 16 ? word : (d < 16 ? word & 0xffffu : high_first + (word >> 16));
        at.c[d & 15u] += 1u << (16u * (d >> 4));
        if (hold_buckets) {
          bool kept = false;
          for (int h = 0; h < kHeldBuckets; ++h) {
            if (d != held_of[h]) continue;
            const std::uint32_t c = ranges.at[h] + (slot - ranges.first[h]);
            if (c >= static_cast<std::uint32_t>(kCachedKeys)) break;
            for (int j = 0; j < kCachedKeys; ++j) {  // a constant index after unrolling: registers
              if (static_cast<std::uint32_t>(j) == c) cache[t].k[j] = key;
            }
            kept = true;
          }
          if (kept) return;
        }
        keys_out.Store(out + slot, key);
      });
      // The stack's depth before this scatter (d's first value), its arrays' handles and the
      // bucket starts as copies in the thread's lambda: by reference each bucket's two starts
      // and each push's test loaded their addresses and values by generic loads (34 a bucket).
      const std::int64_t first_entry = depth;
      const auto ranges_out = stack_range.View();
      const auto digits_out = stack_digit.View();
      const partition_detail::DigitStarts starts = start;
      std::int64_t d = first_entry;
      // Runs of adjacent buckets of at most 1024 keys in all are one entry (one chunk, sorted
      // as a whole: the buckets lie in digit order), so chunks are seldom small. The open run
      // is [start of the last bucket added, end).
      auto push = [&](std::uint32_t begin, std::uint32_t stop, std::uint32_t next) {
        if (t.x == d - first_entry) {
          ranges_out.Store(d, (static_cast<std::uint64_t>(first + begin) << 32) | (stop - begin));
          digits_out.Store(d, static_cast<std::uint32_t>(to << 8) | next);
        }
        ++d;
      };
      constexpr auto kChunk = static_cast<std::uint32_t>(kCandidates);
      std::uint32_t end = partition_detail::PartStart(starts, buckets, parts);
      std::uint32_t e = end;  // the first slot past digit's bucket (the next digit's first)
      for (int digit = static_cast<int>(buckets) - 1; digit >= 0; --digit) {
        if (gap_lo < gap_hi && digit == static_cast<int>(gap_hi) - 1) {  // the gap: one entry
          const std::uint32_t b = partition_detail::PartStart(starts, gap_lo, parts);
          if (end > e) push(e, end, 0);
          if (e > b) push(b, e, partition_detail::kUnscattered);
          end = b;
          e = b;
          digit = static_cast<int>(gap_lo);
          continue;
        }
        const std::uint32_t b = partition_detail::PartStart(starts, static_cast<std::uint32_t>(digit), parts);
        if (e - b > kChunk) {  // refined on its own
          if (end > e) push(e, end, 0);
          push(b, e, next_of(digit));
          end = b;
        } else if (e > b && end - b > kChunk) {  // the run is full: close it, this bucket opens the next
          push(e, end, 0);
          end = e;
        }
        e = b;
      }
      const std::uint32_t first_slot = partition_detail::PartStart(starts, 0, parts);
      if (end > first_slot) push(first_slot, end, 0);
      pushed = d;  // the same in every thread
    });
    block.Sync();
    depth = pushed;
  };

  auto row_keys = [&](Thread t, auto&& f) {
    // Copies in the thread's lambda (the row's handle, the range's bounds): reached by
    // reference, the row's address was loaded from the stack frame at every entry.
    const auto keys_of = order_keys;
    const auto keep = in_range;
    ScanLane<kRowKeysGroup>(
        t.x, vocab, kCanonicalLanes, keys_of, [&](std::uint64_t key, std::int64_t) { return keep(key); },
        [](std::int64_t, std::uint64_t) {}, [&](std::int64_t, std::uint64_t key) { f(key); });
  };
  auto row_keys_folded = [&](Thread t, auto&& f) {
    auto mine = fold.Take(t);
    row_keys(t, [&](std::uint64_t key) {
      mine.Add(key);
      f(key);
    });
    fold.Give(t, mine);
  };
  auto bucket_next = [&](int j) { return static_cast<std::uint32_t>(j + 1) << 16; };
  std::uint32_t gap_lo = 16, gap_hi = 16;
  if (sampled) {
    // A refined bucket carries its number + 1 above bit 16: its first digit is taken relative
    // to its lower bound (refine, below). The first read counted the buckets.
    // The level-0 buckets the reach scatters at first: [0, reach_buckets), the fewest whose
    // weight is at least Fraction() of the total (all 16 when the total is not finite).
    std::uint32_t reach_buckets = 16;
    if (use_reach) reach_buckets = partition_detail::ReachBuckets(block, warp_slots, reach.Fraction());
    // With a rank and a bound, the buckets past the rank's (past the last that may hold a
    // key of the rank's value, for kRankValue) are never visited: counted, not scattered. A
    // key in bucket j > b (the rank's) is above splitter j - 1 >= bucket b's upper bound u, so
    // it ties the rank's key only when splitter j - 1's value key is u's. The reach's gap
    // [gap_lo, gap_hi): the buckets past the reach, up to the rank's (refined first, so it is
    // stored), or to the last one without a rank.
    // The held buckets (contract "Held buckets"): the rank's, then the stored ones of more
    // than a chunk in order (the visit takes the stack front first).
    std::uint32_t buckets = 16;
    if (rank == 0) {
      gap_lo = reach_buckets;
      gap_hi = 16;
    }
    block.ForEachThread([&](Thread) {  // block-level reads of the splitters
      std::uint32_t rank_bucket = 16;
      if (rank > 0) {
        std::uint32_t b = 0;
        while (start.s[b + 1] < static_cast<std::uint64_t>(rank)) ++b;  // start[b] < rank <= start[b + 1]
        rank_bucket = b;
        if (bound != VisitBound::kAll) {
          std::uint32_t e = b + 1;
          if (bound == VisitBound::kRankValue) {
            const std::uint64_t upper = b == 15 ? largest : splitter.Load(b);
            while (e < 16 && (splitter.Load(e - 1) >> 32) == (upper >> 32)) ++e;
          }
          buckets = e;
          gap_lo = reach_buckets < b ? reach_buckets : b;
          gap_hi = b;
        }
      }
      auto big = [&](std::uint32_t b) { return start.s[b + 1] - start.s[b] > static_cast<std::uint32_t>(kCandidates); };
      int h = 0;
      if (rank_bucket < 16 && big(rank_bucket)) held_bucket[h++] = rank_bucket;
      for (std::uint32_t b = 0; b < buckets && h < kHeldBuckets; ++b) {
        if ((b >= gap_lo && b < gap_hi) || b == rank_bucket) continue;
        if (big(b)) held_bucket[h++] = b;
      }
      held_left = h;
    });
    // Held keys (contract "Held keys"): a thread that kept all of its keys up to the last
    // stored bucket's upper bound scatters them from registers, in the order the row read
    // would, and neither reads nor folds its entries; the others read theirs.
    const bool hold_rank = hold_active && rank > 0;
    std::uint64_t upper = 0;
    if (hold_rank) block.ForEachThread([&](Thread) { upper = buckets == 16 ? largest : splitter.Load(buckets - 1); });
    auto scattered_keys = [&](Thread t, auto&& f) {
      if (hold_rank && hold.Holds(t, upper)) {
        hold.ForEach(t, f);
        return;
      }
      row_keys_folded(t, f);
    };
    scatter(scattered_keys, level0_bucket, bucket_next, 0, 0, buckets, gap_lo, gap_hi, true);
  } else {
    // The 4 bits ending at the highest bit where the smallest and largest keys differ.
    const int shift0 = ShiftFor(smallest, largest);
    auto radix0 = [&](std::uint64_t key) { return static_cast<std::uint32_t>((key >> shift0) & 15u); };
    auto radix_next = [&](int) { return static_cast<std::uint32_t>(shift0 >= 4 ? shift0 - 4 : 0); };
    (void)count(row_keys, radix0, n);  // the smallest and largest keys differ in this digit
    scatter(row_keys_folded, radix0, radix_next, 0, 0, 16);
  }

  // The top entry: its slots, its buffer and the shift of its next digit. Every stack write
  // (scatter's) follows a barrier after the reads, so pop needs none. An entry popped and put
  // back unchanged (the chunk loop's look at the entry after c, or c waiting) is kept
  // (`known`, block-level) and not read again when it is popped next: every stack write lands
  // at the depth or above (pushes; the rank's entries set aside come before the chunk loop),
  // and the entry lies below the depth until that pop.
  struct Entry {
    std::uint64_t range;
    std::uint32_t word;
    std::int64_t first, size, src;
    int from, shift, bucket;  // bucket: a level-0 splitter bucket's number + 1, else 0
    bool unscattered;         // the reach's gap: counted by level 0, not yet in the scratch
  };
  Entry known{};
  std::int64_t known_at = -1;  // the stack slot `known` holds; -1: none
  auto put_back = [&](const Entry& e) {
    known = e;
    known_at = depth++;
  };
  auto pop = [&] {
    if (known_at == depth - 1) {
      --depth;
      known_at = -1;
      return known;
    }
    std::uint64_t range = 0;
    std::uint32_t digit = 0;
    block.ForEachThread([&](Thread) {
      range = stack_range.Load(depth - 1);
      digit = stack_digit.Load(depth - 1);
    });
    --depth;
    Entry e{};
    e.range = range;
    e.word = digit;
    e.first = static_cast<std::int64_t>(range >> 32);
    e.size = static_cast<std::int64_t>(range & 0xffffffffu);
    e.from = static_cast<int>((digit >> 8) & 0xffu);
    e.shift = static_cast<int>(digit & 0xffu);
    e.bucket = static_cast<int>((digit >> 16) & 0xffu);
    e.unscattered = (digit & partition_detail::kUnscattered) != 0;
    e.src = scratch_base + e.from * vocab + e.first;
    return e;
  };
  // A merge-rank sort of an entry of at most 1024 keys into `sorted` (unique keys), in two
  // phases. warp_sort: each thread takes a key (key_slot, below) and counts the keys of its warp
  // below it by 31 ShuffleXor rounds (lanes past the entry hold kNoKey, ties broken by lane), and stores it at
  // that rank in its warp's 32 slots of `warp_slots`. place (after a barrier): each thread adds,
  // for every other warp, the number of that warp's keys below its key by a binary search of
  // the warp's sorted slots (6 reads), and stores the key at that rank in `sorted`; a barrier.
  // Two barriers (the bitonic network takes 55; three while the warps' slots were `sorted`
  // itself) and at most 1 + 31 x 6 shared reads a thread instead of m. The chunk loop runs the
  // two phases of different chunks in one step, so each costs it one barrier (contract "Chunk
  // loop"); the warps' slots are `warp_slots`, or `sorted` for every other chunk of the loop.
  auto mine = Registers<std::uint64_t>(block);
  auto below = Registers<std::uint32_t>(block);
  // Key j of a chunk is thread 1023 - j's, so thread 0, which walks, places a key beside its
  // walk only in a chunk of 1024 keys; the keys lie in the warps from first_warp(size) on.
  auto key_slot = [](Thread t) { return static_cast<std::int64_t>(kCanonicalLanes - 1 - t.x); };
  auto first_warp = [](std::int64_t size) { return (kCanonicalLanes - size) / kWarpSize; };
  // An entry's keys into `mine`, kNoKey past its size.
  auto load_keys = [&](const Entry& e) {
    block.ForEachThread([&](Thread t) { mine[t] = key_slot(t) < e.size ? scratch.Load(e.src + key_slot(t)) : kNoKey; });
  };
  // A chunk's keys (kNoKey past `size`) sorted in each warp: `ranks` their ranks, the keys stored at them.
  auto warp_sort = [&](auto& keys, auto& ranks, std::int64_t size, bool second) {
    block.ForEachThread([&](Thread t) { ranks[t] = 0; });
    for (int mask = 1; mask < kWarpSize; ++mask) {
      auto other = ShuffleXor(block, keys, mask);
      block.ForEachThread([&](Thread t) {
        const bool lower = other[t] < keys[t] || (other[t] == keys[t] && (t.lane() ^ mask) < t.lane());
        ranks[t] += lower ? 1u : 0u;
      });
    }
    block.ForEachThread([&](Thread t) {
      if (t.warp() < first_warp(size)) return;
      if (second) {
        sorted.Store(t.warp() * kWarpSize + ranks[t], keys[t]);
      } else {
        warp_slots.Store(t.warp() * kWarpSize + ranks[t], keys[t]);
      }
    });
  };
  auto warp_sort_into = [&](const Entry& e, bool second) {
    load_keys(e);
    warp_sort(mine, below, e.size, second);
  };
  // A key's rank in a chunk of `size` keys: its rank in its warp plus, for every other warp,
  // the number of that warp's keys below it (a binary search of the warp's sorted slots).
  // With `next`, also the key of the next rank (kNoKey after the last): the smallest of each
  // warp's first key above this one (the slot after its keys below; kNoKey pads sort last), one
  // shared read a warp more.
  auto rank_in_chunk = [&](Thread t, std::uint64_t key, std::uint32_t in_warp, std::int64_t size, bool second,
                           std::uint64_t* next) {
    constexpr auto kLanes = static_cast<std::uint32_t>(kWarpSize);
    auto slot_key = [&](std::int64_t at) { return second ? sorted.Load(at) : warp_slots.Load(at); };
    std::uint32_t r = in_warp;
    std::uint64_t after = kNoKey;
    if (next != nullptr && in_warp + 1 < kLanes) after = slot_key(t.warp() * kWarpSize + in_warp + 1);
    for (std::int64_t w = first_warp(size); w < kCanonicalLanes / kWarpSize; ++w) {
      if (w == t.warp()) continue;
      std::uint32_t c = 0;  // the keys of warp w below mine
      for (std::uint32_t step = kLanes; step >= 1; step /= 2) {
        if (c + step > kLanes) continue;
        const std::int64_t at = w * kWarpSize + c + step - 1;
        if (slot_key(at) < key) c += step;
      }
      r += c;
      if (next != nullptr && c < kLanes) {
        const std::uint64_t above = slot_key(w * kWarpSize + c);
        after = above < after ? above : after;
      }
    }
    if (next != nullptr) *next = after;
    return r;
  };
  // The `size` keys of keys[t] (thread t: slot key_slot(t) < size) sorted into into[0, size)
  // by pairwise merges: each warp's keys in its lanes' registers (WarpSortSlots), stored at the
  // lanes' slots of warp_slots, then merges of the 32 runs keeping the first `size` (MergeRuns,
  // gpu/block/merge_runs.cuh: 8 barriers, at most 40 reads a key, where a binary search of
  // each other warp's run, rank_in_chunk, takes up to 186); each key stored at its place.
  // Thread t then holds a key in keys[t] and its place in ranks[t] (~0u: padding). 10
  // barriers, the last after the places' stores.
  auto merge_sort = [&](auto& keys, auto& ranks, std::int64_t size, auto& into) {
    auto held = Registers<SlotKeys<1>>(block);
    block.ForEachThread([&](Thread t) { held[t].v[0] = key_slot(t) < size ? keys[t] : kNoKey; });
    WarpSortSlots<1>(block, held);
    block.ForEachThread([&](Thread t) { warp_slots.Store(t.x, held[t].v[0]); });
    block.Sync();
    block.ForEachThread([&](Thread t) { ranks[t] = ~0u; });
    MergeRuns<kCanonicalLanes>(block, warp_slots, held, kWarpSize, kCanonicalLanes / kWarpSize, static_cast<int>(size),
                               [&](Thread t, int position, std::uint64_t) {
                                 ranks[t] = static_cast<std::uint32_t>(position);
                               });
    block.Sync();  // the last merge level's searches read the slots
    block.ForEachThread([&](Thread t) {
      keys[t] = held[t].v[0];
      if (ranks[t] != ~0u) into.Store(ranks[t], keys[t]);
    });
    block.Sync();
  };
  // The rank's chunk into `sorted` (before the chunk loop: nothing else reads either buffer),
  // by merge_sort (its keys ranked by rank_in_chunk, up to 186 reads a key and 2 barriers,
  // until 2026-12-02).
  auto load_sorted = [&](const Entry& e) {
    load_keys(e);
    auto ranks = Registers<std::uint32_t>(block);
    merge_sort(mine, ranks, e.size, sorted);
  };
  // A digit that splits the entry, then its scatter into the other buffer at the same slots.
  // An entry of at most kCachedKeys x 1024 keys is read once into registers (thread t holds
  // keys t, t + 1024, ...) for its counts and its scatter; a larger one is read once per
  // digit tried and once more by the scatter.
  // fine_parts (16 or 32): a splitter bucket's parts below 2^16 keys (comment below).
  auto refine = [&](Entry e, std::uint32_t fine_parts) {
    // A held bucket (level 0's entry of it, in buffer 0): each thread's keys from `cache`,
    // those that did not fit from its own slots; nothing to load first. While one is left,
    // no other refinement loads `cache` (it reads its keys once per count instead).
    int h = -1;
    for (int j = 0; j < kHeldBuckets; ++j) {
      if (held_bucket[j] != kNoHeldBucket && e.bucket == static_cast<int>(held_bucket[j]) + 1 && e.from == 0) h = j;
    }
    if (h >= 0) --held_left;
    const bool cached =
        h < 0 && held_left == 0 && e.size <= static_cast<std::int64_t>(kCachedKeys) * kCanonicalLanes;
    if (cached) {
      block.ForEachThread([&](Thread t) {
        for (int c = 0; c < kCachedKeys; ++c) {
          const std::int64_t j = t.x + static_cast<std::int64_t>(c) * kCanonicalLanes;
          if (j < e.size) cache[t].k[c] = scratch.Load(e.src + j);
        }
      });
    }
    auto entry_keys = [&](Thread t, auto&& f) {
      if (h >= 0) {
        const std::uint32_t at = held[t].at[h], count = held[t].count[h];
        const std::uint32_t room = static_cast<std::uint32_t>(kCachedKeys) - at;  // at <= kCachedKeys
        const std::uint32_t kept = count < room ? count : room;
        for (int c = 0; c < kCachedKeys; ++c) {
          if (static_cast<std::uint32_t>(c) >= at && static_cast<std::uint32_t>(c) < at + kept) f(cache[t].k[c]);
        }
        for (std::uint32_t j = kept; j < count; ++j) f(scratch.Load(scratch_base + held[t].first[h] + j));
        return;
      }
      if (cached) {
        for (int c = 0; c < kCachedKeys; ++c) {
          if (t.x + static_cast<std::int64_t>(c) * kCanonicalLanes < e.size) f(cache[t].k[c]);
        }
        return;
      }
      // By groups of kRowKeysGroup keys in flight, as the row's reads (every key is the entry's).
      // ScanLane with a keep that always holds, not ForEachLaneEntry: that one's four call
      // sites of the scatter's work made ptxas reload its spilled state at each (frame
      // accesses of a group 5 or 6 -> 15 in a scatter's loop; docs/gpu.md "Reading the SASS").
      ScanLane<kRowKeysGroup>(
          t.x, e.size, kCanonicalLanes, [&](std::int64_t j) { return scratch.Load(e.src + j); },
          [](std::uint64_t, std::int64_t) { return true; }, [](std::int64_t, std::uint64_t) {},
          [&](std::int64_t, std::uint64_t key) { f(key); });
    };
    // A splitter bucket [lo, hi]: `parts` parts of equal width of its key range, so that its
    // keys fill the sub-buckets about evenly (a radix digit at the smallest shift where they
    // span at most 16 values leaves 8 to 16 of them used, often sub-buckets just over 1024
    // keys, refined again); a part is refined by the radix digit ending at the highest bit
    // where its bounds differ. Keys in a radix bucket share every bit above its digit. A
    // bucket of fewer than 2^16 keys is cut into the caller's fine_parts (32: two counts to a
    // counter, count's `parts`): the visit's 32, so that adjacent parts fill a chunk more fully
    // (16 parts of a level-0 bucket of about 8000 keys hold about 500, one or two per chunk);
    // the rank's 16 (with 32, top-k 5000 takes a barrier more on a row of the cost test).
    std::uint64_t lo = 0, hi = 0, width = 0;  // width > 0: the digit is (key - lo) / width
    std::uint32_t parts = 16;
    if (e.bucket > 0) {
      parts = e.size < (std::int64_t{1} << 16) ? fine_parts : 16u;
      block.ForEachThread([&](Thread) {
        const int j = e.bucket - 1;
        lo = j == 0 ? smallest : splitter.Load(j - 1) + 1;
        hi = j == 15 ? largest : splitter.Load(j);
        width = (hi - lo) / parts + 1;
      });
    }
    auto part_shift = [&](int d) {
      const std::uint64_t a = lo + static_cast<std::uint64_t>(d) * width;
      const std::uint64_t b = hi - a < width ? hi : a + width - 1;
      return static_cast<std::uint32_t>(ShiftFor(a, b));
    };
    auto digit = [&](std::uint64_t key) {
      return static_cast<std::uint32_t>(width > 0 ? (key - lo) / width : (key >> e.shift) & 15u);
    };
    bool split = count(entry_keys, digit, static_cast<std::uint64_t>(e.size), parts);
    if (!split && width > 0) {  // one part holds every key: its radix digits
      block.ForEachThread([&](Thread) {
        for (std::uint32_t d = 0; d < parts; ++d) {
          if (partition_detail::PartStart(start, d + 1, parts) - partition_detail::PartStart(start, d, parts) ==
              static_cast<std::uint64_t>(e.size)) {
            e.shift = static_cast<int>(part_shift(static_cast<int>(d)));
          }
        }
      });
      width = 0;
      parts = 16;
      split = count(entry_keys, digit, static_cast<std::uint64_t>(e.size));
    }
    while (!split && e.shift > 0) {
      // One digit value holds every key: they share every bit from e.shift up.
      e.shift = e.shift >= 4 ? e.shift - 4 : 0;
      split = count(entry_keys, digit, static_cast<std::uint64_t>(e.size));
    }
    const auto next = static_cast<std::uint32_t>(e.shift >= 4 ? e.shift - 4 : 0);
    scatter(entry_keys, digit, [&](int d) { return width > 0 ? part_shift(d) : next; }, e.first, 1 - e.from, parts);
  };

  // The reach's gap, when the visit gets there: its keys counted again per level-0 bucket and
  // scattered into its slots of buffer 0 (two reads of the row), its buckets pushed in its place.
  auto fill_gap = [&](const Entry& e) {
    auto gap_keys = [&](Thread t, auto&& f) {
      row_keys(t, [&](std::uint64_t key) {
        const std::uint32_t b = bucket(key);
        if (b >= gap_lo && b < gap_hi) f(key);
      });
    };
    (void)count(gap_keys, bucket, static_cast<std::uint64_t>(e.size));
    scatter(gap_keys, bucket, bucket_next, e.first, 0, 16);
  };

  std::uint64_t kth = kNoKey;
  if (rank > 0) {
    // Only the entry holding the rank is refined; the entries before it are set aside (in
    // order) and put back on top afterwards, those after it stay on the stack, so the visit
    // below finds every key and refines nothing twice. Aside entry j lies in slot
    // kPartitionStack - 1 - j and is moved, both ways, by thread j (where thread 0 moved every
    // entry in sequence until 2026-12-02: about 6 accesses an entry, some 15 entries each way
    // at top-k V - 100).
    std::int64_t before = 0, aside = 0;
    auto moved_range = Registers<std::uint64_t>(block);
    auto moved_digit = Registers<std::uint32_t>(block);
    for (;;) {
      // The entries wholly before the rank, found by every thread from their sizes; thread j
      // moves the one that becomes aside entry j in the same phase: no barrier, as those slots
      // lie above every entry read (depth + aside is at most kPartitionStack: "Pending
      // entries").
      std::int64_t new_depth = depth, new_before = before, new_aside = aside;
      block.ForEachThread([&](Thread t) {
        std::int64_t d = depth, b = before, a = aside;
        for (;;) {
          const auto size = static_cast<std::int64_t>(stack_range.Load(d - 1) & 0xffffffffu);
          if (b + size >= rank) break;
          b += size;
          if (t.x == a && kPartitionStack - 1 - a != d - 1) {  // a full stack: already in place
            stack_range.Store(kPartitionStack - 1 - a, stack_range.Load(d - 1));
            stack_digit.Store(kPartitionStack - 1 - a, stack_digit.Load(d - 1));
          }
          ++a, --d;
        }
        new_depth = d, new_before = b, new_aside = a;  // the same in every thread
      });
      depth = new_depth, before = new_before, aside = new_aside;
      const Entry e = pop();  // holds the rank
      if (e.size > kCandidates) {
        refine(e, 16);  // the rank's refinement: 16 parts
        continue;
      }
      // The aside entries into their movers' registers now, where the last ones were stored
      // (by the same threads), so that load_sorted's barriers order these reads before the
      // stores that put them back (the slots may overlap when the stack is nearly full).
      block.ForEachThread([&](Thread t) {
        if (t.x >= aside) return;
        moved_range[t] = stack_range.Load(kPartitionStack - 1 - t.x);
        moved_digit[t] = stack_digit.Load(kPartitionStack - 1 - t.x);
      });
      load_sorted(e);
      ++depth;  // the entry stays on the stack for the visit (its slot was not overwritten)
      break;
    }
    block.ForEachThread([&](Thread t) {
      kth = sorted.Load(rank - before - 1);
      if (t.x >= aside) return;
      const std::int64_t to = depth + (aside - 1 - t.x);
      if (to == kPartitionStack - 1 - t.x) return;  // a full stack: the entry is already in place
      stack_range.Store(to, moved_range[t]);
      stack_digit.Store(to, moved_digit[t]);
    });
    block.Sync();
    depth += aside;
  }
  if (!ready(kth)) return;
  // The chunk loop (contract "Chunk loop"): one barrier per chunk. In each step, the walk
  // takes chunk a's weights, every thread places chunk b (its key's rank from b's warp
  // slots; the weight stored at that rank) and warp-sorts chunk c (the slots of b and c
  // alternate between `warp_slots` and `sorted`, the weights of a and b between the two
  // weight buffers); a refined or filled entry takes the step's place of c, or, when the
  // entry after c is to be refined and neither a, b nor c can end the walk, that entry is
  // refined beside c's sort (its count's barrier is the step's, its scatter's one more), so a
  // refinement leaves no step of the pipeline without a chunk to place. Chunk a's verdict
  // is read after the step's barrier (two verdict slots, alternating); the keys of a and of
  // the chunk before it stay in registers, so that the key of the verdict's position is
  // found when the walk is over (one barrier more, once).
  static_assert(kWeightedVisit<std::decay_t<Visit>>, "the chunk loop takes a WeightedVisit");
  constexpr bool kMarks = !std::is_same_v<decltype(std::decay_t<Visit>::marked), NoPartitionMarks>;
  // An active any-order walk (WeightedVisit): every chunk after the visit's first is placed
  // unsorted (each thread's weight at its key's slot) and walked so; a chunk whose walk needs
  // the order is sorted then (two barriers) and walked again (one more).
  constexpr bool kAnyOrder = !std::is_same_v<decltype(std::decay_t<Visit>::any_order), NoAnyOrderWalk>;
  const bool any_order = visit.any_order.active;
  const std::uint32_t any_order_grid = [&] {
    if constexpr (kAnyOrder) {
      return any_order ? visit.any_order.grid : 0u;
    } else {
      return 0u;
    }
  }();
  // The walk's marks: a bit per position of a chunk, two slots (alternating as the verdicts)
  // in level 0's `low`, free once level 0 has read it.
  static_assert(2 * kPartitionMarkWords <= kWarpSize, "two slots of marks fit in `low`");
  auto& marks = low;
  auto buffers = PartitionChunkWeights(block);
  auto& weights = buffers.wide;
  auto& weight_words = buffers.narrow;
  auto key_b = Registers<std::uint64_t>(block), key_a = Registers<std::uint64_t>(block),
       key_z = Registers<std::uint64_t>(block);
  auto below_b = Registers<std::uint32_t>(block), rank_b = Registers<std::uint32_t>(block),
       rank_a = Registers<std::uint32_t>(block), rank_z = Registers<std::uint32_t>(block);
  bool has_a = false, has_b = false, second_a = false, second_b = false, second_next = false, slot = false;
  bool sorted_z = true, sorted_a = true, sorted_b = true;  // unsorted: placed for the any-order walk
  std::int64_t safe = 0;  // keys after the last chunk walked that cannot end the walk
  std::int64_t size_a = 0, size_b = 0, size_z = 0, base_a = 0, base_b = 0, base_next = 0;
  constexpr std::uint64_t kPosition = 0xffffffffu;
  // The key at `position` (a's, or the last of the chunk before a) to the visitor. An unsorted
  // chunk's walk ends only at its last position, its largest key: each warp's by a WarpMin of
  // the complements, the block's by CombineWarpValues over the warps' (one barrier more, once
  // a visit).
  auto finish = [&](bool stopped, std::uint64_t position) {
    const std::int64_t j = static_cast<std::int64_t>(position) - base_a;  // 0: the chunk before a
    if (j >= 1 ? !sorted_a : !sorted_z) {
      auto top = Registers<std::uint64_t>(block);
      block.ForEachThread([&](Thread t) {
        top[t] = key_slot(t) < (j >= 1 ? size_a : size_z) ? ~(j >= 1 ? key_a[t] : key_z[t]) : ~std::uint64_t{0};
      });
      WarpMin(block, top);
      block.ForEachThread([&](Thread t) {
        if (t.lane() == 0) warp_slots.Store(t.warp(), top[t]);
      });
      block.Sync();
      const std::uint64_t least = CombineWarpValues<std::uint64_t>(
          block, kCanonicalLanes / kWarpSize, ~std::uint64_t{0}, [&](int w) { return warp_slots.Load(w); },
          [](std::uint64_t a, std::uint64_t b) { return b < a ? b : a; });
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) uniform.Store(2, ~least);
      });
    } else {
      block.ForEachThread([&](Thread t) {
        if (j >= 1 && rank_a[t] == static_cast<std::uint32_t>(j - 1)) uniform.Store(2, key_a[t]);
        if (j == 0 && rank_z[t] == static_cast<std::uint32_t>(size_z - 1)) uniform.Store(2, key_z[t]);
      });
    }
    block.Sync();
    std::uint64_t key = 0;
    block.ForEachThread([&](Thread) { key = uniform.Load(2); });
    visit.finish(stopped, key);
  };
  // A sorted chunk's key at its rank (rank_in_chunk, from the warps' slots in `sorted` when
  // slots_second, else in warp_slots), the pair's weight word stored by the thread of its even
  // rank into the weights of weights_second; ~0u past the chunk.
  // The weight word of ranks 2j and 2j + 1: the weights of `key` and `next` (0 for kNoKey, past
  // the chunk).
  auto pair_word = [&](std::uint64_t key, std::uint64_t next) {
    return FloatWord(visit.weight(key)) | (next != kNoKey ? FloatWord(visit.weight(next)) << 32 : std::uint64_t{0});
  };
  auto place = [&](Thread t, std::uint64_t key, std::uint32_t in_warp, std::int64_t size, bool slots_second,
                   bool weights_second) {
    if (key_slot(t) >= size) return ~0u;
    std::uint64_t next = kNoKey;
    const std::uint32_t r = rank_in_chunk(t, key, in_warp, size, slots_second, &next);
    if (r % 2 == 0) (weights_second ? weight_words : weights).Store(r / 2, pair_word(key, next));
    return r;
  };
  // The any-order walk's parts of a chunk in buffer `second` (AnyOrderParts on any_order.grid):
  // 32 words of `weights` past the kCandidates / 2 that hold weights, a set for each buffer.
  auto parts_of = [&](bool second) {
    return AnyOrderParts<decltype(weights.View())>{weights.View(), kCandidates / 2 + (second ? kWarpSize : 0),
                                                   any_order_grid};
  };
  // An unsorted chunk's weights at its keys' slots (slot j: thread 1023 - j), two to a word: the
  // thread of the even slot takes the odd slot's weight from its neighbour lane (one shuffle);
  // with an any-order grid, each warp's part of them (StoreAnyOrderParts: a store a warp), so
  // that the walk reads 32 parts where it read the chunk's 512 words.
  auto place_unsorted = [&](auto& keys, std::int64_t size, bool weights_second) {
    auto w = Registers<std::uint64_t>(block);
    block.ForEachThread([&](Thread t) { w[t] = key_slot(t) < size ? FloatWord(visit.weight(keys[t])) : 0u; });
    auto odd = ShuffleXor(block, w, 1);  // lane ^ 1 holds slot + 1 for an even slot (an odd lane)
    block.ForEachThread([&](Thread t) {
      if (key_slot(t) >= size || key_slot(t) % 2 != 0) return;
      (weights_second ? weight_words : weights).Store(key_slot(t) / 2, w[t] | odd[t] << 32);
    });
    if (any_order_grid == 0) return;
    StoreAnyOrderParts(
        block,
        [&](Thread t, std::uint32_t& bits) {
          bits = static_cast<std::uint32_t>(w[t]);
          return key_slot(t) < size;
        },
        parts_of(weights_second));
  };
  // Chunk a's walk (sorted: walk; else the any-order walk), thread 0's verdict into its slot.
  auto walk_a = [&] {
    // Two weights a shared read: the walk reads word i for positions 2i and 2i + 1. Views,
    // passed by value: thread 0's part of the walk runs out of line (TopPWalkWords).
    const auto words = (second_a ? weight_words : weights).View();
    auto store = [&](auto& verdict) {
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) uniform.Store(slot ? 1 : 0, verdict[t]);
      });
    };
    if (sorted_a) {
      auto verdict = [&] {
        if constexpr (kMarks) {
          return visit.walk(static_cast<std::uint32_t>(size_a), words,
                            PartitionChunkMarks<decltype(marks.View())>{marks.View(), slot ? kPartitionMarkWords : 0});
        } else {
          return visit.walk(static_cast<std::uint32_t>(size_a), words);
        }
      }();
      store(verdict);
    } else if (base_a == 0) {  // a first chunk left unsorted needs the order (its walk starts from E = 0)
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) uniform.Store(slot ? 1 : 0, kPartitionChunkUnordered);
      });
    } else {
      if constexpr (kAnyOrder) {
        auto verdict = visit.any_order.walk(static_cast<std::uint32_t>(size_a), words, parts_of(second_a));
        store(verdict);
      }
    }
  };
  // A step's entries, kept for a redo: a pass of the loop that walks a again, sorted, and does
  // nothing else (its walk has one call site: a second one made ptxas pass the walk's rule
  // through the stack frame and reload it in thread 0's steps, tests/sass_loop_check.py).
  Entry c{}, next{};
  bool step = false, has_c = false, ahead = false, sorted_c = true, redo = false;
  for (;;) {
    if (!redo) {
      c = Entry{};
      step = false, has_c = false;
      if (depth > 0) {
        c = pop();
        step = true;
        has_c = c.size <= kCandidates && !c.unscattered;
        // A chunk is read while a, which may end the walk, waits only when the walk ends there
        // (b's read is then spent for nothing, as the staged chunk's was); a refined entry (a read
        // and a store of its keys) or the reach's gap (two reads of the row) only once a and b
        // cannot end it. Otherwise the entry waits: its slot was not overwritten.
        const std::int64_t waiting = (has_a ? size_a : 0) + (has_b ? size_b : 0);
        if (has_c ? has_a && safe < size_a : waiting > 0 && safe < waiting) put_back(c), step = false, has_c = false;
      }
      // The entry after chunk c, refined in this step when it must be and no key before it can
      // end the walk (a refinement is never made for nothing); else it waits on the stack.
      next = Entry{};
      ahead = false;
      if (has_c && depth > 0) {
        next = pop();
        const std::int64_t before_next = (has_a ? size_a : 0) + (has_b ? size_b : 0) + c.size;
        ahead = next.size > kCandidates && !next.unscattered && safe >= before_next;
        if (!ahead) put_back(next);
      }
      if (!step && !has_a && !has_b) {  // every key walked: the last one, the last of the chunk before a
        base_a = base_next;
        return finish(false, static_cast<std::uint64_t>(base_next));
      }
    }
    if (has_a) walk_a();
    if (!redo) {
      if (has_b && sorted_b) {
        block.ForEachThread([&](Thread t) { rank_b[t] = place(t, key_b[t], below_b[t], size_b, second_b, second_b); });
      } else if (has_b) {
        if (base_b > 0) place_unsorted(key_b, size_b, second_b);  // a first chunk's weights: placed sorted
        block.ForEachThread([&](Thread t) { rank_b[t] = ~0u; });
      }
      // The visit's first chunk is sorted in any case: its walk starts from E = 0, whose binade
      // no weight of it is at or below (an any-order walk would fail there). One of more than
      // kFirstChunkRanked keys is sorted by the redo's merges instead of the pipeline's ranks
      // (rank_in_chunk: 7 reads for each other warp that holds its keys, 211 at 1024 keys;
      // the merges about 50 for 13 barriers more), its any-order walk skipped (walk_a).
      constexpr std::int64_t kFirstChunkRanked = 512;
      sorted_c = !any_order || (base_next == 0 && c.size <= kFirstChunkRanked);
      if (has_c && sorted_c) {
        warp_sort_into(c, second_next);
      } else if (has_c) {
        load_keys(c);
      } else if (step && c.unscattered) {
        fill_gap(c);
      }
      if (ahead || (step && !has_c && !c.unscattered)) refine(ahead ? next : c, 32);  // one call: inlined once
    }
    if (redo || (has_c && !ahead) || !step) block.Sync();
    if (has_a) {
      std::uint64_t verdict = 0;
      block.ForEachThread([&](Thread) { verdict = uniform.Load(slot ? 1 : 0); });
      if constexpr (kAnyOrder) {
        if ((verdict >> 62) == 3) {
          // The any-order walk needs a in order: sorted from its keys in registers by
          // merge_sort in warp_slots (free: only the visit's first chunk is sorted in the
          // pipeline), its weights placed again in its buffer (its walk read them before the
          // barrier), then walked by a redo: the thread of an even place reads the next key
          // for its weight word. Thread t then holds the key of lane slot t (key_a) and its
          // place (rank_a; ~0u for the padding).
          merge_sort(key_a, rank_a, size_a, warp_slots);
          block.ForEachThread([&](Thread t) {
            const std::uint32_t r = rank_a[t];
            if (r == ~0u || r % 2 != 0) return;
            const std::uint64_t next = r + 1 < size_a ? warp_slots.Load(r + 1) : kNoKey;
            (second_a ? weight_words : weights).Store(r / 2, pair_word(key_a[t], next));
          });
          block.Sync();
          sorted_a = true;
          redo = true;
          continue;
        }
      }
      redo = false;
      block.ForEachThread([&](Thread t) {
        if constexpr (kMarks) {  // the marked keys of a, by the threads that placed them
          if ((verdict & kPartitionChunkMarked) == 0 || rank_a[t] == ~0u) return;
          const std::uint64_t word = marks.Load((slot ? kPartitionMarkWords : 0) + rank_a[t] / 64);
          if (((word >> (rank_a[t] % 64)) & 1u) != 0) {
            visit.marked(t, key_a[t], static_cast<std::uint64_t>(base_a + rank_a[t] + 1));
          }
        }
      });
      slot = !slot;
      safe = static_cast<std::int64_t>((verdict >> 32) & 0x1fffffffu);
      if ((verdict >> 62) != 0) return finish((verdict >> 62) == 1, verdict & kPosition);
    }
    // Chunk a becomes the one before, b becomes a, c becomes b.
    block.ForEachThread([&](Thread t) {
      if (has_a) key_z[t] = key_a[t], rank_z[t] = rank_a[t];
      key_a[t] = key_b[t], rank_a[t] = rank_b[t];
      key_b[t] = mine[t], below_b[t] = below[t];
    });
    if (has_a) size_z = size_a, sorted_z = sorted_a;
    sorted_a = sorted_b;
    if (has_c) sorted_b = sorted_c;
    has_a = has_b, size_a = size_b, base_a = base_b, second_a = second_b;
    has_b = has_c, size_b = has_c ? c.size : 0, base_b = base_next, second_b = second_next;
    if (has_c) base_next += c.size, second_next = !second_next;
  }
}

template <class B, class Arr, class Scratch, class Shared, class Visit>
SAMPCHECK_KERNEL_BODY void VisitKeysInOrder(B& block, Arr row, std::int64_t base, std::int64_t vocab, bool ascending,
                                            bool has_lo, std::uint64_t lo, std::uint64_t hi, Scratch scratch,
                                            std::int64_t scratch_base, Shared& sorted, Visit&& visit) {
  PartitionAndVisit(
      block, row, base, vocab, ascending, has_lo, lo, hi, scratch, scratch_base, sorted, true, true, VisitBound::kAll,
      [](std::uint64_t, std::uint64_t, std::uint64_t) { return std::int64_t{0}; }, NoPartitionFold{},
      [](std::uint64_t) { return true; }, visit);
}

}  // namespace sampcheck::gpu
