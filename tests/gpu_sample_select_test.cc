// SPDX-License-Identifier: Apache-2.0
// SelectKthKeyBySample (gpu/block/sample_select.cuh) on the checking emulator, with gpu-fast's
// block sizes (128 threads on the emulator, 32, and the device's 1024): the n-th key of
// property-style rows (continuous, few tied levels with -0.0 and +0.0, flat, mostly -inf, n
// near 1024 and near V - 1024) against an independent oracle: std::nth_element over keys
// built by hand from the floats' bits (docs/spec/filters.md "Order"). Counted reads of the
// row (deterministic) tell the sample's path (the sample and two reads) from the radix
// select's, which rows placed against the sample must take.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core/split_mix64.h"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/sample_select.cuh"

namespace sampcheck::gpu {
namespace {

// docs/spec/filters.md "Order", by hand: -0.0 is +0.0; the monotone key of a negative float
// is its bits complemented, of a non-negative one its bits with the sign bit set; the
// descending order complements that; the index in the low 32 bits.
std::uint64_t KeyByHand(float x, std::int64_t index) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if (bits == 0x80000000u) bits = 0;
  const std::uint32_t monotone = (bits >> 31) != 0 ? ~bits : (bits | 0x80000000u);
  return (std::uint64_t{~monotone} << 32) | static_cast<std::uint32_t>(index);
}

std::uint64_t Oracle(const std::vector<float>& row, std::int64_t n) {
  std::vector<std::uint64_t> keys(row.size());
  for (std::size_t i = 0; i < row.size(); ++i) keys[i] = KeyByHand(row[i], static_cast<std::int64_t>(i));
  std::nth_element(keys.begin(), keys.begin() + (n - 1), keys.end());
  return keys[static_cast<std::size_t>(n - 1)];
}

struct Selected {
  std::uint64_t key = 0;
  std::int64_t row_bytes = 0;  // bytes loaded from the row
  std::int64_t barriers = 0;
};

template <int kThreads>
Selected SelectBySample(const std::vector<float>& row, std::int64_t n) {
  Selected s;
  const auto v = static_cast<std::int64_t>(row.size());
  const LaunchReport report = emu::Launch("sample_select", 1, kThreads, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, slots, kSelectSlots);
    GlobalArray<float> x(const_cast<float*>(row.data()), v, "row");
    const std::uint64_t key = SelectKthKeyBySample<kThreads>(
        block, v, [&](std::int64_t i) { return OrderKey(x.Load(i), i, false); }, n, slots);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) s.key = key;
    });
  });
  EXPECT_TRUE(report.ok()) << report.Summary();
  s.row_bytes = report.counters.GlobalLoadBytes("row");
  s.barriers = report.counters.barriers;
  return s;
}

// The sample's path reads the sample (min(4096, ceil(V / 8)) entries) and the row twice.
std::int64_t SamplePathBytes(std::int64_t vocab) {
  return 4 * (2 * vocab + std::min<std::int64_t>(4096, (vocab + 7) / 8));
}

constexpr std::int64_t kVocab = 20000;
const std::int64_t kRanks[] = {1, 2, 1023, 1024, 1025, 5000, kVocab / 2, kVocab - 1025, kVocab - 1024, kVocab - 1023,
                               kVocab - 1, kVocab};

void ExpectEveryRankOnTheSamplePath(const std::vector<float>& row) {
  const auto v = static_cast<std::int64_t>(row.size());
  for (std::int64_t n : kRanks) {
    if (n > v) continue;
    SCOPED_TRACE(testing::Message() << "n = " << n);
    const std::uint64_t expected = Oracle(row, n);
    const Selected s128 = SelectBySample<128>(row, n);
    EXPECT_EQ(s128.key, expected);
    EXPECT_EQ(s128.row_bytes, SamplePathBytes(v));
    const Selected s32 = SelectBySample<32>(row, n);
    EXPECT_EQ(s32.key, expected);
    EXPECT_EQ(s32.row_bytes, SamplePathBytes(v));
  }
}

TEST(GpuSampleSelect, ContinuousRow) {
  SplitMix64 rng(2026);
  std::vector<float> row(kVocab);
  for (float& x : row) x = static_cast<float>(rng.Below(1u << 24)) * 0x1p-20f - 8.0f;  // [-8, 8)
  ExpectEveryRankOnTheSamplePath(row);
}

// Eight values, -0.0 and +0.0 among them (one value: ties by index across the sign).
TEST(GpuSampleSelect, FewTiedLevels) {
  SplitMix64 rng(7);
  const float levels[] = {-0.0f, 0.0f, 1.0f, -1.0f, 2.5f, -3.0f, 7.0f, -100.0f};
  std::vector<float> row(kVocab);
  for (float& x : row) x = levels[rng.Below(8)];
  ExpectEveryRankOnTheSamplePath(row);
}

TEST(GpuSampleSelect, FlatRow) { ExpectEveryRankOnTheSamplePath(std::vector<float>(kVocab, 0.25f)); }

// 300 finite entries, the rest -inf: ranks beyond 300 are -inf entries, by index.
TEST(GpuSampleSelect, FewFiniteEntries) {
  SplitMix64 rng(11);
  std::vector<float> row(kVocab, -std::numeric_limits<float>::infinity());
  for (int j = 0; j < 300; ++j) row[rng.Below(kVocab)] = static_cast<float>(rng.Below(1000)) * 0.01f;
  ExpectEveryRankOnTheSamplePath(row);
}

// A short row: a sample of 188 entries.
TEST(GpuSampleSelect, ShortRow) {
  SplitMix64 rng(5);
  std::vector<float> row(1500);
  for (float& x : row) x = static_cast<float>(rng.Below(64));
  for (std::int64_t n : {1, 2, 700, 1499, 1500}) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    const Selected s = SelectBySample<128>(row, n);
    EXPECT_EQ(s.key, Oracle(row, n));
    EXPECT_EQ(s.row_bytes, SamplePathBytes(1500));
  }
}

// Rows placed against the sample (V = 20480: the sample is the 2560 indices 8 j): the radix
// select takes over and the key stays exact. (a) The sampled entries hold the 2560 largest
// values, so rank 6000 lies beyond the last splitter; (b) every entry but the sampled ones
// holds 0.5, so the bin around 0.5 holds 17920 keys, more than its 1024 slots.
TEST(GpuSampleSelect, SampleMissesAndTheRadixSelectTakesOver) {
  const std::int64_t v = 20480;
  SplitMix64 rng(3);
  std::vector<float> beyond(v), crowded(v, 0.5f);
  for (std::int64_t i = 0; i < v; ++i) {
    beyond[static_cast<std::size_t>(i)] = i % 8 == 0 ? 100.0f + static_cast<float>(i) * 0.001f
                                                       : static_cast<float>(rng.Below(1u << 20)) * 0x1p-20f;
    if (i % 8 == 0) crowded[static_cast<std::size_t>(i)] = static_cast<float>(rng.Below(1u << 20)) * 0x1p-20f;
  }
  for (const auto& [row, n] : {std::pair{&beyond, std::int64_t{6000}}, std::pair{&crowded, v / 2}}) {
    const Selected s128 = SelectBySample<128>(*row, n);
    EXPECT_EQ(s128.key, Oracle(*row, n));
    EXPECT_GT(s128.row_bytes, SamplePathBytes(v));
    const Selected s32 = SelectBySample<32>(*row, n);
    EXPECT_EQ(s32.key, Oracle(*row, n));
    EXPECT_GT(s32.row_bytes, SamplePathBytes(v));
  }
}

// The device's block size (1024 threads: four sample keys per thread) on the benchmark's
// vocabulary. The splitters come from the window (contract "Window"): the subsample's sort and
// the window's (at most 11 barriers each), the scan's, the count's and the gather's (34 to 42
// in all here); ranking every sample key sorts 4 chunks of 1024 (12 barriers each with the
// ranks' phase) instead. Until 2026-12-06 the sorts took 21 (22) and the bound was 4 x 22.
TEST(GpuSampleSelect, DeviceBlockOnALargeRow) {
  SplitMix64 rng(99);
  std::vector<float> row(128256);
  for (float& x : row) x = static_cast<float>(rng.Below(1u << 24)) * 0x1p-21f - 4.0f;
  for (std::int64_t n : {1025, 5000, 64128, 127231}) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    const Selected s = SelectBySample<1024>(row, n);
    EXPECT_EQ(s.key, Oracle(row, n));
    EXPECT_EQ(s.row_bytes, SamplePathBytes(128256));
    EXPECT_LT(s.barriers, 4 * 12);
  }
}

// A row placed against the subsample, not the sample (V = 20000: S = 2500 entries at indices
// 8 j, c = 3, the subsample j = 0, 3, 6, ..): the sample's keys have the row ranks 8, 16, ..,
// 20000 (evenly spread: the sample is exact), the subsample's 834 the smallest of them, so the
// window drawn from the subsample lies far below the splitters' ranks for n = 10000 and every
// sample key is ranked instead (more barriers than the window's way on a row of random values,
// the same reads of the row), and the key stays exact.
TEST(GpuSampleSelect, SubsampleMissesAndEveryKeyIsRanked) {
  const std::int64_t v = 20000, sample = 2500;
  std::vector<std::int64_t> rank(static_cast<std::size_t>(v), 0);  // 1 = the largest value
  std::int64_t next = 1;
  for (std::int64_t j = 0; j < sample; j += 3) rank[static_cast<std::size_t>(j * 8)] = 8 * next++;
  for (std::int64_t j = 0; j < sample; ++j) {
    if (j % 3 != 0) rank[static_cast<std::size_t>(j * 8)] = 8 * next++;
  }
  std::int64_t other = 1;
  for (std::int64_t i = 0; i < v; ++i) {
    if (i % 8 == 0) continue;
    while (other % 8 == 0) ++other;
    rank[static_cast<std::size_t>(i)] = other++;
  }
  std::vector<float> row(static_cast<std::size_t>(v));
  for (std::int64_t i = 0; i < v; ++i)
    row[static_cast<std::size_t>(i)] = static_cast<float>(v - rank[static_cast<std::size_t>(i)]);
  SplitMix64 rng(17);
  std::vector<float> random(static_cast<std::size_t>(v));
  for (float& x : random) x = static_cast<float>(rng.Below(1u << 24)) * 0x1p-24f;
  const Selected held = SelectBySample<128>(random, 10000);
  EXPECT_EQ(held.key, Oracle(random, 10000));
  const Selected ranked = SelectBySample<128>(row, 10000);
  EXPECT_EQ(ranked.key, Oracle(row, 10000));
  EXPECT_EQ(ranked.row_bytes, SamplePathBytes(v));
  // At 128 threads a sort of at most 1024 slots takes at most 11 barriers (two buffers): the
  // window's way at most 1 + 11 + 1 (the scan) + 1 + 11 + 1 = 26, the chunks' 3 x (1 + 11 + 1)
  // + 1 = 40 (38 and 64 in all, with the reads' barriers; 48 and 81 while a sort took 15,
  // until 2026-12-06).
  EXPECT_GT(ranked.barriers, held.barriers + 15);
}

// The contract's example: V = 8192 distinct values, n = 100.
TEST(GpuSampleSelect, ContractExample) {
  std::vector<float> row(8192);
  for (std::int64_t i = 0; i < 8192; ++i) row[static_cast<std::size_t>(i)] = static_cast<float>((i * 2654435761u) % 8192);
  const Selected s = SelectBySample<128>(row, 100);
  EXPECT_EQ(s.key, Oracle(row, 100));
  EXPECT_EQ(s.row_bytes, SamplePathBytes(8192));
}

}  // namespace
}  // namespace sampcheck::gpu
