// SPDX-License-Identifier: Apache-2.0
// WarpRunningSum and WarpAnyOrderSum (gpu/block/warp_running_sum.cuh) on the emulator with every
// check on, against the sequential f32 running sum written here (one `sum = sum + w` a
// position: the definition of E_j in docs/spec/filters.md "Arithmetic", compiled without
// contraction): the contract's example (ties to even by hand), a softmax's sorted probabilities
// (the walk's case), random weights of every magnitude in any order, ties at every grid,
// subnormals, starting sums of every kind, NaN, infinities, negatives and -0.0, counts of 0 to
// 2049; the any-order sum against the same sums in several orders, and when it may add by the
// definitions (ties, binades, the bound) written here; and the counted work a round or an
// any-order sum reads (no timing).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/block/warp_running_sum.cuh"

namespace sampcheck::gpu {
namespace {

std::uint32_t Bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
float FromBits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

struct Summed {
  float sum;
  std::uint32_t done;
  LaunchReport report;
};

// The weights two to a shared word as the chunk loop stores them (position 2i in word i's low
// half), `pad` in the halves past them, one word more; a barrier.
template <class Words>
void FillWords(Block& block, Words& words, const std::vector<float>& weights, int threads, std::uint32_t pad = 0) {
  const int words_n = static_cast<int>((weights.size() + 1) / 2) + 1;
  block.ForEachThread([&](Thread t) {
    for (int i = t.x; i < words_n; i += threads) {
      const std::size_t lo = 2 * static_cast<std::size_t>(i), hi = lo + 1;
      const std::uint64_t a = lo < weights.size() ? Bits(weights[lo]) : pad;
      const std::uint64_t b = hi < weights.size() ? Bits(weights[hi]) : pad;
      words.Store(i, a | b << 32);
    }
  });
  block.Sync();
}

// WarpRunningSum over `weights` from `start` in warp 0 of a block of `threads` (other warps
// count 0 and must keep their sum); `rounds` rounds, stopping before the first E not below
// `bound`.
Summed SumOnWarp(const std::vector<float>& weights, float start, int threads = 32, int rounds = 2,
                 float bound = INFINITY, bool windowed = false) {
  const auto count = static_cast<std::uint32_t>(weights.size());
  Summed out{};
  out.report = emu::Launch("running sum", 1, threads, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, words, 1100);
    FillWords(block, words, weights, threads);
    auto sum = Registers<float>(block);
    auto n = Registers<std::uint32_t>(block);
    auto done = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) {
      sum[t] = t.warp() == 0 ? start : 7.0f;
      n[t] = t.warp() == 0 ? count : 0u;
    });
    WarpRunningSum(block, sum, n, done, words.View(), rounds, bound, windowed);
    block.ForEachThread([&](Thread t) {
      if (t.warp() != 0) {
        EXPECT_EQ(Bits(sum[t]), Bits(7.0f)) << "thread " << t.x;
        EXPECT_EQ(done[t], 0u) << "thread " << t.x;
        EXPECT_EQ(n[t], 0u) << "thread " << t.x;
        return;
      }
      EXPECT_TRUE(n[t] == count || n[t] == done[t]) << "lane " << t.x << ": count is cut only at a stop, to done";
      if (t.x == 0) {
        out.sum = sum[t];
        out.done = done[t];
      } else {
        EXPECT_EQ(Bits(sum[t]), Bits(out.sum)) << "lane " << t.x << ": every lane of warp 0 holds E";
        EXPECT_EQ(done[t], out.done) << "lane " << t.x;
      }
    });
  });
  return out;
}

// The definition: one f32 addition a position, in order.
float Sequential(const std::vector<float>& w, float start, std::uint32_t n) {
  volatile float s = start;  // each addition rounded to f32, as on the device
  for (std::uint32_t j = 0; j < n; ++j) s = s + w[j];
  return s;
}

// The walk's weights: the first `keep` probabilities of a softmax of n normal logits of
// deviation `spread` drawn from rng, in descending order (double sums, rounded once).
std::vector<float> SortedSoftmax(std::mt19937& rng, float spread, std::size_t n, std::size_t keep) {
  std::normal_distribution<float> normal(0.0f, spread);
  std::vector<float> x(n);
  for (auto& v : x) v = normal(rng);
  std::sort(x.begin(), x.end(), std::greater<>());
  double s = 0;
  for (float v : x) s += std::exp(static_cast<double>(v - x[0]));
  std::vector<float> p(keep);
  for (std::size_t i = 0; i < keep; ++i) p[i] = static_cast<float>(std::exp(static_cast<double>(x[i] - x[0])) / s);
  return p;
}

// The sum over the positions done, then the rest added one by one as a caller does, equals
// the sequential sum bit for bit, in 2 rounds and in 16 windowed ones; `all`: every position
// was done in parallel.
void ExpectSequential(const std::vector<float>& w, float start, const char* what, bool all = false) {
  for (const bool windowed : {false, true}) {
    const Summed got = SumOnWarp(w, start, 32, windowed ? 16 : 2, INFINITY, windowed);
    ASSERT_TRUE(got.report.ok()) << what << ": " << got.report.Summary();
    ASSERT_LE(got.done, w.size()) << what;
    EXPECT_EQ(Bits(got.sum), Bits(Sequential(w, start, got.done)))
        << what << (windowed ? " (windowed)" : "") << ": " << w.size() << " weights from " << start << ", "
        << got.done << " done: got " << got.sum << ", sequential " << Sequential(w, start, got.done);
    if (all) {
      EXPECT_EQ(got.done, w.size()) << what << (windowed ? " (windowed)" : "");
    }
  }
}

// The contract's example: ties to the even significand, worked by hand.
TEST(GpuWarpRunningSum, TiesRoundToTheEvenSignificand) {
  const std::vector<float> w = {0x1p-24f, 0x1p-23f, 0x1p-24f};
  const Summed got = SumOnWarp(w, 1.0f);
  ASSERT_TRUE(got.report.ok()) << got.report.Summary();
  EXPECT_EQ(got.done, 3u);
  EXPECT_EQ(Bits(got.sum), Bits(1.0f + 0x1p-22f));
  // 1 + 2^-23 (odd) + 2^-24: a tie, up to 1 + 2^-22; 1 (even) + 2^-24: stays 1.
  EXPECT_EQ(Bits(SumOnWarp({0x1p-24f}, 1.0f + 0x1p-23f).sum), Bits(1.0f + 0x1p-22f));
  EXPECT_EQ(Bits(SumOnWarp({0x1p-24f}, 1.0f).sum), Bits(1.0f));
  // Just above and below a half: 2^-24 (1 + 2^-23) rounds up, 2^-24 (1 - 2^-24) down.
  EXPECT_EQ(Bits(SumOnWarp({0x1p-24f * (1.0f + 0x1p-23f)}, 1.0f).sum), Bits(1.0f + 0x1p-23f));
  EXPECT_EQ(Bits(SumOnWarp({0x1p-24f * (1.0f - 0x1p-24f)}, 1.0f).sum), Bits(1.0f));
}

// Known sums: +0 + nothing, 0.5 + 0.25 + 0.25 = 1 (reaching the next binade: off the grid),
// 32 x 2^-10 from 1 (each exact on 1's grid).
TEST(GpuWarpRunningSum, KnownSums) {
  const Summed none = SumOnWarp({}, 0.0f);
  ASSERT_TRUE(none.report.ok()) << none.report.Summary();
  EXPECT_EQ(none.done, 0u);
  EXPECT_EQ(Bits(none.sum), Bits(0.0f));
  const Summed one = SumOnWarp({0.5f, 0.25f, 0.25f}, 0.0f);
  ASSERT_TRUE(one.report.ok()) << one.report.Summary();
  EXPECT_EQ(Bits(Sequential({0.5f, 0.25f, 0.25f}, 0.0f, one.done)), Bits(one.sum));
  const Summed exact = SumOnWarp(std::vector<float>(32, 0x1p-10f), 1.0f);
  ASSERT_TRUE(exact.report.ok()) << exact.report.Summary();
  EXPECT_EQ(exact.done, 32u);
  EXPECT_EQ(Bits(exact.sum), Bits(1.03125f));
}

// The walk's case: a softmax of normal logits (several spreads), sorted descending, from E = 0;
// from a running sum already past the first chunk, every position is done in parallel.
TEST(GpuWarpRunningSum, SortedProbabilitiesMatchTheSequentialSum) {
  std::mt19937 rng(20261201);
  for (float spread : {0.5f, 1.0f, 2.0f, 4.0f, 8.0f}) {
    const std::vector<float> p = SortedSoftmax(rng, spread, 40000, 40000);
    for (std::size_t at : {std::size_t{0}, std::size_t{1024}, std::size_t{5000}, std::size_t{38000}}) {
      for (std::size_t m : {std::size_t{1024}, std::size_t{1023}, std::size_t{64}, std::size_t{1}}) {
        if (at + m > p.size()) continue;
        const std::vector<float> chunk(p.begin() + static_cast<std::ptrdiff_t>(at),
                                       p.begin() + static_cast<std::ptrdiff_t>(at + m));
        const float start = Sequential(p, 0.0f, static_cast<std::uint32_t>(at));
        ExpectSequential(chunk, start, "sorted probabilities", at >= 5000);
      }
    }
  }
}

// Random weights of every magnitude (subnormal to 2^60), in random, ascending and descending
// order, from starting sums of every kind: every binade crossed, many positions off the grid.
TEST(GpuWarpRunningSum, AnyNonnegativeWeightsMatchTheSequentialSum) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> any_bits(0, 0x7f7fffffu);  // +0 .. the largest finite
  std::uniform_int_distribution<int> exponent(-40, 10);
  std::uniform_real_distribution<float> unit(1.0f, 2.0f);
  const float starts[] = {0.0f, -0.0f, 0x1p-149f, 0x1p-126f, 0x1.fffffep-127f, 1.0f, 3.0f, 0x1p100f, 0.999f};
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = static_cast<std::size_t>(trial * 37 % 2050);
    std::vector<float> w(n);
    for (auto& v : w) v = trial % 3 == 0 ? FromBits(any_bits(rng)) : std::ldexp(unit(rng), exponent(rng));
    if (trial % 4 == 1) std::sort(w.begin(), w.end());
    if (trial % 4 == 2) std::sort(w.begin(), w.end(), std::greater<>());
    for (float start : starts) ExpectSequential(w, start, "random weights");
  }
}

// Ties at every grid: weights that are exact odd multiples of half of E's unit (and of a
// quarter, an eighth: below half), so that most positions round to the even significand.
TEST(GpuWarpRunningSum, TiesAtEveryGridMatchTheSequentialSum) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> odd(0, 63);
  for (float start : {1.0f, 1.5f, 0x1p-126f, 0x1p-140f, 1024.0f}) {
    const float unit = std::nextafter(start, INFINITY) - start;
    for (float fraction : {0.5f, 0.25f, 0.75f, 1.5f}) {
      std::vector<float> w(700);
      for (auto& v : w) v = unit * (static_cast<float>(odd(rng)) + fraction);
      ExpectSequential(w, start, "ties");
      std::vector<float> halves(999, unit * 0.5f);
      ExpectSequential(halves, start, "halves");
    }
  }
  // Subnormal weights on the subnormal grid: exact.
  std::vector<float> tiny(300);
  for (std::size_t i = 0; i < tiny.size(); ++i) tiny[i] = FromBits(static_cast<std::uint32_t>(i * 4099 % 0x7fffff));
  ExpectSequential(tiny, 0.0f, "subnormal weights");
}

// The edge of a binade: from E = 2 - k 2^-23 (n = 2^24 - k on 1's grid), weights of a half,
// three quarters, one and one and a half units, so that sums reach 2 exactly (a tie up to 2's
// even significand) and go on on 2's grid, where the same weights are ties again.
TEST(GpuWarpRunningSum, SumsThatReachTheNextBinadeMatchTheSequentialSum) {
  for (int k = 1; k <= 4; ++k) {
    const float start = 2.0f - static_cast<float>(k) * 0x1p-23f;
    for (float w0 : {0x1p-24f, 0x1.8p-24f, 0x1p-23f, 0x1.8p-23f}) {
      for (float w1 : {0x1p-24f, 0x1.8p-24f, 0x1p-23f, 0x1.8p-23f, 0x1p-22f}) {
        std::vector<float> w(96);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = i % 3 == 0 ? w0 : w1;
        ExpectSequential(w, start, "the binade's edge");
        std::vector<float> one = {w0};
        one.insert(one.end(), 40, w1);
        ExpectSequential(one, start, "one step to the edge");
      }
    }
  }
}

// Weights off every grid (NaN, +-inf, negatives, -0.0) and sums that overflow: the f32
// addition itself, so the bits of the sequential sum still.
TEST(GpuWarpRunningSum, SpecialWeightsMatchTheSequentialSum) {
  const float specials[] = {NAN, INFINITY, -INFINITY, -1.0f, -0.0f, -0x1p-149f, 0x1.fffffep127f};
  for (float special : specials) {
    for (std::size_t at : {std::size_t{0}, std::size_t{5}, std::size_t{300}, std::size_t{999}}) {
      std::vector<float> w(1000, 0x1p-12f);
      w[at] = special;
      ExpectSequential(w, 0.25f, "a special weight");
      ExpectSequential(w, special, "a special start");
    }
  }
  ExpectSequential(std::vector<float>(600, 0x1.fffffep127f), 0.0f, "overflow to +inf");
}

// The first position whose E is not below the bound, by the sequential scan (count when none).
std::uint32_t FirstNotBelow(const std::vector<float>& w, float start, float bound) {
  volatile float s = start;
  for (std::uint32_t j = 0; j < w.size(); ++j) {
    if (!(s < bound)) return j;
    s = s + w[j];
  }
  return static_cast<std::uint32_t>(w.size());
}

// The bound (a prefix walk's p): the sum stops before the first position whose E is not below
// it, exactly where the sequential scan says, with E there; bounds met exactly (E_j = p: not
// below, so it stops), between two sums, below the start, 0, -0.0, NaN and past the total.
// With the first chunk's 12 rounds, a softmax's sorted probabilities from E = 0 are summed up
// to the bound or the end in parallel (every binade the first chunk leaves).
TEST(GpuWarpRunningSum, StopsBeforeTheFirstSumNotBelowTheBound) {
  std::mt19937 rng(5);
  const std::vector<float> p = SortedSoftmax(rng, 2.0f, 5000, 1024);
  const float e300 = Sequential(p, 0.0f, 300), e301 = Sequential(p, 0.0f, 301);
  const float bounds[] = {0.5f, 0.9f, e300, std::nextafter(e300, INFINITY), (e300 + e301) / 2, 0.0f, -0.0f, -1.0f,
                          NAN, 2.0f, 0x1p-149f, p[0], std::nextafter(p[0], INFINITY)};
  for (float bound : bounds) {
    for (int rounds : {2, 12, 16}) {
      const bool windowed = rounds == 16;
      const Summed got = SumOnWarp(p, 0.0f, 32, rounds, bound, windowed);
      ASSERT_TRUE(got.report.ok()) << got.report.Summary();
      const std::uint32_t stop = FirstNotBelow(p, 0.0f, bound);
      EXPECT_LE(got.done, stop) << "bound " << bound << ", " << rounds << " rounds";
      EXPECT_EQ(Bits(got.sum), Bits(Sequential(p, 0.0f, got.done))) << "bound " << bound;
      if (rounds >= 12) {
        EXPECT_EQ(got.done, stop) << "bound " << bound << ", " << rounds << " rounds: the first chunk in parallel";
      }
    }
  }
  // From a later start (one binade left at most), two rounds reach the bound.
  const float start = Sequential(p, 0.0f, 500);
  const std::vector<float> tail(p.begin() + 500, p.end());
  for (float bound : {Sequential(p, 0.0f, 700), 0.999f, start}) {
    const Summed got = SumOnWarp(tail, start, 32, 2, bound);
    ASSERT_TRUE(got.report.ok()) << got.report.Summary();
    EXPECT_EQ(got.done, FirstNotBelow(tail, start, bound)) << "bound " << bound;
    EXPECT_EQ(Bits(got.sum), Bits(Sequential(tail, start, got.done))) << "bound " << bound;
  }
  // Special weights and starts against a bound: the f32 comparison where E is off every grid.
  for (float special : {NAN, INFINITY, -1.0f}) {
    std::vector<float> w(200, 0x1p-10f);
    w[37] = special;
    for (float bound : {0.01f, 0.5f}) {
      for (const bool windowed : {false, true}) {
        const Summed got = SumOnWarp(w, 0.0f, 32, windowed ? 16 : 12, bound, windowed);
        ASSERT_TRUE(got.report.ok()) << got.report.Summary();
        EXPECT_LE(got.done, FirstNotBelow(w, 0.0f, bound));
        EXPECT_EQ(Bits(got.sum), Bits(Sequential(w, 0.0f, got.done))) << "special " << special << ", bound " << bound;
      }
      const Summed from = SumOnWarp(w, special, 32, 12, bound);
      ASSERT_TRUE(from.report.ok()) << from.report.Summary();
      EXPECT_EQ(from.done, FirstNotBelow(w, special, bound) == 0 ? 0u : from.done) << "start " << special;
      EXPECT_EQ(Bits(from.sum), Bits(Sequential(w, special, from.done))) << "start " << special;
    }
  }
}

// Counted work (no timing): a round in which no position leaves the grid reads each word of its
// lane's run once and nothing again: at 1024 positions 16 words a lane, 17 with the odd start;
// shuffles 5 + 5 a round. Two rounds (the second with nothing left): at most 17 reads and 20
// shuffles on the busiest lane; no barrier, no shared store.
TEST(GpuWarpRunningSum, ARoundOnTheGridReadsEachWordOnce) {
  std::vector<float> w(1024, 0x1p-20f);
  const Summed got = SumOnWarp(w, 0.5f, 64);
  ASSERT_TRUE(got.report.ok()) << got.report.Summary();
  EXPECT_EQ(got.done, 1024u);
  EXPECT_EQ(Bits(got.sum), Bits(Sequential(w, 0.5f, 1024)));
  // The launch's longest chain also holds the fill phase (at most 17 stores a thread) and its
  // barrier: the running sum's own interval is the last.
  const auto& intervals = got.report.counters.critical_intervals;
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_LE(intervals.back(), 17 + 20) << "reads and shuffles of the busiest lane";
}

// Counted work (no timing): the walk's first chunk from E = 0 (a softmax's 1024 largest
// probabilities at spreads 0.5 to 8) leaves a binade at position 0 and then about once per
// doubling of E, early in the chunk; a round that reads every position left finds one such
// event, so 12 rounds read the chunk's words about 12 times. Windowed rounds take max(64, done)
// positions, the doublings' pace: 16 of them add every position, reading less than half (on
// 2026-12-02: 298 -> 62, 224 -> 39 and 85 -> 28 reads on the busiest lane).
TEST(GpuWarpRunningSum, WindowedRoundsAddTheFirstChunkReadingLess) {
  std::mt19937 rng(12);
  for (float spread : {0.5f, 2.0f, 8.0f}) {
    const std::vector<float> p = SortedSoftmax(rng, spread, 50000, 1024);
    const Summed plain = SumOnWarp(p, 0.0f, 32, 12);
    const Summed windowed = SumOnWarp(p, 0.0f, 32, 16, INFINITY, true);
    ASSERT_TRUE(plain.report.ok()) << plain.report.Summary();
    ASSERT_TRUE(windowed.report.ok()) << windowed.report.Summary();
    EXPECT_EQ(windowed.done, 1024u) << "spread " << spread;
    EXPECT_EQ(Bits(windowed.sum), Bits(Sequential(p, 0.0f, 1024))) << "spread " << spread;
    const std::int64_t plain_reads = plain.report.counters.critical_intervals.back();
    const std::int64_t windowed_reads = windowed.report.counters.critical_intervals.back();
    EXPECT_LT(2 * windowed_reads, plain_reads) << "spread " << spread;
  }
}

// WarpAnyOrderSum over `weights` from `start` in warp 0 of a block of `threads` (other warps
// count 0 and must keep their sum); the halves past the weights hold a NaN, which must not be
// read as one. With `parts_grid` (not 0; at most 1024 weights; 1024 threads) the warps first
// sum their positions on that grid (StoreAnyOrderParts, one position a thread: weight j at
// thread 37 j mod 1024, so that every warp holds positions from all over the walk) into words
// 32 .. 63 of an array of their own, and the sum is given them.
struct AnyOrderSummed {
  float sum;
  std::uint32_t added;
  float smallest;
  LaunchReport report;
};
AnyOrderSummed AnyOrderLaunch(const std::vector<float>& weights, float start, float bound, int threads,
                              std::uint32_t parts_grid) {
  const auto count = static_cast<std::uint32_t>(weights.size());
  std::vector<int> position_of(1024, -1);  // the weight thread t holds in the parts
  for (std::size_t j = 0; parts_grid != 0 && j < weights.size(); ++j) {
    position_of[(37 * j) % 1024] = static_cast<int>(j);
  }
  AnyOrderSummed out{};
  out.report = emu::Launch("any-order sum", 1, threads, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, words, 1100);
    SAMPCHECK_SHARED(block, std::uint64_t, part_words, 2 * kWarpSize);
    FillWords(block, words, weights, threads, 0x7fc00000u);
    auto sum = Registers<float>(block);
    auto smallest = Registers<float>(block);
    auto n = Registers<std::uint32_t>(block);
    auto added = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) {
      sum[t] = t.warp() == 0 ? start : 7.0f;
      smallest[t] = -1.0f;
      n[t] = t.warp() == 0 ? count : 0u;
    });
    if (parts_grid == 0) {
      WarpAnyOrderSum(block, sum, n, added, smallest, words.View(), bound);
    } else {
      const AnyOrderParts<decltype(part_words.View())> parts{part_words.View(), kWarpSize, parts_grid};
      StoreAnyOrderParts(
          block,
          [&](Thread t, std::uint32_t& bits) {
            const int j = position_of[static_cast<std::size_t>(t.x)];
            bits = j >= 0 ? Bits(weights[static_cast<std::size_t>(j)]) : 0u;
            return j >= 0;
          },
          parts);
      block.Sync();
      WarpAnyOrderSum(block, sum, n, added, smallest, words.View(), bound, parts);
    }
    block.ForEachThread([&](Thread t) {
      if (t.warp() != 0) {
        EXPECT_EQ(Bits(sum[t]), Bits(7.0f)) << "thread " << t.x;
        EXPECT_EQ(added[t], 0u) << "thread " << t.x;
        return;
      }
      if (t.x == 0) {
        out.sum = sum[t], out.added = added[t], out.smallest = smallest[t];
      } else {
        EXPECT_EQ(Bits(sum[t]), Bits(out.sum)) << "lane " << t.x << ": every lane of warp 0 holds E";
        EXPECT_EQ(added[t], out.added) << "lane " << t.x;
        EXPECT_EQ(Bits(smallest[t]), Bits(out.smallest)) << "lane " << t.x;
      }
    });
  });
  return out;
}

// E's grid by the definition (docs: the binade of E, the subnormals' and zero's with the first):
// its biased exponent, at least 1; 0 when E is not a finite float >= +0.
std::uint32_t GridByDefinition(float e) {
  if (!(e >= 0.0f) || std::isinf(e) || std::signbit(e)) return 0;
  const std::uint32_t biased = Bits(e) >> 23;
  return biased > 1 ? biased : 1u;
}

// The sum without parts, and (up to 1024 weights) again with parts on E's grid, which must give
// the same sum, count and smallest weight: every case below checks both.
AnyOrderSummed AnyOrderOnWarp(const std::vector<float>& weights, float start, float bound = INFINITY,
                              int threads = 64) {
  AnyOrderSummed out = AnyOrderLaunch(weights, start, bound, threads, 0);
  const std::uint32_t g = GridByDefinition(start);
  if (weights.size() > 1024 || g == 0) return out;
  const AnyOrderSummed parted = AnyOrderLaunch(weights, start, bound, 1024, g);
  EXPECT_TRUE(parted.report.ok()) << parted.report.Summary();
  EXPECT_EQ(parted.added, out.added) << "with parts";
  EXPECT_EQ(Bits(parted.sum), Bits(out.sum)) << "with parts";
  EXPECT_EQ(Bits(parted.smallest), Bits(out.smallest)) << "with parts";
  return out;
}

// The weights along the walk: in descending order (the walk's probabilities do not increase).
std::vector<float> Descending(std::vector<float> w) {
  std::sort(w.begin(), w.end(), std::greater<>());
  return w;
}

// When the any-order sum may add the weights, by the definitions rather than the code: E is a
// finite float >= +0 with unit u (the spacing of the floats in its binade [base, 2 base), base
// 2^-126 for the subnormals and zero), every weight a finite float >= +0 below 2 base (at or
// below E's binade), at most kAnyOrderTiePasses distinct weights whose w / u is an integer plus
// one half (a tie; exact in double: w and u are 24-bit integers times powers of two), and the
// sequential sum along the walk (descending weights) ends at most (2^24 - 2) u (n <= 2^24 - 2)
// and below the bound. `ties`: the number of tie positions.
bool MayAdd(const std::vector<float>& w, float start, float bound, int* ties = nullptr) {
  if (w.empty() || !(start >= 0.0f) || std::isinf(start) || std::signbit(start)) return false;
  int exp = 0;
  std::frexp(static_cast<double>(start), &exp);  // start in [2^(exp - 1), 2^exp) when normal
  const double base = start >= 0x1p-126f ? std::ldexp(1.0, exp - 1) : 0x1p-126;  // E's binade: [base, 2 base)
  const double u = base * 0x1p-23;
  std::vector<float> tie_weights;
  int tie_positions = 0;
  for (float v : w) {
    if (!(v >= 0.0f) || std::isinf(v) || std::signbit(v)) return false;
    if (static_cast<double>(v) >= 2.0 * base) return false;  // above E's binade
    const double q = static_cast<double>(v) / u;
    if (q - std::floor(q) != 0.5) continue;
    ++tie_positions;
    if (std::find(tie_weights.begin(), tie_weights.end(), v) == tie_weights.end()) tie_weights.push_back(v);
  }
  if (ties != nullptr) *ties = tie_positions;
  if (tie_weights.size() > static_cast<std::size_t>(kAnyOrderTiePasses)) return false;
  const float end = Sequential(Descending(w), start, static_cast<std::uint32_t>(w.size()));
  return static_cast<double>(end) <= (0x1p24 - 2.0) * u && end < bound;
}

// Every order of `w` in the words gives `sum` (all positions added) from `start`.
void ExpectEveryOrder(std::vector<float> w, float start, float sum, const char* what) {
  std::sort(w.begin(), w.end());
  const float smallest = w.front();
  do {
    const AnyOrderSummed got = AnyOrderOnWarp(w, start);
    ASSERT_TRUE(got.report.ok()) << got.report.Summary();
    EXPECT_EQ(got.added, w.size()) << what;
    EXPECT_EQ(Bits(got.sum), Bits(sum)) << what << ": got " << got.sum << ", want " << sum;
    EXPECT_EQ(Bits(got.smallest), Bits(smallest)) << what;
  } while (std::next_permutation(w.begin(), w.end()));
}

// The contract's example, by hand: E = 0.5 (n = 2^23, u = 2^-24) and weights of 3/4, 1 + 1/4 and
// 2 + 3/4 units add 1, 1 and 3 units in each of the six orders. A half unit among them is a tie
// (q = 0), the smallest weight, so last along the walk: after n + 5 (odd) it rounds up, after n
// + 4 (even, without the 3/4) it adds nothing. Two ties of 3/2 units (q = 1, odd) from n even:
// the first rounds n + 1 up to n + 2, the second n + 3 up to n + 4. Two half units from n odd:
// the first rounds up to the even n + 1, the second adds nothing. Tie weights 3/2 and 1/2 with 1
// + 1/4 between them: n + 2, then n + 3 (odd), then the half unit rounds up to n + 4; without
// the 1 + 1/4, the half unit after n + 2 adds nothing. Four distinct tie weights: more than the
// passes: nothing is added.
TEST(GpuWarpAnyOrderSum, KnownSums) {
  const float unit = 0x1p-24f;
  ExpectEveryOrder({0.75f * unit, 1.25f * unit, 2.75f * unit}, 0.5f, 0.5f + 5 * unit, "no tie");
  ExpectEveryOrder({0.75f * unit, 1.25f * unit, 2.75f * unit, 0.5f * unit}, 0.5f, 0.5f + 6 * unit, "tie after n odd");
  ExpectEveryOrder({1.25f * unit, 2.75f * unit, 0.5f * unit}, 0.5f, 0.5f + 4 * unit, "tie after n even");
  ExpectEveryOrder({1.5f * unit, 1.5f * unit}, 0.5f, 0.5f + 4 * unit, "two ties of odd q");
  ExpectEveryOrder({0.5f * unit, 0.5f * unit}, 0.5f + unit, 0.5f + 2 * unit, "two ties of q = 0 from n odd");
  ExpectEveryOrder({1.5f * unit, 1.25f * unit, 0.5f * unit}, 0.5f, 0.5f + 4 * unit, "two tie weights, d = 1 between");
  ExpectEveryOrder({1.5f * unit, 0.5f * unit}, 0.5f, 0.5f + 2 * unit, "two tie weights, nothing between");
  for (const std::vector<float>& w : {std::vector<float>{0.75f * unit, 1.25f * unit, 2.75f * unit, 0.5f * unit},
                                      std::vector<float>{1.5f * unit, 1.25f * unit, 0.5f * unit}}) {
    EXPECT_EQ(Bits(Sequential(Descending(w), 0.5f, static_cast<std::uint32_t>(w.size()))),
              Bits(AnyOrderOnWarp(w, 0.5f).sum))
        << "the hand sums are the walk's";
  }
  static_assert(kAnyOrderTiePasses == 3, "four distinct tie weights are one too many");
  const AnyOrderSummed many = AnyOrderOnWarp({0.5f * unit, 1.5f * unit, 2.5f * unit, 3.5f * unit}, 0.5f);
  EXPECT_EQ(many.added, 0u);
  EXPECT_EQ(Bits(many.sum), Bits(0.5f)) << "left as it was";
  EXPECT_EQ(Bits(many.smallest), Bits(-1.0f)) << "left as it was";
  EXPECT_EQ(AnyOrderOnWarp({0.5f * unit, 1.5f * unit, 2.5f * unit}, 0.5f).added, 3u) << "three: as many as passes";
  EXPECT_EQ(AnyOrderOnWarp({}, 0.5f).added, 0u) << "no position";
}

// A softmax's probabilities (the walk's case) from starts in several binades, in chunks of 1 to
// 2048 positions, shuffled: the sum is added exactly when the definitions allow it, and then
// equals the sequential sum along the walk; without a tie also ascending and in the shuffled
// order.
TEST(GpuWarpAnyOrderSum, AddsExactlyWhenTheDefinitionsAllow) {
  std::mt19937 rng(3);
  const std::vector<float> p = SortedSoftmax(rng, 2.0f, 20000, 20000);
  int added = 0, refused = 0, with_ties = 0;
  const float starts[] = {0.0f, 0x1p-130f, 0.01f, 0.2f, 0.3f, 0.49f, 0.5f, 0.7f, 0.999f, 1.5f};
  const std::size_t sizes[] = {1, 2, 31, 64, 333, 1024, 2047, 2048};
  for (float start : starts) {
    for (std::size_t size : sizes) {
      for (std::size_t at : {std::size_t{0}, std::size_t{3000}, std::size_t{15000}}) {
        const auto from = p.begin() + static_cast<std::ptrdiff_t>(at);
        std::vector<float> w(from, from + static_cast<std::ptrdiff_t>(size));
        for (const float bound : {INFINITY, 0.9f, 1.0f}) {
          int ties = 0;
          const bool may = MayAdd(w, start, bound, &ties);
          std::vector<float> order = w;
          std::shuffle(order.begin(), order.end(), rng);
          const AnyOrderSummed got = AnyOrderOnWarp(order, start, bound);
          ASSERT_TRUE(got.report.ok()) << got.report.Summary();
          EXPECT_EQ(got.added, may ? size : 0u)
              << "start " << start << ", " << size << " from " << at << ", bound " << bound;
          if (got.added == 0) {
            EXPECT_EQ(Bits(got.sum), Bits(start));
            ++refused;
            continue;
          }
          ++added;
          EXPECT_EQ(Bits(got.sum), Bits(Sequential(w, start, static_cast<std::uint32_t>(size))));
          EXPECT_EQ(Bits(got.smallest), Bits(w.back()));
          if (ties > 0) {
            ++with_ties;
            continue;
          }
          EXPECT_EQ(Bits(got.sum), Bits(Sequential(order, start, static_cast<std::uint32_t>(size))));
          std::vector<float> up = w;
          std::sort(up.begin(), up.end());
          EXPECT_EQ(Bits(got.sum), Bits(Sequential(up, start, static_cast<std::uint32_t>(size))));
        }
      }
    }
  }
  EXPECT_GT(added, 100);    // every outcome is exercised (ties are rare in continuous
  EXPECT_GT(refused, 100);  // probabilities: TieGroupsMatchTheWalksSum has many)
  EXPECT_GT(with_ties, 0);
}

// Ties everywhere: weights of k quarter units (k = 2 mod 4 is a tie: 1/2, 3/2, 5/2, .. units)
// drawn from one to eight values, each a tie with probability 1/2, so that runs of equal ties,
// ties of odd and even q, and up to eight distinct tie weights come up, from starts of odd and
// even n, shuffled: added exactly when the definitions allow it (at most three distinct tie
// weights), then the sequential sum along the walk.
TEST(GpuWarpAnyOrderSum, TieGroupsMatchTheWalksSum) {
  std::mt19937 rng(11);
  const float unit = 0x1p-24f;  // E in [0.5, 1)
  int added = 0, refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<float> values;
    const int kinds = 1 + trial % 8;
    for (int k = 0; k < kinds; ++k) {
      const std::uint32_t quarters = rng() % 2 == 0 ? 4 * (rng() % 12) + 2 : rng() % 48;
      values.push_back(static_cast<float>(quarters) * 0.25f * unit);
    }
    std::vector<float> w(1 + rng() % 700);
    for (auto& v : w) v = values[rng() % values.size()];
    const float start = 0.5f + static_cast<float>(rng() % 1000) * unit;
    const bool may = MayAdd(w, start, INFINITY);
    std::shuffle(w.begin(), w.end(), rng);
    const AnyOrderSummed got = AnyOrderOnWarp(w, start);
    ASSERT_TRUE(got.report.ok()) << got.report.Summary();
    ASSERT_EQ(got.added, may ? w.size() : 0u) << "trial " << trial;
    if (!may) {
      ++refused;
      continue;
    }
    ++added;
    EXPECT_EQ(Bits(got.sum), Bits(Sequential(Descending(w), start, static_cast<std::uint32_t>(w.size()))))
        << "trial " << trial;
  }
  EXPECT_GT(added, 200);
  EXPECT_GT(refused, 20);
}

// Ties and weights off the grid, planted one at a time among weights that add: a tie at E's
// grid (an odd number of half units: added, the walk's sum), a weight above E's binade, NaN,
// +inf, -1, -0.0 (refused); starts NaN, +inf, -0.0; sums that reach the binade's edge (n = 2^24
// - 2 is the last allowed) and the bound (E after them equal to it: refused; one unit above
// it: added).
TEST(GpuWarpAnyOrderSum, RefusesSpecialsAndSumsPastTheGridOrTheBound) {
  const float start = 0.75f, unit = 0x1p-24f;  // n = 3 x 2^22 on 0.5's grid
  std::vector<float> w(500, unit * 1.25f);     // each adds one unit (f = 1/4)
  ASSERT_EQ(AnyOrderOnWarp(w, start).added, 500u);
  for (float tie : {unit * 0.5f, unit * 7.5f}) {
    std::vector<float> v = w;
    v[123] = tie;
    const AnyOrderSummed got = AnyOrderOnWarp(v, start);
    ASSERT_TRUE(got.report.ok()) << got.report.Summary();
    EXPECT_EQ(got.added, 500u) << "tie " << tie;
    EXPECT_EQ(Bits(got.sum), Bits(Sequential(Descending(v), start, 500))) << "tie " << tie;
  }
  for (float planted : {1.0f, NAN, INFINITY, -1.0f, -0.0f}) {
    std::vector<float> v = w;
    v[123] = planted;
    const AnyOrderSummed got = AnyOrderOnWarp(v, start);
    ASSERT_TRUE(got.report.ok()) << got.report.Summary();
    EXPECT_EQ(got.added, 0u) << "planted " << planted;
  }
  for (float bad : {NAN, INFINITY, -0.0f, -1.0f}) EXPECT_EQ(AnyOrderOnWarp(w, bad).added, 0u) << "start " << bad;
  // 500 units from n: the last n allowed is 2^24 - 2.
  const float near = 1.0f - static_cast<float>(500 + 2) * unit;  // n = 2^24 - 502
  EXPECT_EQ(AnyOrderOnWarp(w, near).added, 500u);
  EXPECT_EQ(AnyOrderOnWarp(w, near + unit).added, 0u) << "n = 2^24 - 1 after them";
  const float end = start + 500 * unit;
  EXPECT_EQ(AnyOrderOnWarp(w, start, end).added, 0u) << "E after them is not below the bound";
  EXPECT_EQ(AnyOrderOnWarp(w, start, end + unit).added, 500u);
  EXPECT_EQ(AnyOrderOnWarp(w, start, NAN).added, 0u);
  // A tie's rounding counts at the edge and the bound: 3/2 units (q = 1), first along the walk,
  // then 499 units: from n even it rounds up (n + 2 + 499), from n odd down (n + 1 + 499).
  std::vector<float> v = w;
  v[0] = unit * 1.5f;
  EXPECT_EQ(AnyOrderOnWarp(v, near).added, 0u) << "n = 2^24 - 1 after them";
  EXPECT_EQ(AnyOrderOnWarp(v, near - unit).added, 500u) << "n = 2^24 - 3 after them";
  EXPECT_EQ(AnyOrderOnWarp(v, start, start + 501 * unit).added, 0u) << "E after them is the bound";
  const AnyOrderSummed up = AnyOrderOnWarp(v, start, start + 502 * unit);
  EXPECT_EQ(up.added, 500u);
  EXPECT_EQ(Bits(up.sum), Bits(start + 501 * unit));
}

// Counted work (no timing): 1024 positions read 16 words a lane (lane l: words l, l + 32, ..),
// and 16 more per distinct tie weight; no barrier, no shared store.
TEST(GpuWarpAnyOrderSum, ReadsEachWordOncePerPass) {
  std::vector<float> w(1024, 0x1p-20f);
  for (int ties = 0; ties <= 2; ++ties) {
    if (ties > 0) w[static_cast<std::size_t>(100 * ties)] = 0x1p-25f * static_cast<float>(2 * ties - 1);
    const AnyOrderSummed got = AnyOrderOnWarp(w, 0.5f);
    ASSERT_TRUE(got.report.ok()) << got.report.Summary();
    EXPECT_EQ(got.added, 1024u);
    const auto& intervals = got.report.counters.critical_intervals;
    ASSERT_EQ(intervals.size(), 2u);
    EXPECT_EQ(intervals.back(), 16 * (1 + ties)) << ties << " tie weights: reads of the busiest lane";
  }
}

// With parts on E's grid a lane reads one word (its warp's part) instead of 16; a part that holds
// a tie sends the lanes to their words (16) and the tie passes (16 each): one read more than
// without parts. Parts on another grid are not used (16 reads), and give the same sum.
TEST(GpuWarpAnyOrderSum, PartsOnEsGridReadOneWordALane) {
  std::vector<float> w(1024, 0x1p-20f);
  const float start = 0.5f;
  const std::uint32_t g = GridByDefinition(start);  // 126: u = 2^-24
  for (int ties = 0; ties <= 2; ++ties) {
    if (ties > 0) w[static_cast<std::size_t>(100 * ties)] = 0x1p-25f * static_cast<float>(2 * ties - 1);
    const AnyOrderSummed plain = AnyOrderLaunch(w, start, INFINITY, 1024, 0);
    for (const std::uint32_t grid : {g, g - 1, g + 1}) {
      const AnyOrderSummed got = AnyOrderLaunch(w, start, INFINITY, 1024, grid);
      ASSERT_TRUE(got.report.ok()) << got.report.Summary();
      EXPECT_EQ(got.added, 1024u);
      EXPECT_EQ(Bits(got.sum), Bits(plain.sum)) << ties << " tie weights, grid " << grid;
      const std::int64_t want = grid != g ? 16 * (1 + ties) : ties == 0 ? 1 : 1 + 16 * (1 + ties);
      EXPECT_EQ(got.report.counters.critical_intervals.back(), want) << ties << " tie weights, grid " << grid;
    }
  }
}

// The grid an E below the bound ends on, by hand: below 0.999 or 1 E lies in [0.5, 1) (biased
// exponent 126); below 0.5 in [0.25, 0.5) (125); below the smallest subnormal only 0 (grid 1);
// below +inf the largest finite float (254); no bound above 0: none.
TEST(GpuWarpAnyOrderSum, GridBelowTheBound) {
  EXPECT_EQ(AnyOrderGridBelow(0.999f), 126u);
  EXPECT_EQ(AnyOrderGridBelow(1.0f), 126u);
  EXPECT_EQ(AnyOrderGridBelow(0.5f), 125u);
  EXPECT_EQ(AnyOrderGridBelow(0.75f), 126u);
  EXPECT_EQ(AnyOrderGridBelow(0x1p-149f), 1u);
  EXPECT_EQ(AnyOrderGridBelow(0x1p-126f), 1u);
  EXPECT_EQ(AnyOrderGridBelow(INFINITY), 254u);
  EXPECT_EQ(AnyOrderGridBelow(0.0f), 0u);
  EXPECT_EQ(AnyOrderGridBelow(-1.0f), 0u);
  EXPECT_EQ(AnyOrderGridBelow(NAN), 0u);
}

}  // namespace
}  // namespace sampcheck::gpu
