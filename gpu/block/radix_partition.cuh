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
// - Level 0 (from the row): one read gives the count n, the smallest and the largest key. n
//   <= 1024: the entries are gathered and sorted in shared memory (CollectSorted, two reads)
//   and visited at once. Otherwise the digit is the 4 bits whose top bit is the highest bit
//   where the smallest and largest keys differ (so at least two digits are used, and a flat
//   row goes straight to its index bits); one read counts each thread's entries per digit,
//   a scan in (digit, thread) order gives every thread its slots, one read scatters the keys
//   into buffer 0: the 16 digit buckets in digit order (each bucket in no particular order).
// - Buckets are then taken front first from a stack in shared memory. Adjacent buckets of at
//   most 1024 keys in all form one entry (one chunk), so chunks are seldom small; a chunk is
//   loaded into `sorted` and put in order by a rank sort (each key's slot is the number of
//   the chunk's keys below it: three barriers, m shared reads per thread) and visited. A
//   larger bucket is partitioned again (its keys share every bit above the previous digit: one
//   read of the bucket counts the next digit, repeated one digit lower while a single digit
//   holds the whole bucket; one read scatters it into the other buffer at the same
//   positions) and its sub-buckets pushed in reverse digit order. Keys are unique, so every
//   bucket is finally at most 1024 keys; at most 16 levels.
// - visit(m) is block-level code called with `sorted[0 .. m)` the next m keys of the order; it
//   returns true to stop (nothing after it is partitioned or loaded: the cost follows the
//   visited prefix). It must leave `sorted` unmodified until it returns, and end with a
//   barrier.
// - Reads: 3 of the row (at most 3 when n <= 1024), then for every bucket refined, about 2
//   reads of its keys (8 bytes each) per level, and one read of each visited key.
// - Deterministic: integer counts and scans in a fixed order, ranks of unique keys; no atomics.
// Example: row {1, 3, 3, 2} is visited as (3, 1), (3, 2), (2, 3), (1, 0), one chunk;
//   tests/gpu_kernels_test.cc (GpuRadixPartition) visits rows of 5000 entries (8 tied levels
//   and -inf; continuous), a flat row of 3000 and a row of 700, both orders, and compares the
//   indices with a stable sort of the floats themselves.

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/radix_select.cuh"

namespace sampcheck::gpu {

// A row-sized scratch is absent: the callers fall back to their chunked walk.
struct NoScratch {};

inline constexpr int kPartitionStack = 256;  // 16 levels x 15 pending siblings + 1

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

// Per thread: in[t].c[d] counts -> out[t].c[d] the thread's first slot for digit d, in
// (digit, thread) order; start[d] = the first slot of bucket d, start[16] = the total.
template <class B, class R, class SharedU32>
SAMPCHECK_KERNEL_BODY void DigitSlots(B& block, R& in, R& out, SharedU32& warp_total, SharedU32& warp_first,
                                      SharedU32& start) {
  auto suffix = Registers<DigitCounts>(block);  // per lane, per digit: the sum over lanes >= it
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
      suffix[t].c[digit] = c[t];
      if (t.lane() == 0) warp_total.Store(digit * kWarpSize + t.warp(), c[t]);
    });
  }
  block.Sync();
  block.ForEachThread([&](Thread t) {
    if (t.x != 0) return;
    std::uint32_t run = 0;
    for (int digit = 0; digit < 16; ++digit) {
      start.Store(digit, run);
      for (int w = 0; w < kWarpSize; ++w) {
        warp_first.Store(digit * kWarpSize + w, run);
        run += warp_total.Load(digit * kWarpSize + w);
      }
    }
    start.Store(16, run);
  });
  block.Sync();
  block.ForEachThread([&](Thread t) {
    for (int digit = 0; digit < 16; ++digit) {
      const int w = digit * kWarpSize + t.warp();
      // Lanes before this one in the warp: the warp's total minus the suffix from this lane.
      out[t].c[digit] = warp_first.Load(w) + (warp_total.Load(w) - suffix[t].c[digit]);
    }
  });
  block.Sync();
}

}  // namespace partition_detail

template <class B, class Arr, class Scratch, class Shared, class Visit>
SAMPCHECK_KERNEL_BODY void VisitKeysInOrder(B& block, Arr row, std::int64_t base, std::int64_t vocab, bool ascending,
                                            bool has_lo, std::uint64_t lo, std::uint64_t hi, Scratch scratch,
                                            std::int64_t scratch_base, Shared& sorted, Visit&& visit) {
  using partition_detail::DigitSlots;
  using partition_detail::ShiftFor;
  SAMPCHECK_SHARED(block, std::uint32_t, warp_total, 16 * kWarpSize);
  SAMPCHECK_SHARED(block, std::uint32_t, warp_first, 16 * kWarpSize);
  SAMPCHECK_SHARED(block, std::uint32_t, start, 17);
  SAMPCHECK_SHARED(block, std::uint64_t, low, kWarpSize);
  SAMPCHECK_SHARED(block, std::uint64_t, high, kWarpSize);
  SAMPCHECK_SHARED(block, std::uint32_t, many, kWarpSize);
  // Stack entries: (first slot << 32 | count) and (buffer << 8 | shift of the next digit).
  SAMPCHECK_SHARED(block, std::uint64_t, stack_range, kPartitionStack);
  SAMPCHECK_SHARED(block, std::uint32_t, stack_digit, kPartitionStack);
  SAMPCHECK_SHARED(block, std::uint64_t, uniform, 3);
  auto in_range = [&](std::uint64_t key) { return (!has_lo || key > lo) && key <= hi; };
  auto key_at = [&](std::int64_t i) { return OrderKey(row.Load(base + i), i, ascending); };

  // Level 0: count, smallest and largest key (warp shuffles, then the 32 warps by thread 0).
  auto n_t = Registers<std::uint32_t>(block);
  auto min_t = Registers<std::uint64_t>(block);
  auto max_t = Registers<std::uint64_t>(block);
  block.ForEachThread([&](Thread t) {
    std::uint32_t c = 0;
    std::uint64_t a = kNoKey, z = 0;
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
      const std::uint64_t key = key_at(i);
      if (!in_range(key)) continue;
      ++c;
      a = key < a ? key : a;
      z = key > z ? key : z;
    }
    n_t[t] = c, min_t[t] = a, max_t[t] = z;
  });
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
  block.Sync();
  block.ForEachThread([&](Thread t) {
    if (t.x != 0) return;
    std::uint64_t c = 0, a = kNoKey, z = 0;
    for (int w = 0; w < kWarpSize; ++w) {
      c += many.Load(w);
      a = low.Load(w) < a ? low.Load(w) : a;
      z = high.Load(w) > z ? high.Load(w) : z;
    }
    uniform.Store(0, c);
    uniform.Store(1, a);
    uniform.Store(2, z);
  });
  block.Sync();
  std::uint64_t n = 0, smallest = 0, largest = 0;
  block.ForEachThread([&](Thread) {
    n = uniform.Load(0);
    smallest = uniform.Load(1);
    largest = uniform.Load(2);
  });
  block.Sync();
  if (n == 0) return;
  if (n <= static_cast<std::uint64_t>(kCandidates)) {
    const std::uint32_t m = CollectSorted(block, row, base, vocab, ascending, has_lo, lo, hi, sorted);
    (void)visit(m);
    return;
  }

  auto counts = Registers<DigitCounts>(block);
  auto slots = Registers<DigitCounts>(block);
  // Counts the keys given by for_each(t, f) (f(key) per key of thread t) per digit at `shift`
  // and gives every thread its slots; returns false when one digit holds all `size` keys.
  auto count = [&](auto&& for_each, int shift, std::uint64_t size) {
    block.ForEachThread([&](Thread t) {
      DigitCounts d{};
      for_each(t, [&](std::uint64_t key) { ++d.c[(key >> shift) & 15u]; });
      counts[t] = d;
    });
    DigitSlots(block, counts, slots, warp_total, warp_first, start);
    bool split = true;
    block.ForEachThread([&](Thread) {
      split = true;
      for (int d = 0; d < 16; ++d) split = split && start.Load(d + 1) - start.Load(d) != size;
    });
    block.Sync();
    return split;
  };
  // Scatters the counted keys into buffer `to` at first + their slot and pushes the non-empty
  // buckets (reverse digit order, so the first is on top) with the next digit's shift.
  std::int64_t depth = 0;
  auto scatter = [&](auto&& for_each, std::int64_t first, int shift, int to) {
    const std::int64_t out = scratch_base + to * vocab + first;
    block.ForEachThread([&](Thread t) {
      DigitCounts at = slots[t];
      for_each(t, [&](std::uint64_t key) { scratch.Store(out + at.c[(key >> shift) & 15u]++, key); });
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      std::int64_t d = depth;
      const int next = shift >= 4 ? shift - 4 : 0;
      // Runs of adjacent buckets of at most 1024 keys in all are one entry (one chunk, sorted
      // as a whole: the buckets lie in digit order), so chunks are seldom small. The open run
      // is [start of the last bucket added, end).
      auto push = [&](std::uint32_t begin, std::uint32_t stop) {
        stack_range.Store(d, (static_cast<std::uint64_t>(first + begin) << 32) | (stop - begin));
        stack_digit.Store(d, static_cast<std::uint32_t>(to << 8 | next));
        ++d;
      };
      constexpr auto kChunk = static_cast<std::uint32_t>(kCandidates);
      std::uint32_t end = start.Load(16);
      for (int digit = 15; digit >= 0; --digit) {
        const std::uint32_t b = start.Load(digit), e = start.Load(digit + 1);
        if (e == b) continue;
        if (e - b > kChunk) {  // refined on its own
          if (end > e) push(e, end);
          push(b, e);
          end = b;
        } else if (end - b > kChunk) {  // the run is full: close it, this bucket opens the next
          push(e, end);
          end = e;
        }
      }
      if (end > start.Load(0)) push(start.Load(0), end);
      uniform.Store(0, static_cast<std::uint64_t>(d));
    });
    block.Sync();
    block.ForEachThread([&](Thread) { depth = static_cast<std::int64_t>(uniform.Load(0)); });
    block.Sync();
  };

  auto row_keys = [&](Thread t, auto&& f) {
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
      const std::uint64_t key = key_at(i);
      if (in_range(key)) f(key);
    }
  };
  const int shift0 = ShiftFor(smallest, largest);
  (void)count(row_keys, shift0, n);  // the smallest and largest keys differ in this digit
  scatter(row_keys, 0, shift0, 0);

  while (depth > 0) {
    std::uint64_t range = 0;
    std::uint32_t digit = 0;
    block.ForEachThread([&](Thread) {
      range = stack_range.Load(depth - 1);
      digit = stack_digit.Load(depth - 1);
    });
    block.Sync();
    --depth;
    const std::int64_t first = static_cast<std::int64_t>(range >> 32);
    const std::int64_t size = static_cast<std::int64_t>(range & 0xffffffffu);
    const int from = static_cast<int>(digit >> 8);
    int shift = static_cast<int>(digit & 0xffu);
    const std::int64_t src = scratch_base + from * vocab + first;
    auto bucket_keys = [&](Thread t, auto&& f) {
      for (std::int64_t j = t.x; j < size; j += kCanonicalLanes) f(scratch.Load(src + j));
    };
    if (size <= kCandidates) {
      // A rank sort: each key's slot is the number of keys below it (unique keys), three
      // barriers instead of the bitonic network's 55; m shared reads per thread.
      auto mine = Registers<std::uint64_t>(block);
      block.ForEachThread([&](Thread t) {
        if (t.x >= size) return;
        mine[t] = scratch.Load(src + t.x);
        sorted.Store(t.x, mine[t]);
      });
      block.Sync();
      auto rank = Registers<std::uint32_t>(block);
      block.ForEachThread([&](Thread t) {
        if (t.x >= size) return;
        std::uint32_t r = 0;
        for (std::int64_t j = 0; j < size; ++j) r += sorted.Load(j) < mine[t] ? 1u : 0u;
        rank[t] = r;
      });
      block.Sync();
      block.ForEachThread([&](Thread t) {
        if (t.x < size) sorted.Store(rank[t], mine[t]);
      });
      block.Sync();
      if (visit(static_cast<std::uint32_t>(size))) return;
      continue;
    }
    // A digit that splits the bucket: one read of its keys per digit tried.
    while (!count(bucket_keys, shift, static_cast<std::uint64_t>(size)) && shift > 0) shift = shift >= 4 ? shift - 4 : 0;
    scatter(bucket_keys, first, shift, 1 - from);
  }
}

}  // namespace sampcheck::gpu
