// SPDX-License-Identifier: Apache-2.0
// Tests of spec_random (reference/spec_random.h, docs/spec/speculative.md#spec_random) and of
// the exact laws (reference/spec_decode_exact.h). Every expected token is worked out by hand in
// the comment next to it from the peers' rules; all probabilities are dyadic, so every f32
// operation is exact unless the comment says otherwise.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "reference/spec_decode_exact.h"
#include "reference/spec_random.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

using reference::SpecRequest;

SpecRequest Request(const std::vector<std::int32_t>& drafts, const std::vector<float>& draft, const std::vector<float>& target,
                    std::int64_t vocab) {
  return {drafts, draft, target, vocab};
}

TEST(SpecRandomVllm, HeaderExample) {
  // tp / dp = 0.25 / 0.5 = 0.5 < 0.75: rejected; r = max({0.25, 0.75} - {0.5, 0.5}, 0) = {0, 0.25}
  // over q {1, 1} -> 1.
  const std::vector<std::int32_t> d = {0};
  const std::vector<float> draft = {0.5f, 0.5f}, target = {0.25f, 0.75f, 0.5f, 0.5f};
  const std::vector<double> u = {0.75};
  const std::vector<float> q = {1, 1};
  const auto o = reference::SpecRandomVllm(Request(d, draft, target, 2), u, q, q);
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(o.num_accepted, 0);
}

TEST(SpecRandomVllm, RecoveredRaceMultipliesByTheReciprocal) {
  // vLLM 9aaf83ef's sample_recovered_tokens scores prob * q.reciprocal(), the bonus race
  // probs / q. Weights {5, 0x1.aaaaacp+0}, q {3, 1}, by hand: 5 / 3 = 1.6666...: the f32
  // neighbours are 0x1.aaaaaap+0 (1.66666663, 4.0e-8 away) and 0x1.aaaaacp+0 (1.66666675,
  // 7.9e-8 away), so 5 / 3 rounds to 0x1.aaaaaap+0, below token 1's 0x1.aaaaacp+0: token 1.
  // 1 / 3 rounds to 0x1.555556p-2 (0.333333343), and 5 times it is 1.66666672 exactly, 3.0e-8
  // from 0x1.aaaaacp+0 and 8.9e-8 from 0x1.aaaaaap+0: a tie with token 1, the first wins: 0.
  const std::vector<float> w = {5.0f, 0x1.aaaaacp+0f}, q = {3.0f, 1.0f};
  EXPECT_EQ(reference::RaceArgmax(w, q), 1);
  EXPECT_EQ(reference::RaceArgmaxReciprocal(w, q), 0);
  // Through the stage: the n-gram draft 2 has tp = 0 and 0 >= 0.5 fails: rejected. The residual
  // is the target row with token 2 zeroed, {5, 0x1.aaaaacp+0, 0}, over q {3, 1, 1}: token 0.
  const std::vector<std::int32_t> d = {2};
  const std::vector<float> target = {5.0f, 0x1.aaaaacp+0f, 0.0f, 1.0f, 1.0f, 1.0f}, q3 = {3.0f, 1.0f, 1.0f};
  const std::vector<double> u = {0.5};
  const auto o = reference::SpecRandomVllm(Request(d, {}, target, 3), u, q3, q3);
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(o.num_accepted, 0);
}

TEST(SpecRandomVllm, AcceptanceComparesTheWidenedF32Quotient) {
  // tp = 1, dp = 3: f32(1/3) = 0x1.555556p-2 is above the real 1/3. With u = f32(1/3) widened
  // the test is equality: accepted (>=). With u one f64 ulp above: rejected. A comparison done
  // in f64 (1.0 / 3.0 = 0x1.5555555555555p-2 < u) would reject the first.
  const std::vector<std::int32_t> d = {0};
  const std::vector<float> draft = {3.0f, 0.0f}, target = {1.0f, 1.0f, 0.5f, 0.5f}, q = {1, 1};
  const double third = static_cast<double>(0x1.555556p-2f);
  ASSERT_EQ(static_cast<double>(1.0f / 3.0f), third);
  const std::vector<double> u_eq = {third}, u_above = {std::nextafter(third, 1.0)};
  EXPECT_EQ(reference::SpecRandomVllm(Request(d, draft, target, 2), u_eq, q, q).num_accepted, 1);
  EXPECT_EQ(reference::SpecRandomVllm(Request(d, draft, target, 2), u_above, q, q).num_accepted, 0);
}

TEST(SpecRandomVllm, UZeroAcceptsATokenOfTargetProbabilityZero) {
  // 0 / 0.5 = 0 >= 0: accepted (torch.rand's f64 u is 0 with probability 2^-53); the bonus
  // {0.5, 0.5} / bonus_q {1, 0.5} -> 1.
  const std::vector<std::int32_t> d = {0};
  const std::vector<float> draft = {0.5f, 0.5f}, target = {0.0f, 1.0f, 0.5f, 0.5f}, q = {1, 1}, bonus_q = {1, 0.5f};
  const std::vector<double> u = {0.0};
  const auto o = reference::SpecRandomVllm(Request(d, draft, target, 2), u, q, bonus_q);
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(o.num_accepted, 1);
}

TEST(SpecRandomVllm, LargestUBelowOneAcceptsOnlyRatiosOfOneOrMore) {
  const std::vector<std::int32_t> d = {0};
  const std::vector<double> u = {std::nextafter(1.0, 0.0)};
  const std::vector<float> q = {1, 1};
  // tp = dp: ratio 1 >= 1 - 2^-53.
  EXPECT_EQ(reference::SpecRandomVllm(Request(d, {0.5f, 0.5f}, {0.5f, 0.5f, 1, 0}, 2), u, q, q).num_accepted, 1);
  // tp = 0.5 - 2^-25 (largest f32 below 0.5), dp = 0.5: ratio 1 - 2^-24 < 1 - 2^-53: rejected;
  // r = max({0.5 - 2^-25, 0.75} - {0.5, 0.5}, 0) = {0, 0.25} -> 1.
  const float below_half = std::nextafter(0.5f, 0.0f);
  const auto o = reference::SpecRandomVllm(Request(d, {0.5f, 0.5f}, {below_half, 0.75f, 1, 0}, 2), u, q, q);
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{1}));
}

TEST(SpecRandomVllm, DraftProbabilityZeroIsRejected) {
  // dp = 0 (a draft the draft model gave no mass): rejected although tp = 0.5 and u = 0;
  // r = max({0.5, 0.5} - {0, 1}, 0) = {0.5, 0} over q {1, 1} -> 0.
  const std::vector<std::int32_t> d = {0};
  const std::vector<double> u = {0.0};
  const std::vector<float> q = {1, 1};
  const auto o = reference::SpecRandomVllm(Request(d, {0.0f, 1.0f}, {0.5f, 0.5f, 1, 0}, 2), u, q, q);
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(o.num_accepted, 0);
}

TEST(SpecRandomVllm, AllZeroResidualGivesTokenZero) {
  // p == q, draft token 2 has dp = 0: rejected, r = 0 everywhere, every ratio +0: token 0.
  const std::vector<std::int32_t> d = {2};
  const std::vector<double> u = {0.5};
  const std::vector<float> q = {0.5f, 0.25f, 1};
  const auto o = reference::SpecRandomVllm(Request(d, {0.5f, 0.5f, 0}, {0.5f, 0.5f, 0, 1, 0, 0}, 3), u, q, q);
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{0}));
}

TEST(SpecRandomVllm, NgramZeroesTheDraftInTheResidual) {
  // No draft probs: accept iff tp >= u: 0.25 >= 0.5 fails. Residual = target with token 0
  // zeroed = {0, 0.5, 0.25}; q {0.125, 1, 0.25}: ratios {0, 0.5, 1} -> 2 (token 0 would have
  // won with 0.25 / 0.125 = 2 had it not been zeroed).
  const std::vector<std::int32_t> d = {0};
  const std::vector<double> u = {0.5};
  const std::vector<float> q = {0.125f, 1, 0.25f};
  const auto o = reference::SpecRandomVllm(Request(d, {}, {0.25f, 0.5f, 0.25f, 1, 0, 0}, 3), u, q, q);
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{2}));
}

TEST(SpecRandomFlashinfer, AcceptanceIsAStrictProductComparison) {
  const std::vector<std::int32_t> d = {0};
  const std::vector<float> target = {0.25f, 0.75f, 1, 0};
  // u * dp == tp (0.5 * 0.5 = 0.25): rejected. r = {0, 0.25}; recovered with u_1 = 0.5:
  // C = {0, 0.25}, x = 0.125 < 0.25 at j = 1 -> 1.
  auto o = reference::SpecRandomFlashinfer(Request(d, {0.5f, 0.5f}, target, 2), std::vector<float>{0.5f, 0.5f});
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{1}));
  // u = 0.25: 0.125 < 0.25 accepted; bonus from {1, 0} with u_1 = 0.5: x = 0.5 < C_0 = 1 -> 0.
  o = reference::SpecRandomFlashinfer(Request(d, {0.5f, 0.5f}, target, 2), std::vector<float>{0.25f, 0.5f});
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{0, 0}));
  // dp = 0 with tp > 0 is accepted (0 < tp) whatever u, unlike vllm.
  o = reference::SpecRandomFlashinfer(Request(d, {0.0f, 1.0f}, target, 2), std::vector<float>{1.0f, 0.5f});
  EXPECT_EQ(o.num_accepted, 1);
}

TEST(SpecRandomFlashinfer, RecoveredDrawUsesTheNextUniform) {
  // K = 2, draft 0 rejected at position 0 (u_0 = 1: 1 * 1 < 0.5 fails). r = {0, 0.25, 0.25, 0}
  // C = {0, 0.25, 0.5, 0.5}. The draw uses u_1 = 0.75: x = 0.375 -> 2 (u_0 = 1 would give the
  // fallback 3, u_2 = 0.25 would give 1).
  const std::vector<std::int32_t> d = {0, 0};
  const std::vector<float> draft = {1, 0, 0, 0,  1, 0, 0, 0};
  const std::vector<float> target = {0.5f, 0.25f, 0.25f, 0,  1, 0, 0, 0,  1, 0, 0, 0};
  const auto o = reference::SpecRandomFlashinfer(Request(d, draft, target, 4), std::vector<float>{1.0f, 0.75f, 0.25f});
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{2}));
}

TEST(SpecRandomFlashinfer, FallbackIsTheLastColumn) {
  // u = 1 on r = {0.5, 0, 0}: x = C_2 = 0.5 is never < C_j: V - 1 = 2, a token of residual 0.
  EXPECT_EQ(reference::FlashinferResidualDraw(std::vector<float>{0.5f, 0, 0}, {}, 1.0f), 2);
  // All-zero residual: x = 0, no C_j > 0: 2.
  EXPECT_EQ(reference::FlashinferResidualDraw(std::vector<float>{0.5f, 0.5f, 0}, std::vector<float>{0.5f, 0.5f, 0}, 0.5f), 2);
  // u = 0: the first positive residual.
  EXPECT_EQ(reference::FlashinferResidualDraw(std::vector<float>{0, 0.5f, 0.5f}, {}, 0.0f), 1);
  // u = 1 - 2^-24 on {0.25, 0.75}: x = 1 - 2^-24 < C_1 = 1 -> 1.
  EXPECT_EQ(reference::FlashinferResidualDraw(std::vector<float>{0.25f, 0.75f}, {}, std::nextafter(1.0f, 0.0f)), 1);
}

TEST(SpecRandomTypical, ThresholdIsTheSmallerOfCapAndEntropyTerm) {
  // Flat {0.25 x 4}: sum p log(p + 1e-5) = log(0.25001) = -1.386254, exp = 0.25001, * 0.3 =
  // 0.075003 < 0.09: threshold 0.075003; 0.25 > it: accepted. Peaked {0.8125, 0.0625 x 3}:
  // sum = 0.8125 ln 0.81251 + 0.1875 ln 0.06251 = -0.688535, exp = 0.502314, * 0.3 = 0.150694;
  // threshold 0.09 > 0.0625: rejected, the argmax 0 emitted. (mpmath-free hand values: the
  // margins are far above f32 rounding.)
  const std::vector<std::int32_t> d = {2, 1};
  const std::vector<float> target = {0.25f, 0.25f, 0.25f, 0.25f,  0.8125f, 0.0625f, 0.0625f, 0.0625f,  1, 0, 0, 0};
  const std::vector<float> bonus_q = {1, 1, 1, 1};
  const auto o = reference::SpecRandomTypical(Request(d, {}, target, 4), bonus_q, reference::kTypicalPosteriorThreshold,
                                              reference::kTypicalPosteriorAlpha);
  EXPECT_EQ(o.tokens, (std::vector<std::int64_t>{2, 0}));
  EXPECT_EQ(o.num_accepted, 1);
  // posterior_threshold 0.5, posterior_alpha 1: threshold 0.25001 rejects the flat row's 0.25.
  EXPECT_EQ(reference::SpecRandomTypical(Request(d, {}, target, 4), bonus_q, 0.5f, 1.0f).num_accepted, 0);
}

TEST(SpecRandom, StageChecksNoiseAndProfiles) {
  const TensorMap base = {{"draft_ids", I32Tensor({1, 1}, {0})},
                          {"target_probs", Tensor::FromValues(DType::kF32, {1, 2, 2}, std::vector<float>{0.5f, 0.5f, 1, 0})},
                          {"draft_probs", Tensor::FromValues(DType::kF32, {1, 1, 2}, std::vector<float>{0.5f, 0.5f})}};
  auto with = [&](std::vector<std::pair<std::string, Tensor>> extra) {
    TensorMap m = base;
    for (auto& [k, v] : extra) m[k] = v;
    return m;
  };
  const Tensor q = F32Tensor({1, 2}, {1, 1});
  // vllm: u must be f64 in [0, 1).
  EXPECT_THROW(RunReference("spec_random", "vllm", with({{"u", F32Tensor({1, 1}, {0.5f})}, {"q", q}, {"bonus_q", q}})),
               std::invalid_argument);
  EXPECT_THROW(RunReference("spec_random", "vllm",
                            with({{"u", Tensor::FromValues(DType::kF64, {1, 1}, std::vector<double>{1.0})}, {"q", q}, {"bonus_q", q}})),
               std::invalid_argument);
  EXPECT_THROW(RunReference("spec_random", "vllm",
                            with({{"u", Tensor::FromValues(DType::kF64, {1, 1}, std::vector<double>{0.5})}, {"q", F32Tensor({1, 2}, {0, 1})},
                                  {"bonus_q", q}})),
               std::invalid_argument);
  // flashinfer: u f32 [B, K + 1] in [0, 1]; draft_probs required.
  EXPECT_THROW(RunReference("spec_random", "flashinfer", with({{"u", F32Tensor({1, 2}, {0.5f, 1.5f})}})), std::invalid_argument);
  TensorMap no_draft = base;
  no_draft.erase("draft_probs");
  no_draft["u"] = F32Tensor({1, 2}, {0.5f, 0.5f});
  EXPECT_THROW(RunReference("spec_random", "flashinfer", no_draft), std::invalid_argument);
  // canonical is not a profile of spec_random.
  EXPECT_ANY_THROW(RunReference("spec_random", "canonical", with({})));
  // A good flashinfer call: u_0 * 0.5 = 0.25 < 0.5 accepted; bonus {1, 0} -> 0.
  const TensorMap out = RunReference("spec_random", "flashinfer", with({{"u", F32Tensor({1, 2}, {0.5f, 0.5f})}}));
  EXPECT_EQ(out.at("emitted").data<std::int64_t>()[0], 0);
  EXPECT_EQ(out.at("emitted").data<std::int64_t>()[1], 0);
  EXPECT_EQ(out.at("num_accepted").data<std::int64_t>()[0], 1);
}

TEST(SpecDecodeExact, HeaderExample) {
  // p = {0.5, 0.5}, q = {1, 0}: sum min = 0.5; residual {0, 1}.
  const std::vector<double> p = {0.5, 0.5}, q = {1, 0};
  EXPECT_DOUBLE_EQ(reference::AcceptanceProbability(p, q), 0.5);
  EXPECT_EQ(reference::ResidualLaw(p, q), (std::vector<double>{0.0, 1.0}));
  EXPECT_THROW(reference::ResidualLaw(p, p), std::invalid_argument);
  // k = 1, p_1 = {0.25, 0.75}: outcomes (0; 0) 0, (0; 1) 0.5, (1; 0, 0) 0.125, (1; 0, 1) 0.375,
  // (1; 1, y) 0 (x = 1 is never drafted).
  const std::vector<double> target = {0.5, 0.5, 0.25, 0.75};
  const auto law = reference::SpecJointLaw(q, target, 2);
  ASSERT_EQ(law.size(), 6u);
  const std::vector<double> expected = {0.0, 0.5, 0.125, 0.375, 0.0, 0.0};
  for (std::size_t i = 0; i < law.size(); ++i) {
    EXPECT_DOUBLE_EQ(law[i].probability, expected[i]) << i;
    EXPECT_EQ(reference::JointOutcomeIndex(2, law[i].accepted, law[i].tokens), static_cast<std::int64_t>(i));
  }
}

TEST(SpecDecodeExact, FirstTokenLawGivenAFixedDraft) {
  // p = {0.5, 0.25, 0.25}, q = {0.25, 0.5, 0.25}, draft 1: a = 0.25 / 0.5 = 0.5; residual
  // max(p - q, 0) = {0.25, 0, 0} -> {1, 0, 0}. Law {0.5, 0.5, 0}. Draft 0: a = 1 -> {1, 0, 0}.
  const std::vector<double> p = {0.5, 0.25, 0.25}, q = {0.25, 0.5, 0.25};
  EXPECT_EQ(reference::FirstTokenLawGivenDraft(p, q, 1), (std::vector<double>{0.5, 0.5, 0.0}));
  EXPECT_EQ(reference::FirstTokenLawGivenDraft(p, q, 0), (std::vector<double>{1.0, 0.0, 0.0}));
  // q(x) = 0 with p(x) > 0: p = {0.5, 0.25, 0.25}, q = {0.25, 0.75, 0}, draft 2. vllm rejects:
  // residual max(p - q, 0) = {0.25, 0, 0.25} -> {0.5, 0, 0.5}; flashinfer accepts: {0, 0, 1}.
  const std::vector<double> q2 = {0.25, 0.75, 0.0};
  EXPECT_EQ(reference::FirstTokenLawGivenDraft(p, q2, 2), (std::vector<double>{0.5, 0.0, 0.5}));
  EXPECT_EQ(reference::FirstTokenLawGivenDraftAcceptingZero(p, q2, 2), (std::vector<double>{0.0, 0.0, 1.0}));
}

// Leviathan et al. Theorem 1 on the enumerated law: the first emitted token follows p_0, the
// probabilities sum to 1, and P(L >= 1) = 1 - TV(p_0, q_0), for any rows.
RC_GTEST_PROP(SpecDecodeExact, FirstTokenFollowsTheTarget, ()) {
  const std::int64_t v = 3, k = 2;
  const auto weights = *rc::gen::container<std::vector<std::uint8_t>>(static_cast<std::size_t>((2 * k + 1) * v),
                                                                      rc::gen::arbitrary<std::uint8_t>());
  std::vector<double> draft, target;
  for (std::int64_t i = 0; i < k * v; ++i) draft.push_back(1.0 + weights[static_cast<std::size_t>(i)] % 7);
  for (std::int64_t i = 0; i < (k + 1) * v; ++i) target.push_back(1.0 + weights[static_cast<std::size_t>(k * v + i)] % 7);
  const auto law = reference::SpecJointLaw(draft, target, v);
  std::vector<double> first(static_cast<std::size_t>(v), 0.0);
  double total = 0.0, accepted_first = 0.0;
  for (const auto& o : law) {
    total += o.probability;
    first[static_cast<std::size_t>(o.tokens[0])] += o.probability;
    if (o.accepted >= 1) accepted_first += o.probability;
  }
  const auto p0 = reference::NormalisedLaw(std::span<const double>(target).first(static_cast<std::size_t>(v)));
  RC_ASSERT(std::abs(total - 1.0) < 1e-12);
  for (std::int64_t j = 0; j < v; ++j) RC_ASSERT(std::abs(first[static_cast<std::size_t>(j)] - p0[static_cast<std::size_t>(j)]) < 1e-12);
  const double a = reference::AcceptanceProbability(std::span<const double>(target).first(3), std::span<const double>(draft).first(3));
  RC_ASSERT(std::abs(accepted_first - a) < 1e-12);
}

}  // namespace
}  // namespace sampcheck::testing
