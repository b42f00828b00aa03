// SPDX-License-Identifier: Apache-2.0
// The chunk loop's top-p walks (gpu/kernels/top_p.cuh) on the emulator with every check on: a
// chunk walked in any order (TopPWalkChunkAnyOrder, its weights shuffled) leaves the state and
// verdict the sorted walk (TopPWalkChunk) leaves, or asks for the order, and the chunk after it
// then ends where it ends after the sorted walk. Probabilities of a softmax in the canonical
// order, continuous and on a grid of 1/8 (runs of equal probabilities: kTieGroup's groups run
// across the chunks' boundaries), p at the sums where the third chunk starts and inside it (and
// their f32 neighbours), both prefix rules; chunks of ties at E's grid (resolved without the
// order); the other rules and a chunk past the walk's last position always ask for the order.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/block/block_model.h"
#include "gpu/kernels/top_p.cuh"

namespace sampcheck::gpu {
namespace {

std::uint32_t Bits(float x) { return std::bit_cast<std::uint32_t>(x); }

// A softmax's probabilities in descending order (the walk's weights), from `vocab` logits:
// continuous in [-4, 4), or on a grid of 1/8 there.
std::vector<float> SortedProbabilities(std::uint64_t seed, std::size_t vocab, bool grid) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> logit(-4.0f, 4.0f);
  std::vector<float> x(vocab);
  for (auto& v : x) v = grid ? std::floor(logit(rng) * 8.0f) / 8.0f : logit(rng);
  std::sort(x.begin(), x.end(), std::greater<>());
  double total = 0;
  for (float v : x) total += std::exp(static_cast<double>(v - x[0]));
  std::vector<float> p;
  for (float v : x) p.push_back(static_cast<float>(std::exp(static_cast<double>(v - x[0])) / total));
  return p;
}

struct Walked {
  std::vector<std::uint64_t> verdicts;  // one a chunk walked
  std::vector<TopPWalkState> states;    // after each
  bool any_order = false;               // the second chunk was walked in any order
  LaunchReport report;
};

// The walk of p's chunks [0, c1), [c1, c2), [c2, end) with `rule`, each sorted (TopPWalkChunk),
// or with shuffle the second in any order, shuffled (then sorted when it asks for the order),
// as the chunk loop does (gpu/block/radix_partition.cuh "Chunk loop"). Stops after a verdict
// other than "go on".
Walked Walk(const std::vector<float>& p, std::size_t c1, std::size_t c2, const TopPWalkRule& rule, bool shuffle) {
  Walked out{};
  out.report = emu::Launch("top-p walk", 1, 64, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, words, 1024);
    auto state = Registers<TopPWalkState>(block);
    block.ForEachThread([&](Thread t) { state[t] = TopPWalkState{}; });
    auto fill = [&](std::vector<float> w) {
      block.ForEachThread([&](Thread t) {
        for (std::size_t i = static_cast<std::size_t>(t.x); 2 * i < w.size(); i += 64) {
          const std::uint64_t hi = 2 * i + 1 < w.size() ? Bits(w[2 * i + 1]) : 0u;
          words.Store(static_cast<std::int64_t>(i), Bits(w[2 * i]) | hi << 32);
        }
      });
      block.Sync();
    };
    auto thread0 = [&](auto& verdict) {
      std::uint64_t v = 0;
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) v = verdict[t];
      });
      return v;
    };
    std::int64_t walked = 0;
    const std::size_t bounds[] = {0, c1, c2, p.size()};
    for (int k = 0; k < 3; ++k) {
      const std::vector<float> chunk(p.begin() + static_cast<std::ptrdiff_t>(bounds[k]),
                                     p.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]));
      const auto m = static_cast<std::uint32_t>(chunk.size());
      std::uint64_t v = kPartitionChunkUnordered;
      if (shuffle && k == 1) {
        std::vector<float> mixed = chunk;
        std::shuffle(mixed.begin(), mixed.end(), std::mt19937(static_cast<unsigned>(m)));
        fill(mixed);
        auto verdict = TopPWalkChunkAnyOrder(block, state, m, words.View(), rule);
        v = thread0(verdict);
        out.any_order = v != kPartitionChunkUnordered;
        block.Sync();
      }
      if (v == kPartitionChunkUnordered) {
        fill(chunk);
        auto verdict = TopPWalkChunk(block, state, m, words.View(), rule, NoChunkMarks{}, walked);
        v = thread0(verdict);
        block.Sync();
      }
      out.verdicts.push_back(v);
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) out.states.push_back(state[t]);
      });
      if ((v >> 62) != 0) break;
    }
  });
  // Every collective of the walks runs in warp 0 alone (ForWarps; both warps until 2026-12-06).
  EXPECT_GT(out.report.counters.warp_ops, 0);
  EXPECT_EQ(out.report.counters.warp_op_warps, out.report.counters.warp_ops);
  return out;
}

void ExpectSameState(const TopPWalkState& a, const TopPWalkState& b, const std::string& what) {
  EXPECT_EQ(Bits(a.sum), Bits(b.sum)) << what;
  EXPECT_EQ(Bits(a.group_prob), Bits(b.group_prob)) << what;
  EXPECT_EQ(a.started, b.started) << what;
  EXPECT_EQ(a.keep_group, b.keep_group) << what;
  EXPECT_EQ(a.last_kept, b.last_kept) << what;
  EXPECT_EQ(a.position, b.position) << what;
  EXPECT_EQ(Bits(a.last_prob), Bits(b.last_prob)) << what;
}

TEST(GpuTopPWalk, AnyOrderChunkLeavesTheSortedWalksState) {
  int any_order = 0, ordered = 0;
  for (const bool grid : {false, true}) {
    const std::vector<float> p = SortedProbabilities(grid ? 2 : 1, 5000, grid);
    for (const std::size_t c1 : {std::size_t{1024}, std::size_t{1500}}) {
      for (const std::size_t m : {std::size_t{1}, std::size_t{2}, std::size_t{333}, std::size_t{1000}}) {
        const std::size_t c2 = c1 + m, c3 = std::min(c2 + 1024, p.size());
        // E at the second chunk's end (the third's start), in the third, and their neighbours.
        std::vector<float> sums(1, 0.0f);
        for (float w : p) sums.push_back(sums.back() + w);
        std::vector<float> ps;
        for (const std::size_t at : {c2, c2 + 1, c2 + 7, (c2 + c3) / 2}) {
          ps.push_back(sums[at]);
          ps.push_back(std::nextafter(sums[at], 0.0f));
          ps.push_back(std::nextafter(sums[at], 2.0f));
        }
        const std::vector<float> q(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(c3));
        for (const TopPWalk walk : {TopPWalk::kExclusive, TopPWalk::kTieGroup}) {
          for (const float bound : ps) {
            const TopPWalkRule rule{walk, bound, 0.0f, static_cast<std::int64_t>(c3), 5000};
            const std::string what = std::string(grid ? "grid" : "continuous") + ", chunks at " +
                                     std::to_string(c1) + ", " + std::to_string(c2) + ", p " +
                                     std::to_string(bound) + (walk == TopPWalk::kTieGroup ? ", tie groups" : "");
            const Walked sorted = Walk(q, c1, c2, rule, false);
            const Walked mixed = Walk(q, c1, c2, rule, true);
            ASSERT_TRUE(sorted.report.ok()) << sorted.report.Summary();
            ASSERT_TRUE(mixed.report.ok()) << mixed.report.Summary();
            ASSERT_EQ(sorted.verdicts, mixed.verdicts) << what;
            for (std::size_t k = 0; k < sorted.states.size(); ++k) {
              ExpectSameState(sorted.states[k], mixed.states[k], what + ", chunk " + std::to_string(k));
            }
            (mixed.any_order ? any_order : ordered) += 1;
          }
        }
      }
    }
  }
  // Both ways are taken: chunks added in any order, and chunks holding the cut or a tie.
  EXPECT_GT(any_order, 50);
  EXPECT_GT(ordered, 50);
}

// Ties at E's grid resolved without the order: the first chunk's 1024 weights of 2^-12 take E to
// 0.25 exactly (u = 2^-25 from there; n even), or to 0.25 + 2^-25 (n odd) with 2^-25 more in the
// first (every sum of it exact), the later ones are c x 2^-26 for c drawn from one to eight
// values in [1000, 4000) (odd c: a tie, f = 1/2; even c: on the grid), in descending order, so
// that the second chunk (all but the last 100 of them) holds ties of up to eight distinct
// weights, runs of equal ones and weights between them; p past the walk's end, at E after the second chunk and its
// neighbours, and inside it: the chunk walked in any order leaves the sorted walk's state and
// verdict wherever it decides, and decides for some chunks with ties.
TEST(GpuTopPWalk, AnyOrderChunkWithTiesLeavesTheSortedWalksState) {
  std::mt19937 rng(5);
  int any_order_with_ties = 0, ordered = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::uint32_t> values;
    for (int k = 0, kinds = 1 + trial % 8; k < kinds; ++k) {
      const std::uint32_t c = 1000 + rng() % 3000;
      values.push_back(rng() % 4 == 0 ? c : c | 1u);  // a tie with probability 3/4 or more
    }
    std::vector<float> p(1024, 0x1p-12f);
    if (trial % 2 == 1) p[0] += 0x1p-25f;  // E = 0.25 + 2^-25 after the first chunk: n odd
    const std::size_t c2 = 1024 + 1 + rng() % 999;
    std::vector<float> rest(c2 - 1024 + 100);
    for (auto& w : rest) w = static_cast<float>(values[rng() % values.size()]) * 0x1p-26f;
    std::sort(rest.begin(), rest.end(), std::greater<>());
    p.insert(p.end(), rest.begin(), rest.end());
    const std::size_t ties = static_cast<std::size_t>(
        std::count_if(p.begin() + 1024, p.begin() + static_cast<std::ptrdiff_t>(c2),
                      [](float w) { return static_cast<std::uint32_t>(w * 0x1p26f) % 2 == 1; }));  // c odd: a tie
    float at_c2 = 0.0f;
    for (std::size_t j = 0; j < c2; ++j) at_c2 = at_c2 + p[j];
    float inside = 0.0f;
    for (std::size_t j = 0; j < (1024 + c2) / 2; ++j) inside = inside + p[j];
    for (const TopPWalk walk : {TopPWalk::kExclusive, TopPWalk::kTieGroup}) {
      for (const float bound : {0.9f, at_c2, std::nextafter(at_c2, 0.0f), std::nextafter(at_c2, 1.0f), inside}) {
        const TopPWalkRule rule{walk, bound, 0.0f, static_cast<std::int64_t>(p.size()), 5000};
        const std::string what = "trial " + std::to_string(trial) + ", p " + std::to_string(bound) +
                                 (walk == TopPWalk::kTieGroup ? ", tie groups" : "");
        const Walked sorted = Walk(p, 1024, c2, rule, false);
        const Walked mixed = Walk(p, 1024, c2, rule, true);
        ASSERT_TRUE(sorted.report.ok()) << sorted.report.Summary();
        ASSERT_TRUE(mixed.report.ok()) << mixed.report.Summary();
        ASSERT_EQ(sorted.verdicts, mixed.verdicts) << what;
        for (std::size_t k = 0; k < sorted.states.size(); ++k) {
          ExpectSameState(sorted.states[k], mixed.states[k], what + ", chunk " + std::to_string(k));
        }
        if (mixed.any_order && ties > 0) ++any_order_with_ties;
        if (!mixed.any_order) ++ordered;
      }
    }
  }
  EXPECT_GT(any_order_with_ties, 50);
  EXPECT_GT(ordered, 50);
}

// The rules whose walk is not a prefix of E below p (vLLM's ascending walk, SGLang's drops) and
// a chunk that runs past the walk's last position always ask for the order, leaving the state.
// Weights of 2^-12 (multiples of every unit E has here: no tie; E from 0.25 to 0.49 in the
// second chunk: one binade), so that only the rule or the walk's end decides.
TEST(GpuTopPWalk, AnyOrderAsksForTheOrderWhereItCannotDecide) {
  const std::vector<float> w(3000, 0x1p-12f);
  for (const TopPWalk walk : {TopPWalk::kVllmAscending, TopPWalk::kSglang}) {
    const Walked mixed = Walk(w, 1024, 2000, TopPWalkRule{walk, 0.9999f, 0.0001f, 3000, 3000}, true);
    ASSERT_TRUE(mixed.report.ok()) << mixed.report.Summary();
    EXPECT_FALSE(mixed.any_order);
  }
  // The second chunk ends past position 1999, the walk's last; then exactly there.
  const Walked past = Walk(w, 1024, 2048, TopPWalkRule{TopPWalk::kExclusive, 0.9999f, 0.0f, 1999, 3000}, true);
  ASSERT_TRUE(past.report.ok()) << past.report.Summary();
  EXPECT_FALSE(past.any_order);
  const Walked within = Walk(w, 1024, 1999, TopPWalkRule{TopPWalk::kExclusive, 0.9999f, 0.0f, 1999, 3000}, true);
  ASSERT_TRUE(within.report.ok()) << within.report.Summary();
  EXPECT_TRUE(within.any_order);
  ASSERT_EQ(within.verdicts.size(), 2u);
  EXPECT_EQ(within.verdicts[1] >> 62, 2u) << "the walk's last position reached";
  EXPECT_EQ(Bits(within.states[1].sum), Bits(1999 * 0x1p-12f));
}

// TopPSumRounds: a round per binade a chunk of m after `walked` positions may leave (the least L
// with walked x 2^L >= walked + m), one more, at least 2; 16 for the first chunk; 2 off the
// prefix rules. By hand: 1024 after 1024: 2^1 x 1024 >= 2048, L = 1: 2; 994 after 245: 245 x 8 =
// 1960 >= 1239 > 980, L = 3: 4; 1024 after 1: 2^11 >= 1025 > 2^10, L = 11: 12; 1 after 2048:
// L = 1: 2.
TEST(GpuTopPWalk, LaterChunksTakeARoundPerBinadeTheyMayLeave) {
  EXPECT_EQ(TopPSumRounds(0, 1024, true), kTopPFirstSumRounds);
  EXPECT_EQ(TopPSumRounds(0, 7, false), kTopPFirstSumRounds);
  EXPECT_EQ(TopPSumRounds(1024, 1024, true), 2);
  EXPECT_EQ(TopPSumRounds(245, 994, true), 4);
  EXPECT_EQ(TopPSumRounds(245, 994, false), 2);
  EXPECT_EQ(TopPSumRounds(1, 1024, true), 12);
  EXPECT_EQ(TopPSumRounds(2048, 1, true), 2);

  // A first chunk of 256 weights of 2^-12 (E = 2^-4 exactly), then 992 more: E crosses 2^-3 at
  // the second chunk's position 256 and 2^-2 at 768 and ends at 1248 x 2^-12 (every sum exact:
  // multiples of 2^-12 below 1). With 4 rounds warp 0 adds the whole chunk (50 accesses by
  // the busiest thread; each round reads about 992 / 64 words a lane); with 2 (every later
  // chunk until 2026-12-02) thread 0 added positions 768 to 991 one by one (143).
  std::vector<float> w(1248, 0x1p-12f);
  TopPWalkState after{};
  std::uint64_t verdict = 0;
  const LaunchReport r = emu::Launch("top-p walk rounds", 1, 64, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, words, 1024);
    auto state = Registers<TopPWalkState>(block);
    block.ForEachThread([&](Thread t) { state[t] = TopPWalkState{}; });
    const TopPWalkRule rule{TopPWalk::kExclusive, 1.0f, 0.0f, 1248, 1248};
    std::int64_t walked = 0;
    for (const auto& [from, to] : {std::pair{0, 256}, std::pair{256, 1248}}) {
      block.ForEachThread([&](Thread t) {
        for (int i = t.x; 2 * i < to - from; i += 64)
          words.Store(i, Bits(w[from + 2 * i]) | std::uint64_t{Bits(w[from + 2 * i + 1])} << 32);
      });
      block.Sync();
      auto v = TopPWalkChunk(block, state, static_cast<std::uint32_t>(to - from), words.View(), rule, NoChunkMarks{},
                             walked);
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) verdict = v[t], after = state[t];
      });
      block.Sync();
    }
    EXPECT_EQ(walked, 1248);
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(verdict >> 62, 2u);  // the walk's end: its last position (rule.total) walked
  EXPECT_EQ(after.position, 1248);
  EXPECT_EQ(Bits(after.sum), Bits(1248 * 0x1p-12f));
  // Intervals: fill, walk, fill, walk, and the empty one after the last barrier: the second
  // walk's busiest thread.
  ASSERT_EQ(r.counters.critical_intervals.size(), 5u);
  EXPECT_LT(r.counters.critical_intervals[3], 80);
}

}  // namespace
}  // namespace sampcheck::gpu
