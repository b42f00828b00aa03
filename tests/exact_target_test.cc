// SPDX-License-Identifier: Apache-2.0
// Exact targets and ambiguous tokens (statistical/exact_target.h, docs/spec/harness.md
// "Exact targets"). Expected values: hand calculations (quarters and eighths), the top-k
// spec's own example (reference/top_k.h), and mpmath at 30 digits for the softmax.
#include "statistical/exact_target.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <numeric>

#include <gtest/gtest.h>

#include "core/profile.h"
#include "reference/rng/noise.h"
#include "reference/rng/uniform.h"
#include "statistical/race_floor_law.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::statistical {
namespace {

Case OneRow(const std::string& stage, const std::string& input, std::vector<float> row) {
  Case c;
  c.id = stage + "/test/canonical";
  c.stage = stage;
  c.profile = Profile::kCanonical;
  const auto v = static_cast<std::int64_t>(row.size());
  c.inputs.emplace(input, Tensor::FromValues(DType::kF32, {1, v}, row));
  return c;
}

Case Pipeline(const std::string& profile, std::vector<float> logits, float temperature, std::int32_t top_k, float top_p) {
  Case c;
  c.id = "pipeline/test/" + profile;
  c.stage = "pipeline";
  c.profile = sampcheck::ParseProfile(profile);
  const auto v = static_cast<std::int64_t>(logits.size());
  c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {1, v}, logits));
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {1}, std::vector<float>{temperature}));
  c.inputs.emplace("top_k", Tensor::FromValues(DType::kI32, {1}, std::vector<std::int32_t>{top_k}));
  c.inputs.emplace("top_p", Tensor::FromValues(DType::kF32, {1}, std::vector<float>{top_p}));
  return c;
}

TEST(ExactTarget, NormalisesProbabilitiesAndKeepsZeros) {
  // Hand: {1, 3, 0, 4} / 8.
  const ExactTarget t = ComputeExactTarget(OneRow("exponential_race", "probs", {1.0f, 3.0f, 0.0f, 4.0f}));
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].p, (std::vector<double>{0.125, 0.375, 0.0, 0.5}));
  EXPECT_TRUE(t.rows[0].ambiguous.empty());
  EXPECT_EQ(t.rows[0].greedy_token, -1);
}

TEST(ExactTarget, GumbelMaxIsTheSoftmaxOfFiniteScores) {
  // mpmath (30 digits): e^{0, -1, 2} / (1 + e^-1 + e^2).
  const ExactTarget t = ComputeExactTarget(
      OneRow("gumbel_max", "logprobs", {0.0f, -1.0f, -std::numeric_limits<float>::infinity(), 2.0f}));
  const auto& p = t.rows[0].p;
  EXPECT_NEAR(p[0], 0.11419519938459447893, 1e-16);
  EXPECT_NEAR(p[1], 0.042010066134066051018, 1e-16);
  EXPECT_EQ(p[2], 0.0);
  EXPECT_NEAR(p[3], 0.84379473448133947005, 1e-15);
}

TEST(ExactTarget, RowWithoutDrawableTokenIsAnError) {
  EXPECT_THROW(ComputeExactTarget(OneRow("inverse_cdf", "probs", {0.0f, 0.0f})), std::invalid_argument);
  EXPECT_THROW(ComputeExactTarget(OneRow("exponential_race", "probs", {-1.0f, 2.0f})), std::invalid_argument);
  EXPECT_THROW(ComputeExactTarget(OneRow("greedy", "logits", {1.0f})), std::invalid_argument);
}

TEST(ExactTarget, TopKTiesFollowTheProfile) {
  // reference/top_k.h example: {1, 3, 3, 2}, k = 1 -> canonical keeps id 1; vllm's top-k keeps
  // ids 1 and 2 (apply_top_k_top_p at vLLM 9aaf83ef), equally likely; with the later vLLM's
  // rule (param top_k_one = "greedy", test_greedy_topk1_invariance.py) top_k = 1 is the greedy
  // token: id 1, a point mass.
  const ExactTarget canonical = ComputeExactTarget(Pipeline("canonical", {1, 3, 3, 2}, 1.0f, 1, 1.0f));
  EXPECT_EQ(canonical.rows[0].p, (std::vector<double>{0.0, 1.0, 0.0, 0.0}));
  const ExactTarget vllm_ties = ComputeExactTarget(Pipeline("vllm", {1, 3, 3, 2}, 1.0f, 1, 1.0f));
  EXPECT_EQ(vllm_ties.rows[0].greedy_token, -1);
  EXPECT_EQ(vllm_ties.rows[0].p, (std::vector<double>{0.0, 0.5, 0.5, 0.0}));
  Case greedy_rule = Pipeline("vllm", {1, 3, 3, 2}, 1.0f, 1, 1.0f);
  greedy_rule.params["top_k_one"] = "greedy";
  const ExactTarget vllm = ComputeExactTarget(greedy_rule);
  EXPECT_EQ(vllm.rows[0].greedy_token, 1);
  EXPECT_EQ(vllm.rows[0].p, (std::vector<double>{0.0, 1.0, 0.0, 0.0}));
  // k = 2 on {1, 3, 3, 3}: canonical keeps ids 1, 2 (exactly k, lower ids); vllm every tie at
  // the 2nd value: ids 1, 2, 3.
  const ExactTarget canonical2 = ComputeExactTarget(Pipeline("canonical", {1, 3, 3, 3}, 1.0f, 2, 1.0f));
  EXPECT_EQ(canonical2.rows[0].p, (std::vector<double>{0.0, 0.5, 0.5, 0.0}));
  const ExactTarget vllm2 = ComputeExactTarget(Pipeline("vllm", {1, 3, 3, 3}, 1.0f, 2, 1.0f));
  EXPECT_EQ(vllm2.rows[0].p[0], 0.0);
  EXPECT_GT(vllm2.rows[0].p[3], 0.0);
  EXPECT_EQ(vllm2.rows[0].p[1], vllm2.rows[0].p[3]);
  EXPECT_TRUE(vllm2.rows[0].ambiguous.empty());
}

TEST(ExactTarget, GreedyRowIsAPointMass) {
  const ExactTarget t = ComputeExactTarget(Pipeline("canonical", {1, 3, 3, 2}, 0.0f, 0, 1.0f));
  EXPECT_EQ(t.rows[0].greedy_token, 1);  // lowest index among the tied maxima (greedy.md)
  EXPECT_EQ(t.rows[0].p, (std::vector<double>{0.0, 1.0, 0.0, 0.0}));
}

TEST(ExactTarget, TopPOnARoundedDyadicSumIsAmbiguous) {
  // probs ~ {1/2, 1/4, 1/8, 1/8} from f32 multiples of ln 2, top_p = 0.75: the cumulative sum
  // through token 1 is 3/4 only up to the rounding of ln 2 in f32 (0x1.62e430p-1 is 1.9e-9
  // above ln 2), so tokens 1 (its sum including it) and 2 (its sum before it) are ambiguous;
  // token 0 (sum 1/2 including it) and 3 (7/8 before it) are not.
  const float ln2 = std::numbers::ln2_v<float>;
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    SCOPED_TRACE(profile);
    const ExactTarget t = ComputeExactTarget(Pipeline(profile, {0.0f, -ln2, -2 * ln2, -2 * ln2}, 1.0f, 0, 0.75f));
    EXPECT_EQ(t.rows[0].ambiguous, (std::vector<std::int64_t>{1, 2}));
    EXPECT_GT(t.rows[0].p[0], 0.0);
    EXPECT_EQ(t.rows[0].p[3], 0.0);
  }
}

TEST(ExactTarget, MinPRatioNearTheThresholdIsAmbiguous) {
  // min_p = 0.5 and a logit of -ln 2 (f32): exp(-0x1.62e430p-1) = 0.5 (1 - 1.9e-9): within
  // 2^-16 of the threshold and not equal to it.
  Case c = Pipeline("canonical", {0.0f, -std::numbers::ln2_v<float>, -3.0f}, 1.0f, 0, 1.0f);
  c.inputs.emplace("min_p", Tensor::FromValues(DType::kF32, {1}, std::vector<float>{0.5f}));
  const ExactTarget t = ComputeExactTarget(c);
  EXPECT_EQ(t.rows[0].ambiguous, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(t.rows[0].p[2], 0.0);  // exp(-3) = 0.0498 < 0.5: dropped, far from the threshold
}

TEST(ExactTarget, PipelineStepsBeforeTemperatureApply) {
  // Dense bias {ln 3, 0} on logits {0, 0}: probabilities {3/4, 1/4} up to the f32 rounding of
  // ln 3 (hand); a greedy row takes the argmax after the bias.
  Case c = Pipeline("canonical", {0.0f, 0.0f}, 1.0f, 0, 1.0f);
  c.inputs.emplace("bias", Tensor::FromValues(DType::kF32, {1, 2}, std::vector<float>{std::log(3.0f), 0.0f}));
  const ExactTarget t = ComputeExactTarget(c);
  EXPECT_NEAR(t.rows[0].p[0], 0.75, 1e-7);
  EXPECT_NEAR(t.rows[0].p[1], 0.25, 1e-7);
  Case g = Pipeline("vllm", {0.0f, 0.0f}, 0.0f, 0, 1.0f);
  g.inputs.emplace("bias", Tensor::FromValues(DType::kF32, {1, 2}, std::vector<float>{0.0f, 1.0f}));
  EXPECT_EQ(ComputeExactTarget(g).rows[0].greedy_token, 1);
}

TEST(ExactTarget, SparseBiasListIsRejectedByName) {
  Case c = Pipeline("canonical", {0.0f, 1.0f}, 1.0f, 0, 1.0f);
  c.inputs.emplace("bias_rows", Tensor::FromValues(DType::kI32, {1}, std::vector<std::int32_t>{0}));
  try {
    ComputeExactTarget(c);
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("sparse logit bias"), std::string::npos) << e.what();
  }
}

// Every family: rows sum to 1, ambiguous ids sorted and unique, and the families' designed
// properties hold (the off-by-one token of top_p_inside is excluded and not ambiguous; the
// top-k ties follow each profile's rule).
TEST(ExactTarget, AscendOpDrawsFromItsSurvivorsInProportion) {
  // The op's header example (docs/spec/ascend_top_k_top_p_sample_v2.md), by hand: logits
  // {0, -ln2, -2 ln2, -2 ln2} have probs {1/2, 1/4, 1/8, 1/8}; top-3 renormalised {4/7, 2/7,
  // 1/7}; top-p 0.7 keeps the prefix {0, 1} (cumulative 0, 4/7 < 0.7; 6/7 is not). QSample
  // then draws 0 and 1 in the ratio 4/7 : 2/7 (exactly 2 : 1 after f32 rounding, a power-of-two
  // scale): {2/3, 1/3, 0, 0}.
  const float ln2 = std::numbers::ln2_v<float>;
  Case c;
  c.id = "ascend_example";
  c.stage = "ascend_top_k_top_p_sample_v2";
  c.profile = Profile::kAscendV2;
  c.inputs.emplace("logits", Tensor::FromValues<float>(DType::kF32, {1, 4}, {0.0f, -ln2, -2.0f * ln2, -2.0f * ln2}));
  c.inputs.emplace("top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {1}, {3}));
  c.inputs.emplace("top_p", Tensor::FromValues<float>(DType::kF32, {1}, {0.7f}));
  const ExactTarget t = ComputeExactTarget(c);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_NEAR(t.rows[0].p[0], 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(t.rows[0].p[1], 1.0 / 3.0, 1e-15);
  EXPECT_EQ(t.rows[0].p[2], 0.0);
  EXPECT_EQ(t.rows[0].p[3], 0.0);
  EXPECT_TRUE(t.rows[0].ambiguous.empty());
}

// flashinfer_sampling_from_probs' top_k_first order (docs/spec/flashinfer_sampling_from_probs.md
// "top_k_first"): top-p reads the top-k survivors renormalised. Rows 16, 15, ..., 1 over 136.
Case FlashinferTopKFirst(std::int32_t top_k, float top_p) {
  std::vector<float> row;
  for (int i = 16; i >= 1; --i) row.push_back(static_cast<float>(i) / 136.0f);
  Case c = OneRow("flashinfer_sampling_from_probs", "probs", row);
  c.id = "flashinfer_sampling_from_probs/test/flashinfer";
  c.profile = Profile::kFlashinfer;
  c.params["kernel"] = "top_k_top_p";
  c.params["filter_apply_order"] = "top_k_first";
  c.inputs.emplace("top_k", Tensor::FromValues(DType::kI32, {1}, std::vector<std::int32_t>{top_k}));
  c.inputs.emplace("top_p", Tensor::FromValues(DType::kF32, {1}, std::vector<float>{top_p}));
  return c;
}

TEST(ExactTarget, FlashinferTopKFirstDrawsFromTheRenormalisedTopPSurvivors) {
  // k 4, top_p 0.5, by hand: the top-k row {16, 15, 14, 13} / 58 has masses above 0, 16/58,
  // 31/58 = 0.534: tokens {0, 1}, drawn 16 : 15 (joint would keep 0..3: 45/136 < 0.5).
  const ExactTarget t = ComputeExactTarget(FlashinferTopKFirst(4, 0.5f));
  ASSERT_EQ(t.rows.size(), 1u);
  // The target divides the f32 weights k / 136 (each rounded to f32, relative 6e-8) in double:
  // within 1e-7 of the exact ratios, not equal to them.
  EXPECT_NEAR(t.rows[0].p[0], 16.0 / 31.0, 1e-7);
  EXPECT_NEAR(t.rows[0].p[1], 15.0 / 31.0, 1e-7);
  for (std::size_t j = 2; j < 16; ++j) EXPECT_EQ(t.rows[0].p[j], 0.0) << j;
  EXPECT_TRUE(t.rows[0].ambiguous.empty());
  // top_p = f32(31/58): token 2's mass above in the renormalised row is 31/58, within 2^-16 of
  // top_p (its mass in the original row, 31/136, is far from it): ambiguous.
  const ExactTarget edge = ComputeExactTarget(FlashinferTopKFirst(4, 31.0f / 58.0f));
  EXPECT_EQ(edge.rows[0].ambiguous, (std::vector<std::int64_t>{2}));
}

TEST(ExactTarget, FamiliesHaveTheirDesignedTargets) {
  for (const auto& s : DrawStatCases()) {
    SCOPED_TRACE(s.id);
    const ExactTarget t = ComputeExactTarget(s.input);
    for (const auto& row : t.rows) {
      const double sum = std::accumulate(row.p.begin(), row.p.end(), 0.0);
      EXPECT_NEAR(sum, 1.0, 1e-12);
      EXPECT_TRUE(std::is_sorted(row.ambiguous.begin(), row.ambiguous.end()));
      EXPECT_EQ(std::adjacent_find(row.ambiguous.begin(), row.ambiguous.end()), row.ambiguous.end());
    }
    if (s.id.find("top_p_inside") != std::string::npos) {
      EXPECT_TRUE(t.rows[0].ambiguous.empty());
      EXPECT_GT(t.rows[0].p[12], 0.0);
      EXPECT_EQ(t.rows[0].p[13], 0.0);
    }
    if (s.id.find("top_k_ties") != std::string::npos) {
      const bool all_ties = s.input.profile == Profile::kVllm;
      EXPECT_GT(t.rows[0].p[511], 0.0);
      EXPECT_EQ(t.rows[0].p[700] > 0.0, all_ties);
      EXPECT_EQ(t.rows[0].p[1022] > 0.0, all_ties);
    }
    if (s.id.find("penalties_mask") != std::string::npos) {
      for (int i = 10; i < 20; ++i) EXPECT_EQ(t.rows[0].p[static_cast<std::size_t>(i)], 0.0) << i;  // masked
      EXPECT_GT(t.rows[1].p[15], 0.0);  // unmasked row
      EXPECT_EQ(t.rows[2].greedy_token, 1);  // frequency penalty moved the argmax off token 0
    }
    if (s.id.find("mixed") != std::string::npos) {
      EXPECT_EQ(t.rows[0].greedy_token, 100);
    }
  }
}

// The exact law of the reference's own race with its floor (statistical/race_floor_law.h,
// docs/spec/harness.md "Tail amplifiers"). Known answers: by hand where only the floor cell can
// win; a brute-force count over every strong cell; the geometric-series estimate of the
// lattice near 0.
TEST(RaceFloorLaw, OnlyTheFloorCellWinsForAWeightFarBelowTwoToMinus24) {
  // q(1) = RN(-log1p(-2^-24)) = 2^-24 (the next term, 2^-49, is below half an ulp), so the
  // weak ratio of cell 1 is 2^-30 / 2^-24 = 2^-6, below every finite strong ratio
  // 1 / q >= 1 / (24 ln2) = 0.060: only the weak cell 0 (+inf) wins, against the 2^24 - 1
  // finite strong cells.
  EXPECT_EQ(rng::ExponentialNegLog1pNegF32(0x1p-24f), 0x1p-24f);
  const long double c = 0x1p-24L;
  // Long double sums (relative ~1e-17 per term, race_floor_law.h) against closed forms, compared
  // as a double ratio: 1e-15 is a few double ulps.
  EXPECT_NEAR(static_cast<double>(CanonicalRaceGroupShare(1.0f, 0x1p-30f, 1) / ((1.0L - c) * c)), 1.0, 1e-15);
  // The tail_floor_v1024 family: 1023 such tokens.
  const long double group = (1.0L - c) * -std::expm1(1023.0L * std::log1p(-c));
  EXPECT_NEAR(static_cast<double>(CanonicalRaceGroupShare(1.0f, 0x1p-30f, 1023) / group), 1.0, 1e-15);
  // 64 times the ideal race's share, up to factors (1 - O(1023 2^-24)) and (1 + 1023 2^-30),
  // a few 1e-5 of it: 0.01 leaves room for those and nothing else.
  EXPECT_NEAR(static_cast<double>(group / IdealRaceGroupShare(1.0f, 0x1p-30f, 1023)), 64.0, 0.01);
}

TEST(RaceFloorLaw, ThresholdsMatchADirectCountOfWinningWeakCells) {
  // weight 2^-20 beside 1: a few hundred weak cells can win. N(k_s), the weak cells whose ratio
  // is strictly above strong cell k_s's (a tie goes to id 0), counted directly for sampled
  // strong cells, against the thresholds; each threshold brackets its change of N. (Counted
  // once over all 2^24 strong cells by hand, the share agreed to 4e-15 relative: 11 s, too
  // long for this test.)
  const float strong = 1.0f, weak = 0x1p-20f;
  auto q = [](std::uint32_t k) { return rng::ExponentialNegLog1pNegF32(rng::UniformClosedOpen24F32(k << 8)); };
  std::vector<float> weak_ratio;  // every weak cell that beats the smallest strong ratio
  const float lowest_strong = strong / q((1u << 24) - 1u);
  for (std::uint32_t k = 0; weak / q(k) > lowest_strong; ++k) weak_ratio.push_back(weak / q(k));
  const std::vector<std::uint32_t> t = CanonicalRaceThresholds(strong, weak);
  ASSERT_EQ(t.size(), weak_ratio.size() + 1);
  EXPECT_EQ(t.front(), 1u);
  EXPECT_EQ(t.back(), 1u << 24);
  for (std::size_t j = 1; j + 1 < t.size(); ++j) {  // strong cell T_{j+1} - 1 ties or beats weak cell j, T_{j+1} does not
    EXPECT_GE(strong / q(t[j] - 1), weak_ratio[j]) << j;
    EXPECT_LT(strong / q(t[j]), weak_ratio[j]) << j;
  }
  for (std::uint32_t ks = 1; ks < (1u << 24); ks += 997) {
    const float rs = strong / q(ks);
    const auto direct = std::count_if(weak_ratio.begin(), weak_ratio.end(), [&](float r) { return r > rs; });
    const auto from_t = std::upper_bound(t.begin(), t.end(), ks) - t.begin();  // #{j : T_j <= ks}
    ASSERT_EQ(direct, from_t) << ks;
  }
  // The share from the thresholds: N = j on [T_j, T_{j+1}).
  long double sum = 0.0L;
  for (std::size_t j = 1; j < t.size(); ++j) sum += static_cast<long double>(t[j] - t[j - 1]) * (1.0L - std::pow(1.0L - j * 0x1p-24L, 3.0L));
  EXPECT_NEAR(static_cast<double>(CanonicalRaceGroupShare(strong, weak, 3) / (sum * 0x1p-24L)), 1.0, 1e-12);
  // Near 0 the cells are q(k) ~ k 2^-24, and a weak cell k wins when the strong Exp(1) exceeds
  // k a, a = 2^-24 / 2^-20 = 1/16: P ~ 2^-24 sum_k e^{-k a} = 2^-24 / (1 - e^{-1/16}) = 16.504
  // 2^-24, 1.0315 times the ideal 2^-20 (the floor's +3% on amplifier_v2).
  // A first-order estimate (q(k) ~ k 2^-24 drops the u^2 / 2 term; the f32 rounding of the
  // ratios is ignored), so a tolerance of 0.2% rather than equality.
  const double ratio = static_cast<double>(CanonicalRaceGroupShare(strong, weak, 1) / IdealRaceGroupShare(strong, weak, 1));
  EXPECT_NEAR(ratio, 1.0315, 0.002);
}

TEST(RaceFloorLaw, TheHalfPrecisionFamilySitsFarAboveTheFloor) {
  // tail_f16_v32: 31 weights 3 2^-27 beside 2^-14 (3.7e-4 each). Its target is p; the floor
  // moves the group's share by less than 1e-4 of itself, far below the resolution of its
  // thorough n (harness.md "Tail amplifiers").
  const long double exact = CanonicalRaceGroupShare(0x1p-14f, 0x3p-27f, 31);
  const long double ideal = IdealRaceGroupShare(0x1p-14f, 0x3p-27f, 31);
  EXPECT_NEAR(static_cast<double>(ideal), 0.011225, 1e-6);  // 93 / 8285 = 0.0112251..., to the digits written
  std::printf("tail_f16_v32: exact share under the reference's floor %.10Lg, ideal %.10Lg, relative %+.3Lg\n", exact, ideal,
              exact / ideal - 1.0L);
  EXPECT_LT(std::fabs(static_cast<double>(exact / ideal - 1.0L)), 1e-4) << static_cast<double>(exact / ideal - 1.0L);
}

TEST(RaceFloorLaw, SglangOnlyTheStrongZeroHashLosesFarBelowTheClamp) {
  // weak / strong = 2^-40 (log 27.73): the top weak g, 32 ln2 = 22.18, stays below the strong
  // score at h = 1, g = -ln(-ln(1 / (2^32 - 1))) = -ln(22.18) = -3.10 (22.18 - 27.73 < -3.10),
  // so only the strong cell h = 0 (g = -709.78, below every weak cell but h = 0) loses.
  // -ln(ln(2^32 - 1)) differs from -ln(32 ln2) by about 2^-32 / 22 = 1e-11 (and libm's log from
  // the owned one by ulps): 1e-9 covers both and would still catch a wrong clamp (0.1 and more).
  EXPECT_NEAR(rng::GumbelSglangFromHashF64(1), -std::log(32.0 * std::numbers::ln2), 1e-9);
  const long double c = 0x1p-32L;
  EXPECT_NEAR(static_cast<double>(SglangSeededGroupShare(1.0f, 0x1p-40f, 1) / (c * (1.0L - c))), 1.0, 1e-15);
  EXPECT_NEAR(static_cast<double>(SglangSeededGroupShare(1.0f, 0x1p-40f, 1023) / (c * (1.0L - std::pow(c, 1023.0L)))), 1.0, 1e-15);
}

TEST(RaceFloorLaw, SglangMatchesTheIdealRaceAwayFromItsFloor) {
  // weak 2^-23 (log 15.9): a weak column wins with g_w > 15.9 + g_s, i.e. within the top
  // ~e^6 = 500 hash cells for a typical g_s; the lattice there is fine enough for the Gumbel-max
  // law w / (s + w) to hold within 1%.
  const double ratio = static_cast<double>(SglangSeededGroupShare(1.0f, 0x1p-23f, 1) / IdealRaceGroupShare(1.0f, 0x1p-23f, 1));
  EXPECT_NEAR(ratio, 1.0, 0.01);
  // The tail family's weights (2^-29 beside 1, 1023 columns): printed for the docs.
  const long double exact = SglangSeededGroupShare(1.0f, 0x1p-29f, 1023);
  std::printf("sglang tail: exact share %.10Lg, ideal %.10Lg, ratio %.4Lg (2^-23 ratio %.6f)\n", exact,
              IdealRaceGroupShare(1.0f, 0x1p-29f, 1023), exact / IdealRaceGroupShare(1.0f, 0x1p-29f, 1023), ratio);
}

TEST(RaceFloorLaw, RejectsBadWeights) {
  EXPECT_THROW(CanonicalRaceGroupShare(0.0f, 1e-9f, 1), std::invalid_argument);
  EXPECT_THROW(CanonicalRaceGroupShare(1.0f, std::numeric_limits<float>::infinity(), 1), std::invalid_argument);
  EXPECT_THROW(CanonicalRaceGroupShare(1.0f, 1e-9f, 0), std::invalid_argument);
}

}  // namespace
}  // namespace sampcheck::statistical
