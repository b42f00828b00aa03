// SPDX-License-Identifier: Apache-2.0
// MergeRuns (gpu/block/merge_runs.cuh) on the emulator with every check on, against
// std::partial_sort: the contract's example, a split row's slice lists (the row's k smallest
// keys), runs cut to their first `keep`, counts of runs that are not powers of two, tied keys,
// blocks of 1024, 128 and 32 threads; the barriers and the reads a key its contract states
// (counted work, no timing).
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/block/merge_runs.cuh"
#include "gpu/block/row_slices.cuh"

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

}  // namespace
}  // namespace sampcheck::gpu
