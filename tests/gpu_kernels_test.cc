// SPDX-License-Identifier: Apache-2.0
// The kernels of gpu/ on the checking emulator (gpu/runners/kernel_runner.h): the contract examples
// (hand-computed, from docs/spec/greedy.md, softmax.md, temperature.md and filters.md), bit equality with
// the reference on random rows, and padded rows (pitch > V, V = 1, the tile-misaligned
// vocabularies 151936 and 128256) whose pad entries hold +inf or NaN and must never win or be
// read. Every launch runs with the emulator's checks on: a violation throws and fails the test.
#include <algorithm>
#include <cmath>
#include <span>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/split_mix64.h"
#include "gpu/backend/spec_step_glue.h"
#include "gpu/kernels/gumbel_max.cuh"  // the planted out-of-bounds launch
#include "gpu/runners/kernel_runner.h"
#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/cached_candidates.cuh"
#include "gpu/block/float_word.cuh"
#include "gpu/block/lane_key_tree.cuh"
#include "gpu/block/lane_scan.cuh"
#include "gpu/block/radix_partition.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/row_slices.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/block/warp_min.cuh"
#include "gpu/block/warp_run_walk.cuh"
#include "gpu/kernels/sampling_filters_on_partition.cuh"
#include "tests/crowded_row.h"
#include "tests/lane_order.h"
#include "reference/reductions.h"
#include "reference/exponential_race.h"  // the padded-row comparisons
#include "reference/gumbel_max.h"
#include "reference/inverse_cdf.h"
#include "reference/qsample.h"
#include "reference/seeded_gumbel.h"
#include "reference/softmax.h"
#include "reference/spec_step.h"

namespace sampcheck::gpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

std::uint32_t Bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Rows of V logits in [-8, 8), with some -inf, laid out with `pitch` per row and `pad` in
// the padding.
std::vector<float> RandomRows(std::int64_t rows, std::int64_t vocab, std::int64_t pitch, float pad,
                              std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<float> x(static_cast<std::size_t>(rows * pitch), pad);
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < vocab; ++i) {
      const std::uint64_t r = rng.Next();
      float v = static_cast<float>(static_cast<std::int64_t>(r >> 40) - (1 << 23)) * 0x1p-20f;
      if ((r & 63) == 0) v = -kInf;
      x[static_cast<std::size_t>(b * pitch + i)] = v;
    }
  }
  return x;
}

std::span<const float> RowOf(const std::vector<float>& x, std::int64_t b, std::int64_t vocab, std::int64_t pitch) {
  return std::span<const float>(x).subspan(static_cast<std::size_t>(b * pitch), static_cast<std::size_t>(vocab));
}

std::int64_t GreedyOne(const std::vector<float>& row) {
  std::int64_t token = -7;
  MakeEmulatedRunner()->Run(GreedyLaunch(row.data(), 1, static_cast<std::int64_t>(row.size()),
                                         static_cast<std::int64_t>(row.size()), &token));
  return token;
}

// The lane walks' calls as text: a load of index i gives i as the entry's value ("load i"),
// each other call is "name i x".
struct WalkCalls {
  std::vector<std::string> calls;
  auto Load() {
    return [this](std::int64_t i) {
      calls.push_back("load " + std::to_string(i));
      return i;
    };
  }
  auto Call(std::string name) {
    return [this, name](std::int64_t i, std::int64_t x) {
      calls.push_back(name + " " + std::to_string(i) + " " + std::to_string(x));
    };
  }
};

// ScanLane (gpu/block/lane_scan.cuh): its loads and calls, in order.
template <int kGroup>
std::vector<std::string> ScanLaneCalls(std::int64_t first, std::int64_t end, std::int64_t step,
                                       const std::function<bool(std::int64_t)>& keep) {
  WalkCalls w;
  ScanLane<kGroup>(
      first, end, step, w.Load(), [&](std::int64_t x, std::int64_t i) { return x == i && keep(i); }, w.Call("dropped"),
      w.Call("kept"));
  return w.calls;
}

// ForEachLaneEntry (the same file): its loads and calls, in order.
template <int kGroup>
std::vector<std::string> LaneEntryCalls(std::int64_t first, std::int64_t end, std::int64_t step) {
  WalkCalls w;
  ForEachLaneEntry<kGroup>(first, end, step, w.Load(), w.Call("f"));
  return w.calls;
}

// The contract's order, written out: each group's loads, then its entries' calls.
std::vector<std::string> ExpectedScanLaneCalls(int group, std::int64_t first, std::int64_t end, std::int64_t step,
                                               const std::function<bool(std::int64_t)>& keep) {
  std::vector<std::string> calls;
  for (std::int64_t i = first; i < end; i += group * step) {
    for (std::int64_t j = i; j < end && j < i + group * step; j += step) calls.push_back("load " + std::to_string(j));
    for (std::int64_t j = i; j < end && j < i + group * step; j += step) {
      calls.push_back((keep(j) ? "kept " : "dropped ") + std::to_string(j) + " " + std::to_string(j));
    }
  }
  return calls;
}

TEST(GpuLaneScan, ContractExample) {
  const auto odd = [](std::int64_t i) { return i % 2 != 0; };
  EXPECT_EQ(ScanLaneCalls<2>(2, 11, 3, odd),
            (std::vector<std::string>{"load 2", "load 5", "dropped 2 2", "kept 5 5", "load 8", "dropped 8 8"}));
  EXPECT_EQ(ScanLaneCalls<1>(2, 11, 3, odd), (std::vector<std::string>{"load 2", "dropped 2 2", "load 5", "kept 5 5",
                                                                         "load 8", "dropped 8 8"}));
  EXPECT_TRUE(ScanLaneCalls<4>(5, 5, 1, odd).empty());
  EXPECT_TRUE(ScanLaneCalls<4>(7, 3, 1, odd).empty());
  EXPECT_EQ(LaneEntryCalls<2>(2, 11, 3),
            (std::vector<std::string>{"load 2", "load 5", "f 2 2", "f 5 5", "load 8", "f 8 8"}));
  EXPECT_TRUE(LaneEntryCalls<4>(5, 5, 1).empty());
}

// A random walk's first, end and step: empty walks (end <= first) among them.
struct Walk {
  std::int64_t first, end, step;
};
Walk RandomWalk(std::mt19937_64& rng) {
  const std::int64_t first = static_cast<std::int64_t>(rng() % 8);
  const std::int64_t end = static_cast<std::int64_t>(rng() % 64);
  return Walk{first, end, 1 + static_cast<std::int64_t>(rng() % 5)};
}

template <int kGroup>
void CheckScanLaneAgainstTheContract(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 500; ++trial) {
    const auto [first, end, step] = RandomWalk(rng);
    const std::uint64_t pattern = rng() & (trial % 3 == 0 ? rng() : ~std::uint64_t{0});  // often sparse
    const auto keep = [&](std::int64_t i) { return ((pattern >> (i % 64)) & 1u) != 0; };
    ASSERT_EQ(ScanLaneCalls<kGroup>(first, end, step, keep), ExpectedScanLaneCalls(kGroup, first, end, step, keep))
        << "group " << kGroup << ", trial " << trial;
  }
}

TEST(GpuLaneScan, LoadsEachGroupThenCallsInTheWalksOrder) {
  CheckScanLaneAgainstTheContract<1>(20261206);
  CheckScanLaneAgainstTheContract<2>(20261207);
  CheckScanLaneAgainstTheContract<3>(20261208);
  CheckScanLaneAgainstTheContract<4>(20261209);
}

// ForEachLaneEntry's order is ScanLane's with every entry kept and "f" for "kept".
template <int kGroup>
void CheckLaneEntriesAgainstTheContract(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 500; ++trial) {
    const auto [first, end, step] = RandomWalk(rng);
    const auto every = [](std::int64_t) { return true; };
    std::vector<std::string> expected = ExpectedScanLaneCalls(kGroup, first, end, step, every);
    for (std::string& call : expected) {
      if (call.starts_with("kept ")) call.replace(0, 4, "f");
    }
    ASSERT_EQ(LaneEntryCalls<kGroup>(first, end, step), expected) << "group " << kGroup << ", trial " << trial;
  }
}

TEST(GpuLaneScan, EveryEntryLoadsEachGroupThenCallsInTheWalksOrder) {
  CheckLaneEntriesAgainstTheContract<1>(20261210);
  CheckLaneEntriesAgainstTheContract<2>(20261211);
  CheckLaneEntriesAgainstTheContract<3>(20261212);
  CheckLaneEntriesAgainstTheContract<4>(20261213);
}

// docs/spec/greedy.md's examples.
TEST(GpuGreedy, ContractExamples) {
  EXPECT_EQ(GreedyOne({1, 3, 3, -kInf}), 1);
  EXPECT_EQ(GreedyOne({-kInf, -kInf}), 0);
  EXPECT_EQ(GreedyOne({5, kNan, kNan}), 1);
  EXPECT_EQ(GreedyOne({-0.0f, 0.0f}), 0);  // equal values: lowest index
}

// Ties across lanes and across the tree: the maximum at indices 1500 (lane 476) and 2000
// (lane 976), nothing else as large: the lower index wins whatever lane holds it.
TEST(GpuGreedy, TieAcrossLanesGoesToLowerIndex) {
  std::vector<float> row(3000, 0.0f);
  row[2000] = 4.0f;
  row[1500] = 4.0f;
  EXPECT_EQ(GreedyOne(row), 1500);
}

// Rows split over several blocks (GreedyLaunch's slices: 2 to 37 a row here) give the token of
// the whole row, the spec's first maximum in argmax's total order, written out below: random
// rows; the maximum or the first NaN placed in a middle and the last slice, at a slice's first
// and last entry; ties across slices (the lower index wins), also between slices 0 and 32,
// which one lane of the merge folds in turn when a row has more than 32 (33 here); -inf rows;
// signed zeros.
TEST(GpuGreedy, SlicedRowsGiveTheWholeRowsToken) {
  // The expected token by the spec's scan (docs/spec/greedy.md "Semantics"): the first NaN,
  // else the first index strictly above every earlier value.
  auto expected = [](std::span<const float> row) {
    std::int64_t best = 0;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(row.size()); ++i) {
      if (std::isnan(row[static_cast<std::size_t>(i)])) return i;
      if (row[static_cast<std::size_t>(i)] > row[static_cast<std::size_t>(best)]) best = i;
    }
    return best;
  };
  for (const std::int64_t vocab : {8192, 40000, 151936}) {
    for (const std::int64_t rows : {1, 4}) {
      const std::int64_t slices = GreedyLaunch{nullptr, rows, vocab, vocab, nullptr}.Slices();
      ASSERT_GT(slices, 1);
      std::vector<float> x = RandomRows(rows, vocab, vocab, 0.0f, 20261201 + static_cast<std::uint64_t>(vocab));
      // Row 0 keeps its random values; the others get planted maxima at slice boundaries.
      for (std::int64_t b = 1; b < rows; ++b) {
        float* row = x.data() + b * vocab;
        const std::int64_t last_slice = SliceBegin(slices - 1, slices, vocab);
        const std::int64_t middle = SliceBegin(slices / 2, slices, vocab);
        if (b == 1) {  // a tie across slices: the earlier index (a slice's last entry) wins
          row[middle - 1] = 100.0f;
          row[last_slice] = 100.0f;
        } else if (b == 2) {  // a NaN at the last slice's first entry beats +inf earlier
          row[middle] = kInf;
          row[last_slice] = kNan;
        } else {  // a tie between slices 0 and 32, which one lane folds when a row has more than 32
          const std::int64_t other = slices > 32 ? 32 : slices - 1;
          row[SliceBegin(1, slices, vocab) - 1] = 100.0f;
          row[SliceBegin(other, slices, vocab)] = 100.0f;
        }
      }
      std::vector<std::int64_t> token(static_cast<std::size_t>(rows), -7);
      MakeEmulatedRunner()->Run(GreedyLaunch(x.data(), rows, vocab, vocab, token.data()));
      for (std::int64_t b = 0; b < rows; ++b) {
        SCOPED_TRACE(testing::Message() << "V " << vocab << " rows " << rows << " row " << b << " slices " << slices);
        EXPECT_EQ(token[static_cast<std::size_t>(b)], expected(RowOf(x, b, vocab, vocab)));
      }
    }
  }
  // Every value -inf, and signed zeros as the maximum in two slices: index 0, then the first zero.
  const std::int64_t vocab = 8192;
  std::vector<float> flat(2 * vocab, -kInf);
  flat[vocab + 5000] = -0.0f;
  flat[vocab + 4100] = 0.0f;
  flat[vocab + 10] = -0.0f;
  std::vector<std::int64_t> token(2, -7);
  MakeEmulatedRunner()->Run(GreedyLaunch(flat.data(), 2, vocab, vocab, token.data()));
  EXPECT_EQ(token[0], 0);
  EXPECT_EQ(token[1], 10);
}

struct Padded {
  std::int64_t vocab;
  std::int64_t pitch;
};

class GpuPaddedRows : public ::testing::TestWithParam<Padded> {};

// Pads of +inf and NaN would win an argmax if read; the answer must be the unpadded row's.
TEST_P(GpuPaddedRows, GreedyNeverPicksAPad) {
  const auto [vocab, pitch] = GetParam();
  const std::int64_t rows = 3;
  for (const float pad : {kInf, kNan}) {
    const std::vector<float> x = RandomRows(rows, vocab, pitch, pad, 20261124 + static_cast<std::uint64_t>(vocab));
    std::vector<std::int64_t> token(rows, -7);
    MakeEmulatedRunner()->Run(GreedyLaunch(x.data(), rows, vocab, pitch, token.data()));
    for (std::int64_t b = 0; b < rows; ++b) {
      EXPECT_EQ(token[static_cast<std::size_t>(b)], reference::CanonicalArgmax(RowOf(x, b, vocab, pitch)))
          << "row " << b << " pad " << pad;
      EXPECT_LT(token[static_cast<std::size_t>(b)], vocab);
    }
  }
}

TEST_P(GpuPaddedRows, SoftmaxMatchesReferenceBitwise) {
  const auto [vocab, pitch] = GetParam();
  const std::int64_t rows = 2;
  const std::vector<float> x = RandomRows(rows, vocab, pitch, kNan, 77 + static_cast<std::uint64_t>(vocab));
  for (const bool log : {false, true}) {
    std::vector<float> got(static_cast<std::size_t>(rows * vocab), -1.0f);
    MakeEmulatedRunner()->Run(SoftmaxLaunch(x.data(), nullptr, rows, vocab, pitch, log, got.data()));
    std::vector<float> want(static_cast<std::size_t>(vocab));
    for (std::int64_t b = 0; b < rows; ++b) {
      if (log) {
        reference::LogSoftmaxRow(RowOf(x, b, vocab, pitch), want);
      } else {
        reference::SoftmaxRow(RowOf(x, b, vocab, pitch), want);
      }
      int mismatches = 0;
      for (std::int64_t i = 0; i < vocab; ++i) {
        mismatches += Bits(got[static_cast<std::size_t>(b * vocab + i)]) != Bits(want[static_cast<std::size_t>(i)]);
      }
      EXPECT_EQ(mismatches, 0) << "row " << b << (log ? " log_softmax" : " softmax");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, GpuPaddedRows,
                         ::testing::Values(Padded{1, 1}, Padded{1, 64}, Padded{31, 32}, Padded{1024, 1024},
                                           Padded{1025, 1088}, Padded{151936, 152064}, Padded{128256, 128512}),
                         [](const auto& info) {
                           char name[64];
                           std::snprintf(name, sizeof name, "V%lldPitch%lld", static_cast<long long>(info.param.vocab),
                                         static_cast<long long>(info.param.pitch));
                           return std::string(name);
                         });

// docs/spec/softmax.md: {0, 0} -> {0.5, 0.5}; a row with one finite entry among -inf gives
// probability 1 there and +0 elsewhere, logprobs 0 and -inf; an all -inf row gives NaN.
TEST(GpuSoftmax, ContractExamples) {
  auto run = [](std::vector<float> x, bool log) {
    std::vector<float> y(x.size());
    MakeEmulatedRunner()->Run(SoftmaxLaunch(x.data(), nullptr, 1, static_cast<std::int64_t>(x.size()),
                                            static_cast<std::int64_t>(x.size()), log, y.data()));
    return y;
  };
  EXPECT_EQ(run({0, 0}, false), (std::vector<float>{0.5f, 0.5f}));
  const std::vector<float> one = run({-kInf, 2.5f, -kInf}, false);
  EXPECT_EQ(Bits(one[0]), Bits(0.0f));
  EXPECT_EQ(one[1], 1.0f);
  const std::vector<float> log_one = run({-kInf, 2.5f, -kInf}, true);
  EXPECT_EQ(log_one[0], -kInf);
  EXPECT_EQ(Bits(log_one[1]), Bits(0.0f));
  const std::vector<float> none = run({-kInf, -kInf}, false);
  EXPECT_TRUE(std::isnan(none[0]) && std::isnan(none[1]));
}

// With a temperature: y = x / t, one division per entry, before the max: the same bits as
// the reference's softmax of the divided row.
TEST(GpuSoftmax, DividesByTheTemperatureFirst) {
  const std::vector<float> x = {1.0f, 3.0f, -2.0f};
  const float t = 0.7f;
  std::vector<float> got(3);
  MakeEmulatedRunner()->Run(SoftmaxLaunch(x.data(), &t, 1, 3, 3, false, got.data()));
  std::vector<float> scaled = {x[0] / t, x[1] / t, x[2] / t};
  std::vector<float> want(3);
  reference::SoftmaxRow(scaled, want);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Bits(got[static_cast<std::size_t>(i)]), Bits(want[static_cast<std::size_t>(i)]));
}

// docs/spec/temperature.md: {1, 2} at t = 0.5 -> {2, 4}; t = 0 -> {1, 2} and greedy; vllm
// raises t = 0.001 to 0.01 (so 1 / 0.01f), canonical keeps it (1 / 0.001f, not greedy since
// 0.001 >= 1e-5); sglang's epsilon 1e-6 makes t = 5e-6 non-greedy where canonical's 1e-5 makes
// it greedy.
TEST(GpuTemperature, ContractExamples) {
  const std::vector<float> x = {1.0f, 2.0f};
  auto run = [&](float t, TemperatureRule rule, std::uint8_t* greedy) {
    std::vector<float> y(2);
    MakeEmulatedRunner()->Run(TemperatureLaunch(x.data(), &t, 1, 2, 2, rule, y.data(), greedy));
    return y;
  };
  const TemperatureRule canonical{1e-5, 0.0};
  const TemperatureRule vllm{1e-5, 1e-2};
  const TemperatureRule sglang{1e-6, 0.0};
  std::uint8_t g = 7;
  EXPECT_EQ(run(0.5f, canonical, &g), (std::vector<float>{2.0f, 4.0f}));
  EXPECT_EQ(g, 0);
  EXPECT_EQ(run(0.0f, canonical, &g), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(g, 1);
  EXPECT_EQ(run(0.001f, vllm, &g), (std::vector<float>{1.0f / 0.01f, 2.0f / 0.01f}));
  EXPECT_EQ(g, 0);
  EXPECT_EQ(run(0.001f, canonical, &g), (std::vector<float>{1.0f / 0.001f, 2.0f / 0.001f}));
  EXPECT_EQ(run(5e-6f, canonical, &g), x);
  EXPECT_EQ(g, 1);
  (void)run(5e-6f, sglang, &g);
  EXPECT_EQ(g, 0);
}

// docs/spec/spec_step.md "Degenerate rows", the point mass of a canonical or block position
// (gpu/kernels/temperature.cuh point_mass): a row whose divided values hold a NaN, a +inf or no
// finite value becomes 0 at t* (its first NaN, else its first +inf, else 0) and -inf elsewhere;
// a healthy row is only divided. By hand, t = 0.5 on rows 3-5: {1, NaN, +inf, NaN} -> t* 1;
// {1, +inf, 2, +inf} -> 1; all -inf -> 0; {1, 3e38, 2, 0} / 0.5 overflows at 1 -> 1;
// {1, -inf, 2, 0} -> {2, -inf, 4, 0}; {-inf, -inf, 5, -inf} -> {-inf, -inf, 10, -inf}.
TEST(GpuTemperature, PointMassOfDegenerateRows) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {1, nan, inf, nan, 1, inf, 2, inf, -inf, -inf, -inf, -inf,
                                1, 3e38f, 2, 0, 1, -inf, 2, 0, -inf, -inf, 5, -inf};
  const std::vector<float> t = {1, 1, 1, 0.5f, 0.5f, 0.5f};
  const std::vector<float> want = {-inf, 0, -inf, -inf, -inf, 0, -inf, -inf, 0, -inf, -inf, -inf,
                                   -inf, 0, -inf, -inf, 2, -inf, 4, 0, -inf, -inf, 10, -inf};
  std::vector<float> y(x.size());
  std::vector<std::uint8_t> greedy(t.size(), 7);
  MakeEmulatedRunner()->Run(
      TemperatureLaunch(x.data(), t.data(), 6, 4, 4, TemperatureRule{1e-5, 0.0}, y.data(), greedy.data(), true));
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(Bits(y[i]), Bits(want[i])) << "entry " << i << ": " << y[i];
  }
  for (std::uint8_t g : greedy) EXPECT_EQ(g, 0);
}

// docs/spec/nan_handling.md: sglang detect_1e5 {NaN, 1} -> {-100000, 1}; vllm (and sglang keep)
// {NaN, 1} -> {NaN, 1} with the NaN's bits kept (here a negative NaN with payload 0x123);
// sglang sanitize {NaN, -inf, +inf, 1} -> {f32(-1e30), f32(-1e30), f32(1e30), 1}.
TEST(GpuNanHandling, ContractExamples) {
  const std::uint32_t nan_bits = 0xffc00123u;
  float nan;
  std::memcpy(&nan, &nan_bits, sizeof nan);
  const std::vector<float> x = {nan, 1.0f, 0.0f, 0.0f};  // pitch 4, V 2: pads never read
  std::vector<float> y(2);
  MakeEmulatedRunner()->Run(NanHandlingLaunch(x.data(), 1, 2, 4, {.nan = true, .nan_value = -1e5f}, y.data()));
  EXPECT_EQ(y, (std::vector<float>{-100000.0f, 1.0f}));
  MakeEmulatedRunner()->Run(NanHandlingLaunch(x.data(), 1, 2, 4, {}, y.data()));
  EXPECT_EQ(Bits(y[0]), nan_bits);
  EXPECT_EQ(y[1], 1.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> z = {nan, -inf, inf, 1.0f};
  std::vector<float> w(4);
  const NanRule sanitize{true, -1e30f, true, -1e30f, true, 1e30f};
  MakeEmulatedRunner()->Run(NanHandlingLaunch(z.data(), 1, 4, 4, sanitize, w.data()));
  EXPECT_EQ(Bits(w[0]), 0xf149f2cau);  // f32(-1e30)
  EXPECT_EQ(Bits(w[1]), 0xf149f2cau);
  EXPECT_EQ(Bits(w[2]), 0x7149f2cau);  // f32(1e30)
  EXPECT_EQ(w[3], 1.0f);
}

// docs/spec/masks.md (xgrammar's tests): word 0b1010101010 over logits {1..10} keeps tokens 1,
// 3, 5, 7, 9 and sets 0, 2, 4, 6, 8 to -inf; an unmasked row is copied; tokens at or past
// vocab_size are untouched.
TEST(GpuTokenBitmask, ContractExamples) {
  std::vector<float> x(20);
  for (int i = 0; i < 10; ++i) x[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(10 + i)] = 1.0f + i;
  const std::vector<std::int32_t> mask = {0b1010101010, 0b1010101010};
  std::vector<float> y(20);
  const std::vector<std::uint8_t> masked = {1, 0};
  MakeEmulatedRunner()->Run(TokenBitmaskLaunch(x.data(), mask.data(), masked.data(), 2, 10, 10, 2, 1, 10, y.data()));
  const std::vector<float> want_row0 = {-kInf, 2, -kInf, 4, -kInf, 6, -kInf, 8, -kInf, 10};
  EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 10), want_row0);
  EXPECT_EQ(std::vector<float>(y.begin() + 10, y.end()), std::vector<float>(x.begin() + 10, x.end()));
  MakeEmulatedRunner()->Run(TokenBitmaskLaunch(x.data(), mask.data(), masked.data(), 2, 10, 10, 2, 1, 4, y.data()));
  const std::vector<float> want_limited = {-kInf, 2, -kInf, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 10), want_limited);
}

// docs/spec/logit_bias.md: logits {1, 2, 3}, sparse (0, 2, 0.5) -> {1, 2, 3.5}; vllm clamps
// 250 to 100 -> {1, 2, 103}; sglang's densified bias turns an unlisted -0.0 into +0.0 while
// canonical leaves it.
TEST(GpuLogitBias, ContractExamples) {
  const std::vector<float> x = {1.0f, -0.0f, 3.0f};
  const std::int32_t row = 0, id = 2;
  float value = 0.5f;
  std::vector<float> y(3);
  MakeEmulatedRunner()->Run(
      LogitBiasLaunch(x.data(), nullptr, &row, &id, &value, 1, 1, 3, 3, {false, false}, y.data()));
  EXPECT_EQ(y[2], 3.5f);
  EXPECT_EQ(Bits(y[1]), Bits(-0.0f));
  value = 250.0f;
  MakeEmulatedRunner()->Run(LogitBiasLaunch(x.data(), nullptr, &row, &id, &value, 1, 1, 3, 3, {false, true}, y.data()));
  EXPECT_EQ(y[2], 103.0f);
  value = kNan;  // Python's min(100, max(-100, nan)) is -100
  MakeEmulatedRunner()->Run(LogitBiasLaunch(x.data(), nullptr, &row, &id, &value, 1, 1, 3, 3, {false, true}, y.data()));
  EXPECT_EQ(y[2], -97.0f);
  value = 0.5f;
  MakeEmulatedRunner()->Run(LogitBiasLaunch(x.data(), nullptr, &row, &id, &value, 1, 1, 3, 3, {true, false}, y.data()));
  EXPECT_EQ(Bits(y[1]), Bits(0.0f));
  EXPECT_EQ(y[2], 3.5f);
}

// docs/spec/masks.md: logits {1, 2, 3, 4}, allowed {3, 1} -> {-inf, 2, -inf, 4}; an all -1 row
// is untouched.
TEST(GpuAllowedTokenIds, ContractExamples) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<std::int32_t> allowed = {3, 1, -1, -1};
  std::vector<float> y(8);
  MakeEmulatedRunner()->Run(AllowedTokenIdsLaunch(x.data(), allowed.data(), 2, 2, 4, 4, y.data()));
  EXPECT_EQ(y, (std::vector<float>{-kInf, 2, -kInf, 4, 5, 6, 7, 8}));
}

// docs/spec/penalties.md: logits {1, 2, 3}, stop {2}, output_len 0 < min_tokens 1 -> {1, 2,
// -inf}; sglang adds -inf instead (+inf becomes NaN) and +0.0 elsewhere (-0.0 -> +0.0).
TEST(GpuMinNewTokens, ContractExamples) {
  const std::vector<float> x = {-0.0f, 2.0f, kInf};
  const std::int32_t len = 0, min = 1, stop = 2;
  std::vector<float> y(3);
  MakeEmulatedRunner()->Run(MinNewTokensLaunch(x.data(), &len, &min, &stop, 1, 1, 3, 3, false, y.data()));
  EXPECT_EQ(Bits(y[0]), Bits(-0.0f));
  EXPECT_EQ(y[2], -kInf);
  MakeEmulatedRunner()->Run(MinNewTokensLaunch(x.data(), &len, &min, &stop, 1, 1, 3, 3, true, y.data()));
  EXPECT_EQ(Bits(y[0]), Bits(0.0f));
  EXPECT_TRUE(std::isnan(y[2]));
  const std::int32_t done = 1;  // output_len 1 == min_tokens 1: inactive, untouched
  MakeEmulatedRunner()->Run(MinNewTokensLaunch(x.data(), &done, &min, &stop, 1, 1, 3, 3, false, y.data()));
  EXPECT_EQ(y[2], kInf);
}

// docs/spec/masks.md: output {5, 7}: word {7, 2} bans token 2, word {5, 2} does not, a
// one-token word {4} always bans 4, a word longer than len(output) + 1 ({1, 5, 7, 3}) is skipped.
TEST(GpuBadWords, ContractExamples) {
  const std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<std::int32_t> output = {5, 7, -1};
  // 4 words of up to 4 tokens, -1 padded.
  const std::vector<std::int32_t> words = {7, 2, -1, -1, 5, 6, -1, -1, 4, -1, -1, -1, 1, 5, 7, 3};
  std::vector<float> y(8);
  MakeEmulatedRunner()->Run(BadWordsLaunch(x.data(), output.data(), 3, words.data(), 4, 4, 1, 8, 8, y.data()));
  EXPECT_EQ(y, (std::vector<float>{0, 1, -kInf, 3, -kInf, 5, 6, 7}));
}

// docs/spec/penalties.md's example (hand-computed): logits {2, -2, 1}, output ids {0, 0}, r = 2,
// f = 0.5, p = 0.25 -> token 0: 2 / 2 - 0.5 * 2 - 0.25 = -0.25; tokens 1 and 2 unchanged.
TEST(GpuPenalties, ContractExample) {
  const std::vector<float> x = {2.0f, -2.0f, 1.0f};
  const std::vector<std::int32_t> output = {0, 0};
  const float r = 2.0f, f = 0.5f, p = 0.25f;
  std::vector<float> y(3);
  MakeEmulatedRunner()->Run(
      PenaltiesLaunch(x.data(), nullptr, 0, output.data(), 2, &r, &f, &p, 1, 3, 3, false, y.data()));
  EXPECT_EQ(y, (std::vector<float>{-0.25f, -2.0f, 1.0f}));
  // sglang: x + ((0 - (0.5 + 0.5)) - 0.25) = 2 - 1.25 = 0.75, then 0.75 / 2 = 0.375.
  MakeEmulatedRunner()->Run(
      PenaltiesLaunch(x.data(), nullptr, 0, output.data(), 2, &r, &f, &p, 1, 3, 3, true, y.data()));
  EXPECT_EQ(y, (std::vector<float>{0.375f, -2.0f, 1.0f}));
}

// ---- The draws, the seeded draws and speculative verification. ----
// Every expected token below is worked by hand from docs/spec/draws.md and
// docs/spec/speculative.md (the arithmetic is in the comments); each suite also has a planted
// fault: an input on which a plausible wrong kernel (wrong tie rule, wrong candidates, a
// reassociated running sum, the wrong uniform, max for min) gives a different answer.

std::int64_t DrawOne(const std::function<void(KernelRunner&, std::int64_t*)>& launch) {
  std::int64_t token = -7;
  launch(*MakeEmulatedRunner(), &token);
  return token;
}

std::int64_t GumbelMaxOne(const std::vector<float>& scores, const std::vector<float>& gumbel) {
  const auto v = static_cast<std::int64_t>(scores.size());
  return DrawOne(
      [&](KernelRunner& r, std::int64_t* t) { r.Run(GumbelMaxLaunch(scores.data(), gumbel.data(), 1, v, v, t)); });
}

// docs/spec/draws.md "gumbel_max".
TEST(GpuGumbelMax, ContractExamples) {
  EXPECT_EQ(GumbelMaxOne({0, -1}, {0, 2}), 1);                 // sums {0, 1}
  EXPECT_EQ(GumbelMaxOne({-kInf, 0}, {100, 0}), 1);            // -inf score: never drawn, whatever the noise
  EXPECT_EQ(GumbelMaxOne({1, 0}, {0, 1}), 0);                  // sums {1, 1}: tie to the lower index
  EXPECT_EQ(GumbelMaxOne({3e38f, 3e38f}, {3e38f, 3e38f}), 0);  // both sums overflow to +inf: tie
  // -3e38 + -3e38 = -inf: a candidate whose sum is -inf still beats the -inf score at 0.
  EXPECT_EQ(GumbelMaxOne({-kInf, -3e38f}, {5, -3e38f}), 1);
}

// Planted fault: the maximum tied at indices 1500 and 2000 (lanes 476 and 976 of 1024; of a
// 32-lane warp, lanes 28 and 16, so the later index sits in the LOWER lane). A combine that
// prefers the lower lane, or the tree partner, returns 2000; the rule says 1500. At V = 5000 the
// kernel runs 1024 threads, at V = 3000 one warp: both must give 1500.
TEST(GpuGumbelMax, TieAcrossLanesGoesToLowerIndex) {
  for (std::size_t v : {std::size_t{3000}, std::size_t{5000}}) {
    std::vector<float> scores(v, 0.0f), gumbel(v, 0.0f);
    gumbel[1500] = 2.0f;
    scores[2000] = 1.0f;
    gumbel[2000] = 1.0f;
    EXPECT_EQ(GumbelMaxOne(scores, gumbel), 1500) << "V = " << v;
  }
}

// Planted fault for the emulator's checks: the same kernel launched with a Gumbel array one
// entry short reports an out-of-bounds load naming the array (what compute-sanitizer would).
TEST(GpuGumbelMax, EmulatorReportsAShortNoiseArray) {
  const std::vector<float> scores = {0, 1, 2, 3};
  const std::vector<float> gumbel = {0, 0, 0};
  std::int64_t token = -1;
  const LaunchReport r = emu::Launch("gumbel_max", 1, kWarpSize, [&](Block& block) {
    GumbelMaxKernel<kWarpSize>{}(block, GlobalArray<const float>(scores.data(), 4, "logprobs"),
                                 GlobalArray<const float>(gumbel.data(), 3, "gumbel"),
                                 GlobalArray<std::int64_t>(&token, 1, "token"), std::int64_t{4}, std::int64_t{4});
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.violations[0].kind, Violation::Kind::kOutOfBounds);
  EXPECT_EQ(r.violations[0].array, "gumbel");
  EXPECT_EQ(r.violations[0].index, 3);
}

std::int64_t ExponentialRaceOne(const std::vector<float>& p, const std::vector<float>& q, bool all_tokens) {
  const auto v = static_cast<std::int64_t>(p.size());
  return DrawOne([&](KernelRunner& r, std::int64_t* t) {
    r.Run(ExponentialRaceLaunch(p.data(), q.data(), 1, v, v, all_tokens, t));
  });
}

// docs/spec/draws.md "exponential_race": probs {0.5, 0.5}, q {1, 0.25}: ratios {0.5, 2} -> 1.
// Planted fault (the candidate rule): probs {0, 1e-38}, q {1, 1e30}: 1e-38 / 1e30 underflows to
// +0.0, equal to 0 / 1; canonical never draws the zero probability (-> 1), vllm's argmax over
// every token takes the lower index (-> 0). A kernel ignoring the profile fails one of the two.
TEST(GpuExponentialRace, ContractExamples) {
  EXPECT_EQ(ExponentialRaceOne({0.5f, 0.5f}, {1.0f, 0.25f}, false), 1);
  EXPECT_EQ(ExponentialRaceOne({0.5f, 0.5f}, {1.0f, 0.25f}, true), 1);
  EXPECT_EQ(ExponentialRaceOne({0.0f, 1e-38f}, {1.0f, 1e30f}, false), 1);
  EXPECT_EQ(ExponentialRaceOne({0.0f, 1e-38f}, {1.0f, 1e30f}, true), 0);
  // A zero probability with tiny noise: 0 / 1e-30 = 0 < 0.25 / 1: token 1 either way.
  EXPECT_EQ(ExponentialRaceOne({0.0f, 0.25f}, {1e-30f, 1.0f}, true), 1);
}

std::int64_t InverseCdfOne(const std::vector<float>& p, float u) {
  const auto v = static_cast<std::int64_t>(p.size());
  return DrawOne([&](KernelRunner& r, std::int64_t* t) { r.Run(InverseCdfLaunch(p.data(), &u, 1, v, v, t)); });
}

// docs/spec/draws.md "inverse_cdf" (exact: quarters): probs {0.25, 0, 0.75}, C = {0.25, 0.25, 1}:
// u = 0 -> t = 0 < 0.25 -> 0; u = 0.25 -> t = 0.25, not below C_0, token 1 has probability 0,
// 0.25 < 1 -> 2; u = 0x1.fffffep-3 (just below 0.25) -> 0. Unnormalised {3, 0, 1}, u = 0.75:
// t = 0.75 * 4 = 3, C = {3, 3, 4} -> 2.
TEST(GpuInverseCdf, ContractExamples) {
  EXPECT_EQ(InverseCdfOne({0.25f, 0.0f, 0.75f}, 0.0f), 0);
  EXPECT_EQ(InverseCdfOne({0.25f, 0.0f, 0.75f}, 0.25f), 2);
  EXPECT_EQ(InverseCdfOne({0.25f, 0.0f, 0.75f}, 0x1.fffffep-3f), 0);
  EXPECT_EQ(InverseCdfOne({3.0f, 0.0f, 1.0f}, 0.75f), 2);
}

// Planted fault (the order of the running sum): probs {1, 2^-24, 2^-24}. Left to right,
// 1 + 2^-24 is a tie and rounds to even, 1, twice: C = {1, 1, 1}, so every u in [0, 1) gives
// t = u < 1 = C_0 -> 0. A kernel that adds the two small weights first (a tree or a parallel
// scan: 2^-23 + 1 is exact) gets the total 1 + 2^-23, and with u = 1 - 2^-24 the product
// (1 - 2^-24)(1 + 2^-23) = 1 + 2^-24 - 2^-47 rounds to 1, not below C_0: it draws 2.
TEST(GpuInverseCdf, RunningSumIsSequential) { EXPECT_EQ(InverseCdfOne({1.0f, 0x1p-24f, 0x1p-24f}, 0x1.fffffep-1f), 0); }

// Rows across tiles (one warp: 32-entry tiles; V > 4096: 1024-entry tiles). All ones: C_i = i + 1
// exactly, t = u V; the token is the first i with t < i + 1, i.e. floor(t): V = 3000, u = 0.5 ->
// 1500; V = 5000, u = 0.75 -> 3750. The last tile's fallback: V = 5000 with a single positive
// weight at 4999 and u just below 1 -> 4999.
TEST(GpuInverseCdf, CrossesTiles) {
  EXPECT_EQ(InverseCdfOne(std::vector<float>(3000, 1.0f), 0.5f), 1500);
  EXPECT_EQ(InverseCdfOne(std::vector<float>(5000, 1.0f), 0.75f), 3750);
  std::vector<float> last(5000, 0.0f);
  last[4999] = 1.0f;
  EXPECT_EQ(InverseCdfOne(last, 0x1.fffffep-1f), 4999);
}

struct FlashinferOne {
  std::int64_t token = -7;
  std::uint8_t valid = 7;
  std::int32_t rounds = -7;
};

FlashinferOne FlashinferDraw(const std::vector<float>& p, FlashinferKind kind, bool top_k_first, std::uint32_t k,
                             float top_p, float min_p, const std::vector<float>& u) {
  FlashinferOne o;
  MakeEmulatedRunner()->Run(FlashinferSamplingFromProbsLaunch(
      p.data(), &k, &top_p, &min_p, u.data(), kind, top_k_first, 1, static_cast<std::int64_t>(u.size()),
      static_cast<std::int64_t>(p.size()), &o.token, &o.valid, &o.rounds));
  return o;
}

// docs/spec/flashinfer_sampling_from_probs.md, worked by hand:
// - the contract example: probs {0.5, 0.25, 0.125, 0.125}, top_p 0.7, u {0.9, 0.2}: token 0
//   after 2 rounds; with u {0.9} alone the second round has no uniform: rounds -1;
// - min_p 0.5 on the same row: pivot 0.5 * 0.5 = 0.25, valid {0.5, 0.25}, q = 0.75, t = 0.9 q =
//   0.675: C = {0.5, 0.75}: token 1, 1 round;
// - top_k with an all-zero row: no valid token: token 0, invalid, 1 round;
// - top_k_first, k 2, top_p 1, probs {0.125, NaN, 0.5, 0.25, 0.125}: the NaN comes first in the
//   descending order, so the 2nd largest value is the key of rank 3, 0.25; kept {0.5, 0.25},
//   s = 0.75, each times f32(1 / 0.75): {0, 0, 2/3, 1/3, 0}; t = 0.9: token 3 (C_3 = 1 up to
//   rounding), whose mass above (2/3) is < 1: accepted in 1 round. The joint kernel on the
//   same row draws token 4 first (t = 0.9 of C = {0.125, 0.625, 0.875, 1}) and rejects it (two
//   tokens above it, not < 2);
// - tiles: V = 2500 (three 1024-entry tiles) with one positive entry at 2499, top_k 1: token 2499.
TEST(GpuFlashinferSamplingFromProbs, ContractExamples) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  FlashinferOne o = FlashinferDraw({0.5f, 0.25f, 0.125f, 0.125f}, FlashinferKind::kTopP, false, 0, 0.7f, 0, {0.9f, 0.2f});
  EXPECT_EQ(o.token, 0);
  EXPECT_EQ(o.valid, 1);
  EXPECT_EQ(o.rounds, 2);
  EXPECT_EQ(FlashinferDraw({0.5f, 0.25f, 0.125f, 0.125f}, FlashinferKind::kTopP, false, 0, 0.7f, 0, {0.9f}).rounds, -1);
  o = FlashinferDraw({0.5f, 0.25f, 0.125f, 0.125f}, FlashinferKind::kMinP, false, 0, 0, 0.5f, {0.9f});
  EXPECT_EQ(o.token, 1);
  EXPECT_EQ(o.rounds, 1);
  o = FlashinferDraw({0.0f, 0.0f}, FlashinferKind::kTopK, false, 1, 0, 0, {0.5f});
  EXPECT_EQ(o.token, 0);
  EXPECT_EQ(o.valid, 0);
  EXPECT_EQ(o.rounds, 1);
  o = FlashinferDraw({0.125f, nan, 0.5f, 0.25f, 0.125f}, FlashinferKind::kTopKTopP, true, 2, 1.0f, 0, {0.9f});
  EXPECT_EQ(o.token, 3);
  EXPECT_EQ(o.valid, 1);
  EXPECT_EQ(o.rounds, 1);
  o = FlashinferDraw({0.125f, nan, 0.5f, 0.25f, 0.125f}, FlashinferKind::kTopKTopP, false, 2, 1.0f, 0, {0.9f, 0.5f});
  EXPECT_GE(o.rounds, 2);
  std::vector<float> last(2500, 0.0f);
  last[2499] = 1.0f;
  o = FlashinferDraw(last, FlashinferKind::kTopK, false, 1, 0, 0, {0x1.fffffep-1f});
  EXPECT_EQ(o.token, 2499);
  EXPECT_EQ(o.rounds, 1);
}

// docs/spec/spec_step.md's example (reference/spec_step.h): a greedy row with drafts {5, 2}
// whose verifier emitted {5, 2, 7} (2 accepted), stop_ids {2}, output_len 0, min_tokens 0: token 2
// at index 1 is a stop: emitted {5, 2, -1}, num_accepted 2, num_emitted 2, finished. With
// min_tokens 2 the stop at index 1 is inside the mask's reach (0 + 1 < 2): nothing stops, all 3
// kept. A random row takes the random verifier's outcome ({9, -1, -1}, 0 accepted: no stop).
TEST(GpuSpecStep, StopsContractExample) {
  const std::vector<std::uint8_t> is_greedy = {1, 0};
  const std::vector<std::int64_t> greedy_emitted = {5, 2, 7, 1, 1, 1}, greedy_accepted = {2, 2};
  const std::vector<std::int64_t> random_emitted = {0, 0, 0, 9, -1, -1}, random_accepted = {0, 0};
  const std::vector<std::int32_t> stops = {2, -1, 2, -1};
  for (const std::int32_t minimum : {0, 2}) {
    const std::vector<std::int32_t> min_tokens = {minimum, minimum};
    std::vector<std::int64_t> emitted(6, -7), accepted(2, -7), kept(2, -7);
    std::vector<std::uint8_t> finished(2, 7);
    MakeEmulatedRunner()->Run(SpecStepStopsLaunch(is_greedy.data(), greedy_emitted.data(), greedy_accepted.data(),
                                                  random_emitted.data(), random_accepted.data(), stops.data(), 2,
                                                  nullptr, min_tokens.data(), {2, 2, 10}, emitted.data(),
                                                  accepted.data(), kept.data(), finished.data()));
    if (minimum == 0) {
      EXPECT_EQ(emitted, (std::vector<std::int64_t>{5, 2, -1, 9, -1, -1}));
      EXPECT_EQ(kept, (std::vector<std::int64_t>{2, 1}));
      EXPECT_EQ(finished, (std::vector<std::uint8_t>{1, 0}));
    } else {
      EXPECT_EQ(emitted, (std::vector<std::int64_t>{5, 2, 7, 9, -1, -1}));
      EXPECT_EQ(kept, (std::vector<std::int64_t>{3, 1}));
      EXPECT_EQ(finished, (std::vector<std::uint8_t>{0, 0}));
    }
    EXPECT_EQ(accepted, (std::vector<std::int64_t>{2, 0}));
  }
}

// The contract example of gpu/kernels/spec_verify_block.cuh, worked by hand from Algorithm 2 of
// Sun et al. 2024: n = 1, target {0.5, 0.5} and draft {1, 0} at position 0, x_0 = 0: P_1 =
// min(0.5 / 1, 1) = 0.5 = h_1. u = 0.25 <= 0.5: tau = 1, the bonus is the first maximum of
// target row 1 {0, 1} over bonus_q {1, 1}: emitted {0, 1}, 1 accepted. u = 0.75: tau = 0, the
// residual {max(0.5 - 1, 0), 0.5 - 0} = {0, 0.5} over q {1, 1}: emitted {1, -1}, 0 accepted.
TEST(GpuSpecVerifyBlock, ContractExample) {
  const std::vector<float> target = {0.5f, 0.5f, 0.0f, 1.0f}, draft = {1.0f, 0.0f}, ones = {1.0f, 1.0f};
  const std::vector<std::int32_t> drafts = {0};
  const std::vector<std::int64_t> counts = {1};
  for (const double u : {0.25, 0.75}) {
    std::vector<std::int64_t> emitted(2, -7), accepted(1, -7);
    MakeEmulatedRunner()->Run(SpecVerifyBlockLaunch(target.data(), draft.data(), drafts.data(), counts.data(), &u,
                                                    ones.data(), ones.data(), {1, 1, 2}, emitted.data(),
                                                    accepted.data()));
    EXPECT_EQ(emitted, u == 0.25 ? (std::vector<std::int64_t>{0, 1}) : (std::vector<std::int64_t>{1, -1}));
    EXPECT_EQ(accepted[0], u == 0.25 ? 1 : 0);
  }
}

// The contract example of gpu/kernels/spec_verify_sglang.cuh, worked by hand from SGLang's rule
// (reference/spec_step.cc SglangRenorm, SglangScan): probs {0.5, 0.3, 0.2}, top_p 0.6: the mass
// above 0.5 is 0 and above 0.3 is 0.5, both < 0.6; above 0.2 it is 0.8: survivors {0, 1}, row
// {0.5 / 0.8, 0.3 / 0.8, 0} = {0.625, 0.375, 0} to f32 rounding. Draft 1 with coin 0.9: 0.9 <=
// 0.375 fails and 0.375 >= 1 fails: rejected, row {0.625, 0, 0}, and final_u 0.5 draws token 0
// (its running sum 0.625 passes t = 0.3125): emitted {0, -1}, 0 accepted. Coin 0.25 <= 0.375
// accepts: the bonus row {0, 0, 1} (token 2 its only survivor) draws token 2: {1, 2}, 1.
TEST(GpuSpecVerifySglang, ContractExample) {
  const std::vector<float> probs = {0.5f, 0.3f, 0.2f, 0.0f, 0.0f, 1.0f};
  const std::vector<std::int32_t> drafts = {1};
  const std::vector<std::int64_t> counts = {1};
  const float top_p = 0.6f, final_u = 0.5f;
  for (const double coin : {0.9, 0.25}) {
    std::vector<std::int64_t> emitted(2, -7), accepted(1, -7);
    SpecVerifySglangLaunch k;
    k.probs = probs.data();
    k.drafts = drafts.data();
    k.counts = counts.data();
    k.top_p = &top_p;
    k.u = &coin;
    k.final_u = &final_u;
    k.shape = {1, 1, 3};
    k.emitted = emitted.data();
    k.accepted = accepted.data();
    MakeEmulatedRunner()->Run(k);
    EXPECT_EQ(emitted, coin == 0.9 ? (std::vector<std::int64_t>{0, -1}) : (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(accepted[0], coin == 0.9 ? 0 : 1);
  }
}

// spec_step's sglang profile through the gpu glue and the reference (an O(V^2) survivor rule
// written independently of the kernel's search), compared bitwise, errors included. Rows of tied
// logits (k / 4, k in [-12, 12]: many equal probabilities), top_p set exactly to a row's f32
// mass above one of its values (the `mass < top_p` boundary, where a tie group is dropped
// whole) and one ulp above it, top_k through every count, coins small enough that drafts are
// accepted and rejected; V = 37 (one warp) and V = 4099 (1024 threads, a tile-misaligned row).
// Returns the reference's error ("" when it ran).
std::string ExpectSglangMatches(const Case& c) {
  std::string want_error, got_error;
  TensorMap want, got;
  try {
    want = reference::RunSpecStep(c, Profile::kSglang);
  } catch (const std::exception& e) {
    want_error = e.what();
  }
  try {
    got = GpuSpecStep(c, Profile::kSglang, *MakeEmulatedRunner());
  } catch (const std::exception& e) {
    got_error = e.what();
  }
  EXPECT_EQ(got_error, want_error) << c.id;
  if (!want_error.empty() || !got_error.empty()) return want_error;
  for (const char* name : {"emitted", "num_accepted", "num_emitted", "finished"}) {
    const Tensor& a = want.at(name);
    const Tensor& b = got.at(name);
    EXPECT_EQ(a.nbytes(), b.nbytes()) << c.id << " " << name;
    if (a.nbytes() == b.nbytes()) {
      EXPECT_EQ(std::memcmp(a.bytes().data(), b.bytes().data(), a.nbytes()), 0) << c.id << " " << name;
    }
  }
  return want_error;
}

TEST(GpuSpecVerifySglang, MatchesTheReferenceOnTiedRowsAndBoundaryTopP) {
  constexpr std::int64_t kRows = 4, kWidth = 2;
  for (const std::int64_t vocab : {std::int64_t{37}, std::int64_t{4099}}) {
    SplitMix64 rng(static_cast<std::uint64_t>(vocab) * 7919u);
    Tensor target(DType::kF32, {kRows, kWidth + 1, vocab});
    for (float& v : target.data<float>()) v = static_cast<float>(static_cast<std::int64_t>(rng.Next() % 25) - 12) / 4.0f;
    Tensor drafts(DType::kI32, {kRows, kWidth});
    Tensor u(DType::kF64, {kRows, kWidth});
    Tensor temperature(DType::kF32, {kRows}), top_p(DType::kF32, {kRows}), final_u(DType::kF32, {kRows});
    Tensor top_k(DType::kI32, {kRows});
    for (std::int64_t b = 0; b < kRows; ++b) {
      const auto at = static_cast<std::size_t>(b);
      const float t = b == 1 ? 0.5f : 1.0f;
      temperature.data<float>()[at] = t;
      // Position 0's probabilities (the reference's own softmax, an input only): top_p is the
      // f32 mass, in index order, above its (b + 2)-th largest value (row 3: one ulp above).
      std::vector<float> x(target.data<float>().begin() + static_cast<std::ptrdiff_t>(b * (kWidth + 1) * vocab),
                           target.data<float>().begin() + static_cast<std::ptrdiff_t>((b * (kWidth + 1) + 1) * vocab));
      for (float& e : x) e = e / t;
      std::vector<float> p(x.size());
      reference::SoftmaxRow(x, p);
      std::vector<float> sorted = p;
      std::sort(sorted.begin(), sorted.end(), std::greater<float>());
      sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
      const float pivot = sorted[static_cast<std::size_t>(b + 2)];
      float mass = 0.0f;
      for (float e : p) {
        if (e > pivot) mass = mass + e;
      }
      top_p.data<float>()[at] = b == 3 ? std::nextafter(mass, 2.0f) : mass;
      top_k.data<std::int32_t>()[at] = b == 0 ? 0 : static_cast<std::int32_t>(rng.Next() % static_cast<std::uint64_t>(vocab + 1));
      // Drafts: position i's argmax (often accepted) or a random token; coins below 0.3.
      for (std::int64_t i = 0; i < kWidth; ++i) {
        const auto row = target.data<float>().subspan(static_cast<std::size_t>((b * (kWidth + 1) + i) * vocab),
                                                      static_cast<std::size_t>(vocab));
        const auto best = std::max_element(row.begin(), row.end()) - row.begin();
        drafts.data<std::int32_t>()[at * kWidth + static_cast<std::size_t>(i)] =
            static_cast<std::int32_t>(rng.Next() % 2 == 0 ? best : static_cast<std::int64_t>(rng.Next() % static_cast<std::uint64_t>(vocab)));
        u.data<double>()[at * kWidth + static_cast<std::size_t>(i)] = static_cast<double>(rng.Next() >> 11) * 0x1p-53 * 0.3;
      }
      final_u.data<float>()[at] = static_cast<float>(rng.Next() >> 40) * 0x1p-24f;
    }
    Case c;
    c.id = "sglang_ties_v" + std::to_string(vocab);
    c.stage = "spec_step";
    c.profile = Profile::kSglang;
    c.inputs.emplace("draft_ids", drafts);
    c.inputs.emplace("target_logits", target);
    c.inputs.emplace("temperature", temperature);
    c.inputs.emplace("top_k", top_k);
    c.inputs.emplace("top_p", top_p);
    c.inputs.emplace("u", u);
    c.inputs.emplace("final_u", final_u);
    EXPECT_EQ(ExpectSglangMatches(c), "");
    // A position with no finite logit is a degenerate row, not an error (docs/spec/spec_step.md
    // "Degenerate rows"): position 1 of row 2 all -inf, read when draft 0 of that row is
    // accepted (coin 0) and unread otherwise; the kernels match the reference either way.
    for (const double coin : {0.0, 0.999}) {
      Case lazy = c;
      lazy.id += coin == 0.0 ? "_read" : "_unread";
      auto x = lazy.inputs.at("target_logits").data<float>();
      std::fill(x.begin() + static_cast<std::ptrdiff_t>((2 * (kWidth + 1) + 1) * vocab),
                x.begin() + static_cast<std::ptrdiff_t>((2 * (kWidth + 1) + 2) * vocab), -kInf);
      lazy.inputs.at("u").data<double>()[2 * kWidth] = coin;
      EXPECT_EQ(ExpectSglangMatches(lazy), "") << lazy.id;
    }
  }
}

std::int64_t QSampleOne(const std::vector<float>& p, const std::vector<float>& q, float eps) {
  const auto v = static_cast<std::int64_t>(p.size());
  return DrawOne([&](KernelRunner& r, std::int64_t* t) { r.Run(QSampleLaunch(p.data(), q.data(), eps, 1, v, v, t)); });
}

// docs/spec/draws.md "qsample": probs {4/7, 2/7}, q {1, 0.25}, eps 1e-8: 1 + 1e-8 rounds to 1,
// r = {4/7, 8/7} -> 1; q {1, -0.25}: |q| the same -> 1; probs {0.25, 0.75}, q {0, 0}, eps 1:
// r = probs -> 1. Planted fault (the NaN rule): probs {0.25, 0.75, 0}, q 0, eps 0: r = {+inf,
// +inf, 0/0 = NaN} -> 2 (a `>` scan that skips NaN says 0); probs {0, 0.5, 0.5}, q {0, 2, 4}:
// r = {NaN, 0.25, 0.125} -> 0.
TEST(GpuQSample, ContractExamples) {
  EXPECT_EQ(QSampleOne({4.0f / 7, 2.0f / 7}, {1.0f, 0.25f}, 1e-8f), 1);
  EXPECT_EQ(QSampleOne({4.0f / 7, 2.0f / 7}, {1.0f, -0.25f}, 1e-8f), 1);
  EXPECT_EQ(QSampleOne({0.25f, 0.75f}, {0.0f, 0.0f}, 1.0f), 1);
  EXPECT_EQ(QSampleOne({0.25f, 0.75f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.0f), 2);
  EXPECT_EQ(QSampleOne({0.0f, 0.5f, 0.5f}, {0.0f, 2.0f, 4.0f}, 0.0f), 0);
}

std::int64_t SeededOne(const std::vector<float>& p, std::int64_t seed, std::int64_t position,
                       const std::vector<std::int32_t>* ids) {
  const auto v = static_cast<std::int64_t>(p.size());
  return DrawOne([&](KernelRunner& r, std::int64_t* t) {
    r.Run(SeededGumbelLaunch(p.data(), &seed, &position, ids != nullptr ? ids->data() : nullptr, 1, v, v, t));
  });
}

// docs/spec/draws.md "multinomial_with_seed": the known answers of the mpmath rewrite of
// SGLang's function (tests/python/seeded_gumbel_reference.py): probs {1/2, 1/4, 1/8, 1/8},
// seed -1, position 2^32 - 1 -> 1; seed 42, position 7 -> 0. The token-id form with ids equal
// to the ranks hashes the same columns. probs {0, 1} -> 1 whatever the hashes.
TEST(GpuSeededGumbel, ContractExamples) {
  const std::vector<float> p = {0.5f, 0.25f, 0.125f, 0.125f};
  const std::vector<std::int32_t> ranks = {0, 1, 2, 3};
  EXPECT_EQ(SeededOne(p, -1, 0xffffffffLL, nullptr), 1);
  EXPECT_EQ(SeededOne(p, 42, 7, nullptr), 0);
  EXPECT_EQ(SeededOne(p, -1, 0xffffffffLL, &ranks), 1);
  EXPECT_EQ(SeededOne(p, 42, 7, &ranks), 0);
  for (std::int64_t seed = 0; seed < 8; ++seed) EXPECT_EQ(SeededOne({0.0f, 1.0f}, seed, seed, nullptr), 1);
}

// Planted fault (the hash column): a row whose draw changes when the columns are token ids
// instead of ranks (found by scanning seeds with the reference), so a kernel that ignores the
// ids fails; the kernel must match the reference bitwise on both forms, at V = 33 (one warp)
// and V = 5000 (1024 threads).
TEST(GpuSeededGumbel, HashesTheTokenIdColumns) {
  for (std::int64_t vocab : {std::int64_t{33}, std::int64_t{5000}}) {
    SplitMix64 rng(static_cast<std::uint64_t>(vocab));
    std::vector<float> p(static_cast<std::size_t>(vocab));
    std::vector<std::int32_t> ids(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      p[i] = static_cast<float>(rng.Next() >> 40) * 0x1p-24f;
      ids[i] = static_cast<std::int32_t>((i * 7919 + 13) % 200000);
    }
    std::int64_t seed = 0;
    std::int64_t by_rank = 0, by_id = 0;
    for (; seed < 64; ++seed) {
      by_rank = reference::SeededGumbelColumn(p, static_cast<std::uint64_t>(seed), 5);
      by_id = reference::SeededGumbelColumn(p, static_cast<std::uint64_t>(seed), 5, ids);
      if (by_rank != by_id) break;
    }
    ASSERT_NE(by_rank, by_id) << "no seed below 64 separates the two column rules at V = " << vocab;
    EXPECT_EQ(SeededOne(p, seed, 5, nullptr), by_rank) << "V = " << vocab;
    EXPECT_EQ(SeededOne(p, seed, 5, &ids), by_id) << "V = " << vocab;
  }
}

struct SpecResult {
  std::vector<std::int64_t> emitted;
  std::int64_t accepted = -7;
};

// One request: drafts (n = count, then -1 padding to width), target [width + 1, V].
SpecResult SpecGreedyOne(const std::vector<std::int32_t>& drafts, std::int64_t count, const std::vector<float>& target,
                         std::int64_t vocab) {
  const auto width = static_cast<std::int64_t>(drafts.size());
  SpecResult r;
  r.emitted.assign(static_cast<std::size_t>(width + 1), -7);
  MakeEmulatedRunner()->Run(
      SpecGreedyLaunch(target.data(), drafts.data(), &count, {1, width, vocab}, r.emitted.data(), &r.accepted));
  return r;
}

// Target rows of V = 8 whose argmaxes are `a` (value 1 there, 0 elsewhere).
std::vector<float> OneHotRows(const std::vector<int>& a) {
  std::vector<float> t(a.size() * 8, 0.0f);
  for (std::size_t i = 0; i < a.size(); ++i) t[i * 8 + static_cast<std::size_t>(a[i])] = 1.0f;
  return t;
}

// docs/spec/speculative.md "spec_greedy": drafts {5, 2}, argmaxes {5, 7, 1} -> emitted
// {5, 7, -1}, num_accepted 1; drafts {5, 7} -> all accepted, bonus 1: {5, 7, 1}, 2; drafts {5, -1}
// (n = 1) -> {5, 7, -1}, 1 (the bonus is a_1 = 7); K = 0 -> {a_0}, 0.
TEST(GpuSpecGreedy, ContractExamples) {
  const std::vector<float> t = OneHotRows({5, 7, 1});
  SpecResult r = SpecGreedyOne({5, 2}, 2, t, 8);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{5, 7, -1}));
  EXPECT_EQ(r.accepted, 1);
  r = SpecGreedyOne({5, 7}, 2, t, 8);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{5, 7, 1}));
  EXPECT_EQ(r.accepted, 2);
  r = SpecGreedyOne({5, -1}, 1, t, 8);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{5, 7, -1}));
  EXPECT_EQ(r.accepted, 1);
  r = SpecGreedyOne({}, 0, OneHotRows({3}), 8);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(r.accepted, 0);
}

// Planted fault (the tie rule): position 0's maximum is tied at 3 and 6 and the draft is 6. The
// argmax is 3, so the draft is rejected and 3 emitted; a kernel resolving ties to the higher
// index would accept 6 and go on. Likewise a NaN is the argmax (greedy.md), so a draft of the
// finite maximum next to a NaN is rejected.
TEST(GpuSpecGreedy, TiesGoToTheLowerIndex) {
  std::vector<float> t = OneHotRows({3, 2});
  t[6] = 1.0f;
  SpecResult r = SpecGreedyOne({6}, 1, t, 8);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{3, -1}));
  EXPECT_EQ(r.accepted, 0);
  std::vector<float> n = OneHotRows({4, 2});
  n[1] = kNan;
  r = SpecGreedyOne({4}, 1, n, 8);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{1, -1}));
}

SpecResult SpecRandomOne(KernelRunner::SpecRandomInputs in, const std::vector<std::int32_t>& drafts, std::int64_t count,
                         std::int64_t vocab) {
  const auto width = static_cast<std::int64_t>(drafts.size());
  in.drafts = drafts.data();
  in.counts = &count;
  SpecResult r;
  r.emitted.assign(static_cast<std::size_t>(width + 1), -7);
  MakeEmulatedRunner()->Run(SpecRandomLaunch(in, {1, width, vocab}, r.emitted.data(), &r.accepted));
  return r;
}

// docs/spec/speculative.md "vllm": V = 2, draft 0 with dp = 0.5, tp = 0.25: u = 0.75: 0.25 / 0.5
// = 0.5 >= 0.75 fails; r = {max(0.25 - 0.5, 0), 0.75 - 0.25} = {0, 0.5}, q {1, 1} -> emitted
// {1, -1}, 0. u = 0.25 accepts; the bonus is argmax {0.6 / 1, 0.4 / 0.5} = {0.6, 0.8} -> 1:
// {0, 1}, 1. n-gram (no draft probs): dp = 1, 0.25 >= 0.75 fails, r = target with r_0 = 0 ->
// {1, -1}.
TEST(GpuSpecRandom, VllmExamples) {
  const std::vector<float> target = {0.25f, 0.75f, 0.6f, 0.4f};
  const std::vector<float> draft = {0.5f, 0.25f};
  const std::vector<float> q = {1.0f, 1.0f};
  const std::vector<float> bonus_q = {1.0f, 0.5f};
  KernelRunner::SpecRandomInputs in;
  in.rule = KernelRunner::SpecRandomInputs::Rule::kVllm;
  in.target_probs = target.data();
  in.draft_probs = draft.data();
  in.q = q.data();
  in.bonus_q = bonus_q.data();
  double u = 0.75;
  in.u_f64 = &u;
  SpecResult r = SpecRandomOne(in, {0}, 1, 2);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{1, -1}));
  EXPECT_EQ(r.accepted, 0);
  u = 0.25;
  r = SpecRandomOne(in, {0}, 1, 2);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(r.accepted, 1);
  u = 0.75;
  in.draft_probs = nullptr;
  r = SpecRandomOne(in, {0}, 1, 2);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{1, -1}));
}

// docs/spec/speculative.md "flashinfer": V = 3, target {0.25, 0.5, 0.25}, draft {0.5, 0.25, 0},
// draft token 0: u_0 = 0.75: 0.75 * 0.5 = 0.375 < 0.25 fails. r = {0, 0.25, 0.25}, C = {0, 0.25,
// 0.5}; the draw uses u_1 = 0.25: x = 0.125 < 0.25 -> 1. Planted fault: a kernel drawing with
// the acceptance uniform u_0 = 0.75 gets x = 0.375 -> 2. Bonus: u_0 = 0.25 accepts (0.125 <
// 0.25); the bonus row {0.5, 0, 0.5} with u_1 = 0.75: C = {0.5, 0.5, 1}, x = 0.75 -> 2.
TEST(GpuSpecRandom, FlashinferExamples) {
  const std::vector<float> target = {0.25f, 0.5f, 0.25f, 0.5f, 0.0f, 0.5f};
  const std::vector<float> draft = {0.5f, 0.25f, 0.0f};
  std::vector<float> u = {0.75f, 0.25f};
  KernelRunner::SpecRandomInputs in;
  in.rule = KernelRunner::SpecRandomInputs::Rule::kFlashinfer;
  in.target_probs = target.data();
  in.draft_probs = draft.data();
  in.u_f32 = u.data();
  SpecResult r = SpecRandomOne(in, {0}, 1, 3);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{1, -1}));
  EXPECT_EQ(r.accepted, 0);
  u = {0.25f, 0.75f};
  r = SpecRandomOne(in, {0}, 1, 3);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(r.accepted, 1);
}

// docs/spec/speculative.md "typical_acceptance", threshold 0.09, alpha 0.3 (vLLM's defaults).
// Row {0.7, 0.1, 0.1, 0.1}: S = 0.7 ln(0.70001) + 3 (0.1 ln(0.10001)) = -0.24966 - 0.69075 =
// -0.94041; exp(S) 0.3 = 0.39047 * 0.3 = 0.11714; min(0.09, 0.11714) = 0.09: draft 1 (0.1 > 0.09)
// is accepted. Planted fault: with max instead of min the threshold is 0.117 and draft 1 is
// rejected. Row {0.97, 0.01, 0.01, 0.01}: S = 0.97 ln(0.97001) + 0.03 ln(0.01001) = -0.16766,
// exp(S) 0.3 = 0.2537, threshold 0.09: draft 2 (0.01) is rejected and the argmax 0 emitted.
// Bonus row {0.2, 0.3, 0.4, 0.1} with bonus_q {1, 1, 2, 1}: ratios {0.2, 0.3, 0.2, 0.1} -> 1.
TEST(GpuSpecRandom, TypicalAcceptanceExamples) {
  const std::vector<float> target = {0.7f, 0.1f, 0.1f, 0.1f, 0.97f, 0.01f, 0.01f, 0.01f, 0.2f, 0.3f, 0.4f, 0.1f};
  const std::vector<float> bonus_q = {1.0f, 1.0f, 2.0f, 1.0f};
  KernelRunner::SpecRandomInputs in;
  in.rule = KernelRunner::SpecRandomInputs::Rule::kTypicalAcceptance;
  in.target_probs = target.data();
  in.bonus_q = bonus_q.data();
  in.posterior_threshold = 0.09f;
  in.posterior_alpha = 0.3f;
  SpecResult r = SpecRandomOne(in, {1, 2}, 2, 4);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{1, 0, -1}));
  EXPECT_EQ(r.accepted, 1);
  r = SpecRandomOne(in, {1, 0}, 2, 4);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{1, 0, 1}));
  EXPECT_EQ(r.accepted, 2);
}

struct FinishRow {
  std::int32_t reason = -7;
  std::int64_t stop_reason = -7;
  std::uint8_t keep = 7;
  std::vector<std::int32_t> banned;
};

// One request through the finish_rules kernel: eos_ids and stop_ids of width 2 each.
FinishRow FinishOne(std::int64_t token, std::int32_t len, std::int32_t max, std::int32_t min, bool ignore, bool keep,
                    std::vector<std::int32_t> eos, std::vector<std::int32_t> stop, bool sglang, bool vllm) {
  const std::uint8_t ignore_u8 = ignore ? 1 : 0, keep_u8 = keep ? 1 : 0;
  KernelRunner::FinishRulesInputs in;
  in.token = &token;
  in.output_len = &len;
  in.max_tokens = &max;
  in.min_tokens = &min;
  in.ignore_eos = &ignore_u8;
  in.keep_stop = &keep_u8;
  in.eos_ids = eos.data();
  in.n_eos = static_cast<std::int64_t>(eos.size());
  in.stop_ids = stop.data();
  in.n_stop = static_cast<std::int64_t>(stop.size());
  in.sglang = sglang;
  in.eos_stop_reason_none = vllm;
  FinishRow r;
  r.banned.assign(eos.size() + stop.size(), -7);
  MakeEmulatedRunner()->Run(FinishRulesLaunch(in, 1, &r.reason, &r.stop_reason, &r.keep, r.banned.data()));
  return r;
}

// docs/spec/finish_rules.md: token 7 = eos_ids[0], output_len = max_tokens = 4, min_tokens 0:
// the stop checks come before the length check in vllm (stop, stop_reason None = -1; canonical
// records 7) and after it in sglang (length, kept in the text). Below min_tokens (2 < 5) the
// vllm rule runs nothing and bans eos ∪ stop ascending and distinct: {3, 7, 9, -1}; sglang does
// not look at min_tokens (token 3 is a stop id: stop) but bans the same ids.
TEST(GpuFinishRules, ContractExamples) {
  FinishRow r = FinishOne(7, 4, 4, 0, false, false, {7, 9}, {3, -1}, false, true);
  EXPECT_EQ(r.reason, 1);
  EXPECT_EQ(r.stop_reason, -1);
  EXPECT_EQ(r.keep, 0);
  EXPECT_EQ(r.banned, (std::vector<std::int32_t>{-1, -1, -1, -1}));
  r = FinishOne(7, 4, 4, 0, false, false, {7, 9}, {3, -1}, false, false);
  EXPECT_EQ(r.stop_reason, 7);
  // sglang (Req.update_finish_state at d55f1c28): the token match comes before the length check,
  // so the primary EOS as the last allowed token stops with stop_reason 7 and is trimmed.
  r = FinishOne(7, 4, 4, 0, false, false, {7, 9}, {3, -1}, true, false);
  EXPECT_EQ(r.reason, 1);
  EXPECT_EQ(r.stop_reason, 7);
  EXPECT_EQ(r.keep, 0);
  r = FinishOne(3, 2, 10, 5, false, false, {7, 9}, {3, 7}, false, true);
  EXPECT_EQ(r.reason, 0);
  EXPECT_EQ(r.banned, (std::vector<std::int32_t>{3, 7, 9, -1}));
  // sglang's min-new-tokens penalizer bans the stop ids and the tokenizer's EOS (7), not the
  // generation-config extra 9 (BatchedMinNewTokensPenalizer._prepare at d55f1c28).
  r = FinishOne(3, 2, 10, 5, false, false, {7, 9}, {3, 7}, true, false);
  EXPECT_EQ(r.reason, 1);
  EXPECT_EQ(r.stop_reason, 3);
  EXPECT_EQ(r.banned, (std::vector<std::int32_t>{3, 7, -1, -1}));
}

// Planted faults (the profile quirks): with ignore_eos a stop id still stops vllm but not sglang
// (ignore_eos disables SGLang's stop ids too); SGLang keeps a stop-finished token 0 in the text
// (trim_matched_stop's `if not matched` treats id 0 as no match), vllm does not. A kernel with
// one shared rule fails one side of each pair.
TEST(GpuFinishRules, ProfileQuirks) {
  EXPECT_EQ(FinishOne(3, 2, 10, 0, true, false, {7, -1}, {3, -1}, false, true).reason, 1);
  EXPECT_EQ(FinishOne(3, 2, 10, 0, true, false, {7, -1}, {3, -1}, true, false).reason, 0);
  EXPECT_EQ(FinishOne(0, 2, 10, 0, false, false, {0, -1}, {-1, -1}, true, false).keep, 1);
  EXPECT_EQ(FinishOne(0, 2, 10, 0, false, false, {0, -1}, {-1, -1}, false, true).keep, 0);
}

// docs/spec/tp_consensus.md: rank_ids {{5, 2, 7}, {3, 2, 9}}: sglang takes the minimum {3, 2, 7},
// vllm rank 0's ids {5, 2, 7}; unanimous {false, true, false}. Planted fault: the minimum sits in
// the LAST of 4 ranks for request 0 and rank 0 differs from the others for request 1 (a kernel
// that stops at the second rank, or compares only ranks 0 and 1 for unanimity, fails); 40
// requests span two 32-thread blocks.
TEST(GpuTpConsensus, ContractExamples) {
  const std::vector<std::int64_t> two = {5, 2, 7, 3, 2, 9};
  std::vector<std::int64_t> token(3, -7);
  std::vector<std::uint8_t> same(3, 7);
  MakeEmulatedRunner()->Run(TpConsensusLaunch(two.data(), 2, 3, false, token.data(), same.data()));
  EXPECT_EQ(token, (std::vector<std::int64_t>{3, 2, 7}));
  EXPECT_EQ(same, (std::vector<std::uint8_t>{0, 1, 0}));
  MakeEmulatedRunner()->Run(TpConsensusLaunch(two.data(), 2, 3, true, token.data(), same.data()));
  EXPECT_EQ(token, (std::vector<std::int64_t>{5, 2, 7}));
  const std::int64_t batch = 40;
  std::vector<std::int64_t> four(static_cast<std::size_t>(4 * batch), 8);
  four[static_cast<std::size_t>(3 * batch + 0)] = 1;   // request 0: rank 3 holds the minimum
  four[1] = 9;                                         // request 1: rank 0 differs
  four[static_cast<std::size_t>(2 * batch + 39)] = 4;  // request 39 (second block): rank 2
  token.assign(static_cast<std::size_t>(batch), -7);
  same.assign(static_cast<std::size_t>(batch), 7);
  MakeEmulatedRunner()->Run(TpConsensusLaunch(four.data(), 4, batch, false, token.data(), same.data()));
  EXPECT_EQ(token[0], 1);
  EXPECT_EQ(token[1], 8);
  EXPECT_EQ(token[39], 4);
  EXPECT_EQ(token[20], 8);
  EXPECT_EQ(same[0], 0);
  EXPECT_EQ(same[1], 0);
  EXPECT_EQ(same[20], 1);
  MakeEmulatedRunner()->Run(TpConsensusLaunch(four.data(), 4, batch, true, token.data(), same.data()));
  EXPECT_EQ(token[1], 9);
}

// Padded rows for the draw kernels (docs/gpu.md "Padding"): pitch = V + 5 with pads that would
// win if read (score +inf, probability 1e30 with noise 1e-30, which would also swamp the running
// sum), at V = 1, 31 (one warp), 1025 and 5000 (1024 threads above kOneWarpVocab). Expected: the
// reference stage on the unpadded rows, bitwise.
class GpuDrawPaddedRows : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(GpuDrawPaddedRows, MatchTheReference) {
  const std::int64_t vocab = GetParam(), pitch = vocab + 5, rows = 3;
  SplitMix64 rng(static_cast<std::uint64_t>(vocab) * 7 + 1);
  auto uniform = [&] { return static_cast<float>((rng.Next() >> 40) + 1) * 0x1p-24f; };  // (0, 1]
  std::vector<float> x(static_cast<std::size_t>(rows * pitch)), noise(x.size()),
      dense(static_cast<std::size_t>(rows * vocab)), dense_noise(dense.size());
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < pitch; ++i) {
      const auto at = static_cast<std::size_t>(b * pitch + i);
      const bool pad = i >= vocab;
      x[at] = pad ? 1e30f : uniform();
      noise[at] = pad ? 1e-30f : uniform();
      if (!pad) {
        dense[static_cast<std::size_t>(b * vocab + i)] = x[at];
        dense_noise[static_cast<std::size_t>(b * vocab + i)] = noise[at];
      }
    }
  }
  std::vector<float> u = {0.0f, 0.5f, 0x1.fffffep-1f};
  const std::vector<std::int64_t> seed = {-1, 42, 7}, positions = {0xffffffffLL, 7, 0};
  auto dense_case = [&](const char* values, const char* noise_name) {
    Case c;
    c.id = "padded";
    c.inputs.emplace(values, Tensor::FromValues(DType::kF32, {rows, vocab}, dense));
    if (noise_name != nullptr)
      c.inputs.emplace(noise_name, Tensor::FromValues(DType::kF32, {rows, vocab}, dense_noise));
    return c;
  };
  auto expect_tokens = [&](const TensorMap& want, const std::vector<std::int64_t>& got, const char* what) {
    const auto w = want.at("token").data<std::int64_t>();
    for (std::size_t b = 0; b < got.size(); ++b) EXPECT_EQ(got[b], w[b]) << what << " row " << b << " V " << vocab;
  };
  std::vector<std::int64_t> got(static_cast<std::size_t>(rows), -7);
  auto runner = MakeEmulatedRunner();
  // gumbel_max: pads as scores +inf would win every row.
  std::vector<float> scores = x;
  for (std::int64_t b = 0; b < rows; ++b)
    for (std::int64_t i = vocab; i < pitch; ++i) scores[static_cast<std::size_t>(b * pitch + i)] = kInf;
  runner->Run(GumbelMaxLaunch(scores.data(), noise.data(), rows, vocab, pitch, got.data()));
  expect_tokens(reference::RunGumbelMax(dense_case("logprobs", "gumbel"), Profile::kCanonical), got, "gumbel_max");
  for (bool vllm : {false, true}) {
    runner->Run(ExponentialRaceLaunch(x.data(), noise.data(), rows, vocab, pitch, vllm, got.data()));
    expect_tokens(reference::RunExponentialRace(dense_case("probs", "q"), vllm ? Profile::kVllm : Profile::kCanonical),
                  got, "exponential_race");
  }
  runner->Run(QSampleLaunch(x.data(), noise.data(), 1e-8f, rows, vocab, pitch, got.data()));
  expect_tokens(reference::RunQSample(dense_case("probs", "q"), Profile::kAscendV2), got, "qsample");
  runner->Run(InverseCdfLaunch(x.data(), u.data(), rows, vocab, pitch, got.data()));
  Case icdf = dense_case("probs", nullptr);
  icdf.inputs.emplace("u", Tensor::FromValues(DType::kF32, {rows}, u));
  expect_tokens(reference::RunInverseCdf(icdf, Profile::kCanonical), got, "inverse_cdf");
  runner->Run(SeededGumbelLaunch(x.data(), seed.data(), positions.data(), nullptr, rows, vocab, pitch, got.data()));
  Case seeded = dense_case("probs", nullptr);
  seeded.inputs.emplace("seed", Tensor::FromValues(DType::kI64, {rows}, seed));
  seeded.inputs.emplace("positions", Tensor::FromValues(DType::kI64, {rows}, positions));
  expect_tokens(reference::RunMultinomialWithSeed(seeded, Profile::kSglang), got, "multinomial_with_seed");
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, GpuDrawPaddedRows, ::testing::Values(1, 31, 1025, 5000),
                         [](const ::testing::TestParamInfo<std::int64_t>& info) {
                           char name[32];  // snprintf: GCC 12 reports a false -Wrestrict on "V" + string
                           std::snprintf(name, sizeof name, "V%lld", static_cast<long long>(info.param));
                           return std::string(name);
                         });

// ---- filters (top_k, top_p, min_p, sampling_filters; docs/spec/filters.md) ----

// The ln 2 row: f32(ln 2) = 0x3f317218; exp(-ln2) and exp(-2 ln2) round to exactly 0.5 and
// 0.25 (docs/spec/softmax.md "Worked example"), so probs are exactly (0.5, 0.25, 0.125, 0.125).
std::vector<float> Ln2Row() {
  const float ln2 = 0.693147182f;
  return {0.0f, -ln2, -2.0f * ln2, -2.0f * ln2};
}

// Which entries of `out` are kept (not -inf), and that each kept one is the input's bits.
std::vector<int> KeptOf(const std::vector<float>& in, const std::vector<float>& out) {
  std::vector<int> kept;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -kInf && in[i] != -kInf) continue;
    if (out[i] != -kInf) {
      EXPECT_EQ(Bits(out[i]), Bits(in[i])) << "entry " << i << " changed";
      kept.push_back(static_cast<int>(i));
    }
  }
  return kept;
}

std::vector<float> TopKOne(const std::vector<float>& row, std::int32_t k, TopKRule rule) {
  std::vector<float> out(row.size());
  const auto v = static_cast<std::int64_t>(row.size());
  MakeEmulatedRunner()->Run(TopKLaunch(row.data(), &k, 1, v, v, rule, out.data()));
  return out;
}

std::vector<float> TopPOne(const std::vector<float>& row, float p, TopPWalk walk, DegenerateRowRule degenerate = {}) {
  std::vector<float> out(row.size());
  const auto v = static_cast<std::int64_t>(row.size());
  MakeEmulatedRunner()->Run(TopPLaunch(row.data(), &p, 1, v, v, walk, out.data(), degenerate));
  return out;
}

std::vector<float> MinPOne(const std::vector<float>& row, float m, MinPRule rule, DegenerateRowRule degenerate = {}) {
  std::vector<float> out(row.size());
  const auto v = static_cast<std::int64_t>(row.size());
  MakeEmulatedRunner()->Run(MinPLaunch(row.data(), &m, 1, v, v, rule, out.data(), degenerate));
  return out;
}

// Bit patterns, so that NaNs (and their signs) compare.
std::vector<std::uint32_t> BitsOf(const std::vector<float>& row) {
  std::vector<std::uint32_t> bits;
  for (float x : row) bits.push_back(Bits(x));
  return bits;
}

// A test kernel: out[0] = SelectKth(row, n) (gpu/block/radix_select.cuh).
struct SelectKernel {
  template <class B, class Arr, class Out>
  void operator()(B& block, Arr row, Out out, std::int64_t vocab, bool ascending, std::int64_t n) const {
    const std::uint64_t key = SelectKth(block, row, 0, vocab, ascending, n);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) out.Store(0, key);
    });
  }
};

std::uint64_t SelectOne(std::vector<float> row, bool ascending, std::int64_t n) {
  std::uint64_t key = 0;
  const auto v = static_cast<std::int64_t>(row.size());
  const LaunchReport report = emu::Launch("select", 1, kCanonicalLanes, [&](Block& block) {
    SelectKernel{}(block, GlobalArray<float>(row.data(), v, "row"), GlobalArray<std::uint64_t>(&key, 1, "key"), v,
                   ascending, n);
  });
  EXPECT_TRUE(report.ok()) << report.Summary();
  return key;
}

// The value keys by the rule of docs/spec/filters.md "Order" (negative: complement every bit;
// otherwise set the sign bit; -0.0 as +0.0; descending: the complement), worked by hand.
TEST(GpuRadixSelect, ValueKeysOfSpecialValues) {
  struct Case {
    std::uint32_t bits, ascending;
  };
  const Case cases[] = {
      {0x40400000u, 0xc0400000u},  // 3.0
      {0x3f800000u, 0xbf800000u},  // 1.0
      {0xbf800000u, 0x407fffffu},  // -1.0
      {0x00000000u, 0x80000000u},  // +0.0
      {0x80000000u, 0x80000000u},  // -0.0 ties with +0.0
      {0x00000001u, 0x80000001u},  // the smallest positive subnormal
      {0x80000001u, 0x7ffffffeu},  // the largest negative subnormal
      {0x7f7fffffu, 0xff7fffffu},  // FLT_MAX
      {0xff7fffffu, 0x00800000u},  // -FLT_MAX
      {0x7f800000u, 0xff800000u},  // +inf
      {0xff800000u, kAscendingNegInf},
  };
  for (const Case& c : cases) {
    float x;
    std::memcpy(&x, &c.bits, sizeof x);
    EXPECT_EQ(AscendingValueKey(x), c.ascending) << std::hex << c.bits;
    EXPECT_EQ(DescendingValueKey(x), ~c.ascending) << std::hex << c.bits;
  }
  EXPECT_EQ(DescendingValueKey(std::numeric_limits<float>::infinity()), kDescendingPosInf);
  EXPECT_EQ(DescendingValueKey(-std::numeric_limits<float>::max()), kLastFiniteDescending >> 32);
  // Any two numbers: the keys order them as their values do (-0.0 equal to +0.0).
  std::mt19937 gen(20261204);
  for (int n = 0; n < 200000; ++n) {
    const std::uint32_t a_bits = gen(), b_bits = n % 4 == 0 ? a_bits ^ (gen() & 0xffu) : gen();
    float a, b;
    std::memcpy(&a, &a_bits, sizeof a);
    std::memcpy(&b, &b_bits, sizeof b);
    if (std::isnan(a) || std::isnan(b)) continue;
    ASSERT_EQ(a < b, AscendingValueKey(a) < AscendingValueKey(b)) << a << " " << b;
    ASSERT_EQ(a == b, AscendingValueKey(a) == AscendingValueKey(b)) << a << " " << b;
    ASSERT_EQ(DescendingValueKey(a), ~AscendingValueKey(a)) << a;
  }
}

TEST(GpuRadixSelect, KthKeyOfTheCanonicalOrder) {
  // Keys by hand (docs/spec/filters.md "Order"): 3.0f = 0x40400000, monotone key with the sign
  // bit set 0xc0400000, complemented for the descending order 0x3fbfffff; 2.0f = 0x40000000 ->
  // 0x3fffffff; 1.0f = 0x3f800000 -> 0x407fffff. Order of {1, 3, 3, 2}: (3, 1), (3, 2), (2, 3),
  // (1, 0).
  const std::vector<float> row = {1.0f, 3.0f, 3.0f, 2.0f};
  EXPECT_EQ(SelectOne(row, false, 1), 0x3fbfffff00000001ull);
  EXPECT_EQ(SelectOne(row, false, 2), 0x3fbfffff00000002ull);
  EXPECT_EQ(SelectOne(row, false, 3), 0x3fffffff00000003ull);
  EXPECT_EQ(SelectOne(row, false, 4), 0x407fffff00000000ull);
  // Ascending (vLLM's walk): (1, 0), (2, 3), (3, 1), (3, 2); 1.0f's monotone key 0xbf800000.
  EXPECT_EQ(SelectOne(row, true, 1), 0xbf80000000000000ull);
  EXPECT_EQ(SelectOne(row, true, 4), 0xc040000000000002ull);
  // Across lanes and passes: 3000 equal values, rank 2500 is index 2499 (ties by index).
  EXPECT_EQ(SelectOne(std::vector<float>(3000, 1.0f), false, 2500), 0x407fffff00000000ull + 2499);
}

// The descending order key of a positive value at `index`, built by hand from the float's bits
// as in KthKeyOfTheCanonicalOrder: the monotone key of a positive float is its bits with the
// sign bit set, complemented for the descending order, above the index.
std::uint64_t DescendingKeyOfPositive(float x, std::int64_t index) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (std::uint64_t{~(bits | 0x80000000u)} << 32) | static_cast<std::uint32_t>(index);
}

// The indices of `row` in the canonical order (value descending, ties by index) from a stable
// sort of the floats: the expected ranks of the select tests below.
std::vector<std::int64_t> StableDescendingOrder(std::span<const float> row) {
  std::vector<std::int64_t> order(row.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return row[static_cast<std::size_t>(a)] > row[static_cast<std::size_t>(b)];
  });
  return order;
}

// SelectKthKey with gpu-fast's block sizes (128 threads on the emulator, 32): the n-th key of
// a row, compared with the n-th index of a stable sort of the floats (value descending, ties by
// index), whose key is built by hand from the float's bits as in KthKeyOfTheCanonicalOrder.
template <int kThreads>
std::uint64_t SelectWithThreads(const std::vector<float>& row, std::int64_t n) {
  std::uint64_t key = 0;
  const auto v = static_cast<std::int64_t>(row.size());
  const LaunchReport report = emu::Launch("select_threads", 1, kThreads, [&](Block& block) {
    GlobalArray<float> x(const_cast<float*>(row.data()), v, "row");
    const std::uint64_t k = SelectKthKey<kThreads>(
        block, v, [&](std::int64_t i) { return OrderKey(x.Load(i), i, false); }, n);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) key = k;
    });
  });
  EXPECT_TRUE(report.ok()) << report.Summary();
  return key;
}

TEST(GpuRadixSelect, KthKeyWithAnyWholeWarpBlock) {
  SplitMix64 rng(77);
  std::vector<float> row(6000);
  for (float& x : row) x = static_cast<float>(rng.Next() % 300) * 0.5f + 1.0f;  // positive, many ties
  const std::vector<std::int64_t> order = StableDescendingOrder(row);
  for (std::int64_t n : {1, 1500, 5000, 6000}) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    const std::int64_t index = order[static_cast<std::size_t>(n - 1)];
    const std::uint64_t expected = DescendingKeyOfPositive(row[static_cast<std::size_t>(index)], index);
    EXPECT_EQ(SelectWithThreads<128>(row, n), expected);
    EXPECT_EQ(SelectWithThreads<32>(row, n), expected);
  }
}

// A global f32 row's keys (RowOrderKeys, gpu/block/radix_select.cuh) are a QuadKeySource
// (Load, Load4, BoundaryGap: gpu/block/key_reads.cuh); a shared array's, without Load4, only a
// SplitKeySource, read one entry at a time.
static_assert(QuadKeySource<RowOrderKeys<GlobalArray<float>>>);
static_assert(SplitKeySource<RowOrderKeys<HostShared<float>>> && !QuadKeySource<RowOrderKeys<HostShared<float>>>);

// The same select from a QuadKeySource reads four entries a load, whatever the row's address
// (bases 0 .. 3 of an aligned buffer: heads of 0 to 3 elements): the same key (the rows and
// ranks of KthKeyWithAnyWholeWarpBlock against the stable sort), and a pass of the 6000-entry
// row in 1500 to 1503 loads (whole quads; off a boundary a head and a tail of 4 in all and one
// quad fewer), where the strided read makes 6000: passes counted from the strided select's
// loads (V a pass).
TEST(GpuRadixSelect, QuadSourceReadsFourEntriesALoad) {
  SplitMix64 rng(77);
  constexpr std::int64_t kV = 6000;
  alignas(16) static float buffer[kV + 4];
  for (float& x : buffer) x = static_cast<float>(rng.Next() % 300) * 0.5f + 1.0f;
  for (std::int64_t base = 0; base < 4; ++base) {
    const std::vector<float> row(buffer + base, buffer + base + kV);
    const std::vector<std::int64_t> order = StableDescendingOrder(row);
    for (std::int64_t n : {1, 1500, 5000, 6000}) {
      SCOPED_TRACE(testing::Message() << "base " << base << ", n = " << n);
      const std::int64_t index = order[static_cast<std::size_t>(n - 1)];
      const std::uint64_t expected = DescendingKeyOfPositive(row[static_cast<std::size_t>(index)], index);
      std::int64_t loads[2] = {0, 0};
      for (const bool quads : {false, true}) {
        std::uint64_t key = 0;
        const LaunchReport report = emu::Launch("select_quads", 1, 128, [&](Block& block) {
          const auto keys = OrderKeysOf(GlobalArray<float>(buffer, kV + 4, "row"), base, false);
          const std::uint64_t k = quads ? SelectKthKey<128>(block, kV, keys, n)
                                        : SelectKthKey<128>(block, kV, [&](std::int64_t i) { return keys(i); }, n);
          block.ForEachThread([&](Thread t) {
            if (t.x == 0) key = k;
          });
        });
        ASSERT_TRUE(report.ok()) << report.Summary();
        EXPECT_EQ(key, expected);
        loads[quads] = report.counters.global[0].loads;
      }
      ASSERT_EQ(loads[0] % kV, 0);
      const std::int64_t passes = loads[0] / kV;
      EXPECT_GE(loads[1], passes * (kV / 4));
      EXPECT_LE(loads[1], passes * (kV / 4 + 3));
    }
  }
}

// The bit-exact kernels' SelectKth and CollectSorted over a global f32 row (RowOrderKeys) read
// it four entries a load: on the 6000-entry row of KthKeyWithAnyWholeWarpBlock at 1024 threads,
// SelectKth's key is the stable sort's and its passes take 1500 loads each (the row at a
// 16-byte boundary) where one entry a load takes 6000 (passes counted from that read);
// CollectSorted's keys in (lo, hi], hi the key of rank 900 and lo that of rank 100, are the 800
// keys of ranks 101 .. 900 in order, from two reads of 1500 loads (count, gather).
TEST(GpuRadixSelect, GlobalRowsReadFourEntriesALoad) {
  SplitMix64 rng(77);
  constexpr std::int64_t kV = 6000;
  alignas(16) static float row[kV];
  for (float& x : row) x = static_cast<float>(rng.Next() % 300) * 0.5f + 1.0f;
  const std::vector<std::int64_t> order = StableDescendingOrder(row);
  auto key_of_rank = [&](std::int64_t n) {
    const std::int64_t index = order[static_cast<std::size_t>(n - 1)];
    return DescendingKeyOfPositive(row[index], index);
  };
  for (std::int64_t n : {1, 1500, 5000, 6000}) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    std::int64_t loads[2] = {0, 0};
    for (const bool quads : {false, true}) {
      std::uint64_t key = 0;
      const LaunchReport report = emu::Launch("select_row", 1, kCanonicalLanes, [&](Block& block) {
        const GlobalArray<float> x(row, kV, "row");
        const std::uint64_t k = quads ? SelectKth(block, x, 0, kV, false, n)
                                      : SelectKthKey<kCanonicalLanes>(
                                            block, kV, [&](std::int64_t i) { return OrderKey(x.Load(i), i, false); }, n);
        block.ForEachThread([&](Thread t) {
          if (t.x == 0) key = k;
        });
      });
      ASSERT_TRUE(report.ok()) << report.Summary();
      EXPECT_EQ(key, key_of_rank(n));
      loads[quads] = report.counters.global[0].loads;
    }
    ASSERT_EQ(loads[0] % kV, 0);
    EXPECT_EQ(loads[1], loads[0] / kV * (kV / 4));
  }
  std::vector<std::uint64_t> gathered;
  std::uint32_t count = 0;
  const std::uint64_t lo = key_of_rank(100), hi = key_of_rank(900);
  const LaunchReport report = emu::Launch("collect_row", 1, kCanonicalLanes, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
    const std::uint32_t m = CollectSorted(block, GlobalArray<float>(row, kV, "row"), 0, kV, false, true, lo, hi, sorted);
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      count = m;
      for (std::uint32_t j = 0; j < m; ++j) gathered.push_back(sorted.Load(j));
    });
  });
  ASSERT_TRUE(report.ok()) << report.Summary();
  ASSERT_EQ(count, 800u);
  for (std::int64_t r = 101; r <= 900; ++r) EXPECT_EQ(gathered[static_cast<std::size_t>(r - 101)], key_of_rank(r));
  EXPECT_EQ(report.counters.global[0].loads, 2 * (kV / 4));
}

// SumDigitCounts and DigitOfRank (gpu/block/radix_select.cuh). The sums against their
// definition (thread t's count of digit d is (7 t + 3 d) mod 5, summed over the threads here),
// at 1024 threads and at 128 (4 warps: each sums 4 digits); at 1024 the busiest thread's
// shared accesses: 1 (its lane's digit stored), then 2 (a warp sum loaded, a digit stored),
// then the 1 load of the check. DigitOfRank on counts set by hand, {3, 0, 5, 2, 0 x 11, 7}
// (prefix sums 3, 3, 8, 10, .., 10, 17): n = 1 and 3 in digit 0; 4 skips the empty digit 1:
// digit 2, rank 1 of 5; 8: digit 2, rank 5; 9 and 10: digit 3, ranks 1 and 2; 11 skips 11 empty
// digits: digit 15, rank 1 of 7; 17: rank 7; 18, past every count: 15, rank 8 (the contract's
// "15 when n is past hist[0] + .. + hist[14]"). One load a thread a call, no barrier.
TEST(GpuRadixSelect, DigitCountsAndTheDigitOfARank) {
  auto sums = [](int threads) {
    std::vector<std::uint32_t> hist(16);
    const LaunchReport r = emu::Launch("digit sums", 1, threads, [&](Block& block) {
      SAMPCHECK_SHARED(block, std::uint32_t, partial, 16 * 32);
      SAMPCHECK_SHARED(block, std::uint32_t, sum, 16);
      auto digits = Registers<DigitCounts>(block);
      block.ForEachThread([&](Thread t) {
        for (int d = 0; d < 16; ++d) digits[t].c[d] = static_cast<std::uint32_t>((7 * t.x + 3 * d) % 5);
      });
      if (threads == 1024) {
        SumDigitCounts<1024>(block, digits, partial, sum);
      } else {
        SumDigitCounts<128>(block, digits, partial, sum);
      }
      block.ForEachThread([&](Thread t) {
        if (t.x < 16) hist[static_cast<std::size_t>(t.x)] = sum.Load(t.x);
      });
    });
    EXPECT_TRUE(r.ok()) << r.Summary();
    for (int d = 0; d < 16; ++d) {
      std::uint32_t expected = 0;
      for (int t = 0; t < threads; ++t) expected += static_cast<std::uint32_t>((7 * t + 3 * d) % 5);
      EXPECT_EQ(hist[static_cast<std::size_t>(d)], expected) << threads << " threads, digit " << d;
    }
    EXPECT_EQ(r.counters.barriers, 2);
    return r.counters.critical_intervals;
  };
  EXPECT_EQ(sums(1024), (std::vector<std::int64_t>{1, 2, 1}));
  (void)sums(128);

  const std::uint32_t counts[16] = {3, 0, 5, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
  const std::uint64_t ranks[] = {1, 3, 4, 8, 9, 10, 11, 17, 18};
  const DigitRank expected[] = {{0, 1, 3}, {0, 3, 3}, {2, 1, 5}, {2, 5, 5}, {3, 1, 2},
                                {3, 2, 2}, {15, 1, 7}, {15, 7, 7}, {15, 8, 7}};
  std::vector<DigitRank> got;
  const LaunchReport r = emu::Launch("digit of rank", 1, 64, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint32_t, hist, 16);
    block.ForEachThread([&](Thread t) {
      if (t.x < 16) hist.Store(t.x, counts[t.x]);
    });
    block.Sync();
    for (const std::uint64_t n : ranks) got.push_back(DigitOfRank(block, hist, n));
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  ASSERT_EQ(got.size(), std::size(expected));
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].digit, expected[i].digit) << "n = " << ranks[i];
    EXPECT_EQ(got[i].rank, expected[i].rank) << "n = " << ranks[i];
    EXPECT_EQ(got[i].count, expected[i].count) << "n = " << ranks[i];
  }
  EXPECT_EQ(r.counters.barriers, 1);
  EXPECT_EQ(r.counters.critical_intervals, (std::vector<std::int64_t>{1, static_cast<std::int64_t>(std::size(ranks))}));
}

// VisitKeysInOrder on one row (its own 2 x V scratch): the indices of the visited keys, in
// visiting order, and the number of chunks. `stop_after` chunks end the visit (0: never).
struct Visited {
  std::vector<std::int64_t> indices;
  int chunks = 0;
};

// A visit recording the index of every key it is given by its position in the order: a key
// visit (flat and small rows) in the order given, the chunk loop's walks by marking every
// position walked, whose keys the threads that placed them record (radix_partition.cuh "Chunk
// loop"); `stop_after` chunks end it (0: never).
template <class B>
auto RecordingVisit(B& block, std::vector<std::int64_t>& indices, int& chunks, int stop_after) {
  auto key_visit = [&block, &indices, &chunks, stop_after](std::uint32_t m, auto&& key_of) {
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      for (std::uint32_t j = 0; j < m; ++j) indices.push_back(IndexOfKey(key_of(j)));
    });
    block.Sync();
    return ++chunks == stop_after;
  };
  auto weight = [](std::uint64_t) { return 0.0f; };
  auto walk = [&block, &chunks, stop_after, walked = std::uint64_t{0}](std::uint32_t m, const auto&,
                                                                        auto marks) mutable {
    auto verdict = Registers<std::uint64_t>(block);
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      for (std::uint32_t j = 0; j < m; ++j) marks.Mark(j);
      walked += m;
      const std::uint64_t code = ++chunks == stop_after ? 1u : 0u;
      const std::uint64_t safe = stop_after == 0 ? (std::uint64_t{1} << 29) - 1 : 0u;
      verdict[t] = code << 62 | safe << 32 | (marks.Close() ? kPartitionChunkMarked : 0u) | walked;
    });
    return verdict;
  };
  auto finish = [](bool, std::uint64_t) {};
  auto marked = [&indices](Thread, std::uint64_t key, std::uint64_t position) {
    if (indices.size() < position) indices.resize(position, -1);
    indices[position - 1] = IndexOfKey(key);
  };
  return WeightedVisit<decltype(key_visit), decltype(weight), decltype(walk), decltype(finish), decltype(marked)>{
      key_visit, weight, walk, finish, marked};
}

Visited VisitOne(const std::vector<float>& row, bool ascending, int stop_after) {
  Visited v;
  const auto n = static_cast<std::int64_t>(row.size());
  std::vector<std::uint64_t> scratch(static_cast<std::size_t>(2 * n));
  const LaunchReport report = emu::Launch("visit", 1, kCanonicalLanes, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
    GlobalArray<float> x(const_cast<float*>(row.data()), n, "logits");
    GlobalArray<std::uint64_t> keys(scratch.data(), 2 * n, "order_keys");
    // Finite entries only: descending keys <= the last finite one, ascending keys above -inf's.
    VisitKeysInOrder(block, x, 0, n, ascending, ascending, kLastNegInfAscending,
                     ascending ? kNoKey : kLastFiniteDescending, keys, 0, sorted,
                     RecordingVisit(block, v.indices, v.chunks, stop_after));
  });
  EXPECT_TRUE(report.ok()) << report.Summary();
  return v;
}

// The expected order, from the floats themselves (not from the order keys): finite entries by
// value descending (ascending), equal values by increasing index.
std::vector<std::int64_t> SortedFinite(const std::vector<float>& row, bool ascending) {
  std::vector<std::int64_t> idx;
  for (std::size_t i = 0; i < row.size(); ++i)
    if (std::isfinite(row[i])) idx.push_back(static_cast<std::int64_t>(i));
  std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t a, std::int64_t b) {
    return ascending ? row[a] < row[b] : row[a] > row[b];
  });
  return idx;
}

// Level 0's bucket table (gpu/block/radix_partition.cuh, partition_detail::CellTable) against
// the definition, the number of splitters below the key, counted here: splitters of logits of
// both signs (cells an eighth of a binade), of one value (a flat row's: cells of 32 indices),
// 15 consecutive keys (cells of one key), 12 of them in one eighth of a binade and 3 far apart
// (one cell holding 12), the smallest and largest keys; probed at every splitter and its
// neighbours, at the bounds of the cells around them and of their eighths, at random keys
// (anywhere, and between the first and last splitter), past the cells on both sides, 0 and
// kNoKey. The table's reads: about one a key on the logits' random keys between the splitters
// (4 by the plain search), exactly one for a key in a cell of one splitter but not in its
// eighth of the cell.
TEST(GpuPartitionCells, BucketIsTheNumberOfSplittersBelowTheKey) {
  std::mt19937_64 rng(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<std::vector<std::uint64_t>> sets;
  std::vector<std::uint64_t> s;
  for (int j = 0; j < 15; ++j) s.push_back(OrderKey(normal(rng), static_cast<std::int64_t>(rng() % 128256), false));
  sets.push_back(s);
  s.clear();
  for (int j = 0; j < 15; ++j) s.push_back(OrderKey(1.5f, 8000 * (j + 1), false));
  sets.push_back(s);
  s.clear();
  for (int j = 0; j < 15; ++j) s.push_back(OrderKey(-2.0f, 0, false) + static_cast<std::uint64_t>(j));
  sets.push_back(s);
  s.clear();
  for (int j = 0; j < 12; ++j) s.push_back(OrderKey(1.0f + static_cast<float>(j) * 0x1p-8f, j, false));
  for (float far : {-7.0f, 40.0f, 1e-6f}) s.push_back(OrderKey(far, 3, false));
  sets.push_back(s);
  s.clear();
  for (int j = 0; j < 15; ++j)
    s.push_back(j < 7 ? static_cast<std::uint64_t>(j) : kNoKey - 15 + static_cast<std::uint64_t>(j));
  sets.push_back(s);
  for (std::size_t set = 0; set < sets.size(); ++set) {
    std::vector<std::uint64_t> splitters = sets[set];
    std::sort(splitters.begin(), splitters.end());
    ASSERT_EQ(std::adjacent_find(splitters.begin(), splitters.end()), splitters.end()) << "distinct, as level 0's";
    std::vector<std::uint64_t> keys = {0, 1, kNoKey - 1, kNoKey};
    for (std::uint64_t sp : splitters) {
      for (std::uint64_t d : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}}) {
        keys.push_back(sp - d);
        keys.push_back(sp + d);
      }
    }
    const std::size_t probes = keys.size();
    std::uniform_int_distribution<std::uint64_t> inside(splitters.front(), splitters.back());
    for (int r = 0; r < 2000; ++r) keys.push_back(rng());
    for (int r = 0; r < 4000; ++r) keys.push_back(inside(rng));
    auto below = [&](std::uint64_t key) {
      return static_cast<std::uint32_t>(
          std::count_if(splitters.begin(), splitters.end(), [&](std::uint64_t sp) { return sp < key; }));
    };
    partition_detail::CellTable table{};
    constexpr std::int64_t kAt = kCandidates - partition_detail::kCellTableWords;
    // Fills the table and looks up keys[from, to) (with bounds: also the bounds of the cells
    // around each splitter, now that the cells are known, and checks every answer).
    auto run = [&](std::size_t from, std::size_t to, bool bounds) {
      return emu::Launch("cells", 1, kCanonicalLanes, [&](Block& block) {
        SAMPCHECK_SHARED(block, std::uint64_t, splitter, 15);
        SAMPCHECK_SHARED(block, std::uint64_t, words, kCandidates);
        block.ForEachThread([&](Thread t) {
          if (t.x < 15) splitter.Store(t.x, splitters[static_cast<std::size_t>(t.x)]);
        });
        block.Sync();
        table = partition_detail::FillCellTable(block, splitter, words, kAt);
        if (bounds) {
          for (std::uint64_t sp : splitters) {
            const std::uint64_t c = (sp >> table.cell_shift) & 4095u;
            for (std::uint64_t cell : {c, c + 1}) {
              if (cell > 4095) continue;
              keys.push_back(table.First(cell));
              keys.push_back(table.First(cell) - 1);
              if (table.cell_shift < 3) continue;
              for (std::uint64_t e = 1; e < 8; ++e) {  // the bounds of its eighths
                keys.push_back(table.First(cell) + (e << (table.cell_shift - 3)));
                keys.push_back(table.First(cell) + (e << (table.cell_shift - 3)) - 1);
              }
            }
          }
          to = keys.size();
        }
        block.ForEachThread([&](Thread t) {
          for (std::size_t i = from + static_cast<std::size_t>(t.x); i < to; i += kCanonicalLanes) {
            const std::uint32_t got = table.Bucket(splitter, words, kAt, keys[i]);
            if (bounds) {
              EXPECT_EQ(got, below(keys[i])) << "set " << set << ", key " << keys[i] << (i < probes ? " (probe)" : "");
            }
          }
        });
      });
    };
    const LaunchReport checked = run(0, keys.size(), true);
    ASSERT_TRUE(checked.ok()) << checked.Summary();
    if (set == 0) {
      EXPECT_EQ(table.cell_shift, 52) << "logits of both signs: the top 12 bits";
      auto loads = [](const LaunchReport& r) {
        std::int64_t n = 0;
        for (const ArrayTraffic& a : r.counters.shared) n += a.loads;
        return n;
      };
      const std::int64_t fill = loads(run(0, 0, false));
      const std::int64_t lookups = loads(run(probes + 2000, probes + 6000, false)) - fill;  // the 4000 inside
      EXPECT_LT(lookups, 4000 * 3 / 2) << "about one read a key (the plain search: 4)";
      EXPECT_GE(lookups, 4000);
      // A key in a cell that holds one splitter, outside the splitter's eighth of the cell: one
      // read, the cell's byte (the splitter itself is read only in its own eighth).
      const std::size_t from = keys.size();
      for (std::uint64_t sp : splitters) {
        const std::uint64_t c = (sp >> table.cell_shift) & 4095u;
        const auto shared = std::count_if(splitters.begin(), splitters.end(), [&](std::uint64_t o) {
          return o >> table.cell_shift == sp >> table.cell_shift;
        });
        if (shared != 1) continue;
        const std::uint64_t own = ((sp & ((std::uint64_t{1} << table.cell_shift) - 1)) << 3) >> table.cell_shift;
        for (std::uint64_t e = 0; e < 8; ++e) {
          if (e != own) keys.push_back(table.First(c) + (e << (table.cell_shift - 3)));
        }
      }
      ASSERT_GE(keys.size() - from, 7u * 8u) << "most of the 15 splitters alone in their cells";
      EXPECT_EQ(loads(run(from, keys.size(), false)) - fill, static_cast<std::int64_t>(keys.size() - from));
      EXPECT_TRUE(run(from, keys.size(), true).ok());
    }
    if (set == 1) {
      EXPECT_LE(table.cell_shift, 5) << "a flat row's: cells of at most 32 indices";
    }
  }
}

TEST(GpuRadixPartition, VisitsEveryFiniteEntryInTheCanonicalOrder) {
  SplitMix64 rng(2026);
  const float kNegInf = -std::numeric_limits<float>::infinity();
  std::vector<float> ties(5000), continuous(5000), small(700);
  for (float& x : ties) x = static_cast<float>(rng.Next() % 8) * 0.125f - 0.5f;  // 8 levels, -0.0 excluded
  for (std::size_t i = 0; i < ties.size(); i += 7) ties[i] = kNegInf;
  for (float& x : continuous) x = static_cast<float>(static_cast<double>(rng.Next() >> 40) * 0x1p-20 - 8.0);
  for (float& x : small) x = static_cast<float>(rng.Next() % 50);
  const std::vector<float> flat(3000, 1.5f);
  struct Row {
    const char* name;
    const std::vector<float>* row;
  };
  for (const Row& r : {Row{"ties and -inf", &ties}, Row{"continuous", &continuous}, Row{"700 entries", &small},
                       Row{"flat", &flat}}) {
    for (bool ascending : {false, true}) {
      SCOPED_TRACE(testing::Message() << r.name << (ascending ? ", ascending" : ", descending"));
      const Visited v = VisitOne(*r.row, ascending, 0);
      EXPECT_EQ(v.indices, SortedFinite(*r.row, ascending));
      // Chunks hold at most 1024 keys, so there are at least ceil(n / 1024) of them; a flat
      // row's keys are known from their indices, so it is one visit of the whole row.
      if (r.row == &flat) {
        EXPECT_EQ(v.chunks, 1);
      } else {
        EXPECT_GE(v.chunks, static_cast<int>((v.indices.size() + 1023) / 1024));
      }
    }
  }
  // A visit that stops after its first chunk has read the first keys of the order only.
  const Visited first = VisitOne(continuous, false, 1);
  EXPECT_EQ(first.chunks, 1);
  const std::vector<std::int64_t> all = SortedFinite(continuous, false);
  ASSERT_LE(first.indices.size(), 1024u);
  EXPECT_EQ(first.indices, std::vector<std::int64_t>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(first.indices.size())));
}

// PartitionAndVisit with every hook on one row (its own 2 x V scratch, gather_small off as
// sampling_filters calls it): the key of rank `rank` (0: none) given to ready, the indices
// visited afterwards, in order, and each thread's folded indices (level 0's scatter read).
struct Partitioned {
  std::uint64_t n = 0;
  std::uint64_t kth = kNoKey;
  std::vector<std::int64_t> indices;
  int chunks = 0;
  std::int64_t logits_bytes = 0;          // loaded from the row
  std::int64_t scratch_store_bytes = 0;   // stored into the scratch buffers
  std::vector<std::vector<std::int64_t>> folded = std::vector<std::vector<std::int64_t>>(kCanonicalLanes);
};

// PartitionOne's fold hook: each thread's folded indices, in the order added.
struct RecordingFold {
  std::vector<std::vector<std::int64_t>>* folded;
  struct Mine {
    std::vector<std::int64_t>* indices;
    void Add(std::uint64_t key) { indices->push_back(IndexOfKey(key)); }
  };
  Mine Take(Thread t) const { return {&(*folded)[static_cast<std::size_t>(t.x)]}; }
  void Give(Thread, const Mine&) const {}
};

template <class Reach = NoPartitionReach>
Partitioned PartitionOne(const std::vector<float>& row, bool ascending, std::int64_t rank, bool sample_first,
                         VisitBound bound = VisitBound::kAll, Reach reach = {}, int stop_after = 0) {
  Partitioned p;
  const auto n = static_cast<std::int64_t>(row.size());
  std::vector<std::uint64_t> scratch(static_cast<std::size_t>(2 * n));
  const LaunchReport report = emu::Launch("partition", 1, kCanonicalLanes, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
    GlobalArray<float> x(const_cast<float*>(row.data()), n, "logits");
    GlobalArray<std::uint64_t> keys(scratch.data(), 2 * n, "order_keys");
    PartitionAndVisit(
        block, x, 0, n, ascending, ascending, kLastNegInfAscending, ascending ? kNoKey : kLastFiniteDescending, keys, 0,
        sorted, false, sample_first, bound,
        [&](std::uint64_t count, std::uint64_t, std::uint64_t) {
          p.n = count;
          return rank;
        },
        RecordingFold{&p.folded},
        [&](std::uint64_t kth) {
          p.kth = kth;
          return true;
        },
        RecordingVisit(block, p.indices, p.chunks, stop_after), reach);
  });
  EXPECT_TRUE(report.ok()) << report.Summary();
  p.logits_bytes = report.counters.GlobalLoadBytes("logits");
  p.scratch_store_bytes = report.counters.Global("order_keys").store_bytes;
  return p;
}

// A splitter bucket whose keys all lie in the top thirty-second of its key range: level 0's
// fifth bucket runs from the splitter at value 5.45 (sample 255) to the one at 4.81 (sample
// 319), and holds only samples 256 to 319, just above 4.81, and 18976 entries tied at 4.8105,
// so one of its 32 parts of equal width (the last, a high half of the paired counts) holds
// every key and the part is refined by radix digits.
TEST(GpuRadixPartition, VisitsInOrderWhenOnePartOfASplitterBucketHoldsEveryKey) {
  std::vector<float> row(20000, 4.8105f);
  for (std::int64_t t = 0; t < kCanonicalLanes; ++t) {
    const double v = t <= 255 ? 8.0 - 0.01 * static_cast<double>(t)
                     : t <= 319 ? 4.81 + 1e-5 * static_cast<double>(319 - t)
                                : 4.0 - 0.01 * static_cast<double>(t - 320);
    row[static_cast<std::size_t>(t * 20000 / kCanonicalLanes)] = static_cast<float>(v);
  }
  const Visited v = VisitOne(row, false, 0);
  EXPECT_EQ(v.indices, SortedFinite(row, false));
}

// Level-0 buckets of about 6250 keys (100000 continuous values): each is cut into 32 parts of
// equal width, two counts to a counter, and adjacent parts form the chunks. Expected order from
// the floats (SortedFinite); chunks hold at most 1024 keys, so there are at least
// ceil(n / 1024) = 98, and a run of parts closes only when the next part does not fit, so a
// chunk holds more than 1024 keys less a part: about 830 with parts of about 195, about 120
// chunks at most (16 parts of about 390 made 129, 2026-11-30).
TEST(GpuRadixPartition, CutsALevelZeroBucketInto32PartsThatFillChunks) {
  SplitMix64 rng(61);
  std::vector<float> row(100000);
  for (float& x : row) x = static_cast<float>(static_cast<double>(rng.Next() >> 40) * 0x1p-20 * 16.0 - 8.0);
  const Visited v = VisitOne(row, false, 0);
  EXPECT_EQ(v.indices, SortedFinite(row, false));
  EXPECT_GE(v.chunks, 98);
  EXPECT_LE(v.chunks, 120);
}

// The first two refined level-0 buckets stay in the threads' registers from the scatter read
// (radix_partition.cuh, contract "Held buckets"): their keys are neither stored by level 0 nor
// loaded by their refinement, except a thread's keys past its kCachedKeys = 16 slots (the
// first bucket's first), which go to their slots and are loaded by the refinement's count and
// again by its scatter. Rows of 32768 distinct values (32 a thread): level 0's 16 buckets of
// about 2048 keys, each refined once into 32 parts of about 64, so every key is stored once by
// level 0 unless held, once by its refinement and loaded once as part of a chunk. The bucket
// sizes and each thread's keys per bucket are computed here from the contract's rule (the
// sample t x V / 1024, splitter j its key of rank 64 (j + 1) - 1) over a stable sort of the
// floats, never from the partition: order_keys stores = 2n - kept, loads = (n - s0 - s1) +
// 2 (s0 + s1 - kept) + n. In the second row the 2048 largest values lie in 64 lanes (32 keys
// each: 16 held in bucket 0, none of bucket 1 for them).
TEST(GpuRadixPartition, HoldsTheFirstTwoRefinedBucketsInRegisters) {
  constexpr std::int64_t kN = 32768;
  std::vector<float> spread(kN), crowded(kN);
  // Distinct values 1 + m x 2^-15, m a permutation of 0 .. kN - 1 (7919 is odd, so coprime with
  // 2^15): exact, and all in [1, 2), so that the order keys are evenly spaced and every part
  // of a bucket's equal-width refinement holds about 64 keys (none is refined again).
  for (std::int64_t i = 0; i < kN; ++i) spread[i] = 1.0f + static_cast<float>((i * 7919) % kN) * 0x1p-15f;
  // The 2048 largest values at the indices whose lane (i mod 1024) is below 64.
  std::int64_t top = kN - 1, rest = kN - 2049;
  for (std::int64_t i = 0; i < kN; ++i) {
    crowded[i] = 1.0f + static_cast<float>(i % kCanonicalLanes < 64 ? top-- : rest--) * 0x1p-15f;
  }
  for (const auto* row : {&spread, &crowded}) {
    SCOPED_TRACE(row == &spread ? "spread" : "crowded");
    const std::vector<std::int64_t> order = SortedFinite(*row, false);
    std::vector<std::int64_t> rank_of(kN);
    for (std::int64_t r = 0; r < kN; ++r) rank_of[order[r]] = r;
    std::vector<std::int64_t> sample;
    for (std::int64_t t = 0; t < kCanonicalLanes; ++t) sample.push_back(rank_of[t * kN / kCanonicalLanes]);
    std::sort(sample.begin(), sample.end());
    std::vector<std::int64_t> upper;  // bucket j: ranks up to upper[j]
    for (int j = 0; j < 15; ++j) upper.push_back(sample[64 * (j + 1) - 1]);
    upper.push_back(kN - 1);
    auto bucket_of = [&](std::int64_t i) {
      return static_cast<int>(std::lower_bound(upper.begin(), upper.end(), rank_of[i]) - upper.begin());
    };
    std::vector<std::int64_t> size(16, 0), kept_of(kCanonicalLanes, 0);
    std::vector<std::vector<std::int64_t>> per_thread(kCanonicalLanes, std::vector<std::int64_t>(2, 0));
    for (std::int64_t i = 0; i < kN; ++i) {
      const int b = bucket_of(i);
      ++size[b];
      if (b < 2) ++per_thread[i % kCanonicalLanes][b];
    }
    for (int b = 0; b < 16; ++b) ASSERT_GT(size[b], kCandidates) << "bucket " << b << " is refined";
    std::int64_t kept = 0;
    for (const auto& c : per_thread) {
      const std::int64_t first = std::min<std::int64_t>(c[0], 16);
      kept += first + std::min<std::int64_t>(c[1], 16 - first);
    }
    const std::int64_t held = size[0] + size[1];
    if (row == &crowded) {
      EXPECT_GT(held, kept);  // some threads' keys do not fit: their slots take them
    } else {
      EXPECT_EQ(held, kept);  // 2 keys a thread per bucket: every one held
    }

    std::vector<std::uint64_t> scratch(static_cast<std::size_t>(2 * kN));
    Visited v;
    const LaunchReport report = emu::Launch("visit", 1, kCanonicalLanes, [&](Block& block) {
      SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
      GlobalArray<float> x(const_cast<float*>(row->data()), kN, "logits");
      GlobalArray<std::uint64_t> keys(scratch.data(), 2 * kN, "order_keys");
      VisitKeysInOrder(block, x, 0, kN, false, false, 0, kLastFiniteDescending, keys, 0, sorted,
                       RecordingVisit(block, v.indices, v.chunks, 0));
    });
    ASSERT_TRUE(report.ok()) << report.Summary();
    EXPECT_EQ(v.indices, order);
    const ArrayTraffic traffic = report.counters.Global("order_keys");
    EXPECT_EQ(traffic.stores, 2 * kN - kept);
    EXPECT_EQ(traffic.loads, (kN - held) + 2 * (held - kept) + kN);
  }
}

// Two barriers a refined bucket, one beside a chunk (radix_partition.cuh, contract "Buckets":
// the count's digit slots, one barrier, and the scatter's, one; "Chunk loop": a refinement of
// the entry after the chunk being sorted shares that step's barrier once no waiting chunk can end
// the walk). The row of HoldsTheFirstTwoRefinedBucketsInRegisters (32768 distinct, evenly spaced
// values: 16 level-0 buckets of about 2048 keys, each refined once into parts of about 64, none
// again) visited by a walk that never stops: the sample's sort (14 barriers: its store, the
// bitonic network over 1024 slots' 12, the splitters' copy; 23 while the network took 21,
// stage by stage, until 2026-12-06; 2 while every thread ranked its key against the 1024 by
// counting, until 2026-12-01), level 0's bucket table (1, since
// 2026-12-02), count (1) and scatter (1); then one step of the chunk loop per chunk, one barrier each; one
// step more before the walk's first verdict (its read-ahead bound is not known: no chunk is read
// beside a chunk that may end the walk), two to walk the last two chunks, and the barrier of the
// last key's read. Bucket 0 is refined before any chunk and bucket 1 before that first verdict,
// each in a step of its own (2 barriers); the 14 others beside a chunk's sort (1 more each): 21 +
// chunks + 2 x 2 + 14 (30 + .. before 2026-12-06, 29 + .. before the bucket table, 8 + ..
// before the sample's network; + 16
// while a count's slots took 2 barriers, + 14 more while every refinement took a step of its
// own).
TEST(GpuRadixPartition, RefinesABucketWithTwoBarriersOrOneBesideAChunk) {
  constexpr std::int64_t kN = 32768;
  std::vector<float> row(kN);
  for (std::int64_t i = 0; i < kN; ++i) row[i] = 1.0f + static_cast<float>((i * 7919) % kN) * 0x1p-15f;
  std::vector<std::uint64_t> scratch(static_cast<std::size_t>(2 * kN));
  Visited v;
  const LaunchReport report = emu::Launch("visit", 1, kCanonicalLanes, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
    GlobalArray<float> x(row.data(), kN, "logits");
    GlobalArray<std::uint64_t> keys(scratch.data(), 2 * kN, "order_keys");
    VisitKeysInOrder(block, x, 0, kN, false, false, 0, kLastFiniteDescending, keys, 0, sorted,
                     RecordingVisit(block, v.indices, v.chunks, 0));
  });
  ASSERT_TRUE(report.ok()) << report.Summary();
  EXPECT_EQ(v.indices, SortedFinite(row, false));
  EXPECT_GE(v.chunks, kN / kCandidates);
  EXPECT_EQ(report.counters.barriers, 21 + v.chunks + 2 * 2 + 14);
}

TEST(GpuRadixPartition, FindsTheKeyOfRankKAndStillVisitsEveryKeyInOrder) {
  // Expected answers from the floats (SortedFinite: a stable sort by value; std::nth_element
  // with the same order for the rank), never from the order keys. The rows reach each path:
  // level-0 buckets of about 1250 keys refined from registers (20000 entries, continuous or 8
  // tied levels with -inf), a bucket of about 99000 tied keys between two splitters (refined
  // from scratch, its digits counted again until the index bits split it), a row with 1400
  // finite entries among 100000 (fewer than 16 sampled: 4-bit radix buckets from level 0), a
  // flat row (no partition), and the same rows without the sample.
  SplitMix64 rng(31);
  const float kNegInf = -std::numeric_limits<float>::infinity();
  std::vector<float> continuous(20000), ties(20000), one_value(100000, 0.5f), few(100000, kNegInf);
  for (float& x : continuous) x = static_cast<float>(static_cast<double>(rng.Next() >> 40) * 0x1p-20 - 8.0);
  for (float& x : ties) x = static_cast<float>(rng.Next() % 8) * 0.125f - 0.5f;
  for (std::size_t i = 3; i < ties.size(); i += 5) ties[i] = kNegInf;
  for (std::int64_t t = 0; t < kCanonicalLanes; ++t) {  // the sampled entries spread, the rest tied
    one_value[static_cast<std::size_t>(t * 100000 / kCanonicalLanes)] =
        static_cast<float>(static_cast<double>(rng.Next() >> 40) * 0x1p-20 * 16.0 - 8.0);
  }
  // 1400 finite entries hold 15 of the sampled indices t x 100000 / 1024 (t = 717 .. 731).
  for (std::size_t i = 70000; i < 71400; ++i) few[i] = static_cast<float>(rng.Next() % 300) * 0.25f;
  const std::vector<float> flat(3000, -2.25f);
  struct Row {
    const char* name;
    const std::vector<float>* row;
  };
  for (const Row& r : {Row{"continuous", &continuous}, Row{"ties and -inf", &ties}, Row{"one tied value", &one_value},
                       Row{"1400 finite", &few}, Row{"flat", &flat}}) {
    for (bool ascending : {false, true}) {
      if (ascending && r.row->size() > 50000) continue;  // fewer emulated rows
      const std::vector<std::int64_t> order = SortedFinite(*r.row, ascending);
      const auto n = static_cast<std::int64_t>(order.size());
      for (std::int64_t rank : {std::int64_t{0}, std::int64_t{1}, n / 2 + 1, n - 1}) {
        for (bool sample_first : {true, false}) {
          if (!sample_first && (rank == 1 || r.row->size() > 50000)) continue;
          SCOPED_TRACE(testing::Message() << r.name << (ascending ? ", ascending" : ", descending") << ", rank "
                                          << rank << (sample_first ? ", sample first" : ""));
          const Partitioned p = PartitionOne(*r.row, ascending, rank, sample_first);
          EXPECT_EQ(p.n, static_cast<std::uint64_t>(n));
          EXPECT_EQ(p.indices, order);
          if (r.row == &flat) {
            // The sample and level 0's read, nothing else: the keys, the rank's and the
            // fold's included, are the value key and the index, and the visit is one.
            const std::int64_t reads = n + (sample_first ? kCanonicalLanes : 0);
            EXPECT_EQ(p.logits_bytes, reads * static_cast<std::int64_t>(sizeof(float)));
            EXPECT_EQ(p.chunks, 1);
          } else {
            EXPECT_GE(p.chunks, static_cast<int>((n + 1023) / 1024));
          }
          if (rank > 0) {
            std::vector<std::int64_t> idx = order;
            std::reverse(idx.begin(), idx.end());  // nth_element from another start than the answer
            const std::vector<float>& x = *r.row;
            std::nth_element(idx.begin(), idx.begin() + (rank - 1), idx.end(), [&](std::int64_t a, std::int64_t b) {
              return ascending ? x[a] < x[b] || (x[a] == x[b] && a < b) : x[a] > x[b] || (x[a] == x[b] && a < b);
            });
            ASSERT_NE(p.kth, kNoKey);
            EXPECT_EQ(IndexOfKey(p.kth), idx[static_cast<std::size_t>(rank - 1)]);
          } else {
            EXPECT_EQ(p.kth, kNoKey);
            // The fold saw each thread's finite entries once, in index order.
            for (std::int64_t t = 0; t < kCanonicalLanes; t += 341) {
              std::vector<std::int64_t> lane;
              for (std::int64_t i = t; i < static_cast<std::int64_t>(r.row->size()); i += kCanonicalLanes) {
                if (std::isfinite((*r.row)[static_cast<std::size_t>(i)])) lane.push_back(i);
              }
              EXPECT_EQ(p.folded[static_cast<std::size_t>(t)], lane) << "thread " << t;
            }
          }
        }
      }
    }
  }
}

// Two rows of 20000 entries: continuous values in [-8, 8), and 8 tied levels with -inf at
// every fifth entry from index 3.
struct TwoRows {
  std::vector<float> continuous = std::vector<float>(20000), ties = std::vector<float>(20000);
};
TwoRows ContinuousAndTiedRows(std::uint64_t seed) {
  SplitMix64 rng(seed);
  TwoRows r;
  for (float& x : r.continuous) x = static_cast<float>(static_cast<double>(rng.Next() >> 40) * 0x1p-20 - 8.0);
  for (float& x : r.ties) x = static_cast<float>(rng.Next() % 8) * 0.125f - 0.5f;
  for (std::size_t i = 3; i < r.ties.size(); i += 5) r.ties[i] = -std::numeric_limits<float>::infinity();
  return r;
}

TEST(GpuRadixPartition, ABoundedVisitCoversTheRankAndItsTiesAndScattersLess) {
  // With a rank and VisitBound::kRankKey the visit is a prefix of the order through the
  // rank's key; with kRankValue, through the last key of the rank's value (its ties). Expected
  // answers from the floats (SortedFinite). A rank in the first of level 0's 16 buckets leaves
  // the other 15 unscattered: the scatter alone stores n keys of 8 bytes when unbounded.
  const TwoRows rows = ContinuousAndTiedRows(47);
  const std::vector<float>& continuous = rows.continuous;
  for (const std::vector<float>* row : {&rows.continuous, &rows.ties}) {
    const std::vector<std::int64_t> order = SortedFinite(*row, false);
    const auto n = static_cast<std::int64_t>(order.size());
    for (std::int64_t rank : {std::int64_t{1}, std::int64_t{700}, n / 2 + 1, n - 1}) {
      for (VisitBound bound : {VisitBound::kRankKey, VisitBound::kRankValue}) {
        SCOPED_TRACE(testing::Message() << (row == &rows.ties ? "ties" : "continuous") << ", rank " << rank
                                        << (bound == VisitBound::kRankKey ? ", to the key" : ", to the value"));
        const Partitioned p = PartitionOne(*row, false, rank, true, bound);
        ASSERT_NE(p.kth, kNoKey);
        EXPECT_EQ(IndexOfKey(p.kth), order[static_cast<std::size_t>(rank - 1)]);
        std::int64_t needed = rank;  // the prefix the visit must cover
        if (bound == VisitBound::kRankValue) {
          const float kth_value = (*row)[static_cast<std::size_t>(order[static_cast<std::size_t>(rank - 1)])];
          while (needed < n && (*row)[static_cast<std::size_t>(order[static_cast<std::size_t>(needed)])] == kth_value) {
            ++needed;
          }
        }
        ASSERT_GE(static_cast<std::int64_t>(p.indices.size()), needed);
        EXPECT_EQ(p.indices, std::vector<std::int64_t>(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(
                                                                                          p.indices.size())));
        if (row == &continuous && rank <= 700) {
          EXPECT_LT(p.scratch_store_bytes, n * 8 / 4);
        }
      }
    }
  }
}

TEST(GpuFloatWord, KeepsEveryBitOfTheFloat) {
  // Known answers from IEEE 754 binary32: 1.0f is 0x3f800000, -0.0f is 0x80000000.
  EXPECT_EQ(FloatWord(1.0f), std::uint64_t{0x3f800000});
  EXPECT_EQ(FloatWord(-0.0f), std::uint64_t{0x80000000});
  EXPECT_EQ(WordFloat(0x3f800000), 1.0f);
  EXPECT_TRUE(std::signbit(WordFloat(FloatWord(-0.0f))));
  const std::uint32_t payload = 0x7fc01234u;  // a quiet NaN with a payload
  float nan;
  std::memcpy(&nan, &payload, sizeof nan);
  EXPECT_EQ(FloatWord(WordFloat(FloatWord(nan))), std::uint64_t{payload});
  EXPECT_EQ(WordFloat(std::uint64_t{0x3f800000} | (std::uint64_t{0xdead} << 32)), 1.0f);  // the high half is free
}

// A reach whose weight is 1 per key: its first scatter stores the fewest level-0 buckets that
// hold `fraction` of the keys (weight +inf: no bound).
struct CountReach {
  float fraction;
  float weight = 1.0f;
  bool Active() const { return true; }
  float Mass(std::uint64_t, std::uint64_t) const { return weight; }
  float Fraction() const { return fraction; }
};

// partition_detail::ReachBuckets: the fewest first buckets whose weight reaches the fraction of
// the total, from 32 warps' sums of each of 16 buckets (one block of 1024 threads). By hand:
// every warp 1 in every bucket (m_b = 32, c_b = 32 (b + 1), total 512): fraction 0.2 needs
// 102.4, first reached by c_3 = 128: 4 buckets; 0.25 needs 128 = c_3 exactly (>=): 4, one
// unit more (0.25 + 2^-24, above 128 in f32) 5; fraction 1 needs c_15: 16; weight in bucket 0
// alone: 1 at any fraction; in bucket 9 alone: 10; +inf or NaN in one warp's sum, or a
// total past FLT_MAX (2^122 in every word: 2^131 in all): 16; all zero: c_b = 0 >= 0: 1.
TEST(GpuRadixPartition, ReachBucketsAreTheFewestThatHoldTheFraction) {
  const float kNan = std::numeric_limits<float>::quiet_NaN();
  auto reach = [](const std::function<float(int, int)>& sum, float fraction) {
    std::uint32_t got = 0;
    const LaunchReport r = emu::Launch("reach buckets", 1, kCanonicalLanes, [&](Block& block) {
      SAMPCHECK_SHARED(block, std::uint64_t, sums, 16 * kWarpSize);
      block.ForEachThread([&](Thread t) {
        if (t.x < 16 * kWarpSize) sums.Store(t.x, FloatWord(sum(t.x / kWarpSize, t.x % kWarpSize)));
      });
      block.Sync();
      got = partition_detail::ReachBuckets(block, sums, fraction);
    });
    EXPECT_TRUE(r.ok()) << r.Summary();
    EXPECT_EQ(r.counters.barriers, 1);
    // 16 loads a thread (the test's 512 stores besides).
    EXPECT_EQ(r.counters.SharedAccesses(), 16 * kCanonicalLanes + 16 * kWarpSize);
    return got;
  };
  auto ones = [](int, int) { return 1.0f; };
  EXPECT_EQ(reach(ones, 0.2f), 4u);
  EXPECT_EQ(reach(ones, 0.25f), 4u);
  EXPECT_EQ(reach(ones, std::nextafter(0.25f, 1.0f)), 5u);
  EXPECT_EQ(reach(ones, 1.0f), 16u);
  EXPECT_EQ(reach([](int b, int) { return b == 0 ? 3.0f : 0.0f; }, 0.9f), 1u);
  EXPECT_EQ(reach([](int b, int w) { return b == 9 && w == 17 ? 1.0f : 0.0f; }, 0.5f), 10u);
  EXPECT_EQ(reach([](int b, int w) { return b == 2 && w == 5 ? kInf : 1.0f; }, 0.2f), 16u);
  EXPECT_EQ(reach([&](int b, int w) { return b == 2 && w == 5 ? kNan : 1.0f; }, 0.2f), 16u);
  EXPECT_EQ(reach([](int, int) { return 0x1p122f; }, 0.2f), 16u);
  EXPECT_EQ(reach([](int, int) { return 0.0f; }, 0.2f), 1u);
}

TEST(GpuRadixPartition, AReachScattersItsBucketsFirstAndTheRestWhenTheVisitGetsThere) {
  // Expected answers from the floats (SortedFinite). A reach of a fifth of the keys scatters
  // about 4 of level 0's 16 buckets at first: a visit stopped in the first chunk stores well
  // under half of the n keys; a full visit reads the rest (their own count and scatter, two
  // more reads of the row) and still sees every key in order, with or without a rank (the
  // gap then lies between the reach and the rank's bucket, which is refined first).
  const TwoRows rows = ContinuousAndTiedRows(53);
  for (const std::vector<float>* row : {&rows.continuous, &rows.ties}) {
    const std::vector<std::int64_t> order = SortedFinite(*row, false);
    const auto n = static_cast<std::int64_t>(order.size());
    const std::int64_t row_bytes = static_cast<std::int64_t>(row->size() * sizeof(float));
    SCOPED_TRACE(row == &rows.ties ? "ties" : "continuous");
    const Partitioned unbounded = PartitionOne(*row, false, 0, true);
    const Partitioned first = PartitionOne(*row, false, 0, true, VisitBound::kAll, CountReach{0.2f}, 1);
    EXPECT_EQ(first.chunks, 1);
    EXPECT_LT(first.scratch_store_bytes, n * 8 / 2);
    EXPECT_EQ(first.logits_bytes, unbounded.logits_bytes);
    ASSERT_LE(first.indices.size(), 1024u);
    EXPECT_EQ(first.indices, std::vector<std::int64_t>(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(
                                                                                          first.indices.size())));
    const Partitioned all = PartitionOne(*row, false, 0, true, VisitBound::kAll, CountReach{0.2f});
    EXPECT_EQ(all.indices, order);
    EXPECT_EQ(all.logits_bytes, unbounded.logits_bytes + 2 * row_bytes);
    const Partitioned no_bound = PartitionOne(*row, false, 0, true, VisitBound::kAll, CountReach{0.2f, kInf});
    EXPECT_EQ(no_bound.indices, order);
    EXPECT_EQ(no_bound.logits_bytes, unbounded.logits_bytes);
    for (std::int64_t rank : {n / 2 + 1, n - 1}) {
      SCOPED_TRACE(testing::Message() << "rank " << rank);
      const Partitioned p = PartitionOne(*row, false, rank, true, VisitBound::kRankValue, CountReach{0.2f});
      ASSERT_NE(p.kth, kNoKey);
      EXPECT_EQ(IndexOfKey(p.kth), order[static_cast<std::size_t>(rank - 1)]);
      ASSERT_GE(static_cast<std::int64_t>(p.indices.size()), rank);
      EXPECT_EQ(p.indices, std::vector<std::int64_t>(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(
                                                                                        p.indices.size())));
    }
  }
}

// GatherTopKCandidates on one row: whether the candidates fit, their number, and the keys in
// lane order (grouped) and in the canonical order (sorted).
struct Gathered {
  bool ok = false;
  std::uint32_t total = 0;
  std::uint64_t first = 0;
  std::vector<std::uint64_t> grouped, sorted;
};

template <bool kLaneGrouped = true>
Gathered GatherOne(std::vector<float> row, std::int64_t k, bool ties) {
  Gathered g;
  const auto v = static_cast<std::int64_t>(row.size());
  const LaunchReport report = emu::Launch("gather", 1, kCanonicalLanes, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, grouped, kCandidates);
    SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
    auto offset = Registers<std::uint32_t>(block);
    auto count = Registers<std::uint32_t>(block);
    const GlobalArray<float> in(row.data(), v, "row");
    if constexpr (kLaneGrouped) {
      g.ok = GatherTopKCandidates(block, in, 0, v, k, ties, grouped, sorted, offset, count, g.total, g.first);
    } else {
      g.ok = GatherSortedTopKCandidates(block, in, 0, v, k, ties, sorted, g.total, g.first);
    }
    if (!g.ok) return;
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      for (std::uint32_t i = 0; i < g.total; ++i) {
        if (kLaneGrouped) g.grouped.push_back(grouped.Load(i));  // GatherSortedTopKCandidates leaves it
        g.sorted.push_back(sorted.Load(i));
      }
    });
  });
  EXPECT_TRUE(report.ok()) << report.Summary();
  return g;
}

// A row holding a NaN or a +inf stops after the first read (docs/spec/filters.md "Degenerate
// rows": the caller's rule decides it), with the row's first key: OrderKey puts every NaN first
// (value key 0, the first by index) and +inf next (value key 0x007fffff = ~0xff800000).
TEST(GpuTopKSurvivors, StopsAtARowHoldingANanOrAnInfinity) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const Gathered a = GatherOne({1.0f, inf, nan, 2.0f, nan}, 2, false);
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.first, 0x0000000000000002ull);
  const Gathered b = GatherOne({1.0f, 3.0f, inf, inf}, 2, true);
  EXPECT_FALSE(b.ok);
  EXPECT_EQ(b.first, 0x007fffff00000002ull);
  const Gathered c = GatherOne({1.0f, 3.0f, 3.0f, 2.0f}, 2, true);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.first, 0x3fbfffff00000001ull);  // the key of (3, index 1), as below
}

TEST(GpuTopKSurvivors, GathersTheCandidatesInLaneAndCanonicalOrder) {
  // The contract's example, keys as in KthKeyOfTheCanonicalOrder: the maxima are the entries
  // themselves, T = (3, index 2), so the candidates are indices 1 and 2 under both rules.
  const std::vector<float> row = {1.0f, 3.0f, 3.0f, 2.0f};
  for (bool ties : {false, true}) {
    const Gathered g = GatherOne(row, 2, ties);
    ASSERT_TRUE(g.ok);
    EXPECT_EQ(g.total, 2u);
    EXPECT_EQ(g.grouped, (std::vector<std::uint64_t>{0x3fbfffff00000001ull, 0x3fbfffff00000002ull}));
    EXPECT_EQ(g.sorted, g.grouped);
  }
  // Lane order differs from the canonical one: lane 5 holds the two largest entries, 5 (1.0)
  // before 1029 (2.0); the rest is -1.0 but for 7 (0.5).
  std::vector<float> two(2048, -1.0f);
  two[5] = 1.0f;
  two[1029] = 2.0f;
  two[7] = 0.5f;
  // k <= 64: the tree path (gpu/block/lane_key_tree.cuh) under both rules: lane 5's three
  // smallest are 1029 and 5, no lane holds four keys, and no entry ties with the k-th (5, 1.0):
  // the top 2 exactly. (The threads' maxima would bound the candidates at (0.5, 7), letting 7
  // through too.) 2.0f = 0x40000000 -> descending 0x3fffffff; 1.0f -> 0x407fffff.
  for (bool ties : {false, true}) {
    const Gathered g = GatherOne(two, 2, ties);
    ASSERT_TRUE(g.ok);
    EXPECT_EQ(g.grouped, (std::vector<std::uint64_t>{0x407fffff00000005ull, 0x3fffffff00000405ull}));
    EXPECT_EQ(g.sorted, (std::vector<std::uint64_t>{0x3fffffff00000405ull, 0x407fffff00000005ull}));
  }
  // Ties kept across a flat row: every one of 3000 entries ties with K, more than 1024.
  EXPECT_FALSE(GatherOne(std::vector<float>(3000, 1.0f), 50, true).ok);
  // Exactly k on the same row: T = (1, index 49), the first 50 indices, one per lane.
  EXPECT_EQ(GatherOne(std::vector<float>(3000, 1.0f), 50, false).total, 50u);
}

// The scan words of gpu/block/cached_candidates.cuh on its contract's example: counts {3, 9,
// 0} with a cache of 8 scan to offsets {0, 3, 12} and a total of 12 with one cache short;
// counts above kCandidates saturate at 1025, so a block's total still reads "more than 1024".
TEST(GpuTopKSurvivors, PacksCountsAndOverflow) {
  const std::uint32_t words[] = {PackCandidateCount(3, 8), PackCandidateCount(9, 8), PackCandidateCount(0, 8)};
  EXPECT_EQ(words[1], 9u + (1u << 21));
  std::uint32_t run = 0;
  std::vector<std::uint32_t> offsets;
  for (std::uint32_t w : words) offsets.push_back(CandidatesOfPacked(run)), run += w;
  EXPECT_EQ(offsets, (std::vector<std::uint32_t>{0, 3, 12}));
  EXPECT_EQ(CandidatesOfPacked(run), 12u);
  EXPECT_TRUE(AnyOverflowed(run));
  EXPECT_FALSE(AnyOverflowed(words[0] + words[2]));
  // 1024 threads of 1025+ candidates each: the sum stays below the flag bits.
  EXPECT_EQ(CandidatesOfPacked(1024u * PackCandidateCount(5000, 1 << 20)), 1024u * 1025u);
}

// LaneKeys (gpu/block/cached_candidates.cuh) against a sort: each lane's kLaneKept smallest
// keys, ascending, ~0 past a lane's keys, whatever the value words (runs of equal values, as
// on flat rows, and descending runs that push every kept key along), with a lane's keys added
// in increasing index order as its contract asks; First is the lane's minimum.
TEST(GpuTopKSurvivors, LaneKeysKeepEachLanesSmallestKeys) {
  std::mt19937_64 rng(20261204);
  for (int trial = 0; trial < 400; ++trial) {
    LaneKeys<3> kept;
    kept.Clear();
    std::vector<std::uint64_t> added[3];
    const int n = static_cast<int>(rng() % 40);
    const std::uint32_t spread = trial % 4 == 0 ? 1u : trial % 4 == 1 ? 4u : 0xff800000u;
    for (int i = 0; i < n; ++i) {
      const int lane = static_cast<int>(rng() % 3);
      std::uint32_t value = static_cast<std::uint32_t>(rng() % spread);
      if (trial % 4 == 3) value = 0xff800000u - static_cast<std::uint32_t>(i);  // every key a new minimum
      const std::uint64_t key = (std::uint64_t{value} << 32) | static_cast<std::uint32_t>(i);
      kept.Add(lane, key);
      added[lane].push_back(key);
    }
    for (int lane = 0; lane < 3; ++lane) {
      std::vector<std::uint64_t> want = added[lane];
      std::sort(want.begin(), want.end());
      want.resize(kLaneKept, ~std::uint64_t{0});
      EXPECT_EQ(std::vector<std::uint64_t>(kept.key[lane], kept.key[lane] + kLaneKept), want) << "trial " << trial;
      EXPECT_EQ(kept.First(lane), want[0]);
    }
  }
}

// SmallestKeys (gpu/kernels/sampling_filters_on_partition.cuh) against a sort: after offers
// in increasing index order and Order, ForEachUpTo(bound) visits the kSmallestKeys smallest
// offered keys that are <= bound, in increasing index order, and Holds(bound) says whether
// every offered key <= bound is among them (for bounds below kNoKey). Values run from all
// equal (every offer past the first 24 dropped) through few distinct ones to descending runs
// (every offer a replacement at the heap's root).
TEST(GpuHeldKeys, SmallestKeysHoldTheSmallestInIndexOrder) {
  std::mt19937_64 rng(20261205);
  const auto index_of = [](std::uint64_t key) { return static_cast<std::uint32_t>(key); };
  for (int trial = 0; trial < 600; ++trial) {
    SmallestKeys held;
    held.Reset();
    std::vector<std::uint64_t> offered;
    const int n = static_cast<int>(rng() % 120);
    const std::uint32_t spread = trial % 4 == 0 ? 1u : trial % 4 == 1 ? 6u : 0xff800000u;
    std::uint32_t index = static_cast<std::uint32_t>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      std::uint32_t value = 1u + static_cast<std::uint32_t>(rng() % spread);
      if (trial % 4 == 3) value = 0xff800000u - static_cast<std::uint32_t>(i);
      const std::uint64_t key = (std::uint64_t{value} << 32) | index;
      held.Offer(key);
      offered.push_back(key);
      index += 1u + static_cast<std::uint32_t>(rng() % 3000);
    }
    held.Order();
    std::vector<std::uint64_t> smallest = offered;
    std::sort(smallest.begin(), smallest.end());
    if (smallest.size() > static_cast<std::size_t>(kSmallestKeys)) smallest.resize(kSmallestKeys);
    std::vector<std::uint64_t> bounds = {0, kNoKey};
    for (std::uint64_t key : offered) {
      bounds.push_back(key);
      bounds.push_back(key - 1);
    }
    for (std::uint64_t bound : bounds) {
      std::vector<std::uint64_t> want;
      for (std::uint64_t key : smallest) {
        if (key <= bound) want.push_back(key);
      }
      std::sort(want.begin(), want.end(), [&](std::uint64_t a, std::uint64_t b) { return index_of(a) < index_of(b); });
      std::vector<std::uint64_t> got;
      held.ForEachUpTo(bound, [&](std::uint64_t key) { got.push_back(key); });
      ASSERT_EQ(got, want) << "trial " << trial << " bound " << bound;
      const bool all_held = std::all_of(offered.begin(), offered.end(), [&](std::uint64_t key) {
        return key > bound || std::find(smallest.begin(), smallest.end(), key) != smallest.end();
      });
      if (bound == kNoKey) continue;  // no key's bound: Holds' bounds are keys (kNoKey is none)
      ASSERT_EQ(held.Holds(bound), all_held) << "trial " << trial << " bound " << bound;
    }
  }
}

// The partition's first read offers through HeldSmallestKeys' Take, Mine::Offer and Give
// (gpu/kernels/sampling_filters_on_partition.cuh), which keep whether the keys are full, the
// root and `dropped` in registers and reach the heap only when a key enters it: the thread's
// SmallestKeys and LargestKeys end as offering every key to them directly leaves them (the
// same held keys, count and `dropped`, the same largest four), with the offers split over two
// Take / Give rounds, as a hook's state must survive between reads. Same values as above.
TEST(GpuHeldKeys, TakeOfferAndGiveKeepWhatDirectOffersKeep) {
  struct OneThread {
    SmallestKeys keys;
    SmallestKeys& operator[](Thread) { return keys; }
  };
  struct OneThreadLargest {
    LargestKeys keys;
    LargestKeys& operator[](Thread) { return keys; }
  };
  std::mt19937_64 rng(20261206);
  for (int trial = 0; trial < 600; ++trial) {
    SmallestKeys direct;
    direct.Reset();
    LargestKeys direct_largest;
    direct_largest.Reset();
    OneThread held;
    held.keys.Reset();
    OneThreadLargest largest;
    largest.keys.Reset();
    const HeldSmallestKeys<OneThread, OneThreadLargest, int> hook{&held, &largest, nullptr, true};
    const int n = static_cast<int>(rng() % 120);
    const int split = n == 0 ? 0 : static_cast<int>(rng() % static_cast<std::uint64_t>(n));
    const std::uint32_t spread = trial % 4 == 0 ? 1u : trial % 4 == 1 ? 6u : 0xff800000u;
    std::uint32_t index = static_cast<std::uint32_t>(rng() % 4);
    auto mine = hook.Take(Thread{0});
    for (int i = 0; i < n; ++i) {
      if (i == split) {
        hook.Give(Thread{0}, mine);
        mine = hook.Take(Thread{0});
      }
      std::uint32_t value = 1u + static_cast<std::uint32_t>(rng() % spread);
      if (trial % 4 == 3) value = 0xff800000u - static_cast<std::uint32_t>(i);
      const std::uint64_t key = (std::uint64_t{value} << 32) | index;
      direct.Offer(key);
      direct_largest.Offer(key);
      mine.Offer(key);
      index += 1u + static_cast<std::uint32_t>(rng() % 3000);
    }
    hook.Give(Thread{0}, mine);
    ASSERT_EQ(held.keys.count, direct.count) << "trial " << trial;
    ASSERT_EQ(held.keys.dropped, direct.dropped) << "trial " << trial;
    for (int j = 0; j < direct.count; ++j) ASSERT_EQ(held.keys.key[j], direct.key[j]) << "trial " << trial;
    for (int j = 0; j < kLargestKeys; ++j) ASSERT_EQ(largest.keys.key[j], direct_largest.key[j]) << "trial " << trial;
  }
}

// The order ForEachUpTo trusts, checked by the emulator: keys 0 to 23 with falling values make
// a heap in index order (each below its parent); key 24, below them all, takes the root's
// place and sifts down (indices 1, 3, 7 and 15 move up), so slot 1 holds index 3 before slot
// 2's 2: without Order the visit aborts the host.
TEST(GpuHeldKeysDeathTest, ForEachRefusesKeysOutOfIndexOrder) {
  auto unordered = [] {
    SmallestKeys held;
    held.Reset();
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(kSmallestKeys); ++i) {
      held.Offer((std::uint64_t{100u - i} << 32) | i);
    }
    held.Offer((std::uint64_t{1} << 32) | 24u);
    held.ForEachUpTo(kNoKey, [](std::uint64_t) {});
  };
  EXPECT_DEATH(unordered(), "assertion failed");
}

// Its precondition, checked by the emulator: a key whose index is not above a kept one's of
// the lane (the value-word compare would put it after a kept key of the same value), or
// whose value word is all ones (not below an empty slot), aborts the host.
TEST(GpuTopKSurvivorsDeathTest, LaneKeysRefuseKeysOutOfIndexOrder) {
  auto out_of_order = [] {
    LaneKeys<1> kept;
    kept.Clear();
    kept.Add(0, (std::uint64_t{5} << 32) | 7u);
    kept.Add(0, (std::uint64_t{5} << 32) | 3u);
  };
  EXPECT_DEATH(out_of_order(), "assertion failed");
  auto all_ones = [] {
    LaneKeys<1> kept;
    kept.Clear();
    kept.Add(0, (std::uint64_t{0xffffffffu} << 32) | 1u);
  };
  EXPECT_DEATH(all_ones(), "assertion failed");
}

// BlockExclusiveScan (gpu/block/block_exclusive_scan.cuh) on the emulator, every check on:
// the contract's example by hand (counts {3, 9, 0, 1} then 0: offsets {0, 3, 12, 12, 13, ..},
// total 13), and 1024 random counts against std::exclusive_scan, for blocks of 32, 128 and
// 1024 threads (one barrier each, one shared read a thread).
template <int kThreads>
std::vector<std::uint32_t> ScanByWarps(const std::vector<std::uint32_t>& counts, std::uint32_t& total) {
  std::vector<std::uint32_t> offsets(kThreads);
  const LaunchReport report = emu::Launch("scan", 1, kThreads, [&](Block& block) {
    auto count = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) { count[t] = counts[static_cast<std::size_t>(t.x)]; });
    auto offset = BlockExclusiveScan<kThreads>(block, count, total);
    block.ForEachThread([&](Thread t) { offsets[static_cast<std::size_t>(t.x)] = offset[t]; });
  });
  EXPECT_TRUE(report.ok()) << report.Summary();
  EXPECT_EQ(report.counters.barriers, 1);
  // A shared store by each warp's lane 0, then one shared read a thread: the warps' sums reach
  // every lane by shuffles (each thread read all of them before 2026-12-01).
  EXPECT_EQ(report.counters.critical_intervals, (std::vector<std::int64_t>{1, 1}));
  return offsets;
}

TEST(GpuBlockExclusiveScan, ScansCountsInThreadOrder) {
  std::vector<std::uint32_t> counts(32, 0);
  counts[0] = 3, counts[1] = 9, counts[3] = 1;
  std::uint32_t total = 0;
  const std::vector<std::uint32_t> offsets = ScanByWarps<32>(counts, total);
  EXPECT_EQ(std::vector<std::uint32_t>(offsets.begin(), offsets.begin() + 5),
            (std::vector<std::uint32_t>{0, 3, 12, 12, 13}));
  EXPECT_EQ(offsets[31], 13u);
  EXPECT_EQ(total, 13u);
  SplitMix64 rng(31);
  std::vector<std::uint32_t> wide(1024);
  for (auto& c : wide) c = static_cast<std::uint32_t>(rng.Next() >> 54);  // 0 .. 1023
  auto check = [&](auto scan, int threads) {
    const std::vector<std::uint32_t> in(wide.begin(), wide.begin() + threads);
    std::vector<std::uint32_t> expected(in.size());
    std::exclusive_scan(in.begin(), in.end(), expected.begin(), 0u);
    std::uint32_t t = 0;
    EXPECT_EQ(scan(in, t), expected) << threads;
    EXPECT_EQ(t, expected.back() + in.back()) << threads;
  };
  check([](const auto& in, std::uint32_t& t) { return ScanByWarps<128>(in, t); }, 128);
  check([](const auto& in, std::uint32_t& t) { return ScanByWarps<1024>(in, t); }, 1024);
}

// The partition's digit slots (gpu/block/radix_partition.cuh, DigitSlots) for a block of 1024
// threads with 16 counts each: thread t's first slot for digit d is the number of keys counted
// before it in (digit, warp, lane from the last) order, the order the contract fixes, and
// start[d] the number in digits below d, computed here by nested loops over the counts. With
// counts two to a word (32 parts in 16-bit halves, totals below 2^16) each half is scanned on
// its own. One barrier a scan: a refined bucket's count pays no more (3 barriers a refinement
// while warp 0 scanned the warps' totals between two barriers, 2026-11-30); 8 stores and 8
// loads on the busiest thread (16 stores and 16 loads until 2026-12-02).
TEST(GpuRadixPartition, DigitSlotsGivesEveryThreadItsSlotsWithOneBarrier) {
  SplitMix64 rng(97);
  for (bool paired : {false, true}) {
    SCOPED_TRACE(paired ? "two counts to a word" : "one count to a word");
    std::vector<DigitCounts> in(kCanonicalLanes);
    for (DigitCounts& d : in) {
      for (std::uint32_t& c : d.c) {
        // Totals: up to 1024 x 16 x 3 = 49152 keys a half when paired, 1024 x 16 x 255 otherwise.
        c = paired ? static_cast<std::uint32_t>(rng.Next() % 4) | static_cast<std::uint32_t>(rng.Next() % 4) << 16
                   : static_cast<std::uint32_t>(rng.Next() % 256);
      }
    }
    std::vector<DigitCounts> out(kCanonicalLanes);
    std::uint32_t start[17] = {};
    const LaunchReport report = emu::Launch("digit slots", 1, kCanonicalLanes, [&](Block& block) {
      SAMPCHECK_SHARED(block, std::uint64_t, warp_pairs, 8 * kWarpSize);
      auto counts = Registers<DigitCounts>(block);
      auto slots = Registers<DigitCounts>(block);
      block.ForEachThread([&](Thread t) { counts[t] = in[static_cast<std::size_t>(t.x)]; });
      partition_detail::DigitStarts s{};
      partition_detail::DigitSlots(block, counts, slots, warp_pairs, s);
      block.ForEachThread([&](Thread t) { out[static_cast<std::size_t>(t.x)] = slots[t]; });
      std::copy(std::begin(s.s), std::end(s.s), std::begin(start));
    });
    ASSERT_TRUE(report.ok()) << report.Summary();
    EXPECT_EQ(report.counters.barriers, 1);
    // The busiest thread: lane 0's 8 stores (a word of two digits' warp totals each), then 8
    // loads (a word of two digits each).
    EXPECT_EQ(report.counters.critical_intervals, (std::vector<std::int64_t>{8, 8}));
    for (int half = 0; half < (paired ? 2 : 1); ++half) {
      const int shift = 16 * half;
      const std::uint32_t mask = paired ? 0xffffu : 0xffffffffu;
      auto part = [&](std::uint32_t word) { return (word >> shift) & mask; };
      std::uint32_t slot = 0;
      for (int d = 0; d < 16; ++d) {
        EXPECT_EQ(part(start[d]), slot) << "half " << half << ", digit " << d;
        for (int w = 0; w < kCanonicalLanes / kWarpSize; ++w) {
          for (int lane = kWarpSize - 1; lane >= 0; --lane) {
            const auto t = static_cast<std::size_t>(w * kWarpSize + lane);
            ASSERT_EQ(part(out[t].c[d]), slot) << "half " << half << ", digit " << d << ", thread " << t;
            slot += part(in[t].c[d]);
          }
        }
      }
      EXPECT_EQ(part(start[16]), slot) << "half " << half;
    }
  }
}

// The contract's bound and top k of a row whose threads read the shares share_of(i) (k <= 64:
// the tree path, gpu/block/lane_key_tree.cuh): the keys, the k smallest keys
// (std::partial_sort), T = the k-th smallest of the shares' 3 smallest keys
// (std::nth_element), and whether a share's fourth is <= it (`tree_short`).
struct SharesBound {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> top;
  std::uint64_t tree_bound = 0;
  bool tree_short = false;
};
template <class ShareOf>
SharesBound BoundOverShares(const std::vector<float>& row, std::int64_t k, ShareOf share_of) {
  SharesBound b;
  std::vector<std::vector<std::uint64_t>> shares(kCanonicalLanes);
  for (std::size_t i = 0; i < row.size(); ++i) {
    b.keys.push_back(OrderKey(row[i], static_cast<std::int64_t>(i), false));
    shares[static_cast<std::size_t>(share_of(static_cast<std::int64_t>(i)))].push_back(b.keys.back());
  }
  std::vector<std::uint64_t> three;
  for (auto& share : shares) {
    std::sort(share.begin(), share.end());
    for (std::size_t j = 0; j < share.size() && j < 3; ++j) three.push_back(share[j]);
  }
  std::nth_element(three.begin(), three.begin() + (k - 1), three.end());
  b.tree_bound = three[static_cast<std::size_t>(k - 1)];
  for (const auto& share : shares) b.tree_short = b.tree_short || (share.size() > 3 && share[3] <= b.tree_bound);
  b.top = b.keys;
  std::partial_sort(b.top.begin(), b.top.begin() + k, b.top.end());
  b.top.resize(static_cast<std::size_t>(k));
  return b;
}

// The candidates of `keys` (the contract's rule against `bound`) by canonical lanes, each lane
// in index order (ByCanonicalLane, tests/lane_order.h), and in the canonical order (std::sort).
struct ExpectedCandidates {
  std::vector<std::uint64_t> grouped, sorted;
};
ExpectedCandidates CandidatesOf(const std::vector<std::uint64_t>& keys, std::uint64_t bound, bool ties) {
  ExpectedCandidates e;
  for (std::uint64_t key : keys) {
    if (ties ? (key >> 32) <= (bound >> 32) : key <= bound) e.sorted.push_back(key);
  }
  e.grouped = ByCanonicalLane(e.sorted);
  std::sort(e.sorted.begin(), e.sorted.end());
  return e;
}
// What the gathers return for k <= 64 (the contract's tree path): the candidates up to the
// tree's T by the rule, whether the tree's keys were every one (then T is the row's k-th key)
// or a lane's fourth was one (then they are gathered up to T).
ExpectedCandidates GatheredOf(const SharesBound& b, bool ties) { return CandidatesOf(b.keys, b.tree_bound, ties); }

// Both gathers keep each thread's 6 smallest keys in read 1 (LaneKeys,
// gpu/block/cached_candidates.cuh) and read their share again, four elements a load, only when
// a thread holds 6 or more candidates: on a row of V = 16384 (4096 quads from a 16-byte
// boundary, so thread t's share is the quads q = t mod 1024) whose c largest values sit in
// thread 3's share, c = 0 reads once, c = 7 twice (7 >= 6 candidates on thread 3, within its
// count's cache of 8), c = 16 three times (16 > 8). Expected: the contract's candidates (k =
// 20: the tree path's T, BoundOverShares, a fourth key of share 3 among them when c > 3),
// sorted, and for GatherTopKCandidates by canonical lanes (CandidatesOf); the first k the row's
// k largest (std::partial_sort).
template <bool kLaneGrouped>
void ExpectGatherReadsOnceUnlessAThreadHoldsSix() {
  constexpr std::int64_t kV = 16384, kK = 20;
  struct Crowd {
    int c;
    std::int64_t passes;
  };
  auto share_of = [](std::int64_t i) { return i / 4 % kCanonicalLanes; };
  for (const Crowd crowd : {Crowd{0, 1}, Crowd{7, 2}, Crowd{16, 3}}) {
    const std::vector<float> row = CrowdedRow(crowd.c == 16 ? 7 : 8, kV, crowd.c, share_of, 3);
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(row.data()) % 16, 0u);
    const SharesBound b = BoundOverShares(row, kK, share_of);
    const std::vector<std::uint64_t>& top = b.top;
    EXPECT_EQ(b.tree_short, crowd.c > 3);  // share 3's fourth key among the top k
    for (bool ties : {false, true}) {
      SCOPED_TRACE(testing::Message() << crowd.c << " crowded" << (ties ? ", ties" : ""));
      const ExpectedCandidates e = GatheredOf(b, ties);
      int on_share_3 = 0;
      for (std::uint64_t key : e.sorted) on_share_3 += share_of(IndexOfKey(key)) == 3;
      EXPECT_GE(on_share_3, crowd.c);
      EXPECT_EQ(on_share_3 >= kLaneKept, crowd.passes >= 2);
      EXPECT_EQ(on_share_3 > kCachedCandidates, crowd.passes == 3);
      LaunchRecorder recorder;
      const Gathered g = GatherOne<kLaneGrouped>(row, kK, ties);
      ASSERT_TRUE(g.ok);
      EXPECT_EQ(g.total, e.sorted.size());
      EXPECT_EQ(g.sorted, e.sorted);
      if (kLaneGrouped) {
        EXPECT_EQ(g.grouped, e.grouped);
      }
      EXPECT_EQ(std::vector<std::uint64_t>(g.sorted.begin(), g.sorted.begin() + kK), top);
      ASSERT_EQ(recorder.launches().size(), 1u);
      const ArrayTraffic row_traffic = recorder.launches()[0].Global("row");
      EXPECT_EQ(row_traffic.load_bytes, crowd.passes * kV * 4);
      EXPECT_EQ(row_traffic.loads, crowd.passes * kV / 4);
    }
  }
}

TEST(GpuTopKSurvivors, SortedOnlyGatherReadsTheRowOnceUnlessAThreadHoldsSix) {
  ExpectGatherReadsOnceUnlessAThreadHoldsSix<false>();
}

// Since 2026-12-03 the one-block rows' gather too: the lane grouping comes from the sorted
// candidates (GroupCandidatesByLane), not from reads by canonical lanes.
TEST(GpuTopKSurvivors, LaneGroupedGatherReadsTheRowOnceUnlessAThreadHoldsSix) {
  ExpectGatherReadsOnceUnlessAThreadHoldsSix<true>();
}

// A row whose 16 largest values sit on one canonical lane (3: indices 3, 1027, ..., in the
// shares of threads 0, 256, 512 and 768, four each) is read once, and lane 3 holds 16 or more
// candidates in index order in `grouped` (offsets by canonical lanes, not by shares); until
// 2026-12-03 it overflowed lane 3's cache of 8 and took three reads.
TEST(GpuTopKSurvivors, GroupsALaneOfManyCandidatesFromOneRead) {
  constexpr std::int64_t kV = 16384, kK = 20;
  const std::vector<float> row = CrowdedRow(7, kV, 16, [](std::int64_t i) { return i % kCanonicalLanes; }, 3);
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(row.data()) % 16, 0u);
  const SharesBound b = BoundOverShares(row, kK, [](std::int64_t i) { return i / 4 % kCanonicalLanes; });
  const std::vector<std::uint64_t>& top = b.top;
  EXPECT_TRUE(b.tree_short);  // four of lane 3's keys in each of four shares: the tree's other case
  for (bool ties : {false, true}) {
    SCOPED_TRACE(ties ? "ties" : "no ties");
    const ExpectedCandidates e = GatheredOf(b, ties);
    int on_lane_3 = 0;
    for (std::uint64_t key : e.grouped) on_lane_3 += IndexOfKey(key) % kCanonicalLanes == 3;
    EXPECT_GE(on_lane_3, 16);
    LaunchRecorder recorder;
    const Gathered g = GatherOne(row, kK, ties);
    ASSERT_TRUE(g.ok);
    EXPECT_EQ(g.grouped, e.grouped);
    EXPECT_EQ(g.sorted, e.sorted);
    EXPECT_EQ(std::vector<std::uint64_t>(g.sorted.begin(), g.sorted.begin() + kK), top);
    ASSERT_EQ(recorder.launches().size(), 1u);
    EXPECT_EQ(recorder.launches()[0].GlobalLoadBytes("row"), kV * 4);
  }
}

// WarpMin (gpu/block/warp_min.cuh), the contract's example: lanes holding 31 - lane in warp 0
// and 100 + lane in warp 1 end with 0 and 100 in every lane; u64 keys that differ only in the
// low word, and a block of one warp; no barrier, no shared access.
TEST(GpuWarpMin, EveryLaneHoldsItsWarpsMinimum) {
  std::vector<std::uint32_t> got(64);
  const LaunchReport r = emu::Launch("warp min", 1, 64, [&](Block& block) {
    auto v = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) {
      const auto lane = static_cast<std::uint32_t>(t.lane());
      v[t] = t.warp() == 0 ? 31u - lane : 100u + lane;
    });
    WarpMin(block, v);
    block.ForEachThread([&](Thread t) { got[static_cast<std::size_t>(t.x)] = v[t]; });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(got[static_cast<std::size_t>(i)], i < 32 ? 0u : 100u) << i;
  EXPECT_EQ(r.counters.barriers, 0);
  EXPECT_EQ(r.counters.SharedAccesses(), 0);
  std::uint64_t least = 0;
  const LaunchReport r64 = emu::Launch("warp min u64", 1, 32, [&](Block& block) {
    auto v = Registers<std::uint64_t>(block);
    block.ForEachThread([&](Thread t) { v[t] = std::uint64_t{7} << 32 | static_cast<std::uint64_t>(40 - t.lane()); });
    WarpMin(block, v);
    least = BlockUniform(block, v);
  });
  ASSERT_TRUE(r64.ok()) << r64.Summary();
  EXPECT_EQ(least, (std::uint64_t{7} << 32) | 9u);
}

// CombineWarpValues (gpu/block/warp_min.cuh): four warps' values stored by their lane 0, read
// back one load a thread. Integers by hand: the sum 100 + 101 + 5 + 103 = 309, the minimum 5,
// the OR 103. Floats: lanes 0 .. 3 hold 0.1, 1e8, -1e8 and 3 (lanes 4 .. 31
// the identity +0), so the butterfly gives (0.1 + 1e8) + (-1e8 + 3) = 1e8 + -1e8 = 0 in f32
// (the f32 spacing near 1e8 is 8: 1e8 + 0.1 rounds to 1e8, -1e8 + 3 to -1e8), where the
// sequential ((0.1 + 1e8) - 1e8) + 3 is 3: not the sequential sum, but the same bits in every
// thread (BlockUniform, checked by the emulator: the report is clean).
TEST(GpuWarpMin, CombineWarpValuesGivesEveryThreadOneLoadsCombination) {
  std::uint64_t sum = 0, least = 0, bits = 0;
  float total = -1.0f;
  const LaunchReport r = emu::Launch("combine warp values", 1, 128, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, value, 4);
    SAMPCHECK_SHARED(block, float, real, 4);
    const float reals[4] = {0.1f, 1e8f, -1e8f, 3.0f};
    block.ForEachThread([&](Thread t) {
      if (t.lane() != 0) return;
      value.Store(t.warp(), t.warp() == 2 ? 5u : 100u + static_cast<std::uint64_t>(t.warp()));
      real.Store(t.warp(), reals[t.warp()]);
    });
    block.Sync();
    auto load = [&](int w) { return value.Load(w); };
    sum = CombineWarpValues<std::uint64_t>(block, 4, 0, load, [](std::uint64_t a, std::uint64_t b) { return a + b; });
    least = CombineWarpValues<std::uint64_t>(block, 4, ~std::uint64_t{0}, load,
                                             [](std::uint64_t a, std::uint64_t b) { return b < a ? b : a; });
    bits = CombineWarpValues<std::uint64_t>(block, 4, 0, load, [](std::uint64_t a, std::uint64_t b) { return a | b; });
    total = CombineWarpValues<float>(
        block, 4, 0.0f, [&](int w) { return real.Load(w); }, [](float a, float b) { return a + b; });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(sum, 309u);
  EXPECT_EQ(least, 5u);
  EXPECT_EQ(bits, 103u);  // 0b1100100 | 0b1100101 | 0b101 | 0b1100111
  EXPECT_EQ(total, 0.0f);
  EXPECT_EQ(((0.1f + 1e8f) - 1e8f) + 3.0f, 3.0f);  // the sequential order, for contrast
  // One load a thread a call (4 lanes a warp read a value, the others none: 4 x 4 x 4 loads),
  // 8 stores, one barrier.
  EXPECT_EQ(r.counters.SharedAccesses(), 4 * 4 * 4 + 8);
  EXPECT_EQ(r.counters.barriers, 1);
}

// StoreWarpBallots and AnyWarpBallot (gpu/block/warp_min.cuh): a block's vote, by hand. At
// 1024 threads (32 warps): no voter gives false; the last thread alone (warp 31, lane 31: the
// highest bit of the last word) or thread 40 alone (warp 1, lane 8) gives true in every thread.
// At 128 threads (4 warps) a word past the block's warps (slot 5, set before the vote) is not
// read: the block's own votes, all false, give false.
TEST(GpuWarpMin, ABlocksVoteIsAnyThreadsBallot) {
  for (const int voter : {-1, 1023, 40}) {
    bool any = voter < 0;
    const LaunchReport r = emu::Launch("block vote", 1, 1024, [&](Block& block) {
      SAMPCHECK_SHARED(block, std::uint32_t, votes, kWarpSize);
      auto mine = Registers<bool>(block);
      block.ForEachThread([&](Thread t) { mine[t] = t.x == voter; });
      StoreWarpBallots(block, mine, votes);
      block.Sync();
      any = AnyWarpBallot(block, 32, votes);
    });
    ASSERT_TRUE(r.ok()) << r.Summary();
    EXPECT_EQ(any, voter >= 0) << "voter " << voter;
    EXPECT_EQ(r.counters.SharedAccesses(), 32 + 32 * 32);  // a store a warp, a load a lane < 32
    EXPECT_EQ(r.counters.barriers, 1);
  }
  bool any = true;
  const LaunchReport r = emu::Launch("block vote past its warps", 1, 128, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint32_t, votes, kWarpSize);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) votes.Store(5, 1u);
    });
    block.Sync();
    auto mine = Registers<bool>(block);
    block.ForEachThread([&](Thread t) { mine[t] = false; });
    StoreWarpBallots(block, mine, votes);
    block.Sync();
    any = AnyWarpBallot(block, 4, votes);
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  EXPECT_FALSE(any);
}

// LaneKeyTree (gpu/block/lane_key_tree.cuh) on a block of kThreads threads: lanes[l] is virtual
// lane l's kept keys, ascending (at most kLaneKept; the rest kTreeAbove). keys: the merged
// keys[0 .. count) it returns; placed: what place(t, j, key) got for j < k; deciding: the
// threads that ran the decision's phase (warp 0's, the contract), which returns 1 when short
// and 1000 + count else.
template <int kThreads>
struct LaneKeyTreeRun {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> placed;
  std::vector<int> deciding;
  LaneKeyTreeResult result;
  LaunchReport report;
};
template <int kThreads>
LaneKeyTreeRun<kThreads> RunLaneKeyTree(const std::vector<std::vector<std::uint64_t>>& lanes, int k, bool ties) {
  constexpr int kRegs = kCanonicalLanes / kThreads;
  LaneKeyTreeRun<kThreads> run;
  run.placed.assign(k, 0);
  run.report = emu::Launch("lane key tree", 1, kThreads, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, keys, kCanonicalLanes);
    auto kept = Registers<LaneKeys<kRegs>>(block);
    block.ForEachThread([&](Thread t) {
      kept[t].Clear();
      for (int r = 0; r < kRegs; ++r) {
        const auto& lane = lanes[t.x + r * kThreads];
        for (std::size_t j = 0; j < lane.size(); ++j) kept[t].key[r][j] = lane[j];
      }
    });
    auto place = [&](Thread, std::int64_t j, std::uint64_t x) { run.placed[j] = x; };
    auto decide = [&](Block& warp, const LaneKeyTreeResult& mine) -> std::uint32_t {
      std::uint32_t decided = 0;
      warp.ForEachThread([&](Thread t) {
        run.deciding.push_back(t.x);
        decided = mine.short_lane ? 1u : 1000u + mine.count;
      });
      return decided;
    };
    run.result = LaneKeyTree<kThreads>(block, kept, k, ties, keys, place, decide);
    run.keys.assign(run.result.count, 0);
    block.ForEachThread([&](Thread t) {
      if (t.x < static_cast<int>(run.result.count)) run.keys[t.x] = keys.Load(t.x);
    });
  });
  return run;
}

// The contract's example by hand, and a lane holding 4 of the top k: lane 5 holds keys 0 .. 3,
// lane l != 5 keys 100 + l and 2000 + l: the 10 smallest of the lanes' three are 0, 1, 2 and
// 100 .. 107 but 105, T = 107, and lane 5's fourth key 3 <= T: short. With ties (value keys in
// the high word, (value, index)): lanes 0 .. 31 hold (1, l), (2, 32 + l), (2, 64 + l) and
// (3, 96 + l), so the lanes' three sorted are 32 keys of value 1, then 64 of value 2: at k =
// 40 T = (2, 39), and value 2 fills the 64 merged keys: count 64, short (more may follow); at
// k = 20 T = (1, 19): the 32 keys of value 1, the lanes' fourths (value 3) no candidates, not
// short. Lanes 0 .. 9 holding (1, l), (5, 32 + l) and (6, 64 + l), k = 5: T = (1, 4), the 10
// keys of value 1, not short, and place gets the first 5.
TEST(GpuLaneKeyTree, ByHand) {
  std::vector<std::vector<std::uint64_t>> lanes(kCanonicalLanes);
  for (int l = 0; l < kWarpSize; ++l) lanes[l] = {std::uint64_t(l), 32u + l, 64u + l, 96u + l};
  std::vector<std::uint64_t> first40(40);
  std::iota(first40.begin(), first40.end(), 0);
  const auto example = RunLaneKeyTree<kCanonicalLanes>(lanes, 40, false);
  ASSERT_TRUE(example.report.ok()) << example.report.Summary();
  EXPECT_EQ(example.keys, first40);
  EXPECT_EQ(example.placed, first40);
  EXPECT_EQ(example.result.kth, 39u);
  EXPECT_EQ(example.result.first, 0u);
  EXPECT_EQ(example.result.count, 40u);
  EXPECT_FALSE(example.result.short_lane);
  // The runs' store, 2 between the tree's 3 levels (fan-ins 2, 4, 4), after the tree (the vote
  // and the caller's decision in its last level, by warp 0).
  EXPECT_EQ(example.report.counters.barriers, 4);
  std::vector<int> warp0(kWarpSize);
  std::iota(warp0.begin(), warp0.end(), 0);
  EXPECT_EQ(example.deciding, warp0);
  EXPECT_EQ(example.result.decided, 1040u);
  for (auto& lane : lanes) lane.clear();
  for (int l = 0; l < kCanonicalLanes; ++l) {
    lanes[l] = l == 5 ? std::vector<std::uint64_t>{0, 1, 2, 3} : std::vector<std::uint64_t>{100u + l, 2000u + l};
  }
  const std::vector<std::uint64_t> top10 = {0, 1, 2, 100, 101, 102, 103, 104, 106, 107};
  const auto crowded = RunLaneKeyTree<256>(lanes, 10, false);
  ASSERT_TRUE(crowded.report.ok()) << crowded.report.Summary();
  EXPECT_EQ(crowded.keys, top10);
  EXPECT_EQ(crowded.result.kth, 107u);
  EXPECT_TRUE(crowded.result.short_lane);
  EXPECT_EQ(crowded.result.decided, 1u);
  // Ties.
  auto key = [](std::uint64_t value, std::uint64_t index) { return value << 32 | index; };
  for (auto& lane : lanes) lane.clear();
  for (std::uint64_t l = 0; l < kWarpSize; ++l) lanes[l] = {key(1, l), key(2, 32 + l), key(2, 64 + l), key(3, 96 + l)};
  const auto filled = RunLaneKeyTree<kCanonicalLanes>(lanes, 40, true);
  ASSERT_TRUE(filled.report.ok()) << filled.report.Summary();
  EXPECT_EQ(filled.result.kth, key(2, 39));
  EXPECT_EQ(filled.result.count, 64u);
  EXPECT_TRUE(filled.result.short_lane);
  const auto ones = RunLaneKeyTree<kCanonicalLanes>(lanes, 20, true);
  ASSERT_TRUE(ones.report.ok()) << ones.report.Summary();
  EXPECT_EQ(ones.result.kth, key(1, 19));
  EXPECT_EQ(ones.result.count, 32u);
  EXPECT_FALSE(ones.result.short_lane);
  std::vector<std::uint64_t> value_one;
  for (std::uint64_t l = 0; l < kWarpSize; ++l) value_one.push_back(key(1, l));
  EXPECT_EQ(ones.keys, value_one);
  for (auto& lane : lanes) lane.clear();
  for (std::uint64_t l = 0; l < 10; ++l) lanes[l] = {key(1, l), key(5, 32 + l), key(6, 64 + l)};
  const auto tied = RunLaneKeyTree<512>(lanes, 5, true);
  ASSERT_TRUE(tied.report.ok()) << tied.report.Summary();
  EXPECT_EQ(tied.result.kth, key(1, 4));
  EXPECT_EQ(tied.result.count, 10u);
  EXPECT_FALSE(tied.result.short_lane);
  std::vector<std::uint64_t> ten;
  for (std::uint64_t l = 0; l < 10; ++l) ten.push_back(key(1, l));
  EXPECT_EQ(tied.keys, ten);
  EXPECT_EQ(tied.placed, std::vector<std::uint64_t>(ten.begin(), ten.begin() + 5));
}

// Random lanes against the contract computed with the standard library: the lanes' first three
// kept keys sorted (std::sort), T the k-th, the candidates (keys <= T, or with ties of T's
// value or below) a prefix of them: `count` its length up to 64, `short` when some lane's
// fourth is a candidate or (ties) the 64 all are; and then (else) the prefix is every
// candidate among all kept keys.
TEST(GpuLaneKeyTree, MatchesTheContractOnRandomLanes) {
  std::mt19937_64 rng(20261205);
  int shorts[2] = {0, 0}, exact[2] = {0, 0};
  for (int trial = 0; trial < 24; ++trial) {
    const int k = 1 + static_cast<int>(rng() % kTreeKept);
    const int held = trial % 3 == 0 ? 6 : 1 + static_cast<int>(rng() % kLaneKept);  // keys a lane
    // Small spreads: lanes share values (8: the candidates with ties run past 64; 2048: about
    // 1.5 keys a value, ties at T now and then).
    const std::uint64_t spread = trial % 4 == 1 ? 8 : trial % 4 == 3 ? 2048 : 1 << 20;
    std::vector<std::vector<std::uint64_t>> lanes(kCanonicalLanes);
    std::vector<std::uint64_t> three, all;
    for (int l = 0; l < kCanonicalLanes; ++l) {
      const bool crowded = trial % 5 == 2 && l == 7;  // 5 keys of value 0: its fourth among the top k
      const int n = crowded ? 5 : static_cast<int>(rng() % (held + 1));
      for (int j = 0; j < n; ++j) {
        const std::uint64_t value = crowded ? 0 : rng() % spread;
        lanes[l].push_back(value << 32 | static_cast<std::uint64_t>(l + j * 1024));
      }
      std::sort(lanes[l].begin(), lanes[l].end());
      for (int j = 0; j < n; ++j) (j < kTreeLaneKeys ? three : all).push_back(lanes[l][j]);
    }
    all.insert(all.end(), three.begin(), three.end());
    if (static_cast<int>(three.size()) < k) continue;
    std::sort(three.begin(), three.end());
    std::sort(all.begin(), all.end());
    const std::uint64_t kth = three[static_cast<std::size_t>(k - 1)];
    for (const bool ties : {false, true}) {
      SCOPED_TRACE(testing::Message() << "trial " << trial << (ties ? ", ties" : ""));
      auto candidate = [&](std::uint64_t x) { return ties ? (x >> 32) <= (kth >> 32) : x <= kth; };
      std::size_t count = 0;
      while (count < three.size() && count < kTreeKept && candidate(three[count])) ++count;
      const std::vector<std::uint64_t> prefix(three.begin(), three.begin() + static_cast<std::ptrdiff_t>(count));
      bool expect_short = ties && count == kTreeKept;
      for (const auto& lane : lanes) expect_short = expect_short || (lane.size() > 3 && candidate(lane[3]));
      const auto check = [&](const auto& run) {
        ASSERT_TRUE(run.report.ok()) << run.report.Summary();
        EXPECT_EQ(run.keys, prefix);
        EXPECT_EQ(run.placed, std::vector<std::uint64_t>(three.begin(), three.begin() + k));
        EXPECT_EQ(run.result.kth, kth);
        EXPECT_EQ(run.result.first, three.front());
        EXPECT_EQ(run.result.count, count);
        EXPECT_EQ(run.result.short_lane, expect_short);
      };
      check(RunLaneKeyTree<kCanonicalLanes>(lanes, k, ties));
      check(RunLaneKeyTree<128>(lanes, k, ties));
      if (!expect_short) {  // the exactness claim: every candidate of the row
        std::vector<std::uint64_t> every;
        for (const std::uint64_t x : all) {
          if (candidate(x)) every.push_back(x);
        }
        EXPECT_EQ(every, prefix);
      }
      (expect_short ? shorts : exact)[ties ? 1 : 0] += 1;
    }
  }
  for (const int ties : {0, 1}) {  // both outcomes exercised under both rules
    EXPECT_GT(shorts[ties], 0) << ties;
    EXPECT_GT(exact[ties], 0) << ties;
  }
}

// The lanes a Ballot's mask names, by hand.
TEST(GpuWarpMin, LowestAndHighestLaneOfAMask) {
  EXPECT_EQ(LowestLane(0u), -1);
  EXPECT_EQ(HighestLane(0u), -1);
  EXPECT_EQ(LowestLane(1u), 0);
  EXPECT_EQ(HighestLane(1u), 0);
  EXPECT_EQ(LowestLane(0x80000000u), 31);
  EXPECT_EQ(HighestLane(0x80000000u), 31);
  EXPECT_EQ(LowestLane(0b1011000u), 3);  // lanes 3, 4 and 6
  EXPECT_EQ(HighestLane(0b1011000u), 6);
  EXPECT_EQ(LowestLane(0xffffffffu), 0);
  EXPECT_EQ(HighestLane(0xffffffffu), 31);
  EXPECT_EQ(LowestLane(0x80000001u), 0);
  EXPECT_EQ(HighestLane(0x80000001u), 31);
}

// WalkWarpRuns (gpu/block/warp_run_walk.cuh), by hand. Every active warp has the contract's
// runs: lane 0 {1, 0, 2} at indices 0, 1, 2, lane 1 {4} at index 100, the other lanes none
// (masses 3 and 4, starts s = {start, start + 3}); each warp has its own start and target:
//   warp 0: start 0, x = 3: s_1 = 3 <= 3, so lane 1, whose 3 + 4 > 3 at index 100;
//   warp 1: x = 1: lane 0 (s_1 = 3 > 1): 1 is not above 1, the zero is skipped, 1 + 2 > 1: 2;
//   warp 2: x = 7, the total: lane 1, 3 + 4 = 7 never exceeds 7: its last positive weight, 100;
//   warp 3: start 10, x = 12.5: lane 0, 11, then 13 > 12.5: 2;
//   warp 4: x = 0.5: lane 0, 1 > 0.5 at once: 0;
//   warp 5: inactive: walker -1, no run visited, picks kept;
//   warp 6: every weight 0: no run of positive mass, walker -1, picks kept.
// Each active lane's run is visited once for its sum and the walker's once more; no barrier,
// no shared access.
TEST(GpuWarpRunWalk, TheRunHoldingTheTargetIsWalkedByItsLane) {
  constexpr int kWarps = 7;
  const float starts[kWarps] = {0.0f, 0.0f, 0.0f, 10.0f, 0.0f, 0.0f, 0.0f};
  const float targets[kWarps] = {3.0f, 1.0f, 7.0f, 12.5f, 0.5f, 1.0f, 1.0f};
  std::vector<std::int64_t> pick_of(kWarps * kWarpSize);
  std::vector<int> walker_of(kWarps * kWarpSize), visits(kWarps * kWarpSize);
  const LaunchReport r = emu::Launch("warp run walk", 1, kWarps * kWarpSize, [&](Block& block) {
    auto start = Registers<float>(block);
    auto x = Registers<float>(block);
    auto pick = Registers<std::int64_t>(block);
    block.ForEachThread([&](Thread t) {
      start[t] = starts[t.warp()];
      x[t] = targets[t.warp()];
      pick[t] = -7;
    });
    auto visit_run = [&](Thread t, const auto& visit) {
      ++visits[static_cast<std::size_t>(t.x)];
      const float zero = t.warp() == 6 ? 0.0f : 1.0f;  // warp 6's weights all 0
      if (t.lane() == 0) {
        const float w[3] = {1.0f * zero, 0.0f, 2.0f * zero};
        for (int i = 0; i < 3; ++i) {
          if (visit(std::int64_t{i}, w[i])) return;
        }
      } else if (t.lane() == 1) {
        (void)visit(std::int64_t{100}, 4.0f * zero);
      }
    };
    const auto walker = WalkWarpRuns(
        block, [](Thread t) { return t.warp() != 5; }, start, x, visit_run, pick);
    block.ForEachThread([&](Thread t) {
      pick_of[static_cast<std::size_t>(t.x)] = pick[t];
      walker_of[static_cast<std::size_t>(t.x)] = walker[t];
    });
  });
  ASSERT_TRUE(r.ok()) << r.Summary();
  const int walkers[kWarps] = {1, 0, 1, 0, 0, -1, -1};
  const std::int64_t picks[kWarps] = {100, 2, 100, 2, 0, -7, -7};
  for (int t = 0; t < kWarps * kWarpSize; ++t) {
    const int w = t / kWarpSize, lane = t % kWarpSize;
    const auto i = static_cast<std::size_t>(t);
    EXPECT_EQ(walker_of[i], walkers[w]) << t;
    EXPECT_EQ(pick_of[i], lane == walkers[w] ? picks[w] : -7) << t;
    EXPECT_EQ(visits[i], w == 5 ? 0 : lane == walkers[w] ? 2 : 1) << t;
  }
  EXPECT_EQ(r.counters.barriers, 0);
  EXPECT_EQ(r.counters.SharedAccesses(), 0);
}

// The slices a batch offers (gpu/block/row_slices.cuh; their merge: tests/gpu_merge_runs_test.cc).
TEST(GpuRowSlices, BudgetAndSlicesOfARow) {
  // The slices a batch offers and a row takes: floor(132 / 3) = 44 capped at 13289 / 4096 = 3;
  // 64 rows: floor(132 / 64) = 2 (128 blocks, one wave at one block per SM; 3 would be 192);
  // 67 rows and more: 1 (floor(132 / 67) = 1);
  // k = 50: min(3, 1024 / 50, 13289 / 51) = 3; k = 400: 1024 / 400 = 2; k = 0, k >= V, k > 1024: 1.
  EXPECT_EQ(RowSliceBudget(3, 13289), 3);
  EXPECT_EQ(RowSliceBudget(132, 128256), 1);
  EXPECT_EQ(RowSliceBudget(1, 128256), 31);
  EXPECT_EQ(RowSliceBudget(64, 128256), 2);
  EXPECT_EQ(RowSliceBudget(66, 128256), 2);
  EXPECT_EQ(RowSliceBudget(67, 128256), 1);
  EXPECT_EQ(TopKRowSlices(3, 13289, 50), 3);
  EXPECT_EQ(TopKRowSlices(3, 13289, 400), 2);
  EXPECT_EQ(TopKRowSlices(3, 13289, 0), 1);
  EXPECT_EQ(TopKRowSlices(3, 13289, 1025), 1);
  EXPECT_EQ(TopKRowSlices(31, 128256, 50), 20);
}

TEST(GpuTopKSurvivors, ValueOfDescendingKeyInvertsOrderKey) {
  for (float x : {1.0f, -1.0f, 0x1p-149f, -0x1p-149f, 0x1.fffffep127f, -kInf, 0.0f}) {
    const float y = ValueOfDescendingKey(OrderKey(x, 3, false));
    EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << x;
  }
  EXPECT_EQ(ValueOfDescendingKey(OrderKey(-0.0f, 3, false)), 0.0f);  // folded onto +0.0
  EXPECT_FALSE(std::signbit(ValueOfDescendingKey(OrderKey(-0.0f, 3, false))));
}

TEST(GpuTopK, TiesAtTheKthValuePerRule) {
  // docs/spec/filters.md top_k "Worked examples".
  const TopKRule exact{false, false, 1024};
  const TopKRule ties{true, false, 1024};
  const std::vector<float> a = {1.0f, 3.0f, 3.0f, 2.0f};
  EXPECT_EQ(KeptOf(a, TopKOne(a, 1, exact)), (std::vector<int>{1}));
  EXPECT_EQ(KeptOf(a, TopKOne(a, 1, ties)), (std::vector<int>{1, 2}));
  const std::vector<float> z = {-0.0f, 0.0f, -1.0f, -kInf, -0.0f};
  EXPECT_EQ(KeptOf(z, TopKOne(z, 2, exact)), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(z, TopKOne(z, 2, ties)), (std::vector<int>{0, 1, 4}));
  // Disabled: k = 0 and k = V copy the row; ascend_v2 with ks_max 5 (-> 8) and V = 40: k = 9
  // keeps all 40.
  EXPECT_EQ(KeptOf(a, TopKOne(a, 0, exact)), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(KeptOf(a, TopKOne(a, 4, exact)), (std::vector<int>{0, 1, 2, 3}));
  std::vector<float> wide(40);
  for (int i = 0; i < 40; ++i) wide[static_cast<std::size_t>(i)] = static_cast<float>(i);
  EXPECT_EQ(KeptOf(wide, TopKOne(wide, 9, TopKRule{false, true, 5})).size(), 40u);
  EXPECT_EQ(KeptOf(wide, TopKOne(wide, 8, TopKRule{false, true, 5})),
            (std::vector<int>{32, 33, 34, 35, 36, 37, 38, 39}));
}

TEST(GpuTopP, Ln2RowPerRule) {
  // docs/spec/filters.md top_p "Worked examples": E = 0, 0.5, 0.75, 0.875 in canonical order.
  const std::vector<float> row = Ln2Row();
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.75f, TopPWalk::kExclusive)), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.75f, TopPWalk::kSglang)), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.75f, TopPWalk::kTieGroup)), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.75f, TopPWalk::kVllmAscending)), (std::vector<int>{0, 1}));
  // p = 0.8: the tie group {2, 3} (E = 0.75 < 0.8) stays whole; vLLM's ascending walk
  // (2, 3, 1, 0) drops 2 (c = 0.125 <= f32(1 - 0.8f) = 0.199999988) and keeps 3 (c = 0.25).
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.8f, TopPWalk::kExclusive)), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.8f, TopPWalk::kTieGroup)), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.8f, TopPWalk::kVllmAscending)), (std::vector<int>{0, 1, 3}));
  // p <= 0 keeps the first token; p >= 1 copies (every walk but sglang's).
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.0f, TopPWalk::kVllmAscending)), (std::vector<int>{0}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 1.0f, TopPWalk::kExclusive)), (std::vector<int>{0, 1, 2, 3}));
}

TEST(GpuMinP, ThresholdsAndTiedMaximum) {
  // docs/spec/filters.md min_p "Worked examples": max prob 0.5.
  const std::vector<float> row = Ln2Row();
  EXPECT_EQ(KeptOf(row, MinPOne(row, 0.5f, MinPRule{})), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(row, MinPOne(row, 0.25f, MinPRule{})), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(KeptOf(row, MinPOne(row, 0.0f, MinPRule{})), (std::vector<int>{0, 1, 2, 3}));
  const std::vector<float> tied = {1.0f, 1.0f, 0.0f};
  EXPECT_EQ(KeptOf(tied, MinPOne(tied, 1.0f, MinPRule{false})), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(tied, MinPOne(tied, 1.0f, MinPRule{true})), (std::vector<int>{0}));
}

TEST(GpuSamplingFilters, FilterOrderExampleOne) {
  // docs/spec/filters.md sampling_filters example 1: top_k 3, top_p 0.75. Canonical:
  // renormalised over {0, 1, 2} E = 0, 0.571, 0.857 -> {0, 1}, probs 2/3, 1/3 rounded
  // (0x3f2aaaab, 0x3eaaaaab); sglang: top-p on the original keeps 2 -> {0, 1, 2}, probs
  // 4/7, 2/7, 1/7 rounded (0x3f124925, 0x3e924925, 0x3e124925).
  const std::vector<float> row = Ln2Row();
  const std::int32_t k = 3;
  const float p = 0.75f;
  auto run = [&](FilterRules rules, std::vector<float>& probs) {
    std::vector<float> out(4);
    probs.assign(4, -1.0f);
    MakeEmulatedRunner()->Run(
        SamplingFiltersLaunch(row.data(), &k, &p, nullptr, 1, 4, 4, rules, out.data(), probs.data()));
    return out;
  };
  std::vector<float> probs;
  const FilterRules canonical{};
  EXPECT_EQ(KeptOf(row, run(canonical, probs)), (std::vector<int>{0, 1}));
  EXPECT_EQ(Bits(probs[0]), 0x3f2aaaabu);
  EXPECT_EQ(Bits(probs[1]), 0x3eaaaaabu);
  EXPECT_EQ(Bits(probs[2]), 0u);
  const FilterRules sglang{TopKRule{}, TopPWalk::kSglang, MinPRule{}, FilterOrder::kJoint, DegenerateRowRule{}};
  EXPECT_EQ(KeptOf(row, run(sglang, probs)), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(Bits(probs[0]), 0x3f124925u);
  EXPECT_EQ(Bits(probs[1]), 0x3e924925u);
  EXPECT_EQ(Bits(probs[2]), 0x3e124925u);
}

TEST(GpuAscendSample, HeaderExample) {
  // reference/ascend_top_k_top_p_sample_v2.h's example: top_k 3 renormalises the ln 2 row to
  // (4/7, 2/7, 1/7); E = 0, 0.571 < 0.7, 0.857 >= 0.7: L = {0, 1}. Without q the largest prob
  // wins (token 0); with q = {1, 0.25} by position, r = {0.5714 / 1, 0.2857 / 0.25 = 1.143}:
  // token 1. is_need_sample_result: L's probs (0x3f124925, 0x3e924925) and ids, then 0 / -1.
  const std::vector<float> row = Ln2Row();
  const std::int32_t k = 3;
  const float p = 0.7f;
  const std::vector<float> q = {1.0f, 0.25f, 1.0f, 1.0f};
  std::int64_t token = -7;
  MakeEmulatedRunner()->Run(AscendTopKTopPSampleV2Launch(row.data(), &k, &p, nullptr, nullptr, 1, 4, 4,
                                                         AscendSampleRule{}, &token, nullptr, nullptr, nullptr));
  EXPECT_EQ(token, 0);
  MakeEmulatedRunner()->Run(AscendTopKTopPSampleV2Launch(row.data(), &k, &p, nullptr, q.data(), 1, 4, 4,
                                                         AscendSampleRule{}, &token, nullptr, nullptr, nullptr));
  EXPECT_EQ(token, 1);
  std::vector<float> values(4, -1.0f);
  std::vector<std::int64_t> ids(4, 99);
  AscendSampleRule result;
  result.need_sample_result = true;
  MakeEmulatedRunner()->Run(AscendTopKTopPSampleV2Launch(row.data(), &k, &p, nullptr, nullptr, 1, 4, 4, result, nullptr,
                                                         nullptr, values.data(), ids.data()));
  EXPECT_EQ(Bits(values[0]), 0x3f124925u);
  EXPECT_EQ(Bits(values[1]), 0x3e924925u);
  EXPECT_EQ(Bits(values[2]), 0u);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{0, 1, -1, -1}));
}

TEST(GpuLogprobs, HeaderExample) {
  // reference/logprobs.h's example: the ln 2 row, raw_logprobs (log softmax), token 3, n = 2:
  // top_ids {0, 1}, top_ranks {1, 2} (distinct values: 1 + #{greater} and position + 1 agree);
  // token 3's value ties with token 2's (both log 1/8), so canonical's rank is
  // 1 + #{greater} = 1 + 2 = 3 and vllm's #{greater or equal} = 4. token_ids {3, -1}: x[3],
  // then the quiet NaN 0x7fc00000.
  const std::vector<float> row = Ln2Row();
  const float divisor = 1.0f;
  const std::uint8_t zero = 0;
  const std::int32_t k = 0;
  const float p = 1.0f, m = 0.0f;
  const std::int64_t token = 3;
  const std::vector<std::int32_t> ids = {3, -1};
  for (const bool vllm : {false, true}) {
    LogprobsRule rule;
    rule.rank_counts_ties = vllm;
    rule.positional_top_ranks = vllm;
    std::vector<std::int64_t> top(2, -7), ranks(2, -7);
    std::vector<float> values(2), asked(2);
    float value = 0.0f;
    std::int64_t rank = -7;
    MakeEmulatedRunner()->Run(LogprobsLaunch(row.data(), &divisor, &zero, &zero, &k, &p, &m, &token, ids.data(), 2, 1,
                                             4, 4, 2, rule, top.data(), values.data(), ranks.data(), &value, &rank,
                                             asked.data()));
    EXPECT_EQ(top, (std::vector<std::int64_t>{0, 1}));
    EXPECT_EQ(ranks, (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(rank, vllm ? 4 : 3);
    EXPECT_EQ(Bits(asked[0]), Bits(value));
    EXPECT_EQ(Bits(asked[1]), 0x7fc00000u);
    EXPECT_LT(values[1], values[0]);
  }
}

// Planted fault: a top-k that takes its pivot one rank too deep keeps k + 1 tokens; the
// hand-derived answer above rejects it.
struct OffByOneTopKKernel {
  template <class B, class Arr>
  void operator()(B& block, Arr row, std::int64_t vocab, std::int64_t k) const {
    const std::uint64_t kth = SelectKth(block, row, 0, vocab, false, k + 1);  // the fault
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
        if (OrderKey(row.Load(i), i, false) > kth) row.Store(i, NegativeInfinity());
      }
    });
  }
};

TEST(GpuTopK, PlantedBadPivotIsRejected) {
  std::vector<float> row = {1.0f, 3.0f, 3.0f, 2.0f};
  const std::vector<float> in = row;
  const LaunchReport report = emu::Launch("bad_top_k", 1, kCanonicalLanes, [&](Block& block) {
    OffByOneTopKKernel{}(block, GlobalArray<float>(row.data(), 4, "row"), 4, 1);
  });
  EXPECT_TRUE(report.ok());
  EXPECT_NE(KeptOf(in, row), (std::vector<int>{1}));  // {1, 2}: the exact-k answer rejects it
}

// Degenerate rows in the kernels (gpu/kernels/top_k.cuh, gpu/kernels/degenerate_rows.cuh): the
// worked examples of docs/spec/filters.md "Degenerate rows", derived there by hand from each
// peer's rule.
TEST(GpuFilterDegenerateRows, TopKRanksNaNsPerProfile) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> row = {1.0f, nan, 3.0f, 2.0f, inf, -inf};
  const TopKRule exact{}, vllm{.ties_kept = true}, flashinfer{.ties_kept = true, .drops_nan = true};
  const std::vector<float> all_neg(6, -inf);
  EXPECT_EQ(BitsOf(TopKOne(row, 1, exact)), BitsOf({-inf, nan, -inf, -inf, -inf, -inf}));
  EXPECT_EQ(BitsOf(TopKOne(row, 1, vllm)), BitsOf(row));  // a NaN k-th value masks nothing
  EXPECT_EQ(BitsOf(TopKOne(row, 1, flashinfer)), BitsOf(all_neg));
  EXPECT_EQ(BitsOf(TopKOne(row, 2, exact)), BitsOf({-inf, nan, -inf, -inf, inf, -inf}));
  EXPECT_EQ(BitsOf(TopKOne(row, 2, vllm)), BitsOf({-inf, nan, -inf, -inf, inf, -inf}));
  EXPECT_EQ(BitsOf(TopKOne(row, 2, flashinfer)), BitsOf({-inf, -inf, -inf, -inf, inf, -inf}));
  EXPECT_EQ(BitsOf(TopKOne(row, 3, exact)), BitsOf({-inf, nan, 3.0f, -inf, inf, -inf}));
  EXPECT_EQ(BitsOf(TopKOne(row, 3, vllm)), BitsOf({-inf, nan, 3.0f, -inf, inf, -inf}));
  EXPECT_EQ(BitsOf(TopKOne(row, 3, flashinfer)), BitsOf({-inf, -inf, 3.0f, -inf, inf, -inf}));
  // Sign-set NaNs: canonical and vllm rank them first; flashinfer below -inf, k = 3 > V - N = 2.
  const float neg_nan = -nan;
  const std::vector<float> signed_row = {neg_nan, neg_nan, 1.0f, 2.0f};
  EXPECT_EQ(BitsOf(TopKOne(signed_row, 3, exact)), BitsOf({neg_nan, neg_nan, -inf, 2.0f}));
  EXPECT_EQ(BitsOf(TopKOne(signed_row, 3, vllm)), BitsOf({neg_nan, neg_nan, -inf, 2.0f}));
  EXPECT_EQ(BitsOf(TopKOne(signed_row, 3, flashinfer)), BitsOf(std::vector<float>(4, -inf)));
  // flashinfer, k = 2 <= V - N: the 2nd number of {1, 2} with no sign-clear NaN: both kept.
  EXPECT_EQ(BitsOf(TopKOne(signed_row, 2, flashinfer)), BitsOf({-inf, -inf, 1.0f, 2.0f}));
  // vllm with n = 2 >= k = 2 NaNs: unchanged; exactly k keeps the two NaNs only.
  EXPECT_EQ(BitsOf(TopKOne(signed_row, 2, vllm)), BitsOf(signed_row));
  EXPECT_EQ(BitsOf(TopKOne(signed_row, 2, exact)), BitsOf({neg_nan, neg_nan, -inf, -inf}));
}

TEST(GpuFilterDegenerateRows, TopPAndMinPFollowTheNaNSoftmaxRule) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const DegenerateRowRule torch{}, flashinfer{.nan_softmax_empties_row = true};
  const std::vector<float> all_neg(4, -inf);
  for (const std::vector<float>& row : {std::vector<float>{nan, 1.0f, 2.0f, -inf}, std::vector<float>{0.5f, inf, 2.0f, 1.0f}}) {
    EXPECT_EQ(BitsOf(TopPOne(row, 0.9f, TopPWalk::kExclusive, torch)), BitsOf(row));  // nothing dropped
    EXPECT_EQ(BitsOf(TopPOne(row, 0.9f, TopPWalk::kTieGroup, flashinfer)), BitsOf(all_neg));
    EXPECT_EQ(BitsOf(TopPOne(row, 1.0f, TopPWalk::kTieGroup, flashinfer)), BitsOf(row));  // p >= 1: disabled
    EXPECT_EQ(BitsOf(MinPOne(row, 0.1f, MinPRule{}, torch)), BitsOf(row));
    EXPECT_EQ(BitsOf(MinPOne(row, 0.1f, MinPRule{}, flashinfer)), BitsOf(all_neg));
    EXPECT_EQ(BitsOf(MinPOne(row, 0.0f, MinPRule{}, flashinfer)), BitsOf(row));  // m <= 0: disabled
  }
  // A healthy row is filtered as before under either rule: {0, -ln2, ...}'s top-p 0.7 keeps 2.
  const std::vector<float> healthy = {0.0f, -0.6931472f, -1.3862944f, -1.3862944f};
  EXPECT_EQ(KeptOf(healthy, TopPOne(healthy, 0.7f, TopPWalk::kExclusive, flashinfer)), (std::vector<int>{0, 1}));
}

// Planted fault: broadcasting a selected key through shared memory without the barrier
// between thread 0's write and everyone's read (the pattern every filter helper uses) is a
// race the emulator reports.
TEST(GpuRadixSelect, PlantedMissingBarrierIsARace) {
  const LaunchReport report = emu::Launch("no_barrier", 1, kCanonicalLanes, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, verdict, 1);
    std::uint64_t cut = 0;
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) verdict.Store(0, 7u);
      cut = verdict.Load(0);  // needs a block.Sync() before it
    });
    (void)cut;
  });
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.violations[0].kind, Violation::Kind::kRace);
}

}  // namespace
}  // namespace sampcheck::gpu
