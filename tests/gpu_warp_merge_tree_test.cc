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
// array, 64 slots a run (kTreeAbove past its keys); with `partner`, level 1 loads the odd runs
// from it (MergeTreeRuns' partner, as MergeSliceLists does) and the odd runs are neither loaded
// nor stored, with no barrier before the tree; else the odd runs are stored (the contract's
// first form) and a barrier follows.
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
        const bool load = !partner || v % 2 == 0;
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

// Random runs: every count from 1 to 32, run lengths from 0 to 64 (32 under half), keys drawn
// from a small range so that ties within and across runs are common; the first 64 of the
// multiset by std::sort. Barriers: the test's store barrier, then ceil(log2 count) - 1; with
// the partner loads (level 1 reading the odd runs from global memory) no store barrier.
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
      int levels = 0;
      while ((1 << levels) < count) ++levels;
      EXPECT_EQ(m.report.counters.max_block_barriers, (partner ? 0 : 1) + (levels > 0 ? levels - 1 : 0))
          << count << " runs";
    }
  }
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

// A thread's accesses at 1024 threads, 32 runs of 64 keys (half: 32): the test's two loads of
// its run's elements from global memory and its stores (2; 1 under half) before its barrier,
// then 2 reads a level (1 at level 1 under half) and 2 stores a level but the last: 2 + 2 + 4 x
// 4 + 2 = 22 (half: 2 + 1 + 3 + 3 x 4 + 2 = 20). With the partner loads (level 1 reading its
// partner's two elements from global memory, no store or barrier before the tree): 2 + 2 + 2
// at level 1 (the run's loads, the partner's, the stores for level 2), then 3 x 4 + 2: 20
// (half: 2 + 1 + 2 + 3 x 4 + 2 = 19).
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
    EXPECT_EQ(p.report.counters.critical_path, half ? 19 : 20);
  }
}

// Only the warps that merge at a level take part in its shuffles (ForWarps): at 1024 threads a
// level's bitonic merge is 2 registers x 5 stages = 10 ShuffleXor, and warp w holds run w. 32
// runs: 5 levels, the runs v = 0 mod 2^s merging at level s, 16 + 8 + 4 + 2 + 1 = 31 warps, 310
// warp shuffles (every warp: 32 x 50 = 1600). 20 runs (a one-row split's lists): v = 0 mod 2^s
// and v < 20, 10 + 5 + 3 + 2 + 1 = 21 warps, 210. Counted work (warp_op_warps), not timing.
TEST(GpuWarpMergeTree, OnlyTheMergingWarpsShuffle) {
  for (const auto& [count, warps] : {std::pair{32, 31}, std::pair{20, 21}}) {
    std::vector<std::vector<std::uint64_t>> runs(static_cast<std::size_t>(count), std::vector<std::uint64_t>(64));
    std::mt19937_64 gen(static_cast<std::uint64_t>(count));
    for (auto& r : runs) {
      for (auto& x : r) x = gen();
      std::sort(r.begin(), r.end());
    }
    const Merged m = RunTree<1024>(runs, false);
    ASSERT_TRUE(m.report.ok()) << m.report.Summary();
    EXPECT_EQ(m.first, FirstOf(runs));
    EXPECT_EQ(m.report.counters.warp_ops, 50) << count << " runs";
    EXPECT_EQ(m.report.counters.warp_op_warps, 10 * warps) << count << " runs";
  }
}

}  // namespace
}  // namespace sampcheck::gpu
