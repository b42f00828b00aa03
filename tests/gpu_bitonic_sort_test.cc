// SPDX-License-Identifier: Apache-2.0
// The warp-aware bitonic sort (gpu/block/bitonic_sort.cuh) against std::sort, on the emulator
// with every check on: counts 0, 1, powers of two and not, ties, the filters' order keys of
// -inf and NaN, blocks of 32 to 1024 threads, with one buffer and with two; the slots
// after the sorted ones untouched; the barriers and the busiest thread's accesses its contract
// states (counted work, no timing); KthSmallestSlot against
// std::nth_element.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/radix_select.cuh"

namespace sampcheck::gpu {
namespace {

constexpr std::uint64_t kPad = ~std::uint64_t{0};
constexpr std::uint64_t kUntouched = 0x5a5a5a5a5a5a5a5aull;  // below most keys: a write would show

struct Sorted {
  std::vector<std::uint64_t> slots;  // all kSortSlots slots after the sort
  std::int64_t barriers = 0;
  std::int64_t accesses = 0;  // the sort's shared accesses on the busiest thread, interval by interval
  bool ok = false;
  std::string summary;
};

// keys[0, count) real, [count, n) padding, [n, 1024) a marker the sort must not touch.
template <int kThreads, bool kTwoBuffers = false>
Sorted RunSort(const std::vector<std::uint64_t>& real) {
  const auto count = static_cast<std::uint32_t>(real.size());
  const int n = SortSlotsFor(count);
  std::vector<std::uint64_t> in(kSortSlots, kUntouched);
  for (int s = 0; s < n; ++s) {
    in[static_cast<std::size_t>(s)] = s < static_cast<int>(count) ? real[static_cast<std::size_t>(s)] : kPad;
  }
  Sorted out;
  out.slots.assign(kSortSlots, 0);
  const LaunchReport r = emu::Launch("sort", 1, kThreads, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, keys, kSortSlots);
    block.ForEachThread([&](Thread t) {
      for (int s = t.x; s < kSortSlots; s += kThreads) keys.Store(s, in[static_cast<std::size_t>(s)]);
    });
    block.Sync();
    BitonicSortSlots<kThreads, kTwoBuffers>(block, keys, count);
    block.ForEachThread([&](Thread t) {
      for (int s = t.x; s < kSortSlots; s += kThreads) out.slots[static_cast<std::size_t>(s)] = keys.Load(s);
    });
  });
  out.ok = r.ok();
  out.summary = r.Summary();
  // The test's own two barriers are not the sort's: the one after the stores only.
  out.barriers = r.counters.max_block_barriers - 1;
  // Nor the test's stores before it and loads after it: kSortSlots / kThreads each.
  out.accesses = r.counters.critical_path - 2 * (kSortSlots / kThreads);
  return out;
}

template <int kThreads, bool kTwoBuffers = false>
void ExpectSorts(const std::vector<std::uint64_t>& real) {
  SCOPED_TRACE(kTwoBuffers ? "two buffers" : "one buffer");
  const Sorted got = RunSort<kThreads, kTwoBuffers>(real);
  ASSERT_TRUE(got.ok) << got.summary;
  std::vector<std::uint64_t> want = real;
  std::sort(want.begin(), want.end());
  const int n = SortSlotsFor(static_cast<std::uint32_t>(real.size()));
  for (int s = 0; s < kSortSlots; ++s) {
    const std::uint64_t expected =
        s < static_cast<int>(real.size()) ? want[static_cast<std::size_t>(s)] : (s < n ? kPad : kUntouched);
    ASSERT_EQ(got.slots[static_cast<std::size_t>(s)], expected)
        << "slot " << s << ", count " << real.size() << ", " << kThreads << " threads";
  }
}

std::vector<std::uint64_t> RandomKeys(std::size_t count, std::uint64_t modulus, std::uint32_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::uint64_t> v(count);
  for (auto& x : v) x = modulus == 0 ? gen() >> 1 : gen() % modulus;  // >> 1: below the padding
  return v;
}

TEST(GpuBitonicSort, SlotsAreTheNextPowerOfTwoFromOneWarp) {
  EXPECT_EQ(SortSlotsFor(0), 32);
  EXPECT_EQ(SortSlotsFor(1), 32);
  EXPECT_EQ(SortSlotsFor(32), 32);
  EXPECT_EQ(SortSlotsFor(33), 64);
  EXPECT_EQ(SortSlotsFor(50), 64);
  EXPECT_EQ(SortSlotsFor(513), 1024);
  EXPECT_EQ(SortSlotsFor(1024), 1024);
}

// Unique keys (the filters' case) and heavy ties (16 distinct values), at counts around every
// power of two, under blocks of 32 to 1024 threads: every stage kind (register, shuffle, the
// one-stage exchange, the transposed levels over runs of 2 to 32 rows of 32 slots).
TEST(GpuBitonicSort, MatchesStdSort) {
  const std::size_t counts[] = {0, 1, 2, 3, 31, 32, 33, 50, 63, 64, 65, 100, 255, 256, 257, 513, 1000, 1023, 1024};
  std::uint32_t seed = 1;
  for (const std::size_t count : counts) {
    for (const std::uint64_t modulus : {std::uint64_t{0}, std::uint64_t{16}}) {
      const std::vector<std::uint64_t> keys = RandomKeys(count, modulus, seed++);
      ExpectSorts<1024>(keys);
      ExpectSorts<512>(keys);
      ExpectSorts<256>(keys);
      ExpectSorts<128>(keys);
      ExpectSorts<64>(keys);
      ExpectSorts<32>(keys);
      ExpectSorts<1024, true>(keys);
      ExpectSorts<256, true>(keys);
      ExpectSorts<128, true>(keys);
      ExpectSorts<32, true>(keys);
    }
  }
}

// Already sorted and reversed input, and every key equal.
TEST(GpuBitonicSort, SortedReversedAndConstantInput) {
  std::vector<std::uint64_t> up(777);
  for (std::size_t i = 0; i < up.size(); ++i) up[i] = 1000 + i;
  std::vector<std::uint64_t> down(up.rbegin(), up.rend());
  std::vector<std::uint64_t> same(300, 42);
  for (const auto* keys : {&up, &down, &same}) {
    ExpectSorts<1024>(*keys);
    ExpectSorts<128>(*keys);
    ExpectSorts<1024, true>(*keys);
    ExpectSorts<128, true>(*keys);
  }
}

// The filters' descending order keys (gpu/block/radix_select.cuh OrderKey) of rows with -inf,
// NaN, +-0.0 and ties: the sort gives the order of the keys, NaN first and -inf last.
TEST(GpuBitonicSort, SortsOrderKeysOfSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> row = {1.0f, -inf, nan, 0.0f, -0.0f, 3.5f, -inf, 1.0f, nan, -2.0f, 3.5f, 1e-30f};
  std::vector<std::uint64_t> keys;
  for (std::size_t i = 0; i < 70; ++i) {
    keys.push_back(OrderKey(row[i % row.size()], static_cast<std::int64_t>(i), false));
  }
  ExpectSorts<1024>(keys);
  ExpectSorts<128>(keys);
  ExpectSorts<1024, true>(keys);
  const Sorted got = RunSort<1024>(keys);
  EXPECT_EQ(got.slots[0], OrderKey(nan, 2, false));     // NaN's value key 0, lowest index first
  EXPECT_EQ(got.slots[69], OrderKey(-inf, 66, false));  // -inf last, highest index last
}

// Barriers (contract): 1 at the end + 2 per merge level with a stage crossing warps, + 1 with
// one buffer after a transposed level (k >= 128 crossing). 1024 threads: n = 32: 1; n = 64:
// 1 + 2 = 3 (k = 64's one stage: no transposed level); n = 1024: levels k = 64 .. 1024 cross,
// 1 + 2 x 5 = 11, one buffer 12 (stage by stage it was 1 + the sum over k = 64 .. 1024 of 1 +
// 1 .. 5 = 21; the full network had 55). 128 threads: n = 1024: levels k = 64 .. 1024 cross
// (j = 32, then j = 64 and 32, transposed): 11, one buffer 12 (stage by stage 15). 32
// threads: none cross.
TEST(GpuBitonicSort, BarriersFollowTheCrossingLevels) {
  EXPECT_EQ(RunSort<1024>(RandomKeys(20, 0, 7)).barriers, 1);
  EXPECT_EQ(RunSort<1024>(RandomKeys(50, 0, 7)).barriers, 3);
  EXPECT_EQ(RunSort<1024>(RandomKeys(100, 0, 7)).barriers, 6);  // n = 128: 1 + 2 + 2 + 1
  EXPECT_EQ(RunSort<1024>(RandomKeys(1024, 0, 7)).barriers, 12);
  EXPECT_EQ(RunSort<128>(RandomKeys(50, 0, 7)).barriers, 3);
  EXPECT_EQ(RunSort<128>(RandomKeys(1024, 0, 7)).barriers, 12);
  EXPECT_EQ(RunSort<32>(RandomKeys(1024, 0, 7)).barriers, 1);
  EXPECT_EQ((RunSort<1024, true>(RandomKeys(50, 0, 7)).barriers), 3);
  EXPECT_EQ((RunSort<1024, true>(RandomKeys(100, 0, 7)).barriers), 5);
  EXPECT_EQ((RunSort<1024, true>(RandomKeys(1024, 0, 7)).barriers), 11);
  EXPECT_EQ((RunSort<128, true>(RandomKeys(1024, 0, 7)).barriers), 11);
}

// Shared accesses on the busiest thread (contract "Layout"), 1024 threads (one slot each):
// the registers' first load and last store, 2 for the one-stage level k = 64 (its store and
// its partner's load), 4 for a transposed level (a store and a load each way), with one
// buffer or two: n = 64: 1 + 2 + 1 = 4; n = 1024 (levels 64 .. 1024): 1 + 2 + 4 x 4 + 1 =
// 20. Stage by stage it was 8 and 72 with one buffer (4 accesses a crossing stage), 4 and 32
// with two. 128 threads, n = 1024: 8 slots a thread, each the same: 8 x 20 = 160.
TEST(GpuBitonicSort, TransposedLevelsTakeFourAccessesASlot) {
  EXPECT_EQ(RunSort<1024>(RandomKeys(50, 0, 7)).accesses, 4);
  EXPECT_EQ(RunSort<1024>(RandomKeys(1024, 0, 7)).accesses, 20);
  EXPECT_EQ((RunSort<1024, true>(RandomKeys(50, 0, 7)).accesses), 4);
  EXPECT_EQ((RunSort<1024, true>(RandomKeys(1024, 0, 7)).accesses), 20);
  EXPECT_EQ(RunSort<128>(RandomKeys(1024, 0, 7)).accesses, 160);
  EXPECT_EQ((RunSort<128, true>(RandomKeys(1024, 0, 7)).accesses), 160);
}

// The exchange array's swizzle (contract "Layout", gpu/block/swizzled_slot.h) spreads a
// warp's 32 keys over the 32 words modulo 32 both ways it touches a 1024-slot run: a row's 32
// slots in slot order, and a column's 32 slots (the transposed load of warp w: row l of column
// w in lane l), as 64-bit words the two wavefronts of 256 bytes, not 32 of one bank pair (a
// column unswizzled: stride 32).
TEST(GpuBitonicSort, SwizzleSpreadsRowsAndColumnsOverTheBanks) {
  for (int w = 0; w < kSortSlots / kWarpSize; ++w) {
    std::vector<bool> row(kWarpSize, false);
    std::vector<bool> column(kWarpSize, false);
    for (int l = 0; l < kWarpSize; ++l) {
      row[static_cast<std::size_t>(SwizzledSlot(w * kWarpSize + l) % kWarpSize)] = true;
      column[static_cast<std::size_t>(SwizzledSlot(l * kWarpSize + w) % kWarpSize)] = true;
    }
    EXPECT_EQ(std::count(row.begin(), row.end(), true), kWarpSize) << "row " << w;
    EXPECT_EQ(std::count(column.begin(), column.end(), true), kWarpSize) << "column " << w;
  }
}

// KthSmallestSlot against std::nth_element: distinct keys with padding (~0) in the last slots
// (rows shorter than 1024 lanes), every k from 1 to the real keys' number at a few sizes (both
// sides of the merge tree's 4 <= k <= 64), under 1024, 128 and 32 threads; four barriers there
// (the runs' store, the tree's two, the answer's), ten elsewhere. The padding may repeat: it
// is above the k-th.
template <int kThreads>
LaunchReport ExpectKth(const std::vector<std::uint64_t>& slots, std::int64_t k) {
  std::uint64_t got = 0;
  std::uint64_t smallest = 0;
  const LaunchReport r = emu::Launch("kth", 1, kThreads, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, keys, kSortSlots);
    block.ForEachThread([&](Thread t) {
      for (int s = t.x; s < kSortSlots; s += kThreads) keys.Store(s, slots[static_cast<std::size_t>(s)]);
    });
    block.Sync();
    std::uint64_t first = 0;
    const std::uint64_t kth = KthSmallestSlot<kThreads>(block, keys, k, first);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) got = kth, smallest = first;
    });
  });
  EXPECT_TRUE(r.ok()) << r.Summary();
  // The test's store barrier, then the contract's.
  EXPECT_EQ(r.counters.max_block_barriers, 1 + (k >= 4 && k <= 64 ? 4 : 10));
  std::vector<std::uint64_t> want = slots;
  std::nth_element(want.begin(), want.begin() + (k - 1), want.end());
  EXPECT_EQ(got, want[static_cast<std::size_t>(k - 1)]) << "k " << k << ", " << kThreads << " threads";
  EXPECT_EQ(smallest, *std::min_element(slots.begin(), slots.end())) << "k " << k << ", " << kThreads << " threads";
  return r;
}

TEST(GpuBitonicSort, KthSmallestMatchesNthElement) {
  std::uint32_t seed = 100;
  for (const std::size_t real :
       {std::size_t{1}, std::size_t{2}, std::size_t{37}, std::size_t{1000}, std::size_t{1024}}) {
    std::vector<std::uint64_t> slots = RandomKeys(real, 0, seed++);
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());  // distinct (almost surely already)
    std::shuffle(slots.begin(), slots.end(), std::mt19937(seed++));
    const auto distinct = static_cast<std::int64_t>(slots.size());
    slots.resize(kSortSlots, kPad);
    for (std::int64_t k : {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{4}, std::int64_t{31},
                           std::int64_t{32}, std::int64_t{33},
                           std::int64_t{50}, std::int64_t{63}, std::int64_t{64}, std::int64_t{65}, std::int64_t{513},
                           std::int64_t{1024}}) {
      if (k > distinct) continue;
      ExpectKth<1024>(slots, k);
      ExpectKth<128>(slots, k);
      ExpectKth<32>(slots, k);
    }
    ExpectKth<1024>(slots, distinct);
  }
}

// The contract's bound on a thread's serial work at 1024 threads (one key a thread), plus the
// test's own store. k <= 64, the warps' merge tree: the load and an odd run's store, level 1's
// read and the next partner's two stores, level 2's six reads (three partners) and two stores,
// level 3's six reads and the answer slots' stores (two in lane 0 when k = 1 mod 32, else one a
// lane), their two reads: 2 + 3 + 8 + 8 + 2 = 23 at most.
// k < 4 or k > 64, the merge by binary searches: the load and store of the sorted run, one
// binary search a level over the partner run's first m = min(len, k) keys (floor(log2 m) + 1
// reads: 5 x 1 = 5 at k = 1, 5 x 2 = 10 at k = 3, 6 + 7 + 7 + 7 + 7 = 34 at k = 65, 6 + 7 + 8 +
// 9 + 10 = 40 at k = 1024), a store a level for levels 1 to 4, the two answer slots' stores and
// reads: at most 16 at k = 1 and 21 at k = 3, under the tree's 22 or 23. The ranks over 32
// runs they replaced read up to 32 x 6 = 192 times a key; the binary searches took 1 + 2 + 30
// + 4 + 2 + 2 = 41 at k = 50.
TEST(GpuBitonicSort, KthSmallestReadsAKeyAtMostFortyTimes) {
  std::vector<std::uint64_t> slots = RandomKeys(kSortSlots, 0, 41);
  std::shuffle(slots.begin(), slots.end(), std::mt19937(42));
  for (const std::int64_t k : {std::int64_t{4}, std::int64_t{50}, std::int64_t{64}}) {
    EXPECT_LE(ExpectKth<1024>(slots, k).counters.critical_path, 1 + 23) << "k " << k;
  }
  for (const auto& [k, reads] : {std::pair{std::int64_t{1}, 5}, std::pair{std::int64_t{3}, 10},
                                 std::pair{std::int64_t{65}, 34}, std::pair{std::int64_t{1024}, 40}}) {
    const LaunchReport r = ExpectKth<1024>(slots, k);
    EXPECT_LE(r.counters.critical_path, 1 + 2 + reads + 4 + 2 + 2) << "k " << k;
  }
}

// The filters' keys of a row with -inf and ties in value (distinct by index): the 3rd is the
// second 1.0 by index.
TEST(GpuBitonicSort, KthSmallestOfOrderKeys) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<std::uint64_t> slots(kSortSlots, kPad);
  const std::vector<float> row = {1.0f, -inf, 2.0f, 1.0f, -inf, 0.5f};
  for (std::size_t i = 0; i < row.size(); ++i)
    slots[1000 - 7 * i] = OrderKey(row[i], static_cast<std::int64_t>(i), false);
  ExpectKth<1024>(slots, 3);
  ExpectKth<128>(slots, 6);
  ExpectKth<1024>(slots, 5);
}

}  // namespace
}  // namespace sampcheck::gpu
