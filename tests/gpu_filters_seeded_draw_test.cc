// SPDX-License-Identifier: Apache-2.0
// sampling_filters with the seeded draw (SamplingFiltersLaunch given seed, positions and token:
// gpu/kernels/sampling_filters.cuh, gpu/kernels/sampling_filters_on_survivors.cuh): the token must be
// the one multinomial_with_seed keyed by token id (gpu/kernels/seeded_gumbel.cuh) draws over the
// whole filtered probs row, and the one the reference draws (reference::SeededGumbelColumn, a
// plain loop over the columns in index order with its own skip bound) over the reference's
// filtered probs (reference/sampling_filters.h through the reference backend), bit for bit.
// Also the one-barrier argmax tree the draw reduces with (WarpFirstBlockArgmax,
// gpu/block/block_argmax.cuh) against a plain first-maximum loop.
//
// Rows: continuous values, a grid of 1/8 (ties at K, at the walk's cut, equal probabilities),
// +0.0 / -0.0 maxima, a flat row (every survivor the same probability: the noise alone
// decides), a row of 21 finite entries with k = 50 (K = -inf: the full-row path), a NaN, a
// +inf (degenerate rows: drawn over the probs the kernel writes), a row of -inf (no drawable
// column: kNoIndex from every kernel, -1 from the reference), values crowded into 300 lanes
// (k = 300: an incomplete slice list when split), and one entry 120 above the rest (every other
// survivor's probability underflows to +0, which is not drawable), and a row whose lanes 0 ..
// 511 are flat at the max (min_p's read gives their draw candidates). Parameters: k = 1, k = 50
// with p = 1e-7 (one survivor), p = 0.9 with min-p 0.05, min-p 1, k = 1024, k = V - 1, top-k
// off and k > 1024 (the partition path, with min-p: its draw from cached survivors, with and
// without the overflow flags, and a flat row that overflows them), each row under up to three (seed, position) keys,
// negative seeds and the positions 0 and 2^32 - 1 included. For a fixed (seed, position) the hash is a
// bijection of the column (each Murmur step and fmix32 is invertible), so two columns never
// share their noise: equal scores would need log p + g to round alike, which these rows do not
// plant; the tie rule itself is the argmax test's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/split_mix64.h"
#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/emulator/emulator_counters.h"
#include "gpu/kernels/seeded_gumbel_candidates.cuh"
#include "gpu/runners/kernel_runner.h"
#include "reference/reference_backend.h"
#include "reference/seeded_gumbel.h"

namespace sampcheck::gpu {
namespace {

// The first maximum of (value, index) pairs visited in index order under argmax's total order
// (docs/spec/reductions.md: NaN above every number, the larger number, equal values to the
// lower index): a plain loop, independent of the block's trees.
std::int64_t FirstMaximum(const std::vector<double>& value, const std::vector<std::int64_t>& index) {
  std::vector<std::pair<std::int64_t, double>> by_index;
  for (std::size_t t = 0; t < value.size(); ++t) {
    if (index[t] != kNoIndex) by_index.emplace_back(index[t], value[t]);
  }
  std::sort(by_index.begin(), by_index.end());
  std::int64_t best = kNoIndex;
  double v = 0.0;
  for (const auto& [i, x] : by_index) {
    const bool replaces = best == kNoIndex || (std::isnan(x) && !std::isnan(v)) || (!std::isnan(v) && x > v);
    if (replaces) best = i, v = x;
  }
  return best;
}

// One thread's candidates (SeededGumbelCandidates) against the exact draw over everything it
// was offered: whatever the order of the offers (ascending columns, as a strided read offers
// them, or shuffled, as held keys come), the winner of the exact scores RN(e / s) under the
// argmax order must be among the kept keys whenever they did not overflow. Values on a grid of
// 1/8 below the maximum 0 (equal values everywhere: the dominance rule's case, where an entry
// is dropped on its value and hash alone), flat runs (every value 0), and a few subnormal
// probabilities; 400 sequences of 1 to 300 entries under six keys. After every offer, each kept
// key's score held beside it must be the score its key gives.
TEST(GpuFiltersSeededDraw, CandidatesKeepTheExactWinner) {
  SplitMix64 rng(20261204);
  const SeededGumbelKey keys[] = {{0, 0}, {42, 7}, {~0ull, 0xffffffffu}, {5, 1}, {123456789, 99}, {1ull << 63, 3}};
  int kept_winners = 0;
  for (int sequence = 0; sequence < 400; ++sequence) {
    const SeededGumbelKey key = keys[sequence % 6];
    const int n = 1 + static_cast<int>(rng.Next() % 300);
    const int kind = sequence % 4;  // 0 grid, 1 flat, 2 grid with subnormal probabilities, 3 grid shuffled
    std::vector<std::int64_t> columns(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) columns[static_cast<std::size_t>(j)] = 3 + 1024 * static_cast<std::int64_t>(j);
    if (kind == 3) {
      for (int j = n - 1; j > 0; --j) std::swap(columns[static_cast<std::size_t>(j)], columns[rng.Next() % (j + 1)]);
    }
    std::vector<float> values(static_cast<std::size_t>(n));
    for (float& x : values) {
      x = kind == 1 ? 0.0f : -0.125f * static_cast<float>(rng.Next() % 12);
      if (kind == 2 && rng.Next() % 8 == 0) x = -95.0f;  // e = ExpF32Cr(-95): a subnormal probability
    }
    float s = 0.0f;
    for (float x : values) s = s + math::ExpF32Cr(x);  // the sum s (its order does not matter here)
    SeededGumbelCandidates<kCachedCandidates> cache;
    cache.Reset();
    for (int j = 0; j < n; ++j) {
      const auto at = static_cast<std::size_t>(j);
      cache.Offer(key, OrderKey(values[at], columns[at], false), 0.0f, static_cast<double>(n));
      // Each kept key's score beside it is the one its key gives (the compaction moves both).
      for (std::uint32_t c = 0; c < cache.count && !cache.Overflowed(); ++c) {
        using Candidates = SeededGumbelCandidates<kCachedCandidates>;
        const double made = Candidates::ScoreOfHash(Candidates::Hash(key, cache.key[c]), cache.key[c], 0.0f,
                                                    static_cast<double>(n));
        ASSERT_EQ(std::memcmp(&cache.score[c], &made, sizeof made), 0) << "sequence " << sequence << " offer " << j;
      }
    }
    if (cache.Overflowed()) continue;
    std::vector<double> score;
    std::vector<std::int64_t> column;
    for (int j = 0; j < n; ++j) {
      const auto at = static_cast<std::size_t>(j);
      const float p = math::ExpF32Cr(values[at]) / s;
      if (!SeededGumbelDrawable(p)) continue;
      score.push_back(SeededGumbelScore(key, static_cast<std::uint32_t>(columns[at]), p));
      column.push_back(columns[at]);
    }
    const std::int64_t winner = FirstMaximum(score, column);
    bool kept = false;
    cache.ForEach([&](std::uint64_t k) { kept = kept || IndexOfKey(k) == winner; });
    EXPECT_TRUE(kept) << "sequence " << sequence << " (kind " << kind << ", n = " << n << "): winner " << winner;
    kept_winners += kept ? 1 : 0;
  }
  EXPECT_GE(kept_winners, 300);  // most sequences fit the candidates (the test must not pass vacuously)
}

// 200 blocks of 1024 pairs: values from {-inf, -1, -0.0, +0.0, 0.5, 1, NaN} (many ties, +-0
// equal), indices a shuffled 0..1023 (every index distinct, as in a row), about 1 in 4
// threads holding the identity (-inf, kNoIndex). NaN only in every fourth block, so that the
// numbers' order is exercised too.
TEST(GpuFiltersSeededDraw, WarpFirstArgmaxIsTheFirstMaximum) {
  SplitMix64 rng(77);
  const double values[] = {-std::numeric_limits<double>::infinity(), -1.0, -0.0, 0.0, 0.5, 1.0,
                           std::numeric_limits<double>::quiet_NaN()};
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> value(1024);
    std::vector<std::int64_t> index(1024);
    for (std::int64_t t = 0; t < 1024; ++t) index[static_cast<std::size_t>(t)] = t;
    for (std::size_t t = 1023; t > 0; --t) std::swap(index[t], index[rng.Next() % (t + 1)]);
    const std::uint64_t kinds = trial % 4 == 0 ? 7 : 6;
    for (std::size_t t = 0; t < 1024; ++t) {
      value[t] = values[rng.Next() % kinds];
      if (rng.Next() % 4 == 0) value[t] = ArgmaxAboveF64::Identity(), index[t] = kNoIndex;
    }
    if (trial == 1) std::fill(index.begin(), index.end(), kNoIndex);  // no candidate at all
    std::int64_t warp_first = -2, canonical = -2;
    const LaunchReport report = emu::Launch("argmax_trees", 1, 1024, [&](Block& block) {
      auto v = Registers<double>(block);
      auto i = Registers<std::int64_t>(block);
      block.ForEachThread([&](Thread t) {
        v[t] = value[static_cast<std::size_t>(t.x)];
        i[t] = index[static_cast<std::size_t>(t.x)];
      });
      WarpFirstBlockArgmax<double>(block, v, i, ArgmaxAboveF64{});
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) warp_first = i[t];
      });
      block.Sync();
      block.ForEachThread([&](Thread t) {
        v[t] = value[static_cast<std::size_t>(t.x)];
        i[t] = index[static_cast<std::size_t>(t.x)];
      });
      CanonicalBlockArgmax<kCanonicalLanes, double>(block, v, i, ArgmaxAboveF64{});
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) canonical = i[t];
      });
    });
    ASSERT_TRUE(report.ok()) << report.Summary();
    const std::int64_t expected = FirstMaximum(value, index);
    EXPECT_EQ(warp_first, expected) << "trial " << trial;
    EXPECT_EQ(canonical, expected) << "trial " << trial;
    // Collectives: a WarpArgmax is 5 levels of two ShuffleDown (value, index). The warp-first
    // tree's first one in all 32 warps, its second in warp 0 alone; the canonical tree's one
    // in warp 0 alone (ForWarps): 3 x 10 calls, 32 x 10 + 10 + 10 warps taking part.
    EXPECT_EQ(report.counters.warp_ops, 30);
    EXPECT_EQ(report.counters.warp_op_warps, 340);
  }
}

struct RowSpec {
  int kind;
  std::int32_t k;
  float p, m;
};

std::vector<float> RowValues(int kind, std::int64_t vocab, std::uint64_t seed) {
  SplitMix64 rng(seed);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(static_cast<std::size_t>(vocab));
  for (std::int64_t i = 0; i < vocab; ++i) {
    const std::uint64_t r = rng.Next();
    float v = -8.0f + 16.0f * static_cast<float>(r >> 40) * 0x1.0p-24f;
    if (kind == 1) v = std::floor(v * 8.0f) / 8.0f;
    if (kind == 2) v = v > 0.0f ? ((r & 1) != 0 ? 0.0f : -0.0f) : v;
    if (kind == 3) v = 0.5f;
    if (kind == 4 && i % 661 != 5) v = -inf;
    if (kind == 7) v = -inf;
    if (kind == 8) v = i < 4429 && i % 1024 < 300 ? 10.0f + v : v;
    // Lanes 0 .. 511 (of 1024) flat at the max 8.5, the others' first entry too, the rest below 8.
    if (kind == 11) v = i % 1024 < 512 || i < 1024 ? 8.5f : v;
    x[static_cast<std::size_t>(i)] = v;
  }
  if (kind == 5) x[static_cast<std::size_t>(vocab / 3)] = std::numeric_limits<float>::quiet_NaN();
  if (kind == 6) x[static_cast<std::size_t>(vocab / 2)] = inf;
  if (kind == 9) x[7] = 120.0f;  // exp(x - 120) < 2^-161 for every other entry: probability +0
  if (kind == 10) {  // one entry at 0, the rest in [-100.5, -99.5): subnormal probabilities above +0
    for (auto& v : x) v = -100.0f + v / 16.0f;
    x[3] = 0.0f;
  }
  return x;
}

struct Batch {
  std::int64_t rows = 0, vocab = 0;
  std::vector<float> logits;
  std::vector<std::int32_t> k;
  std::vector<float> p, m;
  std::vector<std::int64_t> seed, positions;
};

// Each spec under the first `keys` of three keys.
Batch MakeBatch(const std::vector<RowSpec>& specs, std::int64_t vocab, int keys) {
  const std::int64_t seeds[] = {42, -1, std::int64_t{0x7edcba9876543210}};
  const std::int64_t positions[] = {7, (std::int64_t{1} << 32) - 1, 0};
  Batch b;
  b.vocab = vocab;
  for (std::size_t s = 0; s < specs.size(); ++s) {
    for (int key = 0; key < keys; ++key) {
      const std::vector<float> x = RowValues(specs[s].kind, vocab, 1000 + 10 * s + static_cast<std::size_t>(key));
      b.logits.insert(b.logits.end(), x.begin(), x.end());
      b.k.push_back(specs[s].k);
      b.p.push_back(specs[s].p);
      b.m.push_back(specs[s].m);
      b.seed.push_back(seeds[key] + static_cast<std::int64_t>(s));
      b.positions.push_back(positions[key]);
      ++b.rows;
    }
  }
  return b;
}

// Runs the batch three ways under `rules` and compares the tokens: the full-row draw after the
// rows (SamplingFiltersLaunch writing out and probs, then SeededGumbelLaunch over probs), the
// fused draw asking for the token alone (no row written: no rows launch, no draw launch), and
// the fused draw with the rows too (which must be the first run's bits). With `profile`, also
// the reference's token over its own filtered probs.
void ExpectFusedDrawIsTheFullRowDraw(const Batch& b, const FilterRules& rules, const char* profile,
                                     std::int64_t expected_slices) {
  SCOPED_TRACE(testing::Message() << (profile != nullptr ? profile : "kernels only") << ", V = " << b.vocab);
  const auto runner = MakeEmulatedRunner();
  const auto n = static_cast<std::size_t>(b.rows * b.vocab);
  const auto rows = static_cast<std::size_t>(b.rows);
  std::vector<float> out(n), probs(n), out_fused(n), probs_fused(n);
  std::vector<std::int64_t> full(rows, -2), fused(rows, -2), fused_with_rows(rows, -2);
  SamplingFiltersLaunch l(b.logits.data(), b.k.data(), b.p.data(), b.m.data(), b.rows, b.vocab, b.vocab, rules,
                          out.data(), probs.data());
  ASSERT_EQ(l.Slices(), expected_slices);
  runner->Run(l);
  runner->Run(SeededGumbelLaunch(probs.data(), b.seed.data(), b.positions.data(), nullptr, b.rows, b.vocab, b.vocab,
                                 full.data()));
  l.seed = b.seed.data();
  l.positions = b.positions.data();
  l.token = fused_with_rows.data();
  l.out = out_fused.data();
  l.probs = probs_fused.data();
  runner->Run(l);
  EXPECT_EQ(std::memcmp(out.data(), out_fused.data(), n * sizeof(float)), 0) << "out with the draw";
  EXPECT_EQ(std::memcmp(probs.data(), probs_fused.data(), n * sizeof(float)), 0) << "probs with the draw";
  l.token = fused.data();
  l.out = nullptr;
  l.probs = nullptr;
  {
    LaunchRecorder recorder;
    runner->Run(l);
    const auto& launches = recorder.launches();
    // One launch: split rows merge and draw in their last block (gpu/block/last_block.cuh).
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_EQ(launches.back().kernel, expected_slices > 1 ? "sampling_filters_slices" : "sampling_filters");
  }
  std::vector<std::int64_t> reference_token(rows, -2);
  if (profile != nullptr) {
    Case c;
    c.id = "sampling_filters/seeded_draw";
    c.stage = "sampling_filters";
    c.profile = sampcheck::ParseProfile(profile);
    c.inputs = {{"logits", Tensor::FromValues(DType::kF32, {b.rows, b.vocab}, b.logits)},
                {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {b.rows}, b.k)},
                {"top_p", Tensor::FromValues<float>(DType::kF32, {b.rows}, b.p)},
                {"min_p", Tensor::FromValues<float>(DType::kF32, {b.rows}, b.m)}};
    reference::ReferenceBackend reference;
    const TensorMap expected = reference.Run("sampling_filters", c);
    const auto ref_probs = expected.at("probs").data<float>();
    for (std::size_t r = 0; r < rows; ++r) {
      const std::int64_t column = reference::SeededGumbelColumn(
          ref_probs.subspan(r * static_cast<std::size_t>(b.vocab), static_cast<std::size_t>(b.vocab)),
          static_cast<std::uint64_t>(b.seed[r]), static_cast<std::uint32_t>(b.positions[r]));
      reference_token[r] = column < 0 ? kNoIndex : column;  // -1: no positive probability
    }
  }
  int drawable = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    SCOPED_TRACE(testing::Message() << "row " << r << ": k " << b.k[r] << ", p " << b.p[r] << ", m " << b.m[r]
                                    << ", seed " << b.seed[r] << ", position " << b.positions[r]);
    EXPECT_EQ(fused[r], full[r]);
    EXPECT_EQ(fused_with_rows[r], full[r]);
    if (profile != nullptr) {
      EXPECT_EQ(fused[r], reference_token[r]);
    }
    if (full[r] != kNoIndex) {
      ++drawable;
      // The drawn column is one the filters kept.
      EXPECT_GT(probs[r * static_cast<std::size_t>(b.vocab) + static_cast<std::size_t>(full[r])], 0.0f);
    }
  }
  EXPECT_GT(drawable, 0);
}

const std::vector<RowSpec> kOneBlockRows = {
    {0, 50, 0.9f, 0.0f},    {0, 1, 1.0f, 0.0f},      {0, 50, 1e-7f, 0.0f},    {0, 50, 0.9f, 0.05f},
    {0, 1024, 0.95f, 0.0f}, {0, 2499, 0.9f, 0.0f},   {0, 0, 0.9f, 0.0f},      {0, 1500, 0.9f, 0.05f},
    {1, 50, 0.9f, 0.0f},    {1, 300, 0.5f, 0.1f},    {2, 50, 0.9f, 0.0f},     {2, 7, 1.0f, 1.0f},
    {3, 50, 1.0f, 0.0f},    {3, 0, 0.999f, 0.0f},    {4, 50, 0.9f, 0.0f},     {5, 50, 0.9f, 0.0f},
    {6, 50, 0.9f, 0.0f},    {7, 50, 0.9f, 0.0f},     {9, 50, 1.0f, 0.0f},
    // The partition path's draw from the survivors cached by its last sum: min-p 1 alone (a
    // threshold under 1/8: the overflow flags reduced, none set), one entry far above the rest
    // (a threshold of at least 1/8: no flags), a flat row (2500 survivors, at most 3 a lane)
    // and the 1/8 grid (ties at the max); the caches overflow on the split test's flat row.
    // These min-p rows also fold in the last sum the entries min-p's read kept (x - M at or
    // above MinPValueBound, gpu/kernels/min_p.cuh) instead of reading theirs: on the grid at m
    // 0.5 the survivors end at M - 5/8 (weight 0.535), M - 3/4 (0.472) is dropped and the
    // bound ln 0.5 - 2^-10 = -0.694 lies between them; min-p after top-p's walk (continuous, 0.05), the +-0
    // maxima at min-p 1, and k = 1500 with min-p 0.3 (its lanes held by the top-k keys).
    // Lanes whose entries all equal the max (the flat row above; kind 11's first 512 lanes)
    // offer them to the draw in min-p's read and read nothing more; kind 11's other lanes
    // (their first entry at the max too) offer theirs again in the final sum: at min-p 1 from
    // min-p's candidates, at 0.5 (entries from 7.81 up pass) likewise.
    {0, 0, 1.0f, 1.0f},     {9, 0, 1.0f, 0.2f},      {3, 0, 1.0f, 1.0f},      {1, 0, 1.0f, 0.5f},
    {0, 0, 0.95f, 0.05f},   {2, 0, 1.0f, 1.0f},      {1, 1500, 1.0f, 0.3f},   {11, 0, 1.0f, 1.0f},
    {11, 0, 1.0f, 0.5f},
};

const TopKRule kFlashinferTopK{.ties_kept = true, .drops_nan = true};
const FilterRules kFlashinferRules{kFlashinferTopK, TopPWalk::kTieGroup, MinPRule{}, FilterOrder::kTopKFirst,
                                   DegenerateRowRule{.nan_softmax_empties_row = true}};

// V = 2500: one block per row (V < 4096: no slices). canonical under three keys and
// flashinfer's top_k_first under one against the reference; sglang's joint order (every row on
// the full-row steps) under one against the full-row kernel only.
TEST(GpuFiltersSeededDraw, OneBlockRowsDrawTheFullRowToken) {
  ExpectFusedDrawIsTheFullRowDraw(MakeBatch(kOneBlockRows, 2500, 3), FilterRules{}, "canonical", 1);
  const Batch b = MakeBatch(kOneBlockRows, 2500, 1);
  ExpectFusedDrawIsTheFullRowDraw(b, kFlashinferRules, "flashinfer", 1);
  const FilterRules joint{TopKRule{}, TopPWalk::kSglang, MinPRule{}, FilterOrder::kJoint, DegenerateRowRule{}};
  ExpectFusedDrawIsTheFullRowDraw(b, joint, nullptr, 1);
}

// V = 13289 with 24 rows (8 under one key for flashinfer): 3 slices per survivor-path row
// (RowSliceBudget: min(floor(132 / B), 13289 / 4096) = 3), the draw in the per-row kernel after
// the merge; the crowded row (kind 8, k = 300) and the K = -inf row take the whole-row paths,
// and the flat row with min-p 1 alone, kind 11's half-flat row with min-p 0.5 alone and the row
// of subnormal probabilities (kind 10, nothing filtered) the partition path: the flat row's 13
// survivors a lane are pruned by their scores (SeededGumbelCandidates), the subnormal ones are never pruned and overflow the draw's
// candidates (the row is read again for the draw: ReadsTheRowForTheDrawOnlyWhenCandidatesOverflow).
TEST(GpuFiltersSeededDraw, SplitRowsDrawTheFullRowToken) {
  const std::vector<RowSpec> specs = {{0, 50, 0.9f, 0.0f}, {1, 50, 0.95f, 0.05f}, {3, 7, 0.5f, 0.0f},
                                      {2, 1, 0.9f, 1.0f},  {4, 50, 0.9f, 0.0f},   {8, 300, 0.9f, 0.0f},
                                      {9, 50, 1.0f, 0.0f}, {5, 50, 0.9f, 0.0f},  {3, 0, 1.0f, 1.0f},
                                      {10, 0, 1.0f, 0.0f}, {11, 0, 1.0f, 0.5f}};
  ExpectFusedDrawIsTheFullRowDraw(MakeBatch(specs, 13289, 3), FilterRules{}, "canonical", 3);
  ExpectFusedDrawIsTheFullRowDraw(MakeBatch(specs, 13289, 1), kFlashinferRules, "flashinfer", 3);
}

// V = 30000 (29 or 30 entries a lane), top-k 24750 on the partition path: about 24 top-k
// survivors a lane, so some threads hold all of theirs among the 24 smallest keys the scatter
// read keeps and fold them, the others read their entries (the survivors' sum before the walk,
// min_p's, the final one with the draw's candidates): canonical with p 1 (no walk), with min-p
// 1e-4 and with p 0.999; flashinfer's ties kept and tie-group walk on the 1/8 grid.
TEST(GpuFiltersSeededDraw, PartitionRowsDrawTheFullRowTokenWhenSomeLanesAreHeld) {
  const std::vector<RowSpec> specs = {{0, 24750, 1.0f, 0.0f}, {0, 24750, 1.0f, 1e-4f}, {0, 24750, 0.999f, 0.0f}};
  ExpectFusedDrawIsTheFullRowDraw(MakeBatch(specs, 30000, 1), FilterRules{}, "canonical", 1);
  ExpectFusedDrawIsTheFullRowDraw(MakeBatch({{1, 24750, 0.999f, 0.0f}}, 30000, 1), kFlashinferRules, "flashinfer",
                                  1);
}

// The partition path's draw alone (top-k and top-p off: every finite entry survives, 13 a
// lane at V = 13289) reads the logits twice (level 0's count and the final sum, whose read keeps
// the candidates that can still win: gpu/kernels/seeded_gumbel_candidates.cuh) on continuous
// values; on kind 10's subnormal probabilities, which are never pruned, the candidates
// overflow and the draw reads the row once more. With min-p 1 alone, min-p's read keeps the
// entries that may pass it (within 2^-10 of the max: one a row of continuous values), so the
// final sum reads nothing: 2 reads, not 3; a flat row's 13 a lane overflow those candidates,
// but every entry equals the max and passes min_p whatever its sum, so min_p's read offers
// them to the draw's candidates and gives the final fold (13 ones a lane): 2 reads (3 before
// 2026-12-04), as with min-p 0.05. So do kind 11's rows: lanes 0 .. 511 are flat; in the
// others the first entry is the max and the rest lie below 8, so min-p 1 keeps the max alone
// and 0.5 about 0.15 entries more a lane (from 7.81 up), which min-p's candidates hold. The
// tokens are the full-row draw's (SplitRowsDrawTheFullRowToken runs such rows).
TEST(GpuFiltersSeededDraw, ReadsTheRowForTheDrawOnlyWhenCandidatesOverflow) {
  const std::int64_t vocab = 13289;
  const auto runner = MakeEmulatedRunner();
  auto logits_passes = [&](int kind, float m) {
    const Batch b = MakeBatch({{kind, 0, 1.0f, m}}, vocab, 1);
    std::vector<std::int64_t> token(1, -2);
    SamplingFiltersLaunch l(b.logits.data(), b.k.data(), b.p.data(), b.m.data(), b.rows, b.vocab, b.vocab,
                            FilterRules{}, nullptr, nullptr);
    l.seed = b.seed.data();
    l.positions = b.positions.data();
    l.token = token.data();
    LaunchRecorder recorder;
    runner->Run(l);
    EXPECT_NE(token[0], -2);
    return LogitsPasses(recorder.launches(), 1, vocab);
  };
  EXPECT_DOUBLE_EQ(logits_passes(0, 0.0f), 2.0);
  EXPECT_DOUBLE_EQ(logits_passes(10, 0.0f), 3.0);
  EXPECT_DOUBLE_EQ(logits_passes(0, 1.0f), 2.0);
  EXPECT_DOUBLE_EQ(logits_passes(3, 1.0f), 2.0);
  EXPECT_DOUBLE_EQ(logits_passes(3, 0.05f), 2.0);
  EXPECT_DOUBLE_EQ(logits_passes(11, 1.0f), 2.0);
  EXPECT_DOUBLE_EQ(logits_passes(11, 0.5f), 2.0);
}

}  // namespace
}  // namespace sampcheck::gpu
