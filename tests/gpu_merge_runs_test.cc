// SPDX-License-Identifier: Apache-2.0
// MergeRuns (gpu/block/merge_runs.cuh) on the emulator with every check on, against
// std::partial_sort: the contract's example, a split row's slice lists (the row's k smallest
// keys), runs cut to their first `keep`, counts of runs that are not powers of two, tied keys,
// blocks of 1024, 128 and 32 threads; the barriers and the reads a key its contract states
// (counted work, no timing). Also the split row's helpers around the merge: the lists' heads
// (SliceListHeads, gpu/block/row_slices.cuh) and the candidates' lane grouping
// (GroupCandidatesByLane, gpu/block/top_k_survivors.cuh), against plain loops and std::sort.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/block/merge_runs.cuh"
#include "gpu/block/row_slices.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "tests/lane_order.h"

namespace sampcheck::gpu {
namespace {

struct Merged {
  std::vector<std::uint64_t> placed;  // keep slots, kUnplaced where nothing was placed
  LaunchReport report;
};

constexpr std::uint64_t kUnplaced = 0x5a5a5a5a5a5a5a5aull;

// slots: the runs, run after run (runs x run entries); StageRuns stores and holds them, the
// test merges and records each placement (twice at one place fails).
template <int kThreads>
Merged RunMerge(const std::vector<std::uint64_t>& slots, int run, int runs, int keep) {
  Merged out;
  out.placed.assign(static_cast<std::size_t>(keep), kUnplaced);
  out.report = emu::Launch("merge", 1, kThreads, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, keys, kMergeSlots);
    auto held = Registers<SlotKeys<kMergeSlots / kThreads>>(block);
    StageRuns<kThreads>(block, keys, held, runs * run, [&](int s) { return slots[static_cast<std::size_t>(s)]; });
    MergeRuns<kThreads>(block, keys, held, run, runs, keep, [&](Thread, int position, std::uint64_t x) {
      auto& slot = out.placed[static_cast<std::size_t>(position)];
      EXPECT_EQ(slot, kUnplaced) << "place " << position << " placed twice";
      slot = x;
    });
  });
  EXPECT_TRUE(out.report.ok()) << out.report.Summary();
  return out;
}

// The first min(keep, keys) of the sorted multiset of every run's first min(run, keep) keys.
std::vector<std::uint64_t> Expected(const std::vector<std::uint64_t>& slots, int run, int runs, int keep) {
  std::vector<std::uint64_t> all;
  for (int g = 0; g < runs; ++g) {
    for (int j = 0; j < std::min(run, keep); ++j) all.push_back(slots[static_cast<std::size_t>(g * run + j)]);
  }
  std::sort(all.begin(), all.end());
  all.resize(static_cast<std::size_t>(keep), kUnplaced);
  return all;
}

// Runs of sorted random keys (distinct almost surely; `modulus` > 0 makes ties).
std::vector<std::uint64_t> SortedRuns(int run, int runs, std::uint64_t modulus, std::uint32_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::uint64_t> v(static_cast<std::size_t>(run * runs));
  for (auto& x : v) x = modulus == 0 ? gen() >> 1 : gen() % modulus;
  for (int g = 0; g < runs; ++g) std::sort(v.begin() + g * run, v.begin() + (g + 1) * run);
  return v;
}

template <int kThreads>
void ExpectMerges(const std::vector<std::uint64_t>& slots, int run, int runs, int keep) {
  const Merged got = RunMerge<kThreads>(slots, run, runs, keep);
  EXPECT_EQ(got.placed, Expected(slots, run, runs, keep))
      << "run " << run << ", runs " << runs << ", keep " << keep << ", " << kThreads << " threads";
  int levels = 0;
  while ((1 << levels) < runs) ++levels;
  // StageRuns' barrier after its stores, then 2 (levels - 1).
  EXPECT_EQ(got.report.counters.max_block_barriers, 1 + (levels > 0 ? 2 * (levels - 1) : 0)) << runs << " runs";
}

TEST(GpuMergeRuns, ContractExample) {
  // Runs (1, 5) and (2, 3), keep 2: 1 at place 0, 2 at place 1; 5 and 3 drop.
  const std::vector<std::uint64_t> slots = {1, 5, 2, 3};
  EXPECT_EQ(RunMerge<32>(slots, 2, 2, 2).placed, (std::vector<std::uint64_t>{1, 2}));
}

TEST(GpuMergeRuns, FirstKeepKeysOfAnyRuns) {
  std::uint32_t seed = 5;
  for (const auto& [run, runs] : {std::pair{32, 32}, std::pair{50, 20}, std::pair{100, 7}, std::pair{1, 1024},
                                  std::pair{1024, 1}, std::pair{33, 3}, std::pair{8, 5}}) {
    for (int keep : {1, 2, 31, 50, 64, 100, 1024}) {
      const std::vector<std::uint64_t> slots = SortedRuns(run, runs, 0, seed++);
      ExpectMerges<1024>(slots, run, runs, keep);
      ExpectMerges<128>(slots, run, runs, keep);
      ExpectMerges<32>(slots, run, runs, keep);
    }
  }
}

// Ties: equal keys take distinct places (the left run's first), so every multiset comes out
// whole, here with keys from 0 to 3 only.
TEST(GpuMergeRuns, TiedKeysTakeDistinctPlaces) {
  std::uint32_t seed = 90;
  for (const auto& [run, runs] : {std::pair{32, 32}, std::pair{50, 20}, std::pair{7, 3}}) {
    for (int keep : {1, 10, 64, 1024}) {
      const std::vector<std::uint64_t> slots = SortedRuns(run, runs, 4, seed++);
      ExpectMerges<1024>(slots, run, runs, keep);
      ExpectMerges<128>(slots, run, runs, keep);
    }
  }
}

// A split row: the merge of each slice's k smallest keys is the row's k smallest (every key
// of the row's top k is among its own slice's top k). A random row of 9001 distinct keys in 7
// slices of [g V / 7, (g + 1) V / 7), k = 100, against std::partial_sort of the whole row.
TEST(GpuMergeRuns, SliceListsGiveTheRowsSmallestKeys) {
  constexpr std::int64_t kV = 9001, kN = 7, kK = 100;
  std::mt19937_64 gen(77);
  std::vector<std::uint64_t> row(kV);
  for (std::int64_t i = 0; i < kV; ++i) row[static_cast<std::size_t>(i)] = ((gen() >> 40) << 32) | std::uint64_t(i);
  std::vector<std::uint64_t> lists;
  for (std::int64_t g = 0; g < kN; ++g) {
    std::vector<std::uint64_t> slice(row.begin() + SliceBegin(g, kN, kV), row.begin() + SliceBegin(g + 1, kN, kV));
    std::partial_sort(slice.begin(), slice.begin() + kK, slice.end());
    lists.insert(lists.end(), slice.begin(), slice.begin() + kK);
  }
  std::partial_sort(row.begin(), row.begin() + kK, row.end());
  const std::vector<std::uint64_t> expected(row.begin(), row.begin() + kK);
  EXPECT_EQ(RunMerge<1024>(lists, kK, kN, kK).placed, expected);
  EXPECT_EQ(RunMerge<128>(lists, kK, kN, kK).placed, expected);
}

// The contract's bound on a key's binary-search reads, at 1024 threads (one key a thread):
// 20 lists of 50 keys, keep 50 (a one-row batch's top-k 50 over 20 slices): 5 levels of at
// most floor(log2 50) + 1 = 6 reads; the key comes from the holder's registers (no load of its
// own), so with a store a level for levels 1 to 4 a thread's serial work is at most 30 + 4,
// plus StageRuns' store. Ranking each key in the 19 other lists read up to 19 x 6 = 114 times.
TEST(GpuMergeRuns, ReadsAKeySixTimesALevel) {
  const std::vector<std::uint64_t> slots = SortedRuns(50, 20, 0, 11);
  const Merged got = RunMerge<1024>(slots, 50, 20, 50);
  EXPECT_EQ(got.placed, Expected(slots, 50, 20, 50));
  EXPECT_LE(got.report.counters.critical_path, 1 + 30 + 4);
}

// SliceListHeads on 1 to 70 lists (a second round of lanes past 32), with no list, the first,
// a middle one or the last marked missing: the answer and the smallest head (std::min_element)
// in every thread, one read a thread per 32 lists (ceil(n / 32) in all), no barrier.
TEST(GpuRowSlices, SliceListHeadsFindsAMissingListAndTheSmallestHead) {
  constexpr std::uint64_t kMissing = ~std::uint64_t{0};
  std::mt19937_64 gen(21);
  for (int n : {1, 2, 20, 31, 32, 33, 64, 70}) {
    for (int marked : {-1, 0, n / 2, n - 1}) {
      std::vector<std::uint64_t> heads(static_cast<std::size_t>(n));
      for (auto& h : heads) h = gen() >> 1;
      if (marked >= 0) heads[static_cast<std::size_t>(marked)] = kMissing;
      std::vector<int> complete(kMergeSlots, -1);
      std::vector<std::uint64_t> smallest(kMergeSlots, 0);
      const LaunchReport r = emu::Launch("heads", 1, 1024, [&](Block& block) {
        SAMPCHECK_SHARED(block, std::uint64_t, staged, 128);
        block.ForEachThread([&](Thread t) {
          if (t.x < n) staged.Store(t.x, heads[static_cast<std::size_t>(t.x)]);
        });
        block.Sync();
        std::uint64_t least = 0;
        const bool all = SliceListHeads(
            block, n, kMissing, [&](std::int64_t g) { return staged.Load(static_cast<int>(g)); }, least);
        block.ForEachThread([&](Thread t) {
          complete[static_cast<std::size_t>(t.x)] = all ? 1 : 0;
          smallest[static_cast<std::size_t>(t.x)] = least;
        });
      });
      ASSERT_TRUE(r.ok()) << r.Summary();
      const std::uint64_t expected = *std::min_element(heads.begin(), heads.end());
      EXPECT_EQ(complete, std::vector<int>(kMergeSlots, marked < 0 ? 1 : 0)) << n << " lists, marked " << marked;
      EXPECT_EQ(smallest, std::vector<std::uint64_t>(kMergeSlots, expected)) << n << " lists, marked " << marked;
      EXPECT_EQ(r.counters.critical_intervals, (std::vector<std::int64_t>{1, (n + 31) / 32})) << n << " lists";
    }
  }
}

// GroupCandidatesByLane on list = 1 .. 1024 keys in ascending key order (random values, distinct
// indices below 2^20, some forced into a few lanes so that lanes hold several keys): grouped
// = the keys sorted by (index mod 1024, index) (std::sort), offset / count per lane by
// counting; at most 2 (floor(log2 list) + 1) shared reads a thread in the counting phase (the
// last interval, with this test's one read of the output), and 3 + 2 (levels - 1) barriers, 1 at
// list <= 64 (warp 0 sorts them in its registers).
TEST(GpuFilters, CandidatesGroupByLane) {
  std::mt19937_64 gen(33);
  for (int list : {1, 2, 31, 32, 33, 50, 51, 64, 100, 301, 512, 513, 1000, 1024}) {
    for (bool crowded : {false, true}) {
      std::vector<std::uint64_t> keys;
      std::vector<bool> used(std::size_t{1} << 20, false);
      while (static_cast<int>(keys.size()) < list) {
        std::uint64_t index = gen() % (std::uint64_t{1} << 20);
        if (crowded) index = (index & ~std::uint64_t{1023}) | (index % 3);  // lanes 0, 1, 2
        if (used[index]) continue;
        used[index] = true;
        keys.push_back((gen() >> 33) << 32 | index);
      }
      std::sort(keys.begin(), keys.end());
      std::vector<std::uint64_t> grouped_out(static_cast<std::size_t>(list));
      std::vector<std::uint32_t> offset_out(kCanonicalLanes), count_out(kCanonicalLanes);
      const LaunchReport r = emu::Launch("lanes", 1, kCanonicalLanes, [&](Block& block) {
        SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
        SAMPCHECK_SHARED(block, std::uint64_t, grouped, kCandidates);
        block.ForEachThread([&](Thread t) {
          if (t.x < list) sorted.Store(t.x, keys[static_cast<std::size_t>(t.x)]);
        });
        block.Sync();
        auto offset = Registers<std::uint32_t>(block);
        auto count = Registers<std::uint32_t>(block);
        GroupCandidatesByLane(block, sorted, list, grouped, offset, count);
        block.ForEachThread([&](Thread t) {
          offset_out[static_cast<std::size_t>(t.x)] = offset[t];
          count_out[static_cast<std::size_t>(t.x)] = count[t];
          if (t.x < list) grouped_out[static_cast<std::size_t>(t.x)] = grouped.Load(t.x);
        });
      });
      ASSERT_TRUE(r.ok()) << r.Summary();
      EXPECT_EQ(grouped_out, ByCanonicalLane(keys)) << list << (crowded ? " crowded" : "");
      std::vector<std::uint32_t> count(kCanonicalLanes, 0), offset(kCanonicalLanes, 0);
      for (std::uint64_t key : keys) ++count[(key & 0xffffffffu) % 1024];
      for (int l = 1; l < kCanonicalLanes; ++l) {
        offset[static_cast<std::size_t>(l)] =
            offset[static_cast<std::size_t>(l - 1)] + count[static_cast<std::size_t>(l - 1)];
      }
      EXPECT_EQ(offset_out, offset) << list << (crowded ? " crowded" : "");
      EXPECT_EQ(count_out, count) << list << (crowded ? " crowded" : "");
      int levels = 0;
      while ((1 << levels) < (list + 31) / 32) ++levels;
      EXPECT_EQ(r.counters.max_block_barriers, 1 + (list <= 64 ? 1 : 3 + (levels > 0 ? 2 * (levels - 1) : 0)))
          << list;
      int log2 = 0;
      while ((2 << log2) <= list) ++log2;
      EXPECT_LE(r.counters.critical_intervals.back(), 2 * (log2 + 1) + 1) << list;
    }
  }
}

}  // namespace
}  // namespace sampcheck::gpu
