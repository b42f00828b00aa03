// SPDX-License-Identifier: Apache-2.0
// One warp's canonical sum of at most 64 entries (gpu/block/warp_canonical_sum.cuh) against the
// reference's CanonicalSumAt (reference/reductions.cc, the dense row's 1024-lane tree), on the
// emulator with every check on: the reference's documented example, a hand case where a lane's
// fold comes before the tree, random entry sets (spread over the row, crowded into a few lanes
// and their tree neighbours, tiny terms where the order rounds), entries left out, one warp
// alone and warp 0 of a 1024-thread block; no barrier and no shared memory (counted).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/block/warp_canonical_sum.cuh"
#include "reference/reductions.h"

namespace sampcheck::gpu {
namespace {

struct Entry {
  std::int64_t index;
  float term;
  bool left_out = false;  // in the warp's slots, with -0.0 as its term
};

struct Summed {
  float sum = 0.0f;
  LaunchReport report;
};

// The entries (at most 64, distinct indices) in slots 0 .. n - 1 in the given order, sorted by
// WarpSortPairs of their CanonicalOrderKey, summed by warp 0 of a block of kThreads.
template <int kThreads>
Summed WarpSum(const std::vector<Entry>& entries) {
  Summed out;
  std::vector<float> lanes(kThreads, 0.0f);
  out.report = emu::Launch("warp_sum", 1, kThreads, [&](Block& block) {
    auto order = Registers<SlotKeys<2>>(block);
    auto value = Registers<SlotFloats>(block);
    block.ForWarps(WarpZero{}, [&] {
      block.ForEachThread([&](Thread t) {
        for (int r = 0; r < 2; ++r) {
          const int c = r * kWarpSize + t.lane();
          const bool held = c < static_cast<int>(entries.size());
          order[t].v[r] = held ? CanonicalOrderKey(static_cast<std::uint64_t>(entries[c].index), c) : kNoKey;
        }
      });
      WarpSortPairs(block, order);
      block.ForEachThread([&](Thread t) {
        for (int r = 0; r < 2; ++r) {
          const std::uint64_t key = order[t].v[r];
          const Entry* e = key == kNoKey ? nullptr : &entries[key % 1024];
          value[t].v[r] = e == nullptr || e->left_out ? -0.0f : e->term;
        }
      });
      const auto sum = WarpCanonicalSum(block, order, value);
      block.ForEachThread([&](Thread t) { lanes[t.x] = sum[t]; });
    });
  });
  EXPECT_TRUE(out.report.ok()) << out.report.Summary();
  for (int l = 1; l < kWarpSize; ++l) EXPECT_EQ(lanes[l], lanes[0]) << "lane " << l;
  out.sum = lanes[0];
  return out;
}

// The reference: CanonicalSumAt of the entries kept (index order), whose row is zero elsewhere.
float ReferenceSum(std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.index < b.index; });
  std::vector<std::int32_t> index;
  std::vector<float> value;
  for (const Entry& e : entries) {
    if (e.left_out) continue;
    index.push_back(static_cast<std::int32_t>(e.index));
    value.push_back(e.term);
  }
  return reference::CanonicalSumAt(index, value);
}

TEST(GpuWarpCanonicalSum, ReferenceExample) {
  // reference/reductions.h: {2^-24, 2^-24, 1} sums to 1 (a left-to-right loop: 1 + 2^-23).
  const float tiny = std::ldexp(1.0f, -24);
  const std::vector<Entry> entries{{2, 1.0f}, {0, tiny}, {1, tiny}};
  EXPECT_EQ(WarpSum<32>(entries).sum, 1.0f);
  EXPECT_EQ(WarpSum<1024>(entries).sum, 1.0f);
}

TEST(GpuWarpCanonicalSum, ALaneFoldsBeforeTheTree) {
  // Lane 0 folds indices 0 and 1024: 2^-24 + 2^-24 = 2^-23; stride 2 adds lane 2's 1: 1 + 2^-23,
  // exact. The tree first would give (2^-24 + 1) + 2^-24 = 1 (each addition a tie to even).
  const float tiny = std::ldexp(1.0f, -24);
  const std::vector<Entry> entries{{1024, tiny}, {2, 1.0f}, {0, tiny}};
  EXPECT_EQ(WarpSum<32>(entries).sum, 1.0f + std::ldexp(1.0f, -23));
  // Left out, index 1024 adds nothing: 2^-24 + 1 rounds to 1.
  std::vector<Entry> without = entries;
  without[0].left_out = true;
  EXPECT_EQ(WarpSum<32>(without).sum, 1.0f);
}

// Random entry sets: n indices from a few lanes' columns (crowded: many entries a lane, lanes
// that the tree's first levels join), or spread over V = 128256; terms from 1 down to 2^-30,
// where the order of the additions shows in the bits.
std::vector<Entry> RandomEntries(std::mt19937_64& rng, bool crowded) {
  std::uniform_int_distribution<int> count(1, 64);
  const int n = count(rng);
  std::vector<std::int64_t> indices;
  std::uniform_int_distribution<std::int64_t> anywhere(0, 128255);
  std::uniform_int_distribution<int> lane(0, 1023);
  std::uniform_int_distribution<int> column(0, 124);
  std::uniform_int_distribution<int> neighbour(0, 9);
  const int base = lane(rng);
  while (static_cast<int>(indices.size()) < n) {
    // crowded: lane base, or base with one bit flipped (the lane a tree level joins it to)
    const std::int64_t i = crowded ? (base ^ (neighbour(rng) < 5 ? 0 : 1 << neighbour(rng))) + 1024 * column(rng)
                                   : anywhere(rng);
    if (std::find(indices.begin(), indices.end(), i) == indices.end()) indices.push_back(i);
  }
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-30, 0);
  std::bernoulli_distribution left_out(0.1);
  std::vector<Entry> entries;
  for (std::int64_t i : indices) entries.push_back({i, std::ldexp(mantissa(rng), exponent(rng)), left_out(rng)});
  entries[0].left_out = false;  // a zero sum's sign is CanonicalSumAt's exception
  return entries;
}

TEST(GpuWarpCanonicalSum, MatchesTheReferenceOnRandomEntries) {
  std::mt19937_64 rng(20261207);
  for (int c = 0; c < 300; ++c) {
    const std::vector<Entry> entries = RandomEntries(rng, c % 2 == 0);
    const float want = ReferenceSum(entries);
    const float got = c % 10 == 0 ? WarpSum<1024>(entries).sum : WarpSum<32>(entries).sum;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want))
        << "case " << c << ": " << entries.size() << " entries, " << got << " vs " << want;
  }
}

TEST(GpuWarpCanonicalSum, NoBarrierNoSharedMemory) {
  std::mt19937_64 rng(7);
  const Summed s = WarpSum<1024>(RandomEntries(rng, true));
  EXPECT_EQ(s.report.counters.barriers, 0);
  EXPECT_EQ(s.report.counters.SharedAccesses(), 0);
  EXPECT_EQ(s.report.counters.GlobalLoadBytes() + s.report.counters.GlobalStoreBytes(), 0);
}

}  // namespace
}  // namespace sampcheck::gpu
