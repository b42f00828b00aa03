// SPDX-License-Identifier: Apache-2.0
// gpu-fast (gpu/fast/fast_sampling.cuh, gpu/fast/fast_backend.h; docs/gpu.md "gpu-fast"): the fused
// production-style kernel on the checking emulator. Contract examples, the emulator's checks at
// the device's block size, input errors, reproducibility, and the statistical suite: the
// planted-bug `wrong:` variants are rejected (the passing run of the whole suite is
// tests/gpu_fast_sampling_suite_test.cc, labelled slow).
//
// Error budget of the statistical tests (docs/method.md "gpu-fast"): the suite's family-wise
// alpha is 1e-4 with Holm over every L2/L3 test of a run (harness/draw_harness.h), L1 has
// alpha 0 (a draw of a probability-0, non-ambiguous token is a bug, never chance), and each
// case's n gives power 0.99 at its declared effect (TV 0.05, boundary mass dropped). Seeds are
// fixed (seed epoch 0), so each test is deterministic; a correct sampler fails a run with
// probability <= 1e-4 per epoch, and this file runs the passing suite once. The negative
// controls must be rejected: the off-by-one nucleus puts positive mass on a token of exact
// probability 0 (token 13 of stats/pipeline/top_p_inside_v100, p = 0.5 e_13 / sum e ~ 0.03),
// so L1 misses it only if none of the n >= 1000 draws lands there (< 1e-12); likewise top-k
// keeping k + 1 draws a sixth token in the ties case and a 51st in the mixed case.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/split_mix64.h"
#include "gpu/block/cached_candidates.cuh"
#include "gpu/emulator/emulator.h"
#include "gpu/fast/fast_backend.h"
#include "gpu/fast/fast_proposals.cuh"
#include "gpu/fast/fast_sampling.cuh"
#include "gpu/fast/fast_sampling_launch.h"
#include "golden/verifier.h"
#include "tests/crowded_row.h"
#include "reference/math/exp.h"
#include "reference/reference_backend.h"
#include "harness/draw_harness.h"
#include "harness/noise_harness.h"
#include "statistical/exact_target.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck {
namespace {

constexpr float kLn2 = std::numbers::ln2_v<float>;

Case PipelineCase(std::int64_t rows, std::int64_t vocab, const std::vector<float>& logits, std::vector<float> temperature,
                  std::vector<std::int32_t> top_k, std::vector<float> top_p, std::vector<float> min_p,
                  std::vector<std::int64_t> seed) {
  Case c;
  c.id = "gpu_fast_test";
  c.stage = "pipeline";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {rows, vocab}, logits));
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {rows}, temperature));
  c.inputs.emplace("top_k", Tensor::FromValues(DType::kI32, {rows}, top_k));
  c.inputs.emplace("top_p", Tensor::FromValues(DType::kF32, {rows}, top_p));
  c.inputs.emplace("min_p", Tensor::FromValues(DType::kF32, {rows}, min_p));
  c.inputs.emplace("seed", Tensor::FromValues(DType::kI64, {rows}, seed));
  c.inputs.emplace("positions", Tensor::FromValues(DType::kI64, {rows}, std::vector<std::int64_t>(static_cast<std::size_t>(rows), 0)));
  return c;
}

std::vector<std::int64_t> Tokens(const TensorMap& out) {
  const auto t = out.at("token").data<std::int64_t>();
  return {t.begin(), t.end()};
}

// The contract block's example: {1/2, 1/4, 1/8, 1/8} with top_k 1 keeps token 0 only; at
// temperature 0 the row is greedy and the argmax is token 0.
// A launch over the given host arrays (token left to the caller); the arrays must outlive it.
gpu::FastSamplingLaunch FastLaunch(const std::vector<float>& logits, const std::vector<float>& temperature,
                                   const std::vector<std::int32_t>& top_k, const std::vector<float>& top_p,
                                   const std::vector<float>& min_p, const std::vector<std::uint64_t>& seed,
                                   const std::vector<std::uint64_t>& position, std::int64_t rows, std::int64_t vocab,
                                   std::int64_t pitch) {
  gpu::FastSamplingLaunch launch;
  launch.logits = logits.data();
  launch.temperature = temperature.data();
  launch.top_k = top_k.data();
  launch.top_p = top_p.data();
  launch.min_p = min_p.data();
  launch.seed = seed.data();
  launch.position = position.data();
  launch.rows = rows;
  launch.vocab = vocab;
  launch.pitch = pitch;
  return launch;
}

TEST(GpuFastSampling, ContractExample) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const std::vector<float> row = {0.0f, -kLn2, -2 * kLn2, -2 * kLn2};
  for (std::int64_t seed : {0LL, 1LL, 12345LL, -7LL}) {
    SCOPED_TRACE(seed);
    EXPECT_EQ(Tokens(backend->Run("pipeline", PipelineCase(1, 4, row, {1.0f}, {1}, {1.0f}, {0.0f}, {seed}))),
              std::vector<std::int64_t>{0});
    EXPECT_EQ(Tokens(backend->Run("pipeline", PipelineCase(1, 4, row, {0.0f}, {0}, {1.0f}, {0.0f}, {seed}))),
              std::vector<std::int64_t>{0});
  }
}

// gpu-fast scales by s = x x f32(1 / t), not the reference's x / t (FastInverseTemperature).
// By hand, t = 1.5: f32(1 / 1.5) = 0x3f2aaaab = 2/3 + 1.99e-8. x_a = 3 + 11 u and x_b = 3 + 12 u
// (u = 2^-22, the ulp of [2, 4); bits 0x4040000b, 0x4040000c): x / t = 2 + 7.33 u and 2 + 8 u
// round to 0x40000007 and 0x40000008, so the reference keeps x_b under top-k 1; x x f32(1 / t)
// adds 3 x 1.99e-8 = 0.25 u to each, 2 + 7.58 u and 2 + 8.25 u, both 0x40000008: a tie, which
// the lower index wins.
TEST(GpuFastSampling, TemperatureMultipliesByItsInverse) {
  float xa, xb;
  const std::uint32_t a_bits = 0x4040000bu, b_bits = 0x4040000cu;
  std::memcpy(&xa, &a_bits, sizeof xa);
  std::memcpy(&xb, &b_bits, sizeof xb);
  const std::vector<float> row = {xa, xb};
  auto fast = gpu::MakeGpuFastEmulatedBackend();
  reference::ReferenceBackend reference;
  for (std::int64_t seed : {0LL, 1LL, 99LL}) {
    SCOPED_TRACE(seed);
    const Case c = PipelineCase(1, 2, row, {1.5f}, {1}, {1.0f}, {0.0f}, {seed});
    EXPECT_EQ(Tokens(fast->Run("pipeline", c)), std::vector<std::int64_t>{0});
    EXPECT_EQ(Tokens(reference.Run("pipeline", c)), std::vector<std::int64_t>{1});
  }
}

// Greedy rows: the lowest index among tied maxima, whatever the reduction order
// ({1, 3, 3, -inf} -> 1, as the greedy stage's contract).
TEST(GpuFastSampling, GreedyTakesTheLowestTiedIndex) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const float inf = INFINITY;
  const auto out = backend->Run("pipeline", PipelineCase(1, 4, {1.0f, 3.0f, 3.0f, -inf}, {0.0f}, {0}, {1.0f}, {0.0f}, {3}));
  EXPECT_EQ(Tokens(out), std::vector<std::int64_t>{1});
  // t = 1e-5f is greedy: the rule compares double(t) = 9.99999974738e-06 with 1e-5
  // (docs/spec/temperature.md). Were it random, the tie at 3 would draw token 2 with
  // probability 1/2 per seed: 20 seeds miss that with probability 2^-20.
  for (std::int64_t seed = 0; seed < 20; ++seed) {
    const auto t = Tokens(backend->Run("pipeline", PipelineCase(1, 4, {1.0f, 3.0f, 3.0f, -inf}, {1e-5f}, {0}, {1.0f}, {0.0f}, {seed})));
    EXPECT_EQ(t, std::vector<std::int64_t>{1}) << "seed " << seed;
  }
}

// The canonical top-k tie rule: k = 2 on {5, 7, 7, 7} keeps tokens 1 and 2 (the lower indices
// of the tie, docs/spec/filters.md "Kept set"); token 3 must never be drawn, token 0 neither.
// 200 seeds: both kept tokens have probability 1/2, so each appears (miss chance 2^-199).
TEST(GpuFastSampling, TopKTiesGoToTheLowerIndices) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  std::set<std::int64_t> seen;
  for (std::int64_t seed = 0; seed < 200; ++seed) {
    const auto t = Tokens(backend->Run("pipeline", PipelineCase(1, 4, {5.0f, 7.0f, 7.0f, 7.0f}, {1.0f}, {2}, {1.0f}, {0.0f}, {seed})));
    seen.insert(t[0]);
  }
  EXPECT_EQ(seen, (std::set<std::int64_t>{1, 2}));
}

// The emulator's checks at the device's block size (1024 threads; the backend's emulated
// instantiation uses 128): every filter on, V = 1025 (one more than a tile of 1024), padded rows
// whose padding holds +inf and NaN (never read). Tokens lie in the exact target's support.
TEST(GpuFastSampling, DeviceBlockSizePassesTheEmulatorsChecks) {
  const std::int64_t rows = 3, vocab = 1025, pitch = 1040;
  std::vector<float> logits(static_cast<std::size_t>(rows * pitch), NAN);
  std::vector<float> dense;
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < pitch; ++i) {
      float x = i < vocab ? -0.01f * static_cast<float>((i * (b + 2)) % vocab) : (i % 2 ? INFINITY : NAN);
      logits[static_cast<std::size_t>(b * pitch + i)] = x;
      if (i < vocab) dense.push_back(x);
    }
  }
  const std::vector<float> temperature = {0.7f, 1.0f, 0.0f};
  const std::vector<std::int32_t> top_k = {40, 0, 0};
  const std::vector<float> top_p = {0.5f, 0.9f, 1.0f};
  const std::vector<float> min_p = {0.0f, 0.5f, 0.0f};
  const std::vector<std::uint64_t> seed = {1, 2, 3}, position = {0, 5, 9};
  std::vector<std::int64_t> token(rows, -1);
  gpu::FastSamplingLaunch launch =
      FastLaunch(logits, temperature, top_k, top_p, min_p, seed, position, rows, vocab, pitch);
  launch.token = token.data();
  ASSERT_NO_THROW(gpu::RunFastSamplingEmulatedDeviceBlock(launch));
  const Case c = PipelineCase(rows, vocab, dense, temperature, top_k, top_p, min_p, {1, 2, 3});
  const auto target = statistical::ComputeExactTarget(c);
  for (std::int64_t b = 0; b < rows; ++b) {
    SCOPED_TRACE(b);
    const auto& t = target.rows[static_cast<std::size_t>(b)];
    ASSERT_GE(token[static_cast<std::size_t>(b)], 0);
    const auto tok = token[static_cast<std::size_t>(b)];
    const bool ambiguous = std::binary_search(t.ambiguous.begin(), t.ambiguous.end(), tok);
    EXPECT_TRUE(t.p[static_cast<std::size_t>(tok)] > 0.0 || ambiguous) << "token " << tok;
  }
  EXPECT_EQ(token[2], 0);  // greedy row 2: logit 0 at index 0 is the maximum (-0.01 * ((2i) % V) <= 0)
}

// The survivor gather of gpu/fast/fast_top_k_survivors.cuh on its contract's example, by a
// block of 32 threads (32 virtual lanes each): row {1, 3, 3, 2}, k = 2. Each key is its own
// lane's smallest (V < 1024), so the tree's two smallest are the row's: indices 1 and 2,
// sorted by key (slots from k on are the tree's, unspecified). Reversed keys (~key, the
// near-V top-k's dropped tokens), k = 1: the last of the order, (1, 0).
TEST(GpuFastSampling, SurvivorGather) {
  const std::vector<float> row = {1.0f, 3.0f, 3.0f, 2.0f};
  for (bool reversed : {false, true}) {
    SCOPED_TRACE(reversed ? "reversed" : "forward");
    const std::int64_t k = reversed ? 1 : 2;
    std::vector<std::uint64_t> keys(gpu::fast_detail::kFastSurvivorSlots);
    std::uint32_t total = 0;
    bool ok = false;
    const auto report = gpu::emu::Launch("survivor_gather", 1, 32, [&](gpu::Block& block) {
      auto key_of = [&](std::int64_t i) {
        const std::uint64_t key = gpu::fast_detail::OrderKey(row[static_cast<std::size_t>(i)], i);
        return reversed ? ~key : key;
      };
      SAMPCHECK_SHARED(block, std::uint64_t, gathered, gpu::fast_detail::kFastSurvivorSlots);
      ok = gpu::fast_detail::GatherFastSurvivors<32>(block, 4, k, key_of, gathered, total);
      block.ForEachThread([&](gpu::Thread t) {
        if (t.x != 0) return;
        for (int s = 0; s < gpu::fast_detail::kFastSurvivorSlots; ++s) keys[static_cast<std::size_t>(s)] = gathered.Load(s);
      });
    });
    ASSERT_EQ(report.total, 0) << report.Summary();
    ASSERT_TRUE(ok);
    // Descending value keys (docs/spec/filters.md "Order"): 3.0f = 0x40400000 maps to
    // ~(0x40400000 | 0x80000000) = 0x3fbfffff; 1.0f = 0x3f800000 to 0x407fffff.
    const std::vector<std::uint64_t> expected =
        reversed ? std::vector<std::uint64_t>{~((std::uint64_t{0x407fffffu} << 32) | 0u)}
                 : std::vector<std::uint64_t>{(std::uint64_t{0x3fbfffffu} << 32) | 1u, (std::uint64_t{0x3fbfffffu} << 32) | 2u};
    ASSERT_EQ(total, expected.size());
    for (std::size_t s = 0; s < expected.size(); ++s) EXPECT_EQ(keys[s], expected[s]) << "slot " << s;
  }
}

// The proposals' draw (gpu/fast/fast_proposals.cuh) over integer weights (0 to 4; indices 5
// mod T all 0, and in the larger rows a run of 40 zeros among the indices 9 mod T), so that
// every sum is exact: each proposal is the index the thread-major inverse CDF gives, computed
// here by one sequential walk of that order (each thread's list of its share of the row,
// strided or by quads, gpu/block/thread_share.cuh, written out here from its definition): the
// first positive weight whose running sum exceeds u x total, the last positive one when none
// does; u = 0 takes the first positive weight. Blocks of 64 threads (2 warps: 4 proposals a
// warp) with 200 and 6400 weights (a thread's 100 indices in runs of 4 a lane) and of 1024
// (one proposal a warp) with 40000 (runs of 2, the last lanes' empty), each strided and by
// quads (with tails). The warps' sums of three values per thread (t, 2t, 1) are T (T - 1) / 2, T (T - 1)
// and T for T threads. The draw's busiest thread makes 2 shared loads and reads at most 2
// runs' entries (the old one-thread-a-proposal search: kWarps + 32 loads and the owner's whole
// walk).
// The key of index i is i, read as a split source (gpu/block/key_reads.cuh), as the kernel's
// scaled logits are: each walk loads its indices in groups and stops inside one.
struct WeightIndexKeys {
  const std::vector<float>* w;
  float Load(std::int64_t i) const { return (*w)[static_cast<std::size_t>(i)]; }
  std::uint64_t Key(std::int64_t i, float) const { return static_cast<std::uint64_t>(i); }
  std::uint64_t operator()(std::int64_t i) const { return Key(i, Load(i)); }
};
static_assert(gpu::SplitKeySource<WeightIndexKeys>);

template <int kThreads>
void ExpectProposalsFollowTheWeights(std::int64_t vocab, const gpu::ThreadShare& share) {
  SCOPED_TRACE(testing::Message() << kThreads << " threads, " << vocab << " weights, quads " << share.quads);
  constexpr int kD = 8;
  std::vector<float> w(static_cast<std::size_t>(vocab));
  for (std::int64_t i = 0; i < vocab; ++i) {
    const bool zero = i % kThreads == 5 || (i % kThreads == 9 && i / kThreads >= 20 && i / kThreads < 60);
    w[static_cast<std::size_t>(i)] = zero ? 0.0f : static_cast<float>((i * 7) % 5);
  }
  const float u[kD] = {0.0f, 0.0625f, 0.1875f, 0.3125f, 0.5f, 0.6875f, 0.9375f, 0.99999994f};
  std::int64_t picks[kD] = {};
  float total = 0.0f;
  float sums[3] = {};
  std::int64_t draw_chain = 0;
  const auto report = gpu::emu::Launch("proposals", 1, kThreads, [&](gpu::Block& block) {
    auto mass = gpu::Registers<float>(block);
    auto lanes = gpu::Registers<gpu::fast_detail::LaneSums<3>>(block);
    block.ForEachThread([&](gpu::Thread t) {
      float acc = 0.0f;
      for (std::int64_t j = 0; j < share.Count(t.x); ++j) acc += w[static_cast<std::size_t>(share.IndexAt(t.x, j))];
      mass[t] = acc;
      lanes[t].v[0] = static_cast<float>(t.x);
      lanes[t].v[1] = static_cast<float>(2 * t.x);
      lanes[t].v[2] = 1.0f;
    });
    SAMPCHECK_SHARED(block, std::uint64_t, slots, 1024);
    gpu::fast_detail::DrawProposals<kThreads, kD>(
        block, share, mass, slots, WeightIndexKeys{&w},
        [&](std::uint64_t key) { return w[static_cast<std::size_t>(key)]; }, u, picks, total);
    gpu::fast_detail::SumProposalLanes<kThreads, 3>(block, lanes, slots, sums, 0, 3);
  });
  ASSERT_EQ(report.total, 0) << report.Summary();
  // Intervals: the masses' stores, the draw, the lanes' stores, their sums, the empty last.
  ASSERT_EQ(report.counters.critical_intervals.size(), 5u);
  draw_chain = report.counters.critical_intervals[1];
  const std::int64_t per_thread = share.Count(0);  // thread 0's list is the longest
  const std::int64_t run = (per_thread + gpu::kWarpSize - 1) / gpu::kWarpSize;
  const int rounds = (kD + kThreads / gpu::kWarpSize - 1) / (kThreads / gpu::kWarpSize);
  EXPECT_LE(draw_chain, rounds * (2 + 2 * run) + 1);
  // The thread-major order: the lists by the definition of the two shares, not by IndexAt.
  std::vector<std::int64_t> order;
  const gpu::QuadSpan& q = share.span;
  for (std::int64_t t = 0; t < kThreads; ++t) {
    if (!share.quads) {
      for (std::int64_t i = t; i < vocab; i += kThreads) order.push_back(i);
      continue;
    }
    for (std::int64_t quad = t; quad < q.quads; quad += kThreads) {
      for (int e = 0; e < 4; ++e) order.push_back(4 * quad + e);
    }
    if (t < q.tail) order.push_back(4 * q.quads + t);
  }
  ASSERT_EQ(static_cast<std::int64_t>(order.size()), vocab);
  double expected_total = 0.0;
  for (float x : w) expected_total += x;
  EXPECT_EQ(total, static_cast<float>(expected_total));
  for (int d = 0; d < kD; ++d) {
    SCOPED_TRACE(testing::Message() << "u = " << u[d]);
    const double x = static_cast<double>(u[d] * total);
    double c = 0.0;
    std::int64_t expected = -1;
    for (std::int64_t i : order) {
      const float wi = w[static_cast<std::size_t>(i)];
      if (!(wi > 0.0f)) continue;
      c += wi;
      expected = i;
      if (c > x) break;
    }
    EXPECT_EQ(picks[d], expected);
    EXPECT_GT(w[static_cast<std::size_t>(picks[d])], 0.0f);
  }
  EXPECT_EQ(sums[0], static_cast<float>(kThreads * (kThreads - 1) / 2));
  EXPECT_EQ(sums[1], static_cast<float>(kThreads * (kThreads - 1)));
  EXPECT_EQ(sums[2], static_cast<float>(kThreads));
  // The warps taking part in the collectives: every warp in the masses' butterfly and scan before
  // the rounds (5 + 5 shuffles) and in the lanes' sums (two pairs' butterflies, twice: 20);
  // in a round only the warps with a proposal (ForWarps): min(kD, kWarps) of them at 1024
  // threads, whose one round holds every other collective of the launch.
  constexpr int kWarps = kThreads / gpu::kWarpSize;
  if (rounds == 1) {
    const std::int64_t shared_ops = 10 + 20;
    EXPECT_EQ(report.counters.warp_op_warps,
              shared_ops * kWarps + (report.counters.warp_ops - shared_ops) * std::min(kD, kWarps));
  }
}

TEST(GpuFastSampling, ProposalsFollowTheWeights) {
  auto strided = [](std::int64_t n, int threads) { return gpu::ThreadShare{n, threads}; };
  ExpectProposalsFollowTheWeights<64>(200, strided(200, 64));
  ExpectProposalsFollowTheWeights<64>(6400, strided(6400, 64));
  ExpectProposalsFollowTheWeights<1024>(40000, strided(40000, 1024));
  // By quads (tails of 3, 1 and 2 elements): 203 = 4 x 50 + 3 (threads 50 to 63 without a
  // quad), 6401 = 4 x 1600 + 1, 40002 = 4 x 10000 + 2.
  ExpectProposalsFollowTheWeights<64>(203, gpu::ThreadShare{203, 64, true, {0, 50, 3}});
  ExpectProposalsFollowTheWeights<64>(6401, gpu::ThreadShare{6401, 64, true, {0, 1600, 1}});
  ExpectProposalsFollowTheWeights<1024>(40002, gpu::ThreadShare{40002, 1024, true, {0, 10000, 2}});
}

// The rows and proposals of the two tests below. Row "flat": every value 0 = m, so each weight
// is exactly 1 and every sum is a count (the order is the indices'); the other takes values 0 to
// -2.5 in steps of a quarter, with ties. Seven proposals drawn at chosen indices (the first and
// last, two neighbours, the middle); the eighth undrawn (kNoKey), whose sum the kernel never
// reads. ExpectSums: thread sums `got` against the definition, for each drawn proposal d the
// weights FastExpF32(s_i - m) of the listed keys below proposal d's key, added in the list's order.
struct ProposalRow {
  static constexpr int kD = gpu::fast_detail::kFastProposals;
  std::int64_t n;
  bool flat;
  std::vector<float> x;
  std::int64_t picks[kD - 1];
  gpu::fast_detail::ProposalKeys<kD> proposals;

  ProposalRow(std::int64_t entries, bool is_flat)
      : n(entries), flat(is_flat), x(static_cast<std::size_t>(entries)),
        picks{0, entries - 1, 17, 18, entries / 2, 3 * entries / 4, 640} {
    for (std::int64_t i = 0; i < n; ++i) {
      x[static_cast<std::size_t>(i)] = flat ? 0.0f : -0.25f * static_cast<float>((i * 37) % 11);
    }
    for (int d = 0; d < kD - 1; ++d) {
      proposals.key[d] = Key(picks[d]);
      proposals.last = std::max(proposals.last, proposals.key[d]);
    }
    proposals.key[kD - 1] = gpu::fast_detail::kNoKey;
  }
  std::uint64_t Key(std::int64_t i) const {
    return gpu::fast_detail::RuleOrderKey(x[static_cast<std::size_t>(i)], i, n, false);
  }
  void ExpectSums(const std::vector<std::int64_t>& listed, const gpu::fast_detail::LaneSums<kD>& got) const {
    float expected[kD] = {};
    int count[kD] = {};
    for (const std::int64_t i : listed) {
      for (int d = 0; d < kD - 1; ++d) {
        if (Key(i) >= proposals.key[d]) continue;
        expected[d] += gpu::FastExpF32(x[static_cast<std::size_t>(i)] - 0.0f);
        ++count[d];
      }
    }
    for (int d = 0; d < kD - 1; ++d) {
      SCOPED_TRACE(testing::Message() << "proposal at " << picks[d]);
      EXPECT_EQ(got.v[d], expected[d]);
      if (flat) {
        EXPECT_EQ(got.v[d], static_cast<float>(count[d]));
      }
    }
  }
};

// SumBeforeProposals (gpu/fast/fast_proposals.cuh), one thread's masses before each proposal
// over its share of the row, against ProposalRow's definition over thread t's list from its
// share (IndexAt). Strided at 1000 entries, by quads at 4099 (1024 quads and a tail of 3), 64
// threads.
TEST(GpuFastSampling, SumBeforeProposalsAddsTheWeightsBeforeEachProposal) {
  constexpr int kThreads = 64;
  for (const std::int64_t n : {1000, 4099}) {
    for (const bool flat : {true, false}) {
      SCOPED_TRACE(testing::Message() << n << " entries, " << (flat ? "flat" : "quarters"));
      const ProposalRow row(n, flat);
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(row.x.data()) % 16, 0u);
      std::vector<gpu::fast_detail::LaneSums<ProposalRow::kD>> got(kThreads);
      gpu::ThreadShare share;
      const auto report = gpu::emu::Launch("sum_before_proposals", 1, kThreads, [&](gpu::Block& block) {
        const gpu::fast_detail::ScaledOrderKeys<gpu::GlobalArray<const float>> key_of{
            gpu::GlobalArray<const float>(row.x.data(), n, "logits"), 0, 0, 1.0f, n, false};
        share = gpu::ShareOf(key_of, n, kThreads);
        block.ForEachThread([&](gpu::Thread t) {
          got[static_cast<std::size_t>(t.x)] = gpu::fast_detail::SumBeforeProposals(
              key_of, share, t.x, row.proposals, gpu::fast_detail::RowWeight{0.0f});
        });
      });
      ASSERT_EQ(report.total, 0) << report.Summary();
      EXPECT_EQ(share.quads, n >= 4096);
      std::int64_t listed = 0;
      for (int t = 0; t < kThreads; ++t) {
        SCOPED_TRACE(testing::Message() << "thread " << t);
        std::vector<std::int64_t> list;
        for (std::int64_t j = 0; j < share.Count(t); ++j) list.push_back(share.IndexAt(t, j));
        listed += static_cast<std::int64_t>(list.size());
        row.ExpectSums(list, got[static_cast<std::size_t>(t)]);
      }
      EXPECT_EQ(listed, n);
    }
  }
}

// CountDroppedBeforeProposals (gpu/fast/fast_proposals.cuh), the near-V gather's count read
// out of line, against its definition written here over each thread's keys of the reversed
// order in its partition's order (ForEachPartitionKey, the read GatherCountedCandidates' in-line
// count takes): the indices of the keys at or below the bound, in that order, the first kCap
// held and every one counted; and the masses before each proposal as ProposalRow defines them,
// over the order keys (~reversed). The bound is the reversed key of the entry at n / 3, so that
// about a third of the keys pass and a thread holds more than kCap = 4 of them (the count goes
// on, the held indices stop).
TEST(GpuFastSampling, CountDroppedBeforeProposalsCountsAndSumsAsTheDefinition) {
  constexpr int kThreads = 64;
  constexpr int kCap = 4;
  using Keys = gpu::fast_detail::ScaledOrderKeys<gpu::GlobalArray<const float>>;
  for (const std::int64_t n : {1000, 4099}) {
    for (const bool flat : {true, false}) {
      SCOPED_TRACE(testing::Message() << n << " entries, " << (flat ? "flat" : "quarters"));
      const ProposalRow row(n, flat);
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(row.x.data()) % 16, 0u);
      const std::uint64_t bound = ~row.Key(n / 3);
      auto candidate = [bound](std::uint64_t key) { return key <= bound; };
      std::vector<gpu::fast_detail::DroppedCount<kCap, ProposalRow::kD>> got(kThreads);
      std::vector<std::vector<std::int64_t>> listed(kThreads);
      const auto report = gpu::emu::Launch("count_dropped_before_proposals", 1, kThreads, [&](gpu::Block& block) {
        const gpu::ReversedKeys<Keys> reversed{
            Keys{gpu::GlobalArray<const float>(row.x.data(), n, "logits"), 0, 0, 1.0f, n, false}};
        const gpu::KeyPartition part = gpu::PartitionKeys(reversed, n, kThreads, true);
        block.ForEachThread([&](gpu::Thread t) {
          got[static_cast<std::size_t>(t.x)] = gpu::fast_detail::CountDroppedBeforeProposals<kCap>(
              reversed, part, t.x, candidate, row.proposals, gpu::fast_detail::RowWeight{0.0f});
          gpu::ForEachPartitionKey(reversed, part, t.x, [&](std::int64_t i, std::uint64_t) {
            listed[static_cast<std::size_t>(t.x)].push_back(i);
          });
        });
      });
      ASSERT_EQ(report.total, 0) << report.Summary();
      std::int64_t entries = 0;
      bool overflowed = false;
      for (int t = 0; t < kThreads; ++t) {
        SCOPED_TRACE(testing::Message() << "thread " << t);
        const auto& list = listed[static_cast<std::size_t>(t)];
        const auto& c = got[static_cast<std::size_t>(t)];
        entries += static_cast<std::int64_t>(list.size());
        std::vector<std::uint32_t> passing;
        for (const std::int64_t i : list) {
          if (~row.Key(i) <= bound) passing.push_back(static_cast<std::uint32_t>(i));
        }
        ASSERT_EQ(c.index.count, passing.size());
        overflowed = overflowed || passing.size() > static_cast<std::size_t>(kCap);
        for (std::size_t j = 0; j < passing.size() && j < static_cast<std::size_t>(kCap); ++j) {
          EXPECT_EQ(c.index.key[j], passing[j]) << "held " << j;
        }
        row.ExpectSums(list, c.before);
      }
      EXPECT_EQ(entries, n);
      EXPECT_TRUE(overflowed);
    }
  }
}

// The block-scan inverse CDF (FastBlockInverseCdf, gpu/fast/fast_sampling.cuh) against the
// definition written here: integer weights (every sum exact in any order, so the free order
// must give the definition's token exactly), the token the first i with w_i > 0 whose prefix
// sum C_i exceeds x, the last positive weight for x >= total, -1 for a row of zeros. Targets at
// 0, at every prefix sum of a few positions (x = C_i takes the next positive weight), half a
// unit below, and at and above the total. Chunks of zeros (an owner's runs of zeros, a warp
// without an owner), a one-weight row, and chunks of 5, 40 and 126 entries (runs of 1, 2 and
// 4 a lane); the walk's interval at most 2 ceil(c / 32) + 4 accesses on the busiest thread
// (the owner alone walked up to c). With base >= 0 the weights are a global array's values from
// element `base` of a 16-byte aligned buffer, read through ValueWeights: chunks of whole quads
// from index 0, c = 4 ceil(V / 4 / threads), at every base; four elements a load at base 0
// (the chunk sums' interval at most c / 4 + 7 accesses: the tail singles and the store), one
// at the others (c + 7); the same tokens.
struct OffsetValues {
  gpu::GlobalArray<const float> a;
  std::int64_t base = 0;
  float Load(std::int64_t i) const { return a.Load(base + i); }
  auto Load4(std::int64_t i) const { return a.Load4(base + i); }
  std::int64_t BoundaryGap(std::int64_t i) const { return a.BoundaryGap(base + i); }
};

template <int kThreads>
void ExpectInverseCdfOfTheDefinition(const std::vector<float>& w, const std::vector<float>& targets,
                                     std::int64_t base = -1) {
  const auto vocab = static_cast<std::int64_t>(w.size());
  SCOPED_TRACE(testing::Message() << kThreads << " threads, " << vocab << " weights, base " << base);
  std::vector<float> buffer(w.size() + 4, 0.0f);
  std::copy(w.begin(), w.end(), buffer.begin() + (base > 0 ? base : 0));
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % 16, 0u);
  const std::int64_t quads = base >= 0 ? vocab / 4 : 0;
  std::vector<double> prefix(w.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < w.size(); ++i) prefix[i] = sum += w[i];
  for (const float x : targets) {
    std::int64_t expected = -1;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (!(w[i] > 0.0f)) continue;
      expected = static_cast<std::int64_t>(i);
      if (prefix[i] > x) break;
    }
    std::int64_t got = -2;
    float total = -1.0f;
    const auto report = gpu::emu::Launch("inverse cdf", 1, kThreads, [&](gpu::Block& block) {
      if (base < 0) {
        got = gpu::fast_detail::FastBlockInverseCdf<kThreads>(
            block, vocab, [&](std::int64_t i) { return w[static_cast<std::size_t>(i)]; }, [&](float) { return x; },
            total);
        return;
      }
      const OffsetValues values{
          gpu::GlobalArray<const float>(buffer.data(), static_cast<std::int64_t>(buffer.size()), "w"), base};
      got = gpu::fast_detail::FastBlockInverseCdf<kThreads>(
          block, vocab, gpu::fast_detail::WeightsOfValues(values, [](std::int64_t, float v) { return v; }),
          [&](float) { return x; }, total);
    });
    ASSERT_EQ(report.total, 0) << report.Summary();
    EXPECT_EQ(got, expected) << "x = " << x;
    EXPECT_EQ(total, static_cast<float>(sum));
    // Intervals: the chunk sums and the scan's stores, the warps' sums, the walk, the pick's
    // reduction (and the fallback's when no thread picks), the empty last.
    ASSERT_GE(report.counters.critical_intervals.size(), 5u);
    const std::int64_t chunk = base >= 0 ? 4 * ((quads + kThreads - 1) / kThreads) : (vocab + kThreads - 1) / kThreads;
    const std::int64_t longest = chunk + (base >= 0 ? 3 : 0);  // the last chunk's tail
    EXPECT_LE(report.counters.critical_intervals[2], 2 * ((longest + gpu::kWarpSize - 1) / gpu::kWarpSize) + 4);
    if (base >= 0) {
      EXPECT_LE(report.counters.critical_intervals[0], (base == 0 ? chunk / 4 : chunk) + 7);
    }
    // The scan's barrier, the inclusive sums', the pick's reduction (2) and, only for x at or
    // above the total (no owner), the fallback's reduction (2).
    EXPECT_EQ(report.counters.barriers, x >= sum ? 6 : 4);
  }
}

// OnlineMass::Add (gpu/fast/fast_proposals.cuh) takes one exponential an entry; its sums are
// those of the definition written here, sum x exp(M - s) then + exp(s - s) when s raises the
// maximum M, sum + exp(s - M) otherwise (-inf entries skipped), bit for bit: on sequences that
// rise, fall, tie and mix, with -inf entries and spans wide enough that terms underflow to 0.
// On a flat sequence every term is exp(0) = 1, so the sum is the count of finite entries; with
// none, the mass is +0.
TEST(GpuFastSampling, OnlineMassAddsAsTheDefinition) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  struct Definition {
    float max = 0.0f, sum = 0.0f;
    bool any = false;
    void Add(float s) {
      if (s == kNegInf) return;
      if (!any || s > max) {
        sum = any ? sum * gpu::FastExpF32(max - s) : 0.0f;
        max = s;
        any = true;
      }
      sum = sum + gpu::FastExpF32(s - max);
    }
  };
  std::mt19937_64 rng(20261206);
  std::vector<std::vector<float>> sequences = {
      {}, {kNegInf}, {1.5f}, {kNegInf, 2.0f, kNegInf}, {0.0f, 0.0f, 0.0f}, {1.0f, 2.0f, 3.0f, 4.0f},
      {4.0f, 3.0f, 2.0f, 1.0f}, {-200.0f, 0.0f, -200.0f}, {0.0f, 150.0f, 0.0f}};
  for (int r = 0; r < 200; ++r) {
    std::uniform_real_distribution<float> value(r % 2 == 0 ? -8.0f : -120.0f, r % 2 == 0 ? 8.0f : 60.0f);
    std::vector<float> seq(static_cast<std::size_t>(1 + r * 7 % 300));
    for (std::size_t i = 0; i < seq.size(); ++i) {
      const std::uint64_t u = rng();
      seq[i] = u % 13 == 0 ? kNegInf : u % 7 == 0 && i > 0 ? seq[i - 1] : value(rng);
    }
    if (r % 5 == 0) std::sort(seq.begin(), seq.end());  // every finite entry raises or ties the maximum
    sequences.push_back(std::move(seq));
  }
  for (std::size_t q = 0; q < sequences.size(); ++q) {
    SCOPED_TRACE(testing::Message() << "sequence " << q);
    gpu::fast_detail::OnlineMass got;
    Definition want;
    for (const float s : sequences[q]) {
      got.Add(s);
      want.Add(s);
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got.sum), std::bit_cast<std::uint32_t>(want.sum)) << "after " << s;
      if (want.any) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got.max), std::bit_cast<std::uint32_t>(want.max)) << "after " << s;
      }
    }
    const float m = want.any ? want.max + 0.5f : 0.0f;  // the row's maximum, at or above the thread's
    const float want_mass = want.any ? want.sum * gpu::FastExpF32(want.max - m) : 0.0f;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got.Mass(m)), std::bit_cast<std::uint32_t>(want_mass));
  }
  gpu::fast_detail::OnlineMass flat;
  for (int i = 0; i < 1000; ++i) flat.Add(i % 3 == 0 ? kNegInf : -2.5f);
  EXPECT_EQ(flat.sum, 666.0f);
  EXPECT_EQ(flat.max, -2.5f);
}

TEST(GpuFastSampling, InverseCdfFollowsTheDefinition) {
  std::vector<float> w(5000);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const bool zero = (i / 40) % 7 == 3 || (i >= 1280 && i < 2560) || i % 11 == 0;
    w[i] = zero ? 0.0f : static_cast<float>(1 + (i * 7) % 3);
  }
  std::vector<float> targets = {0.0f, 0.5f};
  double c = 0.0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    c += w[i];
    if (i % 397 == 1 || i == 1279 || i == 2560 || i == 2561 || i == 4999) {
      targets.push_back(static_cast<float>(c));
      targets.push_back(static_cast<float>(c) - 0.5f);
    }
  }
  targets.push_back(static_cast<float>(c) - 1.0f);
  targets.push_back(static_cast<float>(c));
  targets.push_back(static_cast<float>(c) + 3.0f);
  ExpectInverseCdfOfTheDefinition<128>(w, targets);  // chunks of 40: runs of 2
  ExpectInverseCdfOfTheDefinition<1024>(w, targets);  // chunks of 5: runs of 1
  std::vector<float> wide(128256, 0.0f);
  for (std::size_t i = 0; i < wide.size(); i += 3) wide[i] = static_cast<float>(1 + i % 2);
  double wide_total = 0.0;
  for (const float x : wide) wide_total += x;
  const std::vector<float> wide_targets = {0.0f,     1.0f,    1000.5f, 85000.0f, 85504.0f,
                                           static_cast<float>(wide_total) - 0.5f, static_cast<float>(wide_total)};
  ExpectInverseCdfOfTheDefinition<1024>(wide, wide_targets);  // chunks of 126: runs of 4
  // By quads: 5000 weights at 128 threads (chunks of 40), 128256 at 1024 (chunks of 128,
  // runs of 4), at every base.
  for (std::int64_t base = 0; base < 4; ++base) {
    ExpectInverseCdfOfTheDefinition<128>(w, targets, base);
    ExpectInverseCdfOfTheDefinition<1024>(wide, wide_targets, base);
  }
  std::vector<float> one(300, 0.0f);
  one[257] = 2.0f;
  ExpectInverseCdfOfTheDefinition<128>(one, {0.0f, 1.0f, 2.0f});
  ExpectInverseCdfOfTheDefinition<128>(std::vector<float>(300, 0.0f), {0.0f});
}

// Top-p, min-p and the draw on the sorted survivors by warp 0 (DrawOnSurvivors,
// gpu/fast/fast_sampling.cuh) against one sequential walk of the contract's rules written
// here: weights that are multiples of 1/4 (w_0 = 1; some 0), so every sum is exact in any
// order and the lanes' butterfly must give the walk's token exactly. k from 1 to 1024 (one
// lane, lanes of 1, 2 and 32 positions, a last lane part-full), top-p off / 0.3 / 0.9 / 0.999,
// sglang's joint rule, min-p 0 / 0.5 / 1, the planted off-by-one, u from 0 to just below 1;
// each lane reads its positions three times (3 ceil(k / 32) shared reads, 96 at k = 1024).
struct SurvivorCase {
  std::int64_t k;
  float p, mp;
  bool joint;
  gpu::FastSamplingBug bug;
  float u;
};

std::int64_t SequentialSurvivorDraw(const std::vector<float>& w, const SurvivorCase& c, float row_mass) {
  float s = 0.0f;
  for (std::int64_t j = 0; j < c.k; ++j) s += w[static_cast<std::size_t>(j)];
  const float mass = c.joint ? row_mass : s;
  const float min_ratio = std::min(c.mp, 1.0f);
  float kept = 0.0f;
  std::int64_t n = 0;
  for (; n < c.k; ++n) {
    const float e = w[static_cast<std::size_t>(n)];
    bool keep = !(c.mp > 0.0f) || e >= min_ratio;
    if (keep && (c.p < 1.0f || c.joint)) {
      const float tested = c.bug == gpu::FastSamplingBug::kTopPOffByOne ? kept - e : kept;
      keep = kept == 0.0f || (c.joint ? tested <= c.p * mass : tested < c.p * mass);
    }
    if (!keep) break;
    kept += e;
  }
  const float target = c.u * kept;
  float run = 0.0f;
  std::int64_t last = -1;
  for (std::int64_t j = 0; j < n; ++j) {
    const float e = w[static_cast<std::size_t>(j)];
    if (!(e > 0.0f)) continue;
    run += e;
    last = j;
    if (run > target) return j;
  }
  return last;
}

TEST(GpuFastSampling, DrawOnSurvivorsFollowsTheSequentialRules) {
  std::mt19937 gen(2026);
  int cases = 0;
  for (std::int64_t k : {1, 2, 31, 32, 33, 50, 100, 1000, 1024}) {
    std::vector<float> w(static_cast<std::size_t>(k));
    w[0] = 1.0f;
    for (std::int64_t j = 1; j < k; ++j) w[static_cast<std::size_t>(j)] = static_cast<float>(gen() % 5) * 0.25f;
    std::sort(w.begin() + 1, w.end(), std::greater<>());  // descending after the first, as sorted survivors
    const float row_mass = 2.0f * static_cast<float>(k);  // sglang's: the whole row's, above the top k's
    for (float p : {1.0f, 0.3f, 0.9f, 0.999f}) {
      for (float mp : {0.0f, 0.5f, 1.0f}) {
        for (bool joint : {false, true}) {
          for (auto bug : {gpu::FastSamplingBug::kNone, gpu::FastSamplingBug::kTopPOffByOne}) {
            for (float u : {0.0f, 0.1f, 0.5f, 0.9f, 0.99999994f}) {
              const SurvivorCase c{k, p, mp, joint, bug, u};
              std::int64_t got = -2;
              const auto report = gpu::emu::Launch("draw_on_survivors", 1, 1024, [&](gpu::Block& block) {
                SAMPCHECK_SHARED(block, float, weights, gpu::fast_detail::kFastSurvivorSlots);
                block.ForEachThread([&](gpu::Thread t) {
                  if (t.x < k) weights.Store(t.x, w[static_cast<std::size_t>(t.x)]);
                });
                block.Sync();
                gpu::fast_detail::DrawOnSurvivors<1024>(
                    block, [&](gpu::Thread, std::int64_t j) { return weights.Load(j); }, k,
                    gpu::fast_detail::SurvivorRules{p, mp, joint, row_mass, bug}, u,
                    [&](gpu::Thread, std::int64_t j) { got = j; });
              });
              ASSERT_EQ(report.total, 0) << report.Summary();
              EXPECT_EQ(got, SequentialSurvivorDraw(w, c, row_mass))
                  << "k " << k << ", p " << p << ", min-p " << mp << ", joint " << joint << ", u " << u;
              // The test's own store, then three reads of a lane's positions.
              EXPECT_LE(report.counters.critical_path, 1 + 3 * ((k + 31) / 32));
              // Warp 0 alone takes part in its scan and minima (ForWarps): 5 + 5 + 5 shuffles.
              EXPECT_EQ(report.counters.warp_ops, 15);
              EXPECT_EQ(report.counters.warp_op_warps, 15);
              ++cases;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 9 * 4 * 3 * 2 * 2 * 5);
}

// The survivor gather keeps each virtual lane's 6 smallest keys in read 1 (LaneKeys,
// gpu/fast/fast_top_k_survivors.cuh) and, when a lane holds 6 or more candidates, at most 8
// keys per thread of a 1024-thread block during read 2's count
// (gpu/block/cached_candidates.cuh): on a row of V = 16384 (16 entries per virtual lane)
// whose c largest values sit on lane 3, c = 0 needs read 1 alone (1 pass), c = 7 read 2 too
// (2 passes: lane 3 holds 7 >= 6 candidates, thread 3's cache 7 <= 8), c = 16 read 3 as well
// (3 passes: 16 > 8).
// Expected, from the contract (k = 20 <= 64: the tree path): T = the k-th smallest of the
// lanes' three smallest keys (std::nth_element). No lane's fourth key at or below T (c = 0):
// the row's k smallest keys (std::partial_sort), total k. Else (c = 7, 16: lane 3's fourth is
// among them) the candidates, the keys <= T sorted by std::sort, whose first k are the row's k
// smallest; the later slots hold kNoSurvivor.
// One gather per crowding over the key source make_keys(row) gives, whose reads give element i
// to share_of(i) (virtual lane in read 1, thread in reads 2 and 3); elements_a_load: 1 or 4.
template <class MakeKeys>
void ExpectSurvivorGatherOnShares(std::int64_t (*share_of)(std::int64_t), MakeKeys make_keys,
                                  std::int64_t elements_a_load) {
  constexpr std::int64_t kV = 16384, kK = 20, kLanes = gpu::fast_detail::kFastSurvivorSlots;
  struct Crowd {
    int c;
    std::int64_t passes;
  };
  for (const Crowd crowd : {Crowd{16, 3}, Crowd{7, 2}, Crowd{0, 1}}) {
    SCOPED_TRACE(testing::Message() << crowd.c << " largest values on lane 3");
    std::vector<float> row = CrowdedRow(crowd.c == 16 ? 7 : 8, kV, crowd.c, share_of, 3);
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(row.data()) % 16, 0u);
    // Each lane's four smallest keys, ascending (~0 past its keys).
    std::vector<std::uint64_t> keys(kV);
    std::vector<std::array<std::uint64_t, 4>> lane(kLanes);
    for (auto& l : lane) l.fill(gpu::fast_detail::kNoSurvivor);
    for (std::int64_t i = 0; i < kV; ++i) {
      const std::uint64_t key = gpu::fast_detail::OrderKey(row[static_cast<std::size_t>(i)], i);
      keys[static_cast<std::size_t>(i)] = key;
      auto& l = lane[static_cast<std::size_t>(share_of(i))];
      if (key < l[3]) l[3] = key;
      std::sort(l.begin(), l.end());
    }
    // T = the k-th smallest of the lanes' three smallest; the tree's answer stands unless some
    // lane's fourth is at or below T.
    std::vector<std::uint64_t> threes;
    for (const auto& l : lane) threes.insert(threes.end(), {l[0], l[1], l[2]});
    std::nth_element(threes.begin(), threes.begin() + (kK - 1), threes.end());
    const std::uint64_t bound = threes[kK - 1];
    const bool short_lane =
        std::any_of(lane.begin(), lane.end(), [&](const auto& l) { return l[3] <= bound; });
    EXPECT_EQ(short_lane, crowd.c > 3);
    std::vector<std::uint64_t> top = keys;
    std::partial_sort(top.begin(), top.begin() + kK, top.end());
    std::vector<std::uint64_t> expected(top.begin(), top.begin() + kK);
    int on_share_3 = 0;
    if (short_lane) {  // the candidates up to T, as the reads gather them
      expected.clear();
      for (std::int64_t i = 0; i < kV; ++i) {
        if (keys[static_cast<std::size_t>(i)] > bound) continue;
        expected.push_back(keys[static_cast<std::size_t>(i)]);
        on_share_3 += share_of(i) == 3;
      }
      std::sort(expected.begin(), expected.end());
      ASSERT_TRUE(std::equal(top.begin(), top.begin() + kK, expected.begin()));
    }
    // Lane 3's candidates: the crowd, and (rarely) a key of its own below T.
    EXPECT_GE(on_share_3, crowd.c);
    EXPECT_EQ(on_share_3 >= gpu::kLaneKept, crowd.passes >= 2);
    EXPECT_EQ(on_share_3 > gpu::kCachedCandidates, crowd.passes == 3);
    std::vector<std::uint64_t> gathered_keys(kLanes);
    std::uint32_t total = 0;
    bool ok = false;
    gpu::LaunchRecorder recorder;
    const auto report = gpu::emu::Launch("survivor_gather", 1, 1024, [&](gpu::Block& block) {
      const auto key_of = make_keys(gpu::GlobalArray<float>(row.data(), kV, "row"));
      SAMPCHECK_SHARED(block, std::uint64_t, gathered, gpu::fast_detail::kFastSurvivorSlots);
      ok = gpu::fast_detail::GatherFastSurvivors<1024>(block, kV, kK, key_of, gathered, total);
      block.ForEachThread([&](gpu::Thread t) {
        if (t.x != 0) return;
        for (int s = 0; s < kLanes; ++s) gathered_keys[static_cast<std::size_t>(s)] = gathered.Load(s);
      });
    });
    ASSERT_EQ(report.total, 0) << report.Summary();
    ASSERT_TRUE(ok);
    ASSERT_EQ(total, expected.size());
    // Past them the tree leaves its own keys, the reads' sort the padding.
    const std::size_t checked = short_lane ? gathered_keys.size() : expected.size();
    for (std::size_t s = 0; s < checked; ++s) {
      EXPECT_EQ(gathered_keys[s], s < expected.size() ? expected[s] : gpu::fast_detail::kNoSurvivor) << "slot " << s;
    }
    ASSERT_EQ(recorder.launches().size(), 1u);
    const gpu::ArrayTraffic row_traffic = recorder.launches()[0].Global("row");
    EXPECT_EQ(row_traffic.load_bytes, crowd.passes * kV * 4);
    EXPECT_EQ(row_traffic.loads, crowd.passes * kV / elements_a_load);
  }
}

TEST(GpuFastSampling, SurvivorGatherReadsTheRowAgainWhenALaneOverflows) {
  ExpectSurvivorGatherOnShares(
      [](std::int64_t i) { return i % gpu::fast_detail::kFastSurvivorSlots; },
      [](gpu::GlobalArray<float> logits) {
        return [logits](std::int64_t i) { return gpu::fast_detail::OrderKey(logits.Load(i), i); };
      },
      1);
}

// The same gather from the scaled logits (ScaledOrderKeys at t = 1: a QuadKeySource,
// gpu/block/key_reads.cuh) takes four elements a load: the row starts on a 16-byte boundary and
// holds 4096 >= 1024 quads, so virtual lane l's share in read 1 and thread t's in reads 2 and 3
// are the quads q = l (t) mod 1024, element i being (i / 4) mod 1024's. Its 16 largest values
// in thread 3's share (elements 12 .. 15 of every 4096) overflow that cache. Expected as above
// with those shares; loads: 4096 a read, where one element a load made 16384.
TEST(GpuFastSampling, SurvivorGatherTakesFourElementsALoadFromTheScaledLogits) {
  ExpectSurvivorGatherOnShares(
      [](std::int64_t i) { return i / 4 % gpu::fast_detail::kFastSurvivorSlots; },
      [](gpu::GlobalArray<float> logits) {
        return gpu::fast_detail::ScaledOrderKeys<gpu::GlobalArray<float>>{logits, 0, 0, 1.0f, 16384, false};
      },
      4);
}

// top-k near V (k > 1024, at most 1024 dropped: the reversed gather): on flat rows of
// V = 1030 with k = 1027 every kept token has probability 1/1027 and the dropped ones are the
// three highest indices (ties go to the lower indices): no token >= 1027 may appear. With
// top-p 0.999 the kept prefix ends one token earlier: E_j = j / 1027 < 0.999 holds up to
// j = 1025 (1025/1027 = 0.99805) and not at 1026 (0.99903), so no token >= 1026 (the bounds
// are the canonical rule worked by hand; the margins are far above f32 rounding). 1200 rows
// with distinct seeds per variant: a bound off by one (keeping index 1027 with probability
// 1/1028 per row) shows with probability 1 - (1 - 1/1028)^2400 = 0.90 over both variants;
// more rows would cost over 5 s of emulation.
TEST(GpuFastSampling, TopKNearVocabDropsTheLastTokens) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const std::int64_t rows = 1200, vocab = 1030;
  const std::vector<float> logits(static_cast<std::size_t>(rows * vocab), 0.0f);
  std::vector<std::int64_t> seed(rows);
  for (std::int64_t b = 0; b < rows; ++b) seed[static_cast<std::size_t>(b)] = 1000 + b;
  struct Variant {
    std::int32_t k;
    float p;
    std::int64_t bound;
  };
  for (const Variant v : {Variant{1027, 1.0f, 1027}, Variant{1027, 0.999f, 1026}}) {
    SCOPED_TRACE(testing::Message() << "k " << v.k << " p " << v.p);
    const auto t = Tokens(backend->Run(
        "pipeline", PipelineCase(rows, vocab, logits, std::vector<float>(rows, 1.0f), std::vector<std::int32_t>(rows, v.k),
                                 std::vector<float>(rows, v.p), std::vector<float>(rows, 0.0f), seed)));
    EXPECT_LT(*std::max_element(t.begin(), t.end()), v.bound);
    EXPECT_GE(*std::min_element(t.begin(), t.end()), 0);
  }
}

// 1024 < k < V - 1024 with top-p on: the k-th key by a sample's splitters (SelectKthKeyBySample;
// its own tests: tests/gpu_sample_select_test.cc). Flat rows of V = 4000 and 12000 (samples
// of 500 and 1500 entries), k = V / 2, p = 0.9999: the top-k set is indices
// 0 .. k - 1 (ties by index), each of probability 1/k after renormalising, and top-p keeps at
// least k - 1 of them (E_j < p up to j = k - 1 in exact arithmetic, f32 rounding moves E by
// far less than 1/k). 400 rows: every token below k, and the largest at or above 0.95 k (each
// row's token is below 0.95 k with probability 0.95: all 400 with 0.95^400 < 1e-8).
TEST(GpuFastSampling, TopKInTheMiddleSelectsItsBoundExactly) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  for (const std::int64_t vocab : {4000, 12000}) {
    SCOPED_TRACE(testing::Message() << "V = " << vocab);
    const std::int64_t rows = 400, k = vocab / 2;
    const std::vector<float> logits(static_cast<std::size_t>(rows * vocab), 0.0f);
    std::vector<std::int64_t> seed(rows);
    for (std::int64_t b = 0; b < rows; ++b) seed[static_cast<std::size_t>(b)] = 5000 + b;
    const auto t = Tokens(backend->Run(
        "pipeline", PipelineCase(rows, vocab, logits, std::vector<float>(rows, 1.0f),
                                 std::vector<std::int32_t>(rows, static_cast<std::int32_t>(k)),
                                 std::vector<float>(rows, 0.9999f), std::vector<float>(rows, 0.0f), seed)));
    EXPECT_LT(*std::max_element(t.begin(), t.end()), k);
    EXPECT_GE(*std::max_element(t.begin(), t.end()), k - k / 20);
    EXPECT_GE(*std::min_element(t.begin(), t.end()), 0);
  }
}

// The proposals walk back the share each thread's mass came from (gpu/block/thread_share.cuh):
// rows of V = 8195 (2048 quads, so every read the masses come from takes the quads' shares;
// rows of 8195 floats start at every 4-byte offset of a 16-byte boundary, those off one load
// the quads' elements one at a time), logits 0 but three
// spikes of 30 at indices 1 (in the head of some rows), 4099 and 8194 (in the tail of some):
// the rest weighs 8192 e^-30 = 8e-10 of a spike, so every token is a spike, each with
// probability 1/3 (400 rows: a spike never drawn has probability 3 (2/3)^400 < 1e-70, another
// token 400 x 8e-10). Paths: top-k off and top-p 1 (the maximum's read; every proposal
// accepted), top-k V - 1 (the near-V gather's lane minima), top-k 5000 with top-p 0.9999 (the
// sample select's count read; the spikes' masses before them 0, S / 3 and 2 S / 3 all pass).
// A walk of another share than the masses' (strided here) lands on a non-spike: the first two
// paths take it as the token (the third's top-p rejects it, and its rounds draw a spike).
TEST(GpuFastSampling, ProposalsFollowTheSharesOfFourElementsALoad) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const std::int64_t rows = 400, vocab = 8195;
  const std::vector<std::int64_t> spikes = {1, 4099, 8194};
  std::vector<float> logits(static_cast<std::size_t>(rows * vocab), 0.0f);
  for (std::int64_t b = 0; b < rows; ++b) {
    for (const std::int64_t i : spikes) logits[static_cast<std::size_t>(b * vocab + i)] = 30.0f;
  }
  std::vector<std::int64_t> seed(rows);
  for (std::int64_t b = 0; b < rows; ++b) seed[static_cast<std::size_t>(b)] = 9000 + b;
  for (const auto& [k, p] : std::vector<std::pair<std::int32_t, float>>{{0, 1.0f}, {8194, 1.0f}, {5000, 0.9999f}}) {
    SCOPED_TRACE(testing::Message() << "k " << k << " p " << p);
    const auto t = Tokens(backend->Run(
        "pipeline", PipelineCase(rows, vocab, logits, std::vector<float>(rows, 1.0f), std::vector<std::int32_t>(rows, k),
                                 std::vector<float>(rows, p), std::vector<float>(rows, 0.0f), seed)));
    for (const std::int64_t i : spikes) EXPECT_GT(std::count(t.begin(), t.end(), i), 0) << "spike " << i;
    for (const std::int64_t token : t) EXPECT_NE(std::find(spikes.begin(), spikes.end(), token), spikes.end()) << token;
  }
}

// The masses before the proposals that the sample select's gather read sums (the select's
// gather hook, gpu/fast/fast_proposals.cuh BeforeProposalsWork) decide top-p: rows of V = 8195,
// logits 0 but spike A = 30 + ln 1.5 at index 4099 and spike B = 30 at index 1 (weights 0.6 and
// 0.4 of the row up to the zeros' 8193 e^-30 / 2.5 = 3e-10), top-k 5000 and top-p 0.5. The
// nucleus is A alone (mass before A 0 < 0.5 S; before B 0.6 S >= 0.5 S), so every token is A,
// though B is the first proposal of about 40 % of the rows, which top-p must reject. With those
// masses lost (0: a hook whose sums never reach the row) B is accepted there: about 160 of the
// 400 tokens would be B (tried).
TEST(GpuFastSampling, SampleSelectRowsRejectProposalsPastTopP) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const std::int64_t rows = 400, vocab = 8195, a = 4099, b = 1;
  std::vector<float> logits(static_cast<std::size_t>(rows * vocab), 0.0f);
  for (std::int64_t r = 0; r < rows; ++r) {
    logits[static_cast<std::size_t>(r * vocab + a)] = static_cast<float>(30.0 + std::log(1.5));
    logits[static_cast<std::size_t>(r * vocab + b)] = 30.0f;
  }
  std::vector<std::int64_t> seed(rows);
  for (std::int64_t r = 0; r < rows; ++r) seed[static_cast<std::size_t>(r)] = 11000 + r;
  const auto t = Tokens(backend->Run(
      "pipeline", PipelineCase(rows, vocab, logits, std::vector<float>(rows, 1.0f),
                               std::vector<std::int32_t>(rows, 5000), std::vector<float>(rows, 0.5f),
                               std::vector<float>(rows, 0.0f), seed)));
  EXPECT_EQ(std::count(t.begin(), t.end(), a), rows);
}

// A row's token must not depend on where its batch puts it: rows of V = 8193 start at 4-byte
// offsets 0, 1, 2, 3 of a 16-byte boundary in turn, so each group of four identical rows (the
// same logits, seed and position) is read at every alignment, and the four tokens must be
// equal: the proposals' shares, the sums before them and the rounds' inverse CDF chunks are
// FixedQuadSpanOf's (gpu/block/quad_reads.cuh), never the address's. With the address's heads
// the proposals' order, hence the token, changed with the row's place (the conformance run's
// batch-composition check caught it). 12 groups of continuous logits under each path: top-k
// off with top-p 0.9 (proposals), top-k V - 1 (near V), top-k 3000 with top-p 0.9 (the sample
// select), min-p 1 alone (the rounds).
TEST(GpuFastSampling, TokensDoNotDependOnTheRowsAlignment) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const std::int64_t groups = 12, rows = 4 * groups, vocab = 8193;
  std::vector<float> logits(static_cast<std::size_t>(rows * vocab));
  std::vector<std::int64_t> seed(rows);
  for (std::int64_t g = 0; g < groups; ++g) {
    SplitMix64 rng(static_cast<std::uint64_t>(100 + g));
    std::vector<float> row(vocab);
    for (float& x : row) x = static_cast<float>(rng.Next() >> 40) * 0x1p-21f;  // [0, 8)
    for (std::int64_t j = 0; j < 4; ++j) {
      std::copy(row.begin(), row.end(), logits.begin() + (4 * g + j) * vocab);
      seed[static_cast<std::size_t>(4 * g + j)] = 700 + g;
    }
  }
  struct Path {
    std::int32_t k;
    float p, m;
  };
  for (const Path& path : {Path{0, 0.9f, 0.0f}, Path{8192, 1.0f, 0.0f}, Path{3000, 0.9f, 0.0f}, Path{0, 1.0f, 1.0f}}) {
    SCOPED_TRACE(testing::Message() << "k " << path.k << " p " << path.p << " m " << path.m);
    const auto t = Tokens(backend->Run(
        "pipeline", PipelineCase(rows, vocab, logits, std::vector<float>(rows, 1.0f),
                                 std::vector<std::int32_t>(rows, path.k), std::vector<float>(rows, path.p),
                                 std::vector<float>(rows, path.m), seed)));
    for (std::int64_t g = 0; g < groups; ++g) {
      for (std::int64_t j = 1; j < 4; ++j) {
        EXPECT_EQ(t[static_cast<std::size_t>(4 * g + j)], t[static_cast<std::size_t>(4 * g)]) << "group " << g;
      }
    }
  }
}

// BlockUniform: a block-level branch on a value that differs between threads is reported.
struct NonUniformKernel {
  static constexpr const char* kName = "non_uniform";
  template <class B>
  void operator()(B& block) const {
    auto r = gpu::Registers<int>(block);
    block.ForEachThread([&](gpu::Thread t) { r[t] = t.x == 5 ? 1 : 0; });
    (void)gpu::BlockUniform(block, r);
  }
};

// rows x vocab logits whose entry i of row b is value(b, i, x_i), x_i the i-th uniform logit
// in [-8, 8) (a multiple of 2^-20) of a 64-bit LCG started at `state` (Knuth's MMIX
// constants): the rows of the sliced-row tests, the same on every platform.
template <class F>
std::vector<float> UniformRows(std::int64_t rows, std::int64_t vocab, std::uint64_t state, F value) {
  std::vector<float> logits(static_cast<std::size_t>(rows * vocab));
  for (std::int64_t i = 0; i < vocab; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const float x = -8.0f + 16.0f * static_cast<float>(state >> 40) * 0x1.0p-24f;
    for (std::int64_t b = 0; b < rows; ++b) logits[static_cast<std::size_t>(b * vocab + i)] = value(b, i, x);
  }
  return logits;
}

// `launch` sliced (planned for its own batch), one block a row at one block per SM (planned
// for a batch of as many rows as SMs: fast_sampling_slices over rows blocks, each row whole in
// its only block, no ticket) and one block a row at two blocks per SM (planned for twice as
// many rows: fast_sampling over rows): one launch each, the same tokens, returned in `tokens`.
void ExpectSlicedEqualsWhole(gpu::FastSamplingLaunch launch, std::int64_t slices, std::vector<std::int64_t>& tokens) {
  const std::int64_t rows = launch.rows;
  std::vector<std::int64_t> sliced(static_cast<std::size_t>(rows), -1), whole(static_cast<std::size_t>(rows), -1);
  std::vector<std::int64_t> two_a_sm(static_cast<std::size_t>(rows), -1);
  gpu::LaunchRecorder recorder;
  for (auto [out, plan] : {std::pair{&sliced, std::int64_t{0}}, std::pair{&whole, gpu::kFastSamplingSms},
                           std::pair{&two_a_sm, 2 * gpu::kFastSamplingSms}}) {
    launch.token = out->data();
    launch.plan_rows = plan;
    ASSERT_NO_THROW(gpu::RunFastSamplingEmulated(launch));
  }
  const auto launches = recorder.launches();
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_STREQ(launches[0].kernel.c_str(), "fast_sampling_slices");
  EXPECT_EQ(launches[0].blocks, rows * slices);
  EXPECT_EQ(launches[0].atomics, rows * slices);
  EXPECT_STREQ(launches[1].kernel.c_str(), "fast_sampling_slices");
  EXPECT_EQ(launches[1].blocks, rows);
  EXPECT_EQ(launches[1].atomics, 0);
  EXPECT_STREQ(launches[2].kernel.c_str(), "fast_sampling");
  EXPECT_EQ(launches[2].blocks, rows);
  EXPECT_EQ(sliced, whole);
  EXPECT_EQ(sliced, two_a_sm);
  tokens = sliced;
}

// Several blocks per row (gpu/fast/fast_sampling_slices.cuh): a batch of 3 rows of V = 16384
// is split into FastSliceBudget(3, 16384) = 4 slices per row (min(floor(132 / 3), 16384 / 4096));
// planned for a batch of kFastSamplingSms rows, or twice as many, the same launch is one block
// per row (in either kernel). The tokens must be the same bits every way, for every seed: the
// slices' partials are exact keys, and the merge gives the survivors the one-block gather
// finds. Rows: a random row with top-k 50, top-p 0.9 (min(4, 1024 / 50) = 4 slices); a greedy
// row (4 slices); and a crowded row, top-k 128, whose 128 largest lane maxima (lanes 0 .. 127,
// values 100 - lane - 0.001 j at index lane + 1024 j) leave 2032 candidates to the one-block
// gather, more than its 1024 slots (it then gathers exactly k by the radix select's k-th key),
// while each slice of 4096 has at most 128 x 4 (min(4, 1024 / 128) = 4 slices).
TEST(GpuFastSampling, SlicedRowsGiveTheOneBlockToken) {
  constexpr std::int64_t rows = 3, vocab = 16384;
  ASSERT_EQ(gpu::FastSliceBudget(rows, vocab), 4);
  const std::vector<float> logits = UniformRows(rows, vocab, 0x51ce, [](std::int64_t b, std::int64_t i, float x) {
    if (b < 2) return b == 0 ? x : -x;
    const std::int64_t lane = i % 1024, j = i / 1024;
    return lane < 128 ? 100.0f - static_cast<float>(lane) - 0.001f * static_cast<float>(j) : -1000.0f + 0.001f * x;
  });
  const std::vector<float> temperature = {1.0f, 0.0f, 1.0f}, top_p = {0.9f, 1.0f, 1.0f}, min_p = {0.0f, 0.0f, 0.0f};
  const std::vector<std::int32_t> top_k = {50, 50, 128};
  std::vector<std::uint64_t> seed = {0, 0, 0}, position = {3, 4, 5};
  gpu::FastSamplingLaunch launch =
      FastLaunch(logits, temperature, top_k, top_p, min_p, seed, position, rows, vocab, vocab);
  ASSERT_EQ(launch.Slices(), 4);
  const auto row1 = logits.begin() + vocab;
  const std::int64_t greedy = std::max_element(row1, row1 + vocab) - row1;  // the first maximum
  std::set<std::int64_t> crowded_tokens;
  for (std::uint64_t s = 1; s <= 8; ++s) {
    SCOPED_TRACE(testing::Message() << "seed " << s);
    seed = {s, s, s};
    std::vector<std::int64_t> sliced;
    ASSERT_NO_FATAL_FAILURE(ExpectSlicedEqualsWhole(launch, 4, sliced));
    EXPECT_EQ(sliced[1], greedy) << "greedy: the first maximum of row 1";
    // The crowded row's top 128 are lanes 0 .. 7, every j (100 - lane - 0.001 j).
    EXPECT_LT(sliced[2] % 1024, 8);
    crowded_tokens.insert(sliced[2]);
  }
  EXPECT_GT(crowded_tokens.size(), 1u);
}

// A slice's list from the tree of its lanes' three smallest keys stands unless a lane's fourth
// is among the k (gpu/fast/fast_top_k_survivors.cuh, "The tree path"); else the slice gathers
// its candidates as before and stores its list again. Two rows of V = 16384, 4 slices each (a
// slice of 4096 entries: lane l reads quad l): row 0 holds 5.0 at 8 indices, 4 of them in one
// quad (8192 .. 8195: lane 0 of slice 2 holds 4 of its slice's top 8), every other entry below
// -1 (a weight below e^-6 against 1); top-k 8 keeps exactly those 8, each drawn with
// probability 1/8. Row 1 is flat (every logit 0: the order is the indices', each lane's whole
// quad precedes the next lane's, so every slice's fourth keys are among its 50); top-k 50
// keeps indices 0 .. 49. Over 64 seeds the sliced and the one-block launches give the same tokens,
// row 0 draws every one of its 8 indices and nothing else (each missed with probability
// (7/8)^64 < 2e-4), row 1 only indices below 50.
TEST(GpuFastSampling, SlicedRowsWhoseLanesHoldFourSurvivors) {
  constexpr std::int64_t rows = 2, vocab = 16384;
  ASSERT_EQ(gpu::FastSliceBudget(rows, vocab), 4);
  const std::set<std::int64_t> top = {100, 101, 4100, 8192, 8193, 8194, 8195, 12300};
  const std::vector<float> logits = UniformRows(rows, vocab, 0x3a3e, [&](std::int64_t b, std::int64_t i, float x) {
    if (b == 1) return 0.0f;
    return top.count(i) != 0 ? 5.0f : -2.0f + 0.1f * x;
  });
  const std::vector<float> temperature = {1.0f, 1.0f}, top_p = {1.0f, 1.0f}, min_p = {0.0f, 0.0f};
  const std::vector<std::int32_t> top_k = {8, 50};
  std::vector<std::uint64_t> seed = {0, 0}, position = {3, 4};
  gpu::FastSamplingLaunch launch =
      FastLaunch(logits, temperature, top_k, top_p, min_p, seed, position, rows, vocab, vocab);
  ASSERT_EQ(launch.Slices(), 4);
  std::set<std::int64_t> drawn;
  for (std::uint64_t s = 1; s <= 64; ++s) {
    SCOPED_TRACE(testing::Message() << "seed " << s);
    seed = {s, s};
    std::vector<std::int64_t> sliced;
    ASSERT_NO_FATAL_FAILURE(ExpectSlicedEqualsWhole(launch, 4, sliced));
    drawn.insert(sliced[0]);
    EXPECT_LT(sliced[1], 50);
  }
  EXPECT_EQ(drawn, top);
}

// Rows of V = 16384 whose first maxima (docs/spec/greedy.md "Semantics"; no NaN reaches
// gpu-fast: the first index strictly above every earlier value) fall where a slice's fold or the
// slices' merge could miss them, at 4 slices a row: random values with their maximum tied across
// two slices (slice 1's last entry and slice 3's first: the earlier wins); negatives with -0.0
// at 3000 and +0.0 at 5000 (equal: 3000); every entry -inf (0); random values with the maximum
// at the last entry. Row 4, when asked for, is random values (a row to sample).
constexpr std::int64_t kGreedyRowsVocab = 16384;
std::vector<float> GreedyRowsLogits(std::int64_t rows) {
  constexpr std::int64_t vocab = kGreedyRowsVocab;
  std::vector<float> logits = UniformRows(rows, vocab, 0x6eed, [](std::int64_t b, std::int64_t, float x) {
    return b == 1 ? -9.0f + 0.5f * x : b == 2 ? -INFINITY : x;
  });
  logits[static_cast<std::size_t>(gpu::SliceBegin(2, 4, vocab) - 1)] = 20.0f;
  logits[static_cast<std::size_t>(gpu::SliceBegin(3, 4, vocab))] = 20.0f;
  logits[static_cast<std::size_t>(vocab + 3000)] = -0.0f;
  logits[static_cast<std::size_t>(vocab + 5000)] = 0.0f;
  logits[static_cast<std::size_t>(4 * vocab - 1)] = 9.0f;
  return logits;
}
// The first maxima of GreedyRowsLogits' rows 0 to 3, by hand.
const std::vector<std::int64_t> kGreedyRowsTokens = {gpu::SliceBegin(2, 4, kGreedyRowsVocab) - 1, 3000, 0,
                                                     kGreedyRowsVocab - 1};

// The fused kernel's greedy rows read as the greedy kernel reads (QuadRangeArgmaxF32,
// gpu/block/block_argmax.cuh, since 2026-12-04; a minimum of order keys before): sliced (4
// slices a row at 5 rows of 16384) and whole (planned for kFastSamplingSms rows and twice as
// many), the same token, the first maximum. Row 4 samples (top-k 50, 4 slices too), so the
// batch takes the fused kernel (a batch of greedy rows only takes the greedy kernel: below).
TEST(GpuFastSampling, GreedyRowsTakeTheFirstMaximum) {
  constexpr std::int64_t rows = 5, vocab = kGreedyRowsVocab;
  ASSERT_EQ(gpu::FastSliceBudget(rows, vocab), 4);
  const std::vector<float> logits = GreedyRowsLogits(rows);
  const std::vector<float> temperature = {0.0f, 0.0f, 0.0f, 0.0f, 1.0f}, top_p(rows, 1.0f), min_p(rows, 0.0f);
  const std::vector<std::int32_t> top_k = {0, 0, 0, 0, 50};
  std::vector<std::uint64_t> seed(rows, 7), position(rows, 0);
  gpu::FastSamplingLaunch launch =
      FastLaunch(logits, temperature, top_k, top_p, min_p, seed, position, rows, vocab, vocab);
  ASSERT_FALSE(launch.AllGreedy());
  ASSERT_EQ(launch.Slices(), 4);
  std::vector<std::int64_t> sliced;
  ASSERT_NO_FATAL_FAILURE(ExpectSlicedEqualsWhole(launch, 4, sliced));
  EXPECT_EQ(std::vector<std::int64_t>(sliced.begin(), sliced.begin() + 4), kGreedyRowsTokens);
  EXPECT_GE(sliced[4], 0);
}

// A batch of greedy rows only launches the greedy stage's argmax kernel (GreedyLaunch, its slices
// planned as the fused kernel's: 4 a row for this batch, 1 for a batch of kFastSamplingSms rows),
// when the host reads the temperatures; the first maxima of GreedyRowsLogits, as the fused
// kernel's greedy rows give them (above). A random row's temperature keeps the fused kernel, and
// so does a caller's plan of slices (planned_slices: the arrays on the device, where the caller
// itself sends a greedy batch to GreedyLaunch, LaunchResidentSampling); its greedy rows give the
// same tokens.
TEST(GpuFastSampling, AllGreedyBatchTakesTheGreedyKernel) {
  constexpr std::int64_t rows = 4, vocab = kGreedyRowsVocab;
  const std::vector<float> logits = GreedyRowsLogits(rows);
  std::vector<float> temperature(rows, 0.0f);
  const std::vector<float> top_p(rows, 1.0f), min_p(rows, 0.0f);
  const std::vector<std::int32_t> top_k(rows, 0);
  const std::vector<std::uint64_t> seed(rows, 7), position(rows, 0);
  gpu::FastSamplingLaunch launch =
      FastLaunch(logits, temperature, top_k, top_p, min_p, seed, position, rows, vocab, vocab);
  ASSERT_TRUE(launch.AllGreedy());
  auto run = [&](std::int64_t plan_rows, std::int64_t planned_slices) {
    std::vector<std::int64_t> token(rows, -1);
    launch.token = token.data();
    launch.plan_rows = plan_rows;
    launch.planned_slices = planned_slices;
    gpu::LaunchRecorder recorder;
    gpu::RunFastSamplingEmulated(launch);
    const auto launches = recorder.launches();
    EXPECT_EQ(launches.size(), 1u);
    return std::pair{launches.empty() ? gpu::LaunchCounters{} : launches[0], token};
  };
  using Plan = std::tuple<std::int64_t, std::int64_t, std::int64_t>;  // plan_rows, planned_slices, blocks
  for (auto [plan_rows, planned_slices, blocks] :
       {Plan{0, 0, rows * 4}, Plan{gpu::kFastSamplingSms, 0, rows}}) {
    SCOPED_TRACE(testing::Message() << "plan_rows " << plan_rows);
    const auto [counted, token] = run(plan_rows, planned_slices);
    EXPECT_EQ(counted.kernel, "greedy");
    EXPECT_EQ(counted.blocks, blocks);
    EXPECT_EQ(token, kGreedyRowsTokens);
  }
  const auto [planned, planned_token] = run(0, 4);
  EXPECT_EQ(planned.kernel, "fast_sampling_slices") << "the caller's plan";
  EXPECT_EQ(planned_token, kGreedyRowsTokens);
  launch.planned_slices = 0;
  temperature[3] = 1.0f;
  ASSERT_FALSE(launch.AllGreedy());
  EXPECT_EQ(run(0, 0).first.kernel, "fast_sampling_slices") << "row 3 samples";
}

// min-p alone (top-k and top-p off, canonical): the first 64 keys are gathered as a top-k
// row's survivors (a probe, sliced as such rows are: 4 slices a row at 3 rows of 16384) and
// drawn from when the 64th fails min-p; else the rounds draw from the whole kept set. Rows:
// continuous logits in [-8, 8] (about 1024 a unit), min-p 0.99 (e >= 0.99: the logits within
// ln(1 / 0.99) = 0.01 of the maximum, fewer than 64: the probe holds them) and min-p 0.5 (about
// 710 tokens: the rounds); and a row whose maximum 5 at index 12345 is alone above 4, min-p 1:
// token 12345. Every token passes min-p by the spec's rule (e = ExpF32Cr(s - m) >= min_p), the
// sliced and the one-block launches give the same tokens, and the wide row's 8 draws are not
// all among its 64 largest, which the probe alone would give.
TEST(GpuFastSampling, MinPAloneDrawsFromAProbeOfTheFirst64Keys) {
  constexpr std::int64_t rows = 3, vocab = 16384;
  const std::vector<float> logits = UniformRows(rows, vocab, 0x9e37, [](std::int64_t b, std::int64_t i, float x) {
    return b < 2 ? x : i == 12345 ? 5.0f : std::min(x, 4.0f);
  });
  const std::vector<float> temperature = {1.0f, 1.0f, 1.0f}, top_p = {1.0f, 1.0f, 1.0f}, min_p = {0.99f, 0.5f, 1.0f};
  const std::vector<std::int32_t> top_k = {0, 0, 0};
  std::vector<std::uint64_t> seed = {0, 0, 0}, position = {3, 4, 5};
  gpu::FastSamplingLaunch launch =
      FastLaunch(logits, temperature, top_k, top_p, min_p, seed, position, rows, vocab, vocab);
  ASSERT_EQ(launch.Slices(), 4);
  const float top = *std::max_element(logits.begin(), logits.begin() + vocab);
  auto weight = [&](std::int64_t row, std::int64_t i) {
    return math::ExpF32Cr(logits[static_cast<std::size_t>(row * vocab + i)] - (row == 2 ? 5.0f : top));
  };
  std::vector<float> sorted(logits.begin(), logits.begin() + vocab);
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  ASSERT_LT(math::ExpF32Cr(sorted[63] - top), 0.99f) << "the probe holds row 0's kept set";
  ASSERT_GE(math::ExpF32Cr(sorted[63] - top), 0.5f) << "row 1's kept set is past the probe";
  std::set<std::int64_t> first_row;
  bool past_probe = false;
  for (std::uint64_t s = 1; s <= 8; ++s) {
    SCOPED_TRACE(testing::Message() << "seed " << s);
    seed = {s, s, s};
    std::vector<std::int64_t> sliced;
    ASSERT_NO_FATAL_FAILURE(ExpectSlicedEqualsWhole(launch, 4, sliced));
    for (std::int64_t r = 0; r < rows; ++r) EXPECT_GE(weight(r, sliced[r]), min_p[r]) << "row " << r;
    EXPECT_EQ(sliced[2], 12345);
    first_row.insert(sliced[0]);
    past_probe = past_probe || logits[static_cast<std::size_t>(vocab + sliced[1])] < sorted[63];
  }
  EXPECT_GT(first_row.size(), 1u);
  EXPECT_TRUE(past_probe);
}

TEST(GpuFastSampling, EmulatorReportsANonUniformBranchValue) {
  const auto report = gpu::emu::Launch("non_uniform", 1, 64, [](gpu::Block& b) { NonUniformKernel{}(b); });
  ASSERT_EQ(report.total, 1);
  EXPECT_NE(report.violations[0].Message().find("differs between thread 0 and this thread"), std::string::npos)
      << report.Summary();
  EXPECT_EQ(report.violations[0].thread, 5);
}

// Same case, same tokens, run to run; a row alone or among other rows (another batch
// composition and order) draws the same token: it reads only its own inputs and stream.
TEST(GpuFastSampling, ReproducibleAcrossRunsAndBatchCompositions) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const std::int64_t vocab = 50;
  std::vector<float> logits;
  for (int b = 0; b < 4; ++b) {
    for (int i = 0; i < vocab; ++i) logits.push_back(std::cos(0.3f * static_cast<float>(i * (b + 1))));
  }
  const Case batch = PipelineCase(4, vocab, logits, {1.0f, 0.5f, 0.0f, 2.0f}, {10, 0, 0, 0}, {1.0f, 0.8f, 1.0f, 0.9f},
                                  {0.0f, 0.0f, 0.0f, 0.1f}, {11, 22, 33, 44});
  const auto first = Tokens(backend->Run("pipeline", batch));
  EXPECT_EQ(first, Tokens(backend->Run("pipeline", batch)));
  for (std::int64_t b = 0; b < 4; ++b) {
    SCOPED_TRACE(b);
    const auto row = [&](auto v) { return std::vector<typename decltype(v)::value_type>{v[static_cast<std::size_t>(b)]}; };
    const std::vector<float> one(logits.begin() + b * vocab, logits.begin() + (b + 1) * vocab);
    const Case alone = PipelineCase(1, vocab, one, row(std::vector<float>{1.0f, 0.5f, 0.0f, 2.0f}),
                                    row(std::vector<std::int32_t>{10, 0, 0, 0}), row(std::vector<float>{1.0f, 0.8f, 1.0f, 0.9f}),
                                    row(std::vector<float>{0.0f, 0.0f, 0.0f, 0.1f}), row(std::vector<std::int64_t>{11, 22, 33, 44}));
    EXPECT_EQ(Tokens(backend->Run("pipeline", alone))[0], first[static_cast<std::size_t>(b)]);
  }
}

TEST(GpuFastSampling, BadInputNamesTheTensor) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const std::vector<float> row = {0.0f, -1.0f};
  try {
    backend->Run("pipeline", PipelineCase(1, 2, row, {1.0f}, {0}, {NAN}, {0.0f}, {1}));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'top_p'[0] is NaN"), std::string::npos) << e.what();
  }
  // A NaN logit is not bad input (docs/spec/pipeline.md "Degenerate rows"): the random row
  // {0, NaN} takes canonical's first NaN, 1.
  const TensorMap nan_row = backend->Run("pipeline", PipelineCase(1, 2, {0.0f, NAN}, {1.0f}, {0}, {1.0f}, {0.0f}, {1}));
  EXPECT_EQ(nan_row.at("token").data<std::int64_t>()[0], 1);
  // vllm draws with the given q: a random row without it names the tensor.
  Case vllm = PipelineCase(1, 2, row, {1.0f}, {0}, {1.0f}, {0.0f}, {1});
  vllm.profile = Profile::kVllm;
  EXPECT_THROW(backend->Run("pipeline", vllm), std::invalid_argument);
}

// The profiles' own rules (docs/spec/pipeline.md). vllm, the spec's example: logits {1, 1},
// T = 1, top_k = 1 keeps both tied tokens (vLLM's top-k keeps ties) and the race with
// q = {1, 0.5} takes token 1 (0.5 / 0.5 > 0.5 / 1); with q = {0.5, 1} token 0.
TEST(GpuFastSampling, VllmKeepsTopKTiesAndRacesWithQ) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  for (const auto& [q, want] : {std::pair{std::vector<float>{1.0f, 0.5f}, 1}, std::pair{std::vector<float>{0.5f, 1.0f}, 0}}) {
    Case c = PipelineCase(1, 2, {1.0f, 1.0f}, {1.0f}, {1}, {1.0f}, {0.0f}, {0});
    c.profile = Profile::kVllm;
    c.inputs.erase("seed");
    c.inputs.erase("positions");
    c.inputs.emplace("q", Tensor::FromValues(DType::kF32, {1, 2}, q));
    EXPECT_EQ(Tokens(backend->Run("pipeline", c)), std::vector<std::int64_t>{want});
  }
}

// sglang's joint top-p reads the whole row (reference/sampling_filters.h's example):
// probabilities {1/2, 1/4, 1/8, 1/8}, top_k 3, top_p 0.75: E = 0, 1/2, 3/4 <= 3/4 keeps tokens
// 0..2 (token 2 with probability 1/7), where canonical renormalises the top 3 and keeps 0, 1.
// The sums are dyadic, hence exact in any order. 300 seeds: sglang misses token 2 with
// probability (6/7)^300 < 1e-20; token 3 (top-k's exact k) and canonical's token 2 are never
// drawn.
TEST(GpuFastSampling, SglangTopPReadsTheWholeRow) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const std::vector<float> row = {0.0f, -kLn2, -2 * kLn2, -2 * kLn2};
  for (const Profile profile : {Profile::kSglang, Profile::kCanonical}) {
    SCOPED_TRACE(ProfileName(profile));
    std::set<std::int64_t> seen;
    for (std::int64_t seed = 0; seed < 300; ++seed) {
      Case c = PipelineCase(1, 4, row, {1.0f}, {3}, {0.75f}, {0.0f}, {seed});
      c.profile = profile;
      seen.insert(Tokens(backend->Run("pipeline", c))[0]);
    }
    const std::set<std::int64_t> want = profile == Profile::kSglang ? std::set<std::int64_t>{0, 1, 2} : std::set<std::int64_t>{0, 1};
    EXPECT_EQ(seen, want);
  }
}

// Distributional tier only: golden verify skips every pipeline golden, with the reason.
TEST(GpuFastSampling, GoldenVerifySkipsTheDistributionalStage) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  golden::VerifyOptions options;
  options.stages = {"pipeline"};
  options.profiles = {"canonical"};
  const auto results = golden::VerifyGoldenSet(SAMPCHECK_SOURCE_DIR "/golden/v1", *backend, options);
  ASSERT_FALSE(results.empty());
  for (const auto& r : results) {
    SCOPED_TRACE(r.id);
    EXPECT_EQ(r.verdict, Verdict::kSkip);
    EXPECT_NE(r.reason.find("claims only the distributional tier"), std::string::npos) << r.reason;
  }
}

// A planted filter bug must be rejected by the case built to expose it (the draw harness on
// that case alone: its Holm family is that case's L2/L3 tests, alpha 1e-4).
void ExpectRejected(const std::string& wrong, const std::string& case_id) {
  auto backend = gpu::MakeGpuFastWrongBackend(wrong);
  ASSERT_NE(backend, nullptr);
  std::vector<statistical::StatCase> cases;
  for (auto& c : statistical::DrawStatCases()) {
    if (c.id == case_id) cases.push_back(std::move(c));
  }
  ASSERT_EQ(cases.size(), 1u) << case_id;
  // The fault is a boundary token (L1, L2, L3 at the case's TV 0.05): sized without the rank
  // test of the filter families, whose 3.9e6 draws per row (stat_cases.h kRankFilterCi) would
  // take this emulated kernel about 1000 s (2.6e-4 s per draw) instead of 2 s.
  cases[0].mde_rank_ci = 0.0;
  int failed = 0;
  std::string reasons;
  for (const auto& r : statistical::RunDrawHarness(*backend, cases)) {
    failed += r.verdict == Verdict::kFail;
    reasons += r.id + ": " + r.reason + "\n";
  }
  EXPECT_GE(failed, 1) << "wrong:" << wrong << " was not rejected by " << case_id << "\n" << reasons;
}

TEST(GpuFastSamplingStatistical, RejectsTopPOffByOne) {
  ExpectRejected("gpu_fast_top_p_off_by_one", "stats/pipeline/top_p_inside_v100/canonical");
}

TEST(GpuFastSamplingStatistical, RejectsTopKKeepingKPlusOne) {
  ExpectRejected("gpu_fast_top_k_keeps_k_plus_one", "stats/pipeline/top_k_ties_v1023/canonical");
}

}  // namespace
}  // namespace sampcheck

namespace sampcheck {
namespace {

// gpu-fast declares `noise` (docs/gpu.md "gpu-fast"): each source's samples are the reference's
// bit for bit (the same Philox stream and conversions the fused kernel draws from), and the
// backend noise harness (KS/PIT, tails, atoms at family-wise alpha 1e-4, power >= 0.9999 per
// test, docs/spec/noise.md) passes on it at epoch 0. The wrong: variants do not declare it.
TEST(GpuFastSampling, DeclaresNoiseWithTheReferenceBitsAndPassesTheNoiseHarness) {
  auto fast = gpu::MakeGpuFastEmulatedBackend();
  reference::ReferenceBackend ref;
  const auto stages = fast->SupportedStages();
  ASSERT_TRUE(std::find(stages.begin(), stages.end(), statistical::NoiseStage().name) != stages.end());
  EXPECT_TRUE(fast->Capabilities(statistical::NoiseStage().name).claims_bitwise);
  for (const auto& source : statistical::BackendNoiseSources()) {
    const Case c = statistical::BackendNoiseCase(source, 0x5eedULL, 4096);
    const TensorMap a = fast->Run(c.stage, c), b = ref.Run(c.stage, c);
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [name, t] : b) EXPECT_TRUE(BitwiseEqual(a.at(name).view(), t.view())) << source.Name() << " " << name;
  }
  for (const auto& r : statistical::RunBackendNoiseHarness(*fast, 0, false)) {
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
  }
  const auto wrong = gpu::MakeGpuFastWrongBackend("gpu_fast_top_p_off_by_one")->SupportedStages();
  EXPECT_TRUE(std::find(wrong.begin(), wrong.end(), statistical::NoiseStage().name) == wrong.end());
}

}  // namespace
}  // namespace sampcheck
