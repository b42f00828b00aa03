// SPDX-License-Identifier: Apache-2.0
// The key reads of gpu/block/key_reads.cuh: ForEachKey visits i = first, first + stride, .. <
// end in order with key_of(i), whether the source splits its load from its key (groups of
// kKeyGroup loads first) or not; ForEachKeyUntil stops after the first visit that returns
// true, loading at most kKeyGroup - 1 indices past it and none past `end`; ReversedKeys
// complements the keys and stays split. Expected keys are computed here from the sources'
// definitions; every (first, end, stride) with a remainder of 0 to 3 after the groups, an
// empty range and a range shorter than one group.
#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/key_reads.cuh"

namespace sampcheck::gpu {
namespace {

// Key of i: 2i + 7i = 9i (the load is i / 2, its key 4x + 7i); every load counted, with the
// largest index loaded.
struct SplitSource {
  mutable int loads = 0;
  mutable std::int64_t last = -1;
  float Load(std::int64_t i) const {
    ++loads;
    last = i > last ? i : last;
    return static_cast<float>(i) * 0.5f;
  }
  std::uint64_t Key(std::int64_t i, float x) const { return static_cast<std::uint64_t>(x * 4.0f) + 7 * std::uint64_t(i); }
  std::uint64_t operator()(std::int64_t i) const { return Key(i, Load(i)); }
};

constexpr std::uint64_t KeyOf(std::int64_t i) { return 9 * static_cast<std::uint64_t>(i); }

using Visits = std::vector<std::pair<std::int64_t, std::uint64_t>>;

// The ranges: count indices from first at stride.
template <class F>
void ForEachRange(F f) {
  for (std::int64_t first : {0, 3}) {
    for (std::int64_t stride : {1, 1024}) {
      for (std::int64_t count : {0, 1, 3, 4, 5, 8, 9, 10, 11, 40}) f(first, first + (count - 1) * stride + 1, stride);
    }
  }
}

TEST(GpuKeyReads, ForEachKeyVisitsEveryIndexInOrder) {
  static_assert(SplitKeySource<SplitSource>);
  auto plain = [](std::int64_t i) { return KeyOf(i); };
  static_assert(!SplitKeySource<decltype(plain)>);
  ForEachRange([&](std::int64_t first, std::int64_t end, std::int64_t stride) {
    Visits want, split, fallback;
    for (std::int64_t i = first; i < end; i += stride) want.emplace_back(i, KeyOf(i));
    const SplitSource source;
    ForEachKey(source, first, end, stride, [&](std::int64_t i, std::uint64_t key) { split.emplace_back(i, key); });
    EXPECT_EQ(split, want) << first << " " << end << " " << stride;
    EXPECT_EQ(source.loads, static_cast<int>(want.size()));  // each index loaded once
    ForEachKey(plain, first, end, stride, [&](std::int64_t i, std::uint64_t key) { fallback.emplace_back(i, key); });
    EXPECT_EQ(fallback, want);
  });
}

// Stopping at the n-th visit (n = 1 .. count): the first n visits, the stop reported, at most
// kKeyGroup - 1 loads past it and none past the range.
TEST(GpuKeyReads, ForEachKeyUntilStopsAtTheFirstTrue) {
  ForEachRange([&](std::int64_t first, std::int64_t end, std::int64_t stride) {
    const std::int64_t count = end > first ? (end - first + stride - 1) / stride : 0;
    for (std::int64_t n = 1; n <= count; ++n) {
      Visits want, got;
      for (std::int64_t i = first; static_cast<std::int64_t>(want.size()) < n; i += stride) want.emplace_back(i, KeyOf(i));
      const SplitSource source;
      const bool stopped = ForEachKeyUntil(source, first, end, stride, [&](std::int64_t i, std::uint64_t key) {
        got.emplace_back(i, key);
        return static_cast<std::int64_t>(got.size()) == n;
      });
      EXPECT_TRUE(stopped);
      EXPECT_EQ(got, want) << first << " " << end << " " << stride << " stop " << n;
      EXPECT_GE(source.loads, n);
      EXPECT_LE(source.loads, n + kKeyGroup - 1);
      EXPECT_LT(source.last, end);
    }
    const SplitSource source;
    EXPECT_FALSE(ForEachKeyUntil(source, first, end, stride, [](std::int64_t, std::uint64_t) { return false; }));
    EXPECT_EQ(source.loads, static_cast<int>(count));
  });
}

TEST(GpuKeyReads, ReversedKeysComplementAndStaySplit) {
  const ReversedKeys<SplitSource> reversed{SplitSource{}};
  static_assert(SplitKeySource<ReversedKeys<SplitSource>>);
  auto plain = [](std::int64_t i) { return KeyOf(i); };
  static_assert(!SplitKeySource<ReversedKeys<decltype(plain)>>);
  Visits got;
  ForEachKey(reversed, 2, 13, 2, [&](std::int64_t i, std::uint64_t key) { got.emplace_back(i, key); });
  const Visits want = {{2, ~KeyOf(2)}, {4, ~KeyOf(4)}, {6, ~KeyOf(6)}, {8, ~KeyOf(8)}, {10, ~KeyOf(10)}, {12, ~KeyOf(12)}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(reversed.keys.loads, 6);
  EXPECT_EQ((ReversedKeys<decltype(plain)>{plain}(5)), ~KeyOf(5));
}

}  // namespace
}  // namespace sampcheck::gpu
