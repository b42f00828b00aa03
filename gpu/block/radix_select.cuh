// SPDX-License-Identifier: Apache-2.0
#pragma once
// Block-level selection machinery of the filter kernels (gpu/kernels/top_k.cuh, gpu/kernels/top_p.cuh,
// gpu/kernels/min_p.cuh, gpu/kernels/sampling_filters.cuh): the canonical order's 64-bit keys, a radix select
// of the n-th key of a row, an exact block count, the gather and bitonic sort of a small
// candidate set, and the canonical softmax statistics of a row (docs/spec/filters.md "Order",
// "Selection instead of a full sort"; docs/gpu.md).
//
// Contract:
// - Order keys (reference/filter_order.h DescendingKey): value bits with -0.0 folded onto +0.0,
//   mapped to an unsigned key monotone in the value (negative: complement all bits;
//   non-negative: set the sign bit); complemented for the descending order; in the high 32
//   bits, the index in the low 32. Ascending keys (vLLM's ascending walk: smaller value first,
//   equal values by increasing index) keep the monotone key uncomplemented. Keys are unique
//   per row, so "the n-th key" names exactly one entry. Rows hold no NaN (the glue rejects
//   them; a NaN's descending key is 0: logprobs' top-n puts NaN first); -inf has the largest
//   descending key among values.
// - SelectKth: radix select, 4-bit digits from the top of the 64-bit key; each pass counts
//   the entries under the current prefix per digit (a thread's 16 counts, summed per warp by
//   shuffles and over the 32 warps through shared memory: exact integers), picks the digit holding rank n and
//   stops early, with one more read of the row, once that digit holds a single entry, or at
//   most 8 per warp (those are gathered into shared memory in that read, and the one with
//   n' - 1 keys below it, n' the rank left in the digit, is rank n: keys are unique). Index
//   digits above the bit length of V - 1 are known zeros and skipped. O(V) per pass (a
//   QuadKeySource's four entries a load: a global f32 row's, RowOrderKeys), at most 8 + 8
//   passes; no sort. Integer counts: exact in any order, so deterministic.
// - SumDigitCounts, SlotsOfDigit: the block's exact sums of 16 per-thread counts and each
//   thread's first slot for one of them (SelectKth's passes and its gather; the sample select,
//   gpu/block/sample_select.cuh, counts its bins with them too); DigitOfRank: the digit of
//   those sums that holds a rank, computed alike by every warp (both of them).
// - CountFinite: the row's entries that are not -inf, an exact count (BlockExclusiveScan,
//   gpu/block/block_exclusive_scan.cuh).
// - CollectSorted: the entries with lo < key <= hi (at most kCandidates = 1024 of them, the
//   caller's guarantee) in shared memory at their offsets (BlockExclusiveScan), sorted by key
//   ascending by the warp-aware bitonic network over the next power of two of their count
//   (gpu/block/bitonic_sort.cuh; the other slots hold pad = UINT64_MAX, so the 1024 slots are
//   those of a full sort).
// - RowSoftmaxStats: M = canonical max, s = canonical sum of ExpF32Cr(x - M) (the lane folds
//   and tree of gpu/kernels/softmax.cuh): probs_i = ExpF32Cr(x_i - M) / s are SoftmaxRow's bits.
//   Its sum and RowMaxProb read a lane's entries kLaneSumGroup at a time (ForEachLaneEntry,
//   gpu/block/lane_scan.cuh), the same operations in the same order. Both are out of line on
//   the device (SAMPCHECK_OUT_OF_LINE): with a group's four exponentials in line, a caller's
//   other loops lost registers (the ascend kernel's visit loop: 8 frame loads and 10 stores a
//   group of four where it had none).
// - Every helper ends with a barrier, so its shared arrays may be reused by the next call;
//   DigitOfRank excepted: it only loads hist, which SumDigitCounts stores after a barrier.
//   Values every thread needs ("uniform") are computed alike by every warp (DigitOfRank), or
//   written by one thread to shared memory and read by every thread in the next phase into a
//   block-level local.
// Example: row {1, 3, 3, 2}: SelectKth(n = 2) is the key of (3, index 2); n = 3 is (2, index 3)
//   (tests/gpu_kernels_test.cc, GpuRadixSelect).

#include <cstdint>
#include <cstring>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/key_reads.cuh"
#include "gpu/block/lane_scan.cuh"
#include "gpu/block/warp_min.cuh"
#include "gpu/kernels/greedy.cuh"
#include "reference/math/exp.h"

namespace sampcheck::gpu {

inline constexpr int kCandidates = 1024;  // CollectSorted's capacity: one slot per thread
inline constexpr std::uint64_t kNoKey = ~std::uint64_t{0};
// The monotone (ascending) value key of -inf, and the largest descending key of a finite value
// (-FLT_MAX's, index bits all ones): `key <= kLastFiniteDescending` iff the value is finite.
inline constexpr std::uint32_t kAscendingNegInf = 0x007fffffu;
inline constexpr std::uint64_t kLastFiniteDescending = (std::uint64_t{0xff7fffffu} << 32) | 0xffffffffu;
inline constexpr std::uint64_t kLastNegInfAscending = (std::uint64_t{kAscendingNegInf} << 32) | 0xffffffffu;
// The descending value key of +inf: a row whose first descending key (its smallest) has a value
// key <= this holds a NaN (value key 0) or a +inf, a degenerate row (docs/spec/filters.md).
inline constexpr std::uint32_t kDescendingPosInf = 0x007fffffu;
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool IsDegenerateFirstKey(std::uint64_t key) {
  return (key >> 32) <= kDescendingPosInf;
}

// A value's bits with -0.0 folded onto +0.0 (they tie, docs/spec/filters.md "Order") and its
// sign spread over the word (an arithmetic shift, C++20).
struct FoldedValueBits {
  std::uint32_t u;
  std::uint32_t sign;
};
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE FoldedValueBits FoldValueBits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if (u == 0x80000000u) u = 0;
  return {u, static_cast<std::uint32_t>(static_cast<std::int32_t>(u) >> 31)};
}
// Monotone increasing in the value: negative values flip every bit, others set the sign bit,
// u ^ (sign | 2^31). The descending key is its complement, written as u ^ (~sign & (2^31 - 1))
// so that nvcc makes it one 3-input logic operation (it left a NOT apart after the ascending
// one). Each takes 4 instructions with the fold in the SASS of nvcc 13.0, where selecting
// between ~u and u | 2^31 took 6 (docs/gpu.md "Reading the SASS").
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t AscendingValueKey(float x) {
  const FoldedValueBits b = FoldValueBits(x);
  return b.u ^ (b.sign | 0x80000000u);
}
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t DescendingValueKey(float x) {
  const FoldedValueBits b = FoldValueBits(x);
  return b.u ^ (~b.sign & 0x7fffffffu);
}

// Descending: every NaN first (value key 0, ties by index), as logprobs' top-n order
// (docs/spec/logprobs.md); the filters never see NaN.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t OrderKey(float x, std::int64_t index, bool ascending) {
  const std::uint32_t v = ascending ? AscendingValueKey(x) : (IsNan(x) ? 0u : DescendingValueKey(x));
  return (std::uint64_t{v} << 32) | static_cast<std::uint32_t>(index);
}

// Whether descending key `key` is within top-k's bound `kth`, the k-th key (docs/spec/filters.md
// "top_k", "Kept set"): at or before it, or with ties kept every key whose value ties kth's or
// is larger (a value key <= kth's).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool WithinTopKBound(std::uint64_t key, std::uint64_t kth, bool ties) {
  return ties ? (key >> 32) <= (kth >> 32) : key <= kth;
}

// The keys OrderKey(row[base + i], i, ascending) of a row as a split key source
// (gpu/block/key_reads.cuh), and a QuadKeySource when the row is a global f32 array (Load4 and
// BoundaryGap): the reads whose result does not depend on which thread sees which index (the
// radix select's exact counts, CollectSorted's gather before its sort, the partition's first
// read without a sample) take four entries a load. A canonical lane sum keeps its strided read:
// its order is the result.
template <class Arr>
struct RowOrderKeys {
  Arr row;
  std::int64_t base = 0;
  bool ascending = false;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Load(std::int64_t i) const { return row.Load(base + i); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE auto Load4(std::int64_t i) const
    requires requires(const Arr& a) { a.Load4(i); }
  {
    return row.Load4(base + i);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t BoundaryGap(std::int64_t i) const
    requires requires(const Arr& a) { a.BoundaryGap(i); }
  {
    return row.BoundaryGap(base + i);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t Key(std::int64_t i, float x) const {
    return OrderKey(x, i, ascending);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t operator()(std::int64_t i) const {
    return Key(i, Load(i));
  }
};
template <class Arr>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE RowOrderKeys<Arr> OrderKeysOf(Arr row, std::int64_t base, bool ascending) {
  return {row, base, ascending};
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool IsNegInf(float x) { return x < -0x1.fffffep+127f; }

// A thread's digit counts during one radix pass (16 registers on the device).
struct DigitCounts {
  std::uint32_t c[16];
};

// c[digit] += add and c[digit], digit < 16, written as 16 updates or selects with constant
// indices: an array that a thread indexes by a run-time value lives in local memory on the
// device (a local read and write per key, through L1 and L2 once the block's frames outgrow
// L1), while constant indices keep it in registers. Each entry gets the same additions in the
// same order, so counts, slots and masses are unchanged.
template <class T, int N>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void AddAt(T (&c)[N], std::uint32_t at, T add) {
  for (int j = 0; j < N; ++j) c[j] = static_cast<std::uint32_t>(j) == at ? c[j] + add : c[j];
}
template <class T, int N>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE T ValueAt(const T (&c)[N], std::uint32_t at) {
  T v = c[0];
  for (int j = 1; j < N; ++j) v = static_cast<std::uint32_t>(j) == at ? c[j] : v;
  return v;
}

// The number of entries of row [base, base + vocab) that are not -inf (finite: no NaN or +inf
// reaches a filter), read as SelectKth reads (an exact count: a global f32 row four entries a
// load). Ends with a barrier, as every helper here: the scan's warp sums are free.
template <class B, class Arr>
SAMPCHECK_KERNEL_BODY std::int64_t CountFinite(B& block, Arr row, std::int64_t base, std::int64_t vocab) {
  const auto key_of = OrderKeysOf(row, base, false);
  const KeyPartition part = PartitionKeys(key_of, vocab, kCanonicalLanes);
  auto count = Registers<std::uint32_t>(block);
  block.ForEachThread([&](Thread t) {
    std::uint32_t c = 0;
    // Descending keys: -inf's lie above kLastFiniteDescending, a NaN's (0) and +inf's below.
    ForEachPartitionKey(key_of, part, t.x,
                        [&](std::int64_t, std::uint64_t key) { c += key > kLastFiniteDescending ? 0u : 1u; });
    count[t] = c;
  });
  std::uint32_t total = 0;
  BlockExclusiveScan<kCanonicalLanes>(block, count, total);
  block.Sync();
  return total;
}

// hist[d] = the sum over the block's threads of digits[t].c[d], d < 16: exact integer sums in
// any order. Each warp's by a butterfly (WarpAllReduce), lane d storing digit d's in `partial`
// (16 x kThreads / 32 slots of at least 32 bits; one store a lane), a barrier, then warp w
// sums digit w (and w + kThreads / 32, ..): lane j loads warp j's sum and a butterfly adds them
// (one load a lane), and its lane 0 stores hist[d]. Until 2026-12-02 lane 0 stored the 16
// sums in turn and threads 0 .. 15 each loaded kThreads / 32 sums in sequence (16 + 32 shared
// accesses at 1024 threads). Ends with a barrier.
template <int kThreads, class B, class R, class SharedPartial, class SharedU32>
SAMPCHECK_KERNEL_BODY void SumDigitCounts(B& block, R& digits, SharedPartial& partial, SharedU32& hist) {
  constexpr int kWarps = kThreads / kWarpSize;
  auto add = [](std::uint32_t a, std::uint32_t b) { return a + b; };
  for (int digit = 0; digit < 16; ++digit) {
    auto c = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) { c[t] = digits[t].c[digit]; });
    WarpAllReduce(block, c, add);
    block.ForEachThread([&](Thread t) {
      if (t.lane() == digit) partial.Store(digit * kWarps + t.warp(), c[t]);
    });
  }
  block.Sync();
  for (int first = 0; first < 16; first += kWarps) {
    auto c = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) {
      const int digit = first + t.warp();
      c[t] = digit < 16 && t.lane() < kWarps ? static_cast<std::uint32_t>(partial.Load(digit * kWarps + t.lane())) : 0u;
    });
    WarpAllReduce(block, c, add);
    block.ForEachThread([&](Thread t) {
      if (t.lane() == 0 && first + t.warp() < 16) hist.Store(first + t.warp(), c[t]);
    });
  }
  block.Sync();
}

// Rank n's digit among the 16 counts of hist (readable: after SumDigitCounts): the first d
// with n <= hist[0] + .. + hist[d], or 15 when n is past hist[0] + .. + hist[14]; `rank`
// = n - (hist[0] + .. + hist[d - 1]) and `count` = hist[d]. Lane j of every warp loads
// hist[j] (j < 16), a butterfly scan (WarpButterflyScan) gives each its prefix, a Ballot the
// first lane holding n, and that lane's count and prefix reach every lane (WarpWordOfLane):
// one shared load a thread and no barrier, the same in every warp (block-uniform). Until
// 2026-12-02 thread 0 searched the 16 counts (up to 30 loads in sequence) and stored the
// answer for every thread to read after a barrier, and another barrier.
struct DigitRank {
  int digit;
  std::uint64_t rank;
  std::uint32_t count;
};
template <class B, class SharedU32>
SAMPCHECK_KERNEL_BODY DigitRank DigitOfRank(B& block, SharedU32& hist, std::uint64_t n) {
  auto count = Registers<std::uint32_t>(block);
  auto sum = Registers<std::uint32_t>(block);
  auto before = Registers<std::uint32_t>(block);
  block.ForEachThread([&](Thread t) {
    count[t] = t.lane() < 16 ? static_cast<std::uint32_t>(hist.Load(t.lane())) : 0u;
    sum[t] = count[t];
    before[t] = 0u;
  });
  WarpButterflyScan(block, sum, before);
  auto holds = Registers<bool>(block);
  block.ForEachThread([&](Thread t) { holds[t] = t.lane() < 15 && n <= std::uint64_t{before[t]} + count[t]; });
  const auto mask = Ballot(block, holds);
  auto digit = Registers<int>(block);
  block.ForEachThread([&](Thread t) { digit[t] = mask[t] != 0 ? LowestLane(mask[t]) : 15; });
  const auto word = WarpWordOfLane(
      block, [&](Thread t) { return digit[t]; },
      [&](Thread t) { return std::uint64_t{count[t]} << 32 | before[t]; });
  const std::uint64_t at = BlockUniform(block, word);
  return {BlockUniform(block, digit), n - (at & 0xffffffffu), static_cast<std::uint32_t>(at >> 32)};
}

// Each thread's first slot when every thread writes its digits[t].c[digit] entries one after
// the other (`digit` the same in every thread), in thread order: BlockExclusiveScan, one
// barrier and none at the end (its contract: the caller's next barrier comes before another
// scan).
template <int kThreads, class B, class R>
SAMPCHECK_KERNEL_BODY auto SlotsOfDigit(B& block, R& digits, int digit) {
  auto count = Registers<std::uint32_t>(block);
  block.ForEachThread([&](Thread t) { count[t] = digits[t].c[digit]; });
  std::uint32_t total = 0;
  return BlockExclusiveScan<kThreads>(block, count, total);
}

// The key of rank n (1-based, 1 <= n <= vocab) among key_of(0 .. vocab - 1) (unique 64-bit
// keys, the index in the low 32 bits), by a block of kThreads threads (a multiple of 32, at
// most 1024; thread t reads the indices t, t + kThreads, ..., or four entries a load from a
// QuadKeySource: PartitionKeys, gpu/block/key_reads.cuh): the radix select of the contract
// above. gpu-fast selects its top-k bound with it too (gpu/fast/fast_sampling.cuh).
template <int kThreads, class B, class KeyOf>
SAMPCHECK_KERNEL_BODY std::uint64_t SelectKthKey(B& block, std::int64_t vocab, KeyOf key_of, std::int64_t n) {
  static_assert(kThreads % kWarpSize == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  constexpr int kWarps = kThreads / kWarpSize;
  SAMPCHECK_SHARED(block, std::uint32_t, partial, 16 * kWarps);
  SAMPCHECK_SHARED(block, std::uint32_t, hist, 16);
  SAMPCHECK_SHARED(block, std::uint64_t, state, 1);  // the key found
  int index_bits = 0;
  while (index_bits < 32 && (std::int64_t{1} << index_bits) < vocab) ++index_bits;
  const int index_digits = (index_bits + 3) / 4;
  // Exact counts, and gathered keys ranked by comparison: any partition of the row gives the
  // same key, so a QuadKeySource's is read four entries a load.
  const KeyPartition part = PartitionKeys(key_of, vocab, kThreads);
  std::uint64_t prefix = 0;
  std::uint64_t rank = static_cast<std::uint64_t>(n);
  auto digits = Registers<DigitCounts>(block);
  for (int step = 0; step < 8 + index_digits; ++step) {
    // Value digits at shifts 60 .. 32, then index digits from the highest one needed down to 0.
    const int shift = step < 8 ? 60 - 4 * step : 4 * (index_digits - 1 - (step - 8));
    const std::uint64_t high = shift + 4 >= 64 ? 0 : (kNoKey << (shift + 4));
    block.ForEachThread([&](Thread t) {
      DigitCounts d{};
      ForEachPartitionKey(key_of, part, t.x, [&](std::int64_t, std::uint64_t key) {
        if ((key & high) == prefix) AddAt(d.c, static_cast<std::uint32_t>(key >> shift) & 15u, 1u);
      });
      digits[t] = d;
    });
    SumDigitCounts<kThreads>(block, digits, partial, hist);
    // No barrier after it: hist is stored again only after the next pass's first barrier.
    const DigitRank at = DigitOfRank(block, hist, rank);
    prefix |= static_cast<std::uint64_t>(at.digit) << shift;
    rank = at.rank;
    const std::uint64_t in_digit = at.count;
    if (in_digit == 1 && shift > 0) {
      // One entry left under the prefix: find it.
      const std::uint64_t known = kNoKey << shift;
      block.ForEachThread([&](Thread t) {
        ForEachPartitionKey(key_of, part, t.x, [&](std::int64_t, std::uint64_t key) {
          if ((key & known) == prefix) state.Store(0, key);
        });
      });
      block.Sync();
      block.ForEachThread([&](Thread) { prefix = state.Load(0); });
      block.Sync();
      return prefix;
    }
    if (in_digit <= static_cast<std::uint64_t>(8 * kWarps) && shift > 0) {
      // Few keys left under the prefix (8 per warp: as many as `partial` holds, two words
      // each): gather them in one read and pick the one with `rank - 1` keys below it, instead
      // of a read per further digit. Slots: each thread's count of this pass, in thread order
      // (any fixed order will do: the keys are unique and ranked by comparison).
      const std::uint64_t known = kNoKey << shift;
      // Next barrier: the Sync after the gather.
      auto slot = SlotsOfDigit<kThreads>(block, digits, static_cast<int>((prefix >> shift) & 15u));
      block.ForEachThread([&](Thread t) {
        std::uint32_t at = slot[t];
        ForEachPartitionKey(key_of, part, t.x, [&](std::int64_t, std::uint64_t key) {
          if ((key & known) != prefix) return;
          partial.Store(2 * at, static_cast<std::uint32_t>(key >> 32));
          partial.Store(2 * at + 1, static_cast<std::uint32_t>(key));
          ++at;
        });
      });
      block.Sync();
      auto key_in = [&](std::uint64_t j) {
        return (std::uint64_t{partial.Load(2 * j)} << 32) | partial.Load(2 * j + 1);
      };
      block.ForEachThread([&](Thread t) {
        if (static_cast<std::uint64_t>(t.x) >= in_digit) return;
        const std::uint64_t mine = key_in(t.x);
        std::uint64_t below = 0;
        for (std::uint64_t j = 0; j < in_digit; ++j) below += key_in(j) < mine ? 1u : 0u;
        if (below + 1 == rank) state.Store(0, mine);
      });
      block.Sync();
      block.ForEachThread([&](Thread) { prefix = state.Load(0); });
      block.Sync();
      return prefix;
    }
  }
  return prefix;
}

// The key of rank n (1-based, 1 <= n <= vocab) of row [base, base + vocab) in the descending
// (or ascending) order; a global f32 row four entries a load (RowOrderKeys).
template <class B, class Arr>
SAMPCHECK_KERNEL_BODY std::uint64_t SelectKth(B& block, Arr row, std::int64_t base, std::int64_t vocab, bool ascending,
                                              std::int64_t n) {
  return SelectKthKey<kCanonicalLanes>(block, vocab, OrderKeysOf(row, base, ascending), n);
}

// The entries with lo < key <= hi (every key when !has_lo on the low side) of row [base, base +
// vocab), sorted ascending by key into `sorted` (kCandidates slots, the tail kNoKey), read as
// SelectKth reads. The caller guarantees at most kCandidates of them; returns how many.
template <class B, class Arr, class Shared>
SAMPCHECK_KERNEL_BODY std::uint32_t CollectSorted(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                  bool ascending, bool has_lo, std::uint64_t lo, std::uint64_t hi,
                                                  Shared& sorted) {
  auto in_range = [&](std::uint64_t key) { return (!has_lo || key > lo) && key <= hi; };
  // The gathered keys are sorted below: any partition of the row gives the same slots' keys.
  const auto key_of = OrderKeysOf(row, base, ascending);
  const KeyPartition part = PartitionKeys(key_of, vocab, kCanonicalLanes);
  auto count = Registers<std::uint32_t>(block);
  block.ForEachThread([&](Thread t) {
    std::uint32_t c = 0;
    ForEachPartitionKey(key_of, part, t.x, [&](std::int64_t, std::uint64_t key) { c += in_range(key); });
    count[t] = c;
  });
  std::uint32_t total = 0;
  auto offset = BlockExclusiveScan<kCanonicalLanes>(block, count, total);
  block.ForEachThread([&](Thread t) {  // the scan's next barrier ends this phase
    std::uint32_t at = offset[t];
    ForEachPartitionKey(key_of, part, t.x, [&](std::int64_t, std::uint64_t key) {
      if (in_range(key)) sorted.Store(at++, key);
    });
    PadSortSlots<kCanonicalLanes>(t, sorted, total, kSortSlots);
  });
  block.Sync();
  // Slots total .. 1023 hold kNoKey, above every key: sorting the next power of two of them
  // leaves the same 1024 slots as a full network would.
  BitonicSortSlots<kCanonicalLanes>(block, sorted, total);
  return total;
}

struct SoftmaxStats {
  float max;  // M: canonical max of the row
  float sum;  // s: canonical sum of ExpF32Cr(x - M)
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Prob(float x) const { return math::ExpF32Cr(x - max) / sum; }
};

template <class B, class Arr>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY SoftmaxStats RowSoftmaxStats(B& block, Arr row, std::int64_t base,
                                                                         std::int64_t vocab) {
  auto lane = Registers<float>(block);
  block.ForEachThread([&](Thread t) {
    float m = NegativeInfinity();
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) m = MaxCombine{}(m, row.Load(base + i));
    lane[t] = m;
  });
  auto m = CanonicalBlockReduce<float>(block, lane, MaxCombine{});
  block.ForEachThread([&](Thread t) {
    float acc = -0.0f;  // the sum's identity
    ForEachLaneEntry<kLaneSumGroup>(
        t.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return row.Load(base + i); },
        [&](std::int64_t, float x) { acc = acc + math::ExpF32Cr(x - m[t]); });
    lane[t] = acc;
  });
  auto s = CanonicalBlockReduce<float>(block, lane, SumCombine{});
  SoftmaxStats stats{};
  block.ForEachThread([&](Thread t) { stats = SoftmaxStats{m[t], s[t]}; });
  block.Sync();
  return stats;
}

// CanonicalMax of the probabilities (min_p's reference point).
template <class B, class Arr>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY float RowMaxProb(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                             SoftmaxStats st) {
  auto lane = Registers<float>(block);
  block.ForEachThread([&](Thread t) {
    float m = NegativeInfinity();
    ForEachLaneEntry<kLaneSumGroup>(
        t.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return row.Load(base + i); },
        [&](std::int64_t, float x) { m = MaxCombine{}(m, st.Prob(x)); });
    lane[t] = m;
  });
  auto m = CanonicalBlockReduce<float>(block, lane, MaxCombine{});
  float result = 0.0f;
  block.ForEachThread([&](Thread t) { result = m[t]; });
  block.Sync();
  return result;
}

// dst[i] = src[i] for the row (the filters then mask dst in place), four loads in flight a thread
// (ForEachLaneEntry).
template <class B, class Src, class Dst>
SAMPCHECK_KERNEL_BODY void CopyRow(B& block, Src src, std::int64_t src_base, Dst dst, std::int64_t dst_base,
                                   std::int64_t vocab) {
  block.ForEachThread([&](Thread t) {
    ForEachLaneEntry<kLaneSumGroup>(
        t.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return src.Load(src_base + i); },
        [&](std::int64_t i, float x) { dst.Store(dst_base + i, x); });
  });
  block.Sync();
}

}  // namespace sampcheck::gpu
