// SPDX-License-Identifier: Apache-2.0
// The survivor steps by warp 0 alone (WarpSurvivorSteps, gpu/kernels/sampling_filters_in_warp.cuh)
// against the reference's filtered probs (reference/sampling_filters.h through the reference
// backend), bit for bit: each final survivor's probability numerator / s at its index, +0
// elsewhere, is the reference's probs row. The fused token (an argmax of log p + noise) hides a
// sum off by a term or a rounding, since every score moves alike; the probabilities show it.
// Rows of V = 4096: continuous values and a grid of 1/8 (ties at K and along the walk), top-k
// 1 to 64, top-p off, 0.9, 0.5 and 1e-7, min-p 0, 0.05 and 0.3, under the canonical rules
// (exactly k) and flashinfer's top_k_first (ties kept, the tie-group walk), on the emulator at
// 32 threads with every check on. The candidates are the row's order keys sorted on the host:
// the steps' input, as a split row's merge or a one-block row's gather leaves it.
// Rows the block writes whole take the same steps (SamplingFiltersOnSurvivors): the kernel's out
// and probs rows against the reference's, bit for bit, and the barriers they save.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/case.h"
#include "gpu/block/block_model.h"
#include "gpu/block/radix_select.cuh"
#include "gpu/cost/sampling_cost.h"
#include "gpu/kernels/sampling_filters_in_warp.cuh"
#include "gpu/runners/kernel_runner.h"
#include "reference/reference_backend.h"

namespace sampcheck::gpu {
namespace {

struct Row {
  std::vector<float> logits;
  std::int32_t k;
  float p;
  float m;
};

// The warp's probs row, or an empty vector when the candidates are more than 64.
std::vector<float> WarpProbs(const Row& row, const FilterRules& rules) {
  const auto vocab = static_cast<std::int64_t>(row.logits.size());
  std::vector<std::uint64_t> keys;
  for (std::int64_t i = 0; i < vocab; ++i) keys.push_back(OrderKey(row.logits[i], i, false));
  std::sort(keys.begin(), keys.end());
  const std::uint64_t kth = keys[static_cast<std::size_t>(row.k - 1)];
  std::int64_t total = row.k;
  while (rules.top_k.ties_kept && total < vocab && (keys[total] >> 32) == (kth >> 32)) ++total;
  if (total > 2 * kWarpSize) return {};
  TopPWalk walk;
  float q;
  const bool run_top_p = ResolveTopP(rules.top_p, row.p, walk, q);
  std::vector<float> probs(static_cast<std::size_t>(vocab), 0.0f);
  const LaunchReport report = emu::Launch("warp_survivors", 1, kWarpSize, [&](Block& block) {
    auto held = Registers<SlotKeys<2>>(block);
    auto numerator = Registers<SlotFloats>(block);
    block.ForWarps(WarpZero{}, [&] {
      block.ForEachThread([&](Thread t) {
        for (int r = 0; r < 2; ++r) {
          const int e = r * kWarpSize + t.lane();
          held[t].v[r] = e < total ? keys[static_cast<std::size_t>(e)] : kNoKey;
        }
      });
      const WarpSurvivors s =
          WarpSurvivorSteps(block, held, total, row.k, rules.top_k.ties_kept, run_top_p, walk, q, row.m, rules,
                            numerator);
      block.ForEachThread([&](Thread t) {
        for (int r = 0; r < 2; ++r) {
          if (r * kWarpSize + t.lane() < s.n) probs[IndexOfKey(held[t].v[r])] = numerator[t].v[r] / s.st.sum;
        }
      });
    });
  });
  EXPECT_TRUE(report.ok()) << report.Summary();
  EXPECT_EQ(report.counters.barriers, 0);
  EXPECT_EQ(report.counters.SharedAccesses(), 0);
  return probs;
}

struct Rows {
  std::vector<float> out, probs;
};

// The reference backend's sampling_filters rows (masked logits, probs), copied out of its map.
Rows ReferenceRows(const Row& row, const char* profile) {
  const auto vocab = static_cast<std::int64_t>(row.logits.size());
  Case c;
  c.id = "sampling_filters/in_warp";
  c.stage = "sampling_filters";
  c.profile = sampcheck::ParseProfile(profile);
  c.inputs = {{"logits", Tensor::FromValues(DType::kF32, {1, vocab}, row.logits)},
              {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {1}, {row.k})},
              {"top_p", Tensor::FromValues<float>(DType::kF32, {1}, {row.p})},
              {"min_p", Tensor::FromValues<float>(DType::kF32, {1}, {row.m})}};
  reference::ReferenceBackend reference;
  const TensorMap out = reference.Run("sampling_filters", c);
  const auto logits = out.at("logits").data<float>();
  const auto probs = out.at("probs").data<float>();
  return {{logits.begin(), logits.end()}, {probs.begin(), probs.end()}};
}

void ExpectTheReferenceProbs(const FilterRules& rules, const char* profile, bool grid) {
  std::mt19937_64 rng(grid ? 8 : 20261207);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  int compared = 0;
  for (const std::int32_t k : {1, 7, 50, 64}) {
    for (const float p : {1.0f, 0.9f, 0.5f, 1e-7f}) {
      for (const float m : {0.0f, 0.05f, 0.3f}) {
        Row row{std::vector<float>(4096), k, p, m};
        for (float& x : row.logits) x = grid ? std::round(normal(rng) * 8.0f) / 8.0f : normal(rng);
        const std::vector<float> got = WarpProbs(row, rules);
        if (got.empty()) continue;  // more than 64 candidates: the block's steps
        ++compared;
        const std::vector<float> want = ReferenceRows(row, profile).probs;
        ASSERT_EQ(got.size(), want.size());
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
            << profile << ", k " << k << ", p " << p << ", m " << m << (grid ? ", grid" : "");
      }
    }
  }
  EXPECT_GE(compared, 36);  // of 48: the grid's ties take some rows past 64 candidates (37 kept)
}

const FilterRules kFlashinferRules{TopKRule{.ties_kept = true, .drops_nan = true}, TopPWalk::kTieGroup, MinPRule{},
                                   FilterOrder::kTopKFirst, DegenerateRowRule{.nan_softmax_empties_row = true}};

TEST(GpuFiltersInWarp, CanonicalProbsAreTheReferences) {
  ExpectTheReferenceProbs(FilterRules{}, "canonical", false);
  ExpectTheReferenceProbs(FilterRules{}, "canonical", true);
}

TEST(GpuFiltersInWarp, FlashinferProbsAreTheReferences) {
  ExpectTheReferenceProbs(kFlashinferRules, "flashinfer", false);
  ExpectTheReferenceProbs(kFlashinferRules, "flashinfer", true);
}

// The sampling_filters stage's kernel on rows it writes whole (one block a row: a batch of 132
// rows' slice budget) at V = 128256, the device benchmark's logits (SamplingCostLogits) and a
// 1/8 grid of them (ties at K and along the walk), with a -0.0 planted at the row's maximum
// (out keeps its sign: read back from the row): out and probs are the reference's bit for bit,
// and the launch waits at 5 barriers: the gather's 4 and one between the dropped columns'
// stores and the survivors'. The block's steps took 11, 14 with min-p (counted on the emulator
// before the warp took them: the lane grouping, the survivor sums, the walk, min-p's cut and a
// barrier after the write).
TEST(GpuFiltersInWarp, RowsWrittenWholeAreTheReferencesAtFewerBarriers) {
  SamplingCostShape shape;
  const std::vector<float> bench = SamplingCostLogits(shape);
  const auto vocab = shape.vocab;
  for (const bool grid : {false, true}) {
    for (const float m : {0.0f, 0.05f}) {
      SCOPED_TRACE(testing::Message() << (grid ? "grid" : "continuous") << ", min-p " << m);
      Row row{bench, 50, 0.9f, m};
      if (grid) {
        for (float& x : row.logits) x = std::round(x * 2.0f) / 8.0f;
      }
      const auto top = std::max_element(row.logits.begin(), row.logits.end()) - row.logits.begin();
      const float max = row.logits[static_cast<std::size_t>(top)];
      for (float& x : row.logits) x -= max;  // the maximum at +0.0, then -0.0
      row.logits[static_cast<std::size_t>(top)] = -0.0f;
      std::vector<float> out(static_cast<std::size_t>(vocab)), probs(static_cast<std::size_t>(vocab));
      SamplingFiltersLaunch l(row.logits.data(), &row.k, &row.p, &row.m, 1, vocab, vocab, FilterRules{}, out.data(),
                              probs.data(), 132);
      LaunchRecorder recorder;
      MakeEmulatedRunner()->Run(l);
      const std::vector<LaunchCounters> launches = recorder.launches();
      ASSERT_EQ(launches.size(), 1u);
      EXPECT_EQ(launches[0].kernel, "sampling_filters");
      EXPECT_EQ(launches[0].max_block_barriers, 5);
      const Rows want = ReferenceRows(row, "canonical");
      EXPECT_EQ(std::memcmp(out.data(), want.out.data(), out.size() * sizeof(float)), 0);
      EXPECT_EQ(std::memcmp(probs.data(), want.probs.data(), probs.size() * sizeof(float)), 0);
      EXPECT_TRUE(std::signbit(out[static_cast<std::size_t>(top)]));
    }
  }
}

}  // namespace
}  // namespace sampcheck::gpu
