// SPDX-License-Identifier: Apache-2.0
#pragma once
// The key of rank n of a row in two reads: 16 splitters from a sample of the row bracket the
// n-th key, one read counts the keys between each two splitters, one read gathers the keys
// between the two that hold rank n into shared memory, and the key is selected among them
// there; the radix select (SelectKthKey, gpu/block/radix_select.cuh) when the sample
// misrepresents the row. gpu-fast selects its top-k bound with it when 1024 < k < V - 1024
// (gpu/fast/fast_sampling.cuh; docs/gpu.md "Cost model", "gpu-fast").
//
// Contract:
// - key_of(i) (0 <= i < vocab): unique 64-bit keys below kNoKey, the same bits at every call;
//   1 <= n <= vocab; kThreads a multiple of 32 dividing 1024. `slots`: kSelectSlots = 1024
//   shared u64 the caller lends (undefined afterwards). Result: the n-th smallest key, exactly
//   (SelectKthKey's).
// - Sample: S = min(4096, ceil(vocab / 8)) entries at the indices j x vocab / S (distinct):
//   0.032 reads of a row of 128256, at most 1/8 of a short row (whose ranking, S x S
//   comparisons, would cost more than the reads it saves), held in registers (S / kThreads per
//   thread, sample slot j in thread j mod kThreads).
// - Window: the splitters' sample ranks in (0, S) (below) lie in [r_lo, r_hi]. With S > 1024
//   (c = ceil(S / 1024)), the subsample of the sample slots 0, c, 2c, .. (ceil(S / c) <= 1024
//   keys, spread over the row as the sample is) is sorted in the slots (BitonicSortSlots,
//   gpu/block/bitonic_sort.cuh); its keys of ranks a = floor(r_lo / c) - M and b = ceil(r_hi
//   / c) + M bound a window [lo, hi) (key 0 for a <= 0, kNoKey for b past the subsample), M =
//   ceil((4.5 s + c) / c) + 1, s = ceil(sqrt(c S q (1 - q))) the spread of a sample rank
//   around c times a subsample rank. One scan (BlockExclusiveScan) counts the sample keys
//   below lo (lo's sample rank) and in the window, and gives each of those its slot; the
//   window, sorted, gives the splitter of rank r at place r - rank(lo): two sorts and a scan
//   (24 barriers and 44 accesses a thread at S = 4096, 1024 threads and a window of 512 slots,
//   the cost table's top-k 5000 row: the sorts take two buffers, BitonicSortSlots<kThreads,
//   true>; 40 and about 60 while the network crossed warps a stage at a time, until
//   2026-12-06; about 130 accesses with one buffer, until 2026-12-03). When the window
//   misses r_lo or r_hi or holds more than 1024 keys (a row placed against the subsample,
//   tests/gpu_sample_select_test.cc; 4.5 spreads a side otherwise), or S <= 1024, every
//   sample key is ranked against the sample 1024 keys at a time instead: each chunk sorted in
//   the slots, each key's rank in it by a binary search (at most 11 shared loads a key and
//   chunk; 93 barriers and about 460 accesses at S = 4096, the only way until 2026-12-02).
//   Until 2026-12-01 every thread compared its keys with every sample key (S shared loads per
//   thread, 4096 in sequence).
// - Splitters: the n-th key has about c = (n - 1) x S / vocab sample keys below it, with a
//   binomial spread sigma = sqrt(S q (1 - q)), q = n / vocab (integers, sigma rounded up).
//   Splitter i (0 .. 15) is the sample key of rank R_i = c - floor(15 g / 2) + i g, g =
//   max(1, ceil(2 d / 15)), d = ceil(3.5 sigma) + 2: 15 bins cover c +- 3.5 sigma and more;
//   R_i <= 0 gives key 0, R_i >= S gives kNoKey (no bound on that side).
// - Count read: per thread (its share of the row, ShareOf, gpu/block/thread_share.cuh: four
//   elements a load from a QuadKeySource of 4096 entries or more), bin 0 counts the keys below
//   splitter 0, bin j (1 .. 15) the keys
//   in [splitter j - 1, splitter j) (a binary search over splitters 1 .. 15); the block's
//   bins are summed exactly (SumDigitCounts). Rank n lies in bin j >= 1 holding at most 1024
//   keys, or the sample missed: rank n below splitter 0, at or above splitter 15, or in a bin
//   of more than 1024 keys (the bin by DigitOfRank, alike in every warp). With `smallest`, the
//   same read takes the row's smallest key (each thread's, then each warp's by shuffles into
//   the last kThreads / 32 slots, which the bins' sums leave free, combined by
//   CombineWarpValues: one load a thread, no barrier more), so a caller needs no read of its
//   own for it (gpu-fast's maximum). Until 2026-12-02 thread 0 searched the bins and folded
//   the warps' minima (up to 62 shared loads in sequence) and stored the answers for every
//   thread to read after a barrier.
// - Gather read: bin j's keys into the slots (SlotsOfDigit: exact offsets from the counts of
//   the count read; each thread reads its share again); the bin sorted in the slots
//   (BitonicSortSlots), its key at place (rank in the bin) - 1 is the result (one shared
//   load; m in sequence per thread while each thread counted the bin's keys below its own,
//   until 2026-12-01). work.bin_key sees each gathered key in the thread that gathered it, as
//   before the sort.
// - Missed: SelectKthKey over the row (at most 8 + 8 reads more). The sample bounds the
//   bins' ranks, not their values, so ties and flat rows are no harder than continuous rows;
//   a miss takes a sample placed against the row (values ordered with the stride vocab / S,
//   tests/gpu_sample_select_test.cc) or chance: with independent entries the two-sided
//   3.5 sigma tail is 5 rows in 10^4, and a bin overflows rarely (a simulation of 2000 rows
//   at each of q = 0.0085, 0.039, 0.2, 0.5, 0.95 and V = 128256 missed none).
// - work (optional, SelectWork): per-key work fused into the count read, the gather read and
//   the bin's ranking, and block-level work between the count and the gather (gpu-fast's
//   proposals, gpu/fast/fast_proposals.cuh), so that a caller needs no read of its own for it;
//   work.count sees thread t's keys of its share, so a sum there is that share's mass.
// - Deterministic: integer counts and ranks of unique keys; ends with a barrier.
// Example: a row of 8192 distinct values, n = 100: S = 1024, c = 12, sigma = 4 (q (1 - q) S
//   rounded down to 11), d = 16, g = 3, R_i = -10, -7, ..., 35: splitters 0 .. 3 are key 0,
//   the others the sample keys of ranks 2, 5, ..., 35, and the 100th key lies in one of their
//   bins (tests/gpu_sample_select_test.cc, "ContractExample").

#include <cstdint>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/key_reads.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/thread_share.cuh"
#include "gpu/block/warp_min.cuh"

namespace sampcheck::gpu {

inline constexpr int kSelectSample = 4096;  // sampled entries (at most)
inline constexpr int kSelectSlots = 1024;   // the caller's shared slots: a sample chunk, then a bin's keys

namespace sample_select_detail {

// A thread's sample keys (sample slots t, t + kThreads, ...) and their ranks in the sample.
template <int kThreads>
struct OwnSample {
  static constexpr int kPerThread = kSelectSample / kThreads;
  std::uint64_t key[kPerThread];
  std::uint32_t rank[kPerThread];
};

// The smallest s >= 0 with s x s >= x.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::int64_t CeilSqrt(std::int64_t x) {
  std::int64_t s = 0;
  while (s * s < x) ++s;
  return s;
}

}  // namespace sample_select_detail

// Work a caller fuses into the select's reads (gpu-fast's proposals, gpu/fast/fast_proposals.cuh):
// count and gather are per-key hooks (SelectNoKeyWork): count.Take(t) gives thread t's state
// as a value of the count read, whose Add(key, hi) sees every key the thread reads there (hi:
// the last splitter), and count.Give(t, mine) takes it back after them; gather likewise in the
// gather read, Add(key, lo) (lo: the bin's lower splitter). after_count(hit, smallest, hi) at
// block level once the bin is known (hit: the sample did not miss; smallest: the row's first
// key when asked for, else kNoKey), before the gather read; bin_key(t, key, kept) for each
// gathered key thread t ranks (kept: at or below the result). None of them runs when the
// sample misses, but after_count(false, ...). A per-key hook's state is the read's own value so
// that it stays in registers across the read's stores, which state reached through references
// may alias (reloaded from the stack frame at every key).
struct SelectNoOp {
  template <class... A>
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void operator()(const A&...) const {}
};
struct SelectNoKeyWork {
  struct Mine {
    SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(std::uint64_t, std::uint64_t) {}
  };
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE Mine Take(Thread) const { return {}; }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Give(Thread, const Mine&) const {}
};
template <class Count, class AfterCount, class Gather, class BinKey>
struct SelectWork {
  Count count;
  AfterCount after_count;
  Gather gather;
  BinKey bin_key;
};
using NoSelectWork = SelectWork<SelectNoKeyWork, SelectNoOp, SelectNoKeyWork, SelectNoOp>;
template <class Count, class AfterCount, class Gather, class BinKey>
SAMPCHECK_HOST_DEVICE SelectWork<Count, AfterCount, Gather, BinKey> MakeSelectWork(Count c, AfterCount a, Gather g,
                                                                                  BinKey b) {
  return {c, a, g, b};
}

// `slots`: a shared array of at least kSelectSlots u64 that the caller does not need during
// the call (gpu-fast lends its near-V gather's); its contents are undefined afterwards.
// `smallest` (optional): receives the row's smallest key, taken in the count read.
// `work`: SelectWork (above).
template <int kThreads, class B, class KeyOf, class Shared, class Work = NoSelectWork>
SAMPCHECK_KERNEL_BODY std::uint64_t SelectKthKeyBySample(B& block, std::int64_t vocab, KeyOf key_of, std::int64_t n,
                                                         Shared& slots, std::uint64_t* smallest = nullptr,
                                                         Work work = {}) {
  constexpr int kWarps = kThreads / kWarpSize;
  static_assert(kThreads % kWarpSize == 0 && kSelectSlots % kThreads == 0 && 17 * kWarps <= kSelectSlots,
                "whole warps, at most 1024 threads (the bins' partial sums and the warps' minima fit the slots)");
  constexpr int kPerThread = sample_select_detail::OwnSample<kThreads>::kPerThread;
  constexpr int kBins = 16;
  SAMPCHECK_SHARED(block, std::uint64_t, splitter, kBins);
  SAMPCHECK_SHARED(block, std::uint32_t, hist, kBins);

  const std::int64_t sample = (vocab + 7) / 8 < kSelectSample ? (vocab + 7) / 8 : kSelectSample;
  // Splitter ranks (contract above), the same in every thread.
  const std::int64_t centre = (n - 1) * sample / vocab;
  const std::int64_t variance = (sample * n / vocab) * (vocab - n) / vocab;
  const std::int64_t d = (7 * sample_select_detail::CeilSqrt(variance) + 1) / 2 + 2;
  const std::int64_t g = (2 * d + kBins - 2) / (kBins - 1);
  const std::int64_t first_rank = centre - (kBins - 1) * g / 2;

  // The sample in registers.
  auto own = Registers<sample_select_detail::OwnSample<kThreads>>(block);
  block.ForEachThread([&](Thread t) {
    for (int m = 0; m < kPerThread; ++m) {
      const std::int64_t j = t.x + std::int64_t{m} * kThreads;
      own[t].key[m] = j < sample ? key_of(j * vocab / sample) : kNoKey;
      own[t].rank[m] = 0;
    }
  });
  // The splitters' ranks in (0, sample) (the others are 0 or kNoKey): [lo_rank, hi_rank].
  std::int64_t lo_rank = sample, hi_rank = 0;
  for (int i = 0; i < kBins; ++i) {
    const std::int64_t r = first_rank + i * g;
    if (r <= 0 || r >= sample) continue;
    lo_rank = r < lo_rank ? r : lo_rank;
    hi_rank = r > hi_rank ? r : hi_rank;
  }
  // The window (contract "Window"): from a sorted subsample, the sample keys whose ranks hold
  // [lo_rank, hi_rank], gathered and sorted; false when the window misses them or overflows.
  auto window_splitters = [&] {
    const std::int64_t chunks = (sample + kSelectSlots - 1) / kSelectSlots;
    const std::int64_t sub = (sample + chunks - 1) / chunks;  // sample slots j = 0, chunks, 2 chunks, ..
    // A sample rank near chunks x a subsample rank a spreads by about sqrt(chunks S q (1 - q)):
    // 4.5 of those, and a subsample rank, on each side.
    const std::int64_t spread = sample_select_detail::CeilSqrt(variance * chunks);
    const std::int64_t margin = (9 * spread / 2 + 2 * chunks - 1) / chunks + 1;
    const std::int64_t a = lo_rank / chunks - margin, b = (hi_rank + chunks - 1) / chunks + margin;
    block.ForEachThread([&](Thread t) {
      for (int m = 0; m < kPerThread; ++m) {
        const std::int64_t j = t.x + std::int64_t{m} * kThreads;
        if (j < sample && j % chunks == 0) slots.Store(j / chunks, own[t].key[m]);
      }
      PadSortSlots<kThreads>(t, slots, static_cast<std::uint32_t>(sub),
                             static_cast<std::uint32_t>(SortSlotsFor(static_cast<std::uint32_t>(sub))));
    });
    block.Sync();
    BitonicSortSlots<kThreads, true>(block, slots, static_cast<std::uint32_t>(sub));
    // The window [lo, hi): key 0 and kNoKey past the subsample's ends (every key below, or above).
    std::uint64_t lo = 0, hi = kNoKey;
    block.ForEachThread([&](Thread) {
      lo = a > 0 ? slots.Load(a) : 0;
      hi = b < sub ? slots.Load(b) : kNoKey;
    });
    // Each thread's keys below lo (high half) and in the window (low half), scanned: the
    // window's slots and, in the totals, its size and lo's rank in the sample.
    auto count = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) {
      std::uint32_t c = 0;
      for (int m = 0; m < kPerThread; ++m) {
        const std::uint64_t key = own[t].key[m];
        if (key == kNoKey) continue;
        c += key < lo ? 1u << 16 : key < hi ? 1u : 0u;
      }
      count[t] = c;
    });
    std::uint32_t total = 0;
    auto at = BlockExclusiveScan<kThreads>(block, count, total);  // next barrier: below
    const std::int64_t size = total & 0xffffu, below = total >> 16;
    if (size > kSelectSlots || below > lo_rank || below + size <= hi_rank) {
      block.Sync();
      return false;
    }
    block.ForEachThread([&](Thread t) {
      std::uint32_t s = at[t] & 0xffffu;
      for (int m = 0; m < kPerThread; ++m) {
        const std::uint64_t key = own[t].key[m];
        if (key != kNoKey && key >= lo && key < hi) slots.Store(s++, key);
      }
      PadSortSlots<kThreads>(t, slots, static_cast<std::uint32_t>(size),
                             static_cast<std::uint32_t>(SortSlotsFor(static_cast<std::uint32_t>(size))));
    });
    block.Sync();
    BitonicSortSlots<kThreads, true>(block, slots, static_cast<std::uint32_t>(size));
    block.ForEachThread([&](Thread t) {
      if (t.x >= kBins) return;
      const std::int64_t r = first_rank + t.x * g;
      splitter.Store(t.x, r <= 0 ? 0 : r >= sample ? kNoKey : slots.Load(r - below));
    });
    block.Sync();
    return true;
  };
  // Otherwise every sample key ranked against the sample, chunk by chunk through the slots.
  auto ranked_splitters = [&] {
    for (std::int64_t first = 0; first < sample; first += kSelectSlots) {
      const std::int64_t size = sample - first < kSelectSlots ? sample - first : kSelectSlots;
      const int chunk = static_cast<int>(size);
      block.ForEachThread([&](Thread t) {
        for (int m = 0; m < kPerThread; ++m) {
          const std::int64_t j = t.x + std::int64_t{m} * kThreads;
          if (j >= first && j < first + size) slots.Store(j - first, own[t].key[m]);
        }
        const auto count = static_cast<std::uint32_t>(chunk);
        PadSortSlots<kThreads>(t, slots, count, static_cast<std::uint32_t>(SortSlotsFor(count)));
      });
      block.Sync();
      BitonicSortSlots<kThreads, true>(block, slots, static_cast<std::uint32_t>(chunk));
      const int top = merge_detail::FloorPow2(chunk);
      block.ForEachThread([&](Thread t) {
        for (int m = 0; m < kPerThread; ++m) {
          const std::uint64_t key = own[t].key[m];
          if (key != kNoKey && key != 0) own[t].rank[m] += merge_detail::CountAtMost(slots, 0, chunk, top, key - 1);
        }
      });
      block.Sync();
    }
    block.ForEachThread([&](Thread t) {
      for (int i = 0; i < kBins; ++i) {
        const std::int64_t r = first_rank + i * g;
        if (r <= 0 || r >= sample) {
          if (t.x == 0) splitter.Store(i, r <= 0 ? 0 : kNoKey);
          continue;
        }
        for (int m = 0; m < kPerThread; ++m) {
          if (own[t].key[m] != kNoKey && own[t].rank[m] == static_cast<std::uint32_t>(r))
            splitter.Store(i, own[t].key[m]);
        }
      }
    });
    block.Sync();
  };
  if (sample <= kSelectSlots || lo_rank > hi_rank || !window_splitters()) ranked_splitters();

  // Count read: bin 0 below splitter 0, bin 1 + (the number of splitters 1 .. 15 at or below
  // the key) for the keys in [splitter 0, splitter 15), nothing for the keys above. The
  // warps' partial sums go through the slots (16 x kThreads / 32 <= kSelectSlots); the
  // smallest key, when asked for, by each warp's shuffles into the last kWarps slots.
  const ThreadShare share = ShareOf(key_of, vocab, kThreads);  // the gather's too: its slots are the count's
  auto digits = Registers<DigitCounts>(block);
  auto least = Registers<std::uint64_t>(block);
  block.ForEachThread([&](Thread t) {
    const std::uint64_t lo = splitter.Load(0), hi = splitter.Load(kBins - 1);
    auto above = [&](std::uint64_t key, int b) { return key >= splitter.Load(1 + b) ? 1 : 0; };
    DigitCounts c{};
    std::uint64_t m = kNoKey;
    auto count_work = work.count.Take(t);
    ForEachShareKey(key_of, share, t.x, [&](std::int64_t, std::uint64_t key) {
      count_work.Add(key, hi);
      m = key < m ? key : m;
      if (key < lo) {
        ++c.c[0];
      } else if (key < hi) {
        int b = above(key, 7) * 8;
        b += above(key, b + 3) * 4;
        b += above(key, b + 1) * 2;
        b += above(key, b);
        AddAt(c.c, static_cast<std::uint32_t>(1 + b), 1u);
      }
    });
    work.count.Give(t, count_work);
    digits[t] = c;
    least[t] = m;
  });
  if (smallest != nullptr) {
    WarpMin(block, least);
    block.ForEachThread([&](Thread t) {
      if (t.lane() == 0) slots.Store(kSelectSlots - kWarps + t.warp(), least[t]);
    });
  }
  SumDigitCounts<kThreads>(block, digits, slots, hist);
  // Rank n's bin, and the smallest key, alike in every warp (one shared load each a thread).
  const DigitRank at = DigitOfRank(block, hist, static_cast<std::uint64_t>(n));
  const bool hit = at.digit >= 1 && at.rank <= at.count && at.count <= static_cast<std::uint32_t>(kSelectSlots);
  const int bin = hit ? at.digit : kBins;
  const std::uint64_t rank = at.rank;
  const std::uint64_t least_key =
      smallest == nullptr ? kNoKey
                          : CombineWarpValues<std::uint64_t>(
                                block, kWarps, kNoKey, [&](int w) { return slots.Load(kSelectSlots - kWarps + w); },
                                [](std::uint64_t a, std::uint64_t b) { return b < a ? b : a; });
  std::uint64_t top = kNoKey;
  block.ForEachThread([&](Thread) { top = splitter.Load(kBins - 1); });
  block.Sync();  // the warps' minima read before work.after_count and the gather write the slots
  if (smallest != nullptr) *smallest = least_key;
  work.after_count(bin != kBins, least_key, top);
  if (bin == kBins) return SelectKthKey<kThreads>(block, vocab, key_of, n);

  // Gather read: bin `bin`'s keys, [splitter bin - 1, splitter bin), then the one with
  // rank - 1 of them below it (the bin sorted).
  auto slot = SlotsOfDigit<kThreads>(block, digits, bin);  // next barrier: the Sync after the gather
  block.ForEachThread([&](Thread t) {
    const std::uint64_t lo = splitter.Load(bin - 1), hi = splitter.Load(bin);
    std::uint32_t at = slot[t];
    auto gather_work = work.gather.Take(t);
    ForEachShareKey(key_of, share, t.x, [&](std::int64_t, std::uint64_t key) {
      gather_work.Add(key, lo);
      if (key >= lo && key < hi) slots.Store(at++, key);
    });
    work.gather.Give(t, gather_work);
  });
  block.Sync();
  // The bin's keys sorted in the slots, each thread keeping the ones the gather wrote at its
  // places (work.bin_key sees them in the same threads as the gather's order gives them).
  constexpr int kMine = kSelectSlots / kThreads;
  auto mine = Registers<SlotKeys<kMine>>(block);
  std::uint32_t m = 0;
  block.ForEachThread([&](Thread t) {
    m = hist.Load(bin);
    int count = 0;
    for (std::uint32_t s = static_cast<std::uint32_t>(t.x); s < m; s += kThreads) mine[t].v[count++] = slots.Load(s);
    PadSortSlots<kThreads>(t, slots, m, static_cast<std::uint32_t>(SortSlotsFor(m)));
  });
  block.Sync();
  BitonicSortSlots<kThreads, true>(block, slots, m);
  std::uint64_t key = 0;
  block.ForEachThread([&](Thread t) {
    key = slots.Load(static_cast<int>(rank) - 1);
    int count = 0;
    for (std::uint32_t s = static_cast<std::uint32_t>(t.x); s < m; s += kThreads) {
      work.bin_key(t, mine[t].v[count], mine[t].v[count] <= key);
      ++count;
    }
  });
  block.Sync();
  return key;
}

}  // namespace sampcheck::gpu
