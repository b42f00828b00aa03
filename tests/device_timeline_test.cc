// SPDX-License-Identifier: Apache-2.0
// The device timeline's decoding (gpu/block/device_timeline.h): words written as the contract
// lays them out, by hand, decoded into each block's barrier intervals. The device side cannot
// run here; `ci/device_prebuilt.sh run timeline` records it on a device.
#include "gpu/block/device_timeline.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace sampcheck::gpu {
namespace {

std::vector<std::uint64_t> Words(std::int64_t blocks) {
  return std::vector<std::uint64_t>(static_cast<std::size_t>(blocks) * kTimelineSlots, 0);
}

void Put(std::vector<std::uint64_t>& w, std::int64_t block, std::uint64_t count, std::uint64_t start_ns,
         std::uint64_t end_ns, const std::vector<std::uint64_t>& stamps) {
  const std::size_t base = static_cast<std::size_t>(block) * kTimelineSlots;
  w[base + kTimelineCount] = count;
  w[base + kTimelineStartNs] = start_ns;
  w[base + kTimelineEndNs] = end_ns;
  for (std::size_t i = 0; i < stamps.size(); ++i) w[base + kTimelineFirstStamp + i] = stamps[i];
}

TEST(DeviceTimeline, ContractExample) {
  auto w = Words(1);
  Put(w, 0, 3, 1000, 1900, {50, 80, 200});
  const auto t = DecodeTimeline(w, 1);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].cycles, (std::vector<std::uint64_t>{30, 120}));
  EXPECT_EQ(t[0].ns, 900u);
  EXPECT_FALSE(t[0].truncated);
}

TEST(DeviceTimeline, BlocksAreApartAndAnUnrecordedBlockIsEmpty) {
  auto w = Words(3);
  Put(w, 0, 2, 10, 20, {7, 9});
  Put(w, 2, 4, 0, 5, {100, 101, 103, 110});
  const auto t = DecodeTimeline(w, 3);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].cycles, (std::vector<std::uint64_t>{2}));
  EXPECT_TRUE(t[1].cycles.empty());
  EXPECT_EQ(t[1].ns, 0u);
  EXPECT_EQ(t[2].cycles, (std::vector<std::uint64_t>{1, 2, 7}));
  EXPECT_EQ(t[2].ns, 5u);
}

// More stamps than the words hold (a block of more than kTimelineStamps - 2 barriers): the
// intervals between the stamps kept, marked truncated.
TEST(DeviceTimeline, ACountPastTheRoomIsTruncated) {
  auto w = Words(1);
  std::vector<std::uint64_t> stamps(kTimelineStamps);
  for (std::size_t i = 0; i < stamps.size(); ++i) stamps[i] = 3 * i;
  Put(w, 0, kTimelineStamps + 5, 0, 1, stamps);
  const auto t = DecodeTimeline(w, 1);
  EXPECT_TRUE(t[0].truncated);
  ASSERT_EQ(t[0].cycles.size(), static_cast<std::size_t>(kTimelineStamps - 1));
  for (auto c : t[0].cycles) EXPECT_EQ(c, 3u);
}

// Fewer words than the blocks asked for: the blocks past them are empty, nothing is read past
// the words.
TEST(DeviceTimeline, ShortWordsGiveEmptyBlocks) {
  auto w = Words(1);
  Put(w, 0, 2, 0, 1, {1, 4});
  const auto t = DecodeTimeline(w, 4);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].cycles, (std::vector<std::uint64_t>{3}));
  for (int b = 1; b < 4; ++b) EXPECT_TRUE(t[static_cast<std::size_t>(b)].cycles.empty());
}

}  // namespace
}  // namespace sampcheck::gpu
