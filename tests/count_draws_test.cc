// SPDX-License-Identifier: Apache-2.0
// The reference backend's own draws (reference/count_draws.h): the fast race equals the naive
// race bit for bit, counts have the promised shape, and the statistical verdict on the counts
// is left to draw_harness_test / the calibration test.
#include "reference/count_draws.h"

#include <numeric>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "reference/reference_backend.h"

namespace sampcheck::reference {
namespace {

// Every draw path (count_draws.h): the tests compare each one this host runs with the naive race.
constexpr rng::PhiloxIsa kIsas[] = {rng::PhiloxIsa::kScalar, rng::PhiloxIsa::kAvx2, rng::PhiloxIsa::kAvx512};

// The fast paths skip the logarithm of tokens that cannot win and bracket the rest; each must
// pick the same token as the loop that computes every q (ties in probability, zeros and tiny
// weights included), on every path this host runs.
TEST(CountDraws, FastRaceEqualsNaiveRace) {
  const std::vector<std::vector<float>> rows = {
      {1.0f, 0x1p-20f},
      {0.5f, 0.25f, 0.125f, 0.125f, 0.0f},
      std::vector<float>(50, 1.0f),
      std::vector<float>(33, 1.0f),  // one token past the 32 of an AVX2 group
      std::vector<float>(65, 1.0f),  // one token past the 64 of an AVX-512F group
      [] {  // 129 tokens, three groups: ties in probability across the group boundaries
        std::vector<float> r(129);
        for (std::size_t i = 0; i < r.size(); ++i) r[i] = 1.0f / static_cast<float>(1 + i / 40);
        return r;
      }(),
      [] {  // peaked: most tokens are skipped, and the winner changes late in some draws
        std::vector<float> r(300);
        for (std::size_t i = 0; i < r.size(); ++i) r[i] = 1.0f / static_cast<float>((i + 1) * (i + 1));
        return r;
      }(),
      [] {
        std::vector<float> r(1024);
        for (std::size_t i = 0; i < r.size(); ++i) r[i] = i % 3 == 0 ? 0.0f : 1.0f / static_cast<float>(1 + i % 17);
        return r;
      }(),
  };
  int paths = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    SCOPED_TRACE(k);
    const RaceRow naive(rows[k], rng::PhiloxIsa::kScalar);
    std::vector<RaceRow> fast;
    for (rng::PhiloxIsa isa : kIsas) {
      if (RaceRow::Runs(isa)) fast.emplace_back(rows[k], isa);
    }
    paths = static_cast<int>(fast.size());
    for (std::uint32_t d = 0; d < 2000; ++d) {
      const std::int64_t want = naive.DrawNaive(0x1234, 7, d);
      for (std::size_t i = 0; i < fast.size(); ++i) {
        ASSERT_EQ(fast[i].Draw(0x1234, 7, d), want) << "draw " << d << " path " << i;
      }
    }
  }
  EXPECT_GE(paths, 1);
}

RC_GTEST_PROP(CountDraws, FastRaceEqualsNaiveOnAnyRow, (std::vector<std::uint8_t> weights, std::uint64_t seed)) {
  std::vector<float> probs;
  for (auto w : weights) probs.push_back(static_cast<float>(w % 9) * 0.125f);
  RC_PRE(std::any_of(probs.begin(), probs.end(), [](float p) { return p > 0.0f; }));
  const RaceRow naive(probs, rng::PhiloxIsa::kScalar);
  for (rng::PhiloxIsa isa : kIsas) {
    if (!RaceRow::Runs(isa)) continue;
    const RaceRow race(probs, isa);
    for (std::uint32_t d = 0; d < 64; ++d) RC_ASSERT(race.Draw(seed, 1, d) == naive.DrawNaive(seed, 1, d));
  }
}

TEST(CountDraws, CountsAreRowsTimesVocabAndSumToDraws) {
  Case c;
  c.id = "exponential_race/count/canonical";
  c.stage = "exponential_race";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("probs", Tensor::FromValues(DType::kF32, {2, 3}, std::vector<float>{1, 0, 1, 0, 0, 2}));
  ReferenceBackend backend;
  ASSERT_TRUE(backend.SupportsCountDraws("exponential_race"));
  EXPECT_FALSE(backend.SupportsCountDraws("greedy"));
  const Tensor counts = backend.CountDraws("exponential_race", c, 1000, 42);
  ASSERT_EQ(counts.shape(), (Shape{2, 3}));
  const auto n = counts.data<std::int64_t>();
  EXPECT_EQ(n[0] + n[2], 1000);
  EXPECT_EQ(n[1], 0);  // probability 0: never drawn
  EXPECT_EQ(n[3], 0);
  EXPECT_EQ(n[4], 0);
  EXPECT_EQ(n[5], 1000);  // the only positive token
  // Same seed, same counts; another seed, other counts.
  const Tensor again = backend.CountDraws("exponential_race", c, 1000, 42);
  EXPECT_TRUE(std::equal(n.begin(), n.end(), again.data<std::int64_t>().begin()));
  const Tensor other = backend.CountDraws("exponential_race", c, 1000, 43);
  EXPECT_NE(other.data<std::int64_t>()[0], n[0]);
}

TEST(CountDraws, PipelineGreedyRowsGiveTheirToken) {
  Case c;
  c.id = "pipeline/count/canonical";
  c.stage = "pipeline";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {2, 3}, std::vector<float>{0, 2, 2, 0, 0, 0}));
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {2}, std::vector<float>{0.0f, 1.0f}));
  ReferenceBackend backend;
  const Tensor counts = backend.CountDraws("pipeline", c, 300, 1);
  const auto n = counts.data<std::int64_t>();
  EXPECT_EQ(n[0], 0);
  EXPECT_EQ(n[1], 300);  // lowest index among tied maxima
  EXPECT_EQ(n[2], 0);
  EXPECT_EQ(n[3] + n[4] + n[5], 300);
  EXPECT_GT(n[3], 0);
  EXPECT_GT(n[4], 0);
  EXPECT_GT(n[5], 0);
}

TEST(CountDraws, PipelineAppliesBiasAndRejectsOtherStages) {
  Case c;
  c.id = "pipeline/count/canonical";
  c.stage = "pipeline";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {1, 2}, std::vector<float>{0, 0}));
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {1}, std::vector<float>{1.0f}));
  // A bias of -50 on token 0: its probability is e^-50 ~ 2e-22, never drawn in 10 draws
  // (false-failure probability 2e-21).
  c.inputs.emplace("bias", Tensor::FromValues(DType::kF32, {1, 2}, std::vector<float>{-50.0f, 0.0f}));
  ReferenceBackend backend;
  const Tensor counts = backend.CountDraws("pipeline", c, 10, 1);
  EXPECT_EQ(counts.data<std::int64_t>()[0], 0);
  EXPECT_EQ(counts.data<std::int64_t>()[1], 10);
  EXPECT_THROW(backend.CountDraws("greedy", c, 10, 1), std::exception);
}

}  // namespace
}  // namespace sampcheck::reference
