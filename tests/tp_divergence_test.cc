// SPDX-License-Identifier: Apache-2.0
// Tests of the tensor-parallel divergence model (distributed/tp_divergence.h) and of the draw
// ranges sharded statistics rely on (distributed/shard_range.h, Backend::CountDrawsRange;
// docs/spec/tp_consensus.md, docs/spec/sharded_statistics.md). In one process: every rank in
// turn. Expected laws are worked by hand from P(min >= k) = S(k)^R.
//
// Statistical budget: 4 seeded goodness-of-fit checks at alpha 1e-4 each (false-failure rate
// <= 4e-4 per change of seed; the seeds are fixed, so a run is deterministic). The intervals
// are 99% intervals; at n = 20000 the TV band is +-0.016 (power.h, K = 8), so the MIN bias of
// the 4-rank independent case (exact TV 0.412, computed below) is resolved 25-fold.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/shard_range.h"
#include "distributed/tp_divergence.h"
#include "reference/reference_backend.h"
#include "reference/rng/noise.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::distributed {
namespace {

DivergenceCase Find(const std::string& name, Profile p) {
  for (const auto& c : DivergenceCases()) {
    if (c.name == name && c.profile == p) return c;
  }
  ADD_FAILURE() << "no case " << name;
  return {};
}

// Boundary words of the rank noise (values by hand: ((w >> 9) + 1/2) 2^-23). Word 0xffffff00
// is the one the earlier ((w >> 8) + 1/2) 2^-24 rounded to 1.0 (+inf noise, a false FAIL of
// the reference in about 1 of 10 epochs at 4 ranks and 20000 draws).
TEST(RankNoise, BoundaryWordsGiveAnOpenUniformAndFiniteGumbel) {
  EXPECT_EQ(RankNoiseUniform(0), 0x1p-24f);
  EXPECT_EQ(RankNoiseUniform(0x1ff), 0x1p-24f);
  EXPECT_EQ(RankNoiseUniform(0x200), 3 * 0x1p-24f);
  EXPECT_EQ(RankNoiseUniform(0x80000000u), 0.5f + 0x1p-24f);
  EXPECT_EQ(RankNoiseUniform(0xffffff00u), 1.0f - 0x1p-24f);
  EXPECT_EQ(RankNoiseUniform(0xffffffffu), 1.0f - 0x1p-24f);
  for (std::uint32_t w : {0u, 0xffffff00u, 0xffffffffu}) {
    EXPECT_TRUE(std::isfinite(rng::GumbelNegLogNegLogF32(RankNoiseUniform(w)))) << std::hex << w;
  }
}

TEST(ShardRange, HeaderExampleAndCover) {
  EXPECT_EQ(ShardRange(10, 4, 0), (std::pair<std::int64_t, std::int64_t>{0, 2}));
  EXPECT_EQ(ShardRange(10, 4, 1), (std::pair<std::int64_t, std::int64_t>{2, 5}));
  EXPECT_EQ(ShardRange(10, 4, 2), (std::pair<std::int64_t, std::int64_t>{5, 7}));
  EXPECT_EQ(ShardRange(10, 4, 3), (std::pair<std::int64_t, std::int64_t>{7, 10}));
  EXPECT_EQ(ShardRange(std::int64_t{1} << 32, 3, 2).second, std::int64_t{1} << 32);
  EXPECT_THROW(ShardRange(5, 2, 2), std::invalid_argument);
  EXPECT_THROW(ShardRange(-1, 2, 0), std::invalid_argument);
}

TEST(ShardedCounts, DisjointRangesAddUpToOneProcessBitForBit) {
  // probs {0.5, 0.25, 0.125, 0.125}, 1000 draws: [0, 333) + [333, 1000) == [0, 1000).
  reference::ReferenceBackend ref;
  Case c{"t", "exponential_race", Profile::kCanonical, nlohmann::json::object(), {}};
  c.inputs.emplace("probs", testing::F32Tensor({1, 4}, {0.5f, 0.25f, 0.125f, 0.125f}));
  ASSERT_TRUE(ref.Capabilities("exponential_race").count_draws_range);
  const Tensor whole = ref.CountDraws("exponential_race", c, 1000, 42);
  const Tensor a = ref.CountDrawsRange("exponential_race", c, 0, 333, 42);
  const Tensor b = ref.CountDrawsRange("exponential_race", c, 333, 667, 42);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(a.data<std::int64_t>()[i] + b.data<std::int64_t>()[i], whole.data<std::int64_t>()[i]) << i;
    total += whole.data<std::int64_t>()[i];
  }
  EXPECT_EQ(total, 1000);
  EXPECT_THROW(ref.CountDrawsRange("exponential_race", c, (std::int64_t{1} << 32) - 1, 2, 42), std::invalid_argument);
}

TEST(TpDivergence, MinLawOfTwoFairCoinsIsThreeQuarters) {
  // p = {1/2, 1/2}, R = 2 independent ranks: P(min = 0) = 1 - (1/2)^2 = 3/4, P(min = 1) = 1/4;
  // rank 0's law is p itself; shared noise has no closed form.
  DivergenceCase c{"coins", Profile::kSglang, {0.0f, 0.0f}, 0, false};
  EXPECT_EQ(ConsensusLaw(c, 2), (std::vector<double>{0.75, 0.25}));
  c.profile = Profile::kVllm;
  EXPECT_EQ(ConsensusLaw(c, 2), (std::vector<double>{0.5, 0.5}));
  c.shared_noise = true;
  c.profile = Profile::kSglang;
  EXPECT_TRUE(ConsensusLaw(c, 2).empty());
}

TEST(TpDivergence, IndependentNoiseUnderMinFollowsTheMinLawAndIsBiased) {
  reference::ReferenceBackend ref;
  const DivergenceCase c = Find("independent_noise", Profile::kSglang);
  const std::uint64_t seed = DivergenceSeed(c, 4, 0);
  const DivergenceTally t = SimulateDivergence(ref, c, 4, 20000, seed);
  const CaseResult r = DivergenceResult(c, t, seed);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  // Disagreement of 4 independent draws: 1 - sum_k p_k^4 with p = softmax(logits).
  const std::vector<double> p = TargetLaw(c);
  double same = 0.0;
  for (double x : p) same += std::pow(x, 4.0);
  ASSERT_TRUE(r.statistics && r.statistics->consensus && r.statistics->effect);
  const ConsensusStatistics& consensus = *r.statistics->consensus;
  EXPECT_LE(consensus.disagreement_lower, 1.0 - same);
  EXPECT_GE(consensus.disagreement_upper, 1.0 - same);
  // The MIN bias: TV(P(min), p). Logits {0, 1, 2, 3, 0.5, 1.5, 2.5, -1}: p = e^x / 49.8737,
  // q_k = S(k)^4 - S(k + 1)^4, TV = 0.41226 (evaluated independently in Python with math.exp;
  // 1 - sum p^4 = 0.96958).
  ASSERT_TRUE(consensus.exact_tv.has_value());
  EXPECT_NEAR(*consensus.exact_tv, 0.41226, 5e-5);
  const EffectSize& tv = *r.statistics->effect;
  EXPECT_LE(tv.lower, *consensus.exact_tv);
  EXPECT_GE(tv.upper, *consensus.exact_tv);
  EXPECT_GT(tv.lower, 0.35);  // far from 0: the bias is measured, not missed
}

TEST(TpDivergence, RankZeroKeepsTheTargetLawAndZeroNoiseNeverDisagrees) {
  reference::ReferenceBackend ref;
  {
    const DivergenceCase c = Find("independent_noise", Profile::kVllm);
    const std::uint64_t seed = DivergenceSeed(c, 4, 0);
    const CaseResult r = DivergenceResult(c, SimulateDivergence(ref, c, 4, 20000, seed), seed);
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
    ASSERT_TRUE(r.statistics && r.statistics->effect);
    EXPECT_LE(r.statistics->effect->lower, 0.0 + 1e-12);
  }
  {
    // Shared noise and no perturbation: every rank computes the same thing.
    DivergenceCase c = Find("shared_noise_4ulp", Profile::kSglang);
    c.max_ulps = 0;
    const DivergenceTally t = SimulateDivergence(ref, c, 4, 5000, 7);
    EXPECT_EQ(t.disagreements, 0);
  }
  {
    // A few ulps of reduction-order noise with shared noise: disagreement is rare (the top two
    // noisy scores must fall within a few ulps), the consensus law stays the target.
    const DivergenceCase c = Find("shared_noise_4ulp", Profile::kSglang);
    const std::uint64_t seed = DivergenceSeed(c, 4, 0);
    const CaseResult r = DivergenceResult(c, SimulateDivergence(ref, c, 4, 20000, seed), seed);
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
    ASSERT_TRUE(r.statistics && r.statistics->consensus && r.statistics->effect);
    EXPECT_LT(r.statistics->consensus->disagreement_upper, 0.01);
    EXPECT_LE(r.statistics->effect->lower, 0.0 + 1e-12);
  }
}

TEST(TpDivergence, ABackendReturningBadIdsIsNamed) {
  // An exec/plugin backend answering out of range is reported with the rank.
  class Wrong final : public Backend {
   public:
    std::string Name() const override { return "wrong"; }
    std::vector<std::string> SupportedStages() const override { return {"gumbel_max"}; }
    TensorMap Run(const std::string&, const Case& c) override {
      Tensor t(DType::kI64, {c.inputs.at("gumbel").dim(0)});
      t.data<std::int64_t>()[0] = 99;
      TensorMap out;
      out.emplace("token", std::move(t));
      return out;
    }
  } wrong;
  const DivergenceCase c = Find("shared_noise_4ulp", Profile::kSglang);
  try {
    RankDraws(wrong, c, 1, 3, 0, 10);
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("token 99 outside [0, 8) on rank 3"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sampcheck::distributed
