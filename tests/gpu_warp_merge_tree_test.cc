// SPDX-License-Identifier: Apache-2.0
// The warps' merge tree (gpu/block/warp_merge_tree.cuh) against std::sort, on the emulator with
// every check on (races, bounds, uninitialised reads): the contract's example, 1 to 32 runs of
// 0 to 64 keys (32 at most under `half`) with ties, under blocks of 1024, 128 and 32 threads;
// the barriers and a thread's accesses the contract states (counted work, no timing).
#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/block/merge_runs.cuh"
#include "gpu/block/warp_merge_tree.cuh"

namespace sampcheck::gpu {
namespace {

struct Merged {
  std::vector<std::uint64_t> first;  // last(t, e, key) by e: 64 keys
  LaunchReport report;
};

// runs[v] ascending, at most 64 keys (32 when half), v < count <= 32. The runs lie in a global
// array, 64 slots a run (kTreeAbove past its keys); with `partner`, level 1 loads the runs v != 0
// mod 4 from it (MergeTreeRuns' partner, as MergeSliceLists does) and those runs are neither
// loaded nor stored by the test, with no barrier before the tree; else the odd runs are stored
// (the contract's first form) and a barrier follows.
template <int kThreads>
Merged RunTree(const std::vector<std::vector<std::uint64_t>>& runs, bool half, bool partner = false) {
  const int count = static_cast<int>(runs.size());
  constexpr int kPairs = kTreeRuns / (kThreads / kWarpSize);
  std::vector<std::uint64_t> flat(static_cast<std::size_t>(count) * kTreeKept, kTreeAbove);
  for (std::size_t v = 0; v < runs.size(); ++v) std::copy(runs[v].begin(), runs[v].end(), flat.begin() + v * kTreeKept);
  Merged m;
  m.first.assign(kTreeKept, 0);
  std::vector<int> calls(kTreeKept, 0);
  m.report = emu::Launch("tree", 1, kThreads, [&](Block& block) {
    GlobalArray<std::uint64_t> lists(flat.data(), static_cast<std::int64_t>(flat.size()), "runs");
    SAMPCHECK_SHARED(block, std::uint64_t, keys, 1024);
    auto held = Registers<SlotKeys<2 * kPairs>>(block);
    auto element = [&](int v, int e) { return v < count ? lists.Load(v * kTreeKept + e) : kTreeAbove; };
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kPairs; ++r) {
        const int v = TreeRunOf<kThreads>(t, r);
        const bool load = !partner || v % TreeLoadedFan(count) == 0;
        held[t].v[2 * r] = load ? element(v, t.lane()) : kTreeAbove;
        held[t].v[2 * r + 1] = load ? element(v, kWarpSize + t.lane()) : kTreeAbove;
        if (!partner && v % 2 == 1 && v < count) {
          StoreTreeRun(t, v, held[t].v[2 * r], held[t].v[2 * r + 1], half, keys);
        }
      }
    });
    if (!partner) block.Sync();
    auto last = [&](Thread, int e, std::uint64_t x) {
      m.first[static_cast<std::size_t>(e)] = x;
      ++calls[static_cast<std::size_t>(e)];
    };
    if (partner) {
      MergeTreeRuns<kThreads>(block, keys, held, count, half, last, element);
    } else {
      MergeTreeRuns<kThreads>(block, keys, held, count, half, last);
    }
  });
  for (int e = 0; e < kTreeKept; ++e) EXPECT_EQ(calls[static_cast<std::size_t>(e)], 1) << "element " << e;
  return m;
}

std::vector<std::uint64_t> FirstOf(const std::vector<std::vector<std::uint64_t>>& runs) {
  std::vector<std::uint64_t> all;
  for (const auto& r : runs) all.insert(all.end(), r.begin(), r.end());
  std::sort(all.begin(), all.end());
  all.resize(kTreeKept, kTreeAbove);
  return all;
}

// The contract's example: runs {1, 4} and {2, 3} under `half`: {1, 2, 3, 4, ~0, ..}, one level,
// no barrier of the tree's (the test's own store barrier only).
TEST(GpuWarpMergeTree, ContractExample) {
  const Merged m = RunTree<1024>({{1, 4}, {2, 3}}, true);
  ASSERT_TRUE(m.report.ok()) << m.report.Summary();
  EXPECT_EQ(m.first, FirstOf({{1, 2, 3, 4}}));
  EXPECT_EQ(m.report.counters.max_block_barriers, 1);
}

// The contract's levels: span 1, then times the fan-in (2 at a level 1 read from the slots, count
// / 4 rounded up and at least 4 at a level 1 loading its partners, else 4) while the span is
// below count; one barrier between two levels.
int TreeLevels(int count, bool partner) {
  int levels = 0;
  for (int span = 1; span < count;) {
    ++levels;
    const int loaded = (count + 3) / 4 < 4 ? 4 : (count + 3) / 4;
    span *= levels > 1 ? 4 : partner ? loaded : 2;
  }
  return levels;
}

// Random runs: every count from 1 to 32, run lengths from 0 to 64 (32 under half), keys drawn
// from a small range so that ties within and across runs are common; the first 64 of the
// multiset by std::sort. Barriers: the test's store barrier, then one fewer than the levels
// (32 runs: 1 + 2, fan-ins 2, 4, 4, where pairwise levels took 1 + 4); with the partner loads
// (level 1 reading the other runs from global memory, fan-in 4 from there) no store barrier.
template <int kThreads>
void ExpectRandomRuns(std::uint32_t seed, bool partner) {
  std::mt19937_64 gen(seed);
  for (const bool half : {false, true}) {
    for (int count = 1; count <= kTreeRuns; ++count) {
      std::vector<std::vector<std::uint64_t>> runs(static_cast<std::size_t>(count));
      for (auto& r : runs) {
        r.resize(gen() % ((half ? 32 : 64) + 1));
        for (auto& x : r) x = gen() % 200;
        std::sort(r.begin(), r.end());
      }
      const Merged m = RunTree<kThreads>(runs, half, partner);
      ASSERT_TRUE(m.report.ok()) << m.report.Summary();
      EXPECT_EQ(m.first, FirstOf(runs)) << count << " runs" << (half ? ", half" : "") << ", " << kThreads
                                        << (partner ? ", partner" : "");
      const int levels = TreeLevels(count, partner);
      EXPECT_EQ(m.report.counters.max_block_barriers, (partner ? 0 : 1) + (levels > 0 ? levels - 1 : 0))
          << count << " runs";
    }
  }
}

// The levels the contract's fan-ins give, by hand: 32 stored runs 16, 4, 1 after each level;
// 20 loaded lists (fan-in 5) 4 (runs 0 mod 5), 1; 32 loaded lists (fan-in 8) 4, 1; 16 lists 4,
// 1; 2 lists 1; 5 stored runs 3 (0, 2, 4), 1.
TEST(GpuWarpMergeTree, LevelsOfTheFanIns) {
  EXPECT_EQ(TreeLevels(32, false), 3);
  EXPECT_EQ(TreeLevels(20, true), 2);
  EXPECT_EQ(TreeLevels(32, true), 2);
  EXPECT_EQ(TreeLevels(16, true), 2);
  EXPECT_EQ(TreeLevels(2, true), 1);
  EXPECT_EQ(TreeLevels(5, false), 2);
  EXPECT_EQ(TreeLevels(1, false), 0);
}

TEST(GpuWarpMergeTree, FirstKeysOfRandomRunsWithTies) {
  ExpectRandomRuns<1024>(7, false);
  ExpectRandomRuns<128>(8, false);
  ExpectRandomRuns<32>(9, false);
}

TEST(GpuWarpMergeTree, LevelOneLoadsThePartnerRuns) {
  ExpectRandomRuns<1024>(17, true);
  ExpectRandomRuns<128>(18, true);
  ExpectRandomRuns<32>(19, true);
}

// A thread's accesses at 1024 threads, 32 runs of 64 keys (half: 32), interval by interval: the
// test's two loads of its run's elements from global memory and its stores (2; 1 under half)
// before its barrier; level 1 (2 runs a reader) 2 reads (1 under half) and the 2 stores of a
// partner of level 2; level 2 (4 runs a reader) 3 x 2 reads and 2 stores; level 3 (runs 0, 8,
// 16 and 24) 6 reads: 4 + 4 + 8 + 6 = 22 (half: 3 + 3 + 8 + 6 = 20). With the partner loads
// (level 1, fan-in 8, reading partners 1 to 7 from global memory, 2 elements each, 1 under
// half; no store or barrier before the tree): the test's 2 loads of its run, 14 and the 2
// stores of a partner of level 2 (runs 8, 16 and 24): 18 (half 2 + 7 + 2 = 11), then level 2
// (run 0) 6: 24 (half: 17); 20 and 17 with three levels of four until 2026-12-07. Each element
// of the runs is loaded from global memory once: 32 x 64 loads of 8 bytes; with the partner
// loads under half, the 4 runs 0 mod 8 the test loads whole and 32 elements of each of the 28
// others: 4 x 64 + 28 x 32.
TEST(GpuWarpMergeTree, TwoReadsAndTwoStoresALevel) {
  std::vector<std::vector<std::uint64_t>> runs(kTreeRuns);
  std::mt19937_64 gen(3);
  for (const bool half : {false, true}) {
    for (auto& r : runs) {
      r.resize(half ? 32 : 64);
      for (auto& x : r) x = gen();
      std::sort(r.begin(), r.end());
    }
    const Merged m = RunTree<1024>(runs, half);
    ASSERT_TRUE(m.report.ok()) << m.report.Summary();
    EXPECT_EQ(m.first, FirstOf(runs));
    EXPECT_EQ(m.report.counters.critical_path, half ? 20 : 22);
    const Merged p = RunTree<1024>(runs, half, true);
    ASSERT_TRUE(p.report.ok()) << p.report.Summary();
    EXPECT_EQ(p.first, FirstOf(runs));
    EXPECT_EQ(p.report.counters.critical_path, half ? 17 : 24);
    EXPECT_EQ(m.report.counters.GlobalLoadBytes("runs"), 32 * 64 * 8);
    EXPECT_EQ(p.report.counters.GlobalLoadBytes("runs"), (half ? 4 * 64 + 28 * 32 : 32 * 64) * 8);
  }
}

// Only the warps that merge at a level take part in its shuffles (ForWarps): at 1024 threads
// warp w holds run w, and a bitonic merge is 2 registers x 5 stages = 10 ShuffleXor; a level
// of 2 runs a reader makes one merge, a level of 4 three (partners 0 and 1, 2 and 3, then the
// two results). 32 runs: level 1 (16 warps, the even runs) 10, level 2 (runs 0 mod 8: 4 warps)
// 30, level 3 (warp 0) 30: 70 collectives, 160 + 120 + 30 = 310 warp shuffles (every warp at
// every level: 32 x 70). 20 runs (a one-row split's lists, stored here): 10 warps, then runs 0,
// 8 and 16 (3), then warp 0: 100 + 90 + 30 = 220. Counted work (warp_op_warps), not timing.
// The same 20 runs loaded (a one-row split's lists, MergeSliceLists' form): level 1 of fan-in 5
// in warps 0, 5, 10 and 15, four merges side by side (partners 0 and 1, 2 and 3, 4 and 5, 6 and
// 7: 20 + 20 collectives), two (20), then one (10): 70; level 2 in warp 0, 30: 100 collectives,
// 4 x 70 + 30 = 310 warp shuffles (three levels of four took 70 and 5 x 30 + 2 x 30 + 10 =
// 220, with a barrier more).
TEST(GpuWarpMergeTree, OnlyTheMergingWarpsShuffle) {
  for (const auto& [count, shuffles] : {std::pair{32, 310}, std::pair{20, 220}}) {
    std::vector<std::vector<std::uint64_t>> runs(static_cast<std::size_t>(count), std::vector<std::uint64_t>(64));
    std::mt19937_64 gen(static_cast<std::uint64_t>(count));
    for (auto& r : runs) {
      for (auto& x : r) x = gen();
      std::sort(r.begin(), r.end());
    }
    const Merged m = RunTree<1024>(runs, false);
    ASSERT_TRUE(m.report.ok()) << m.report.Summary();
    EXPECT_EQ(m.first, FirstOf(runs));
    EXPECT_EQ(m.report.counters.warp_ops, 70) << count << " runs";
    EXPECT_EQ(m.report.counters.warp_op_warps, shuffles) << count << " runs";
    if (count != 20) continue;
    const Merged loaded = RunTree<1024>(runs, false, true);
    ASSERT_TRUE(loaded.report.ok()) << loaded.report.Summary();
    EXPECT_EQ(loaded.first, FirstOf(runs));
    EXPECT_EQ(loaded.report.counters.warp_ops, 100);
    EXPECT_EQ(loaded.report.counters.warp_op_warps, 310);
    EXPECT_EQ(loaded.report.counters.max_block_barriers, 1);
  }
}

}  // namespace
}  // namespace sampcheck::gpu
