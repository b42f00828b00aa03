// SPDX-License-Identifier: Apache-2.0
// Tests of spec_step (reference/spec_step.h, docs/spec/spec_step.md) and of block verification
// (SpecVerifyBlock, BlockJointLaw). Known answers: hand-made greedy rows (argmaxes chosen),
// the filtered-draft row worked out in the spec, and the example of Sun et al. 2024 ("Block
// Verification Accelerates Speculative Decoding", Section 1: V = {a, b}, target (1/3, 2/3),
// draft (2/3, 1/3), two drafts: 10/9 expected accepted tokens token-wise, 11/9 with block
// verification).
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "reference/spec_decode_exact.h"
#include "reference/spec_step.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

struct Step {
  std::vector<std::int64_t> emitted;
  std::int64_t accepted, kept;
  bool finished;
};

Step Read(const TensorMap& out, std::int64_t b = 0) {
  const auto& e = out.at("emitted");
  const auto w = static_cast<std::size_t>(e.dim(1));
  const auto row = e.data<std::int64_t>().subspan(static_cast<std::size_t>(b) * w, w);
  return {{row.begin(), row.end()},
          out.at("num_accepted").data<std::int64_t>()[static_cast<std::size_t>(b)],
          out.at("num_emitted").data<std::int64_t>()[static_cast<std::size_t>(b)],
          out.at("finished").data<std::uint8_t>()[static_cast<std::size_t>(b)] != 0};
}

// One greedy request, V = 8, K = 2: argmaxes 5, 2, 7 (token 4 second at position 1).
TensorMap GreedyInputs(std::int32_t min_tokens, std::int32_t output_len) {
  std::vector<float> t(3 * 8, 0.0f);
  t[5] = 3.0f;
  t[8 + 2] = 3.0f;
  t[8 + 4] = 2.0f;
  t[16 + 7] = 3.0f;
  TensorMap in;
  in.emplace("draft_ids", I32Tensor({1, 2}, {5, 2}));
  in.emplace("target_logits", Tensor::FromValues(DType::kF32, {1, 3, 8}, t));
  in.emplace("temperature", F32Tensor({1}, {0.0f}));
  in.emplace("stop_ids", I32Tensor({1, 1}, {2}));
  in.emplace("min_tokens", I32Tensor({1}, {min_tokens}));
  in.emplace("output_len", I32Tensor({1}, {output_len}));
  return in;
}

TEST(SpecStep, StopIdInsideTheAcceptedDraftsEndsTheRow) {
  // Header example: verification emits {5, 2, 7}; token 2 at index 1 is a stop.
  const Step s = Read(RunReference("spec_step", "canonical", GreedyInputs(0, 0)));
  EXPECT_EQ(s.emitted, (std::vector<std::int64_t>{5, 2, -1}));
  EXPECT_EQ(s.accepted, 2);
  EXPECT_EQ(s.kept, 2);
  EXPECT_TRUE(s.finished);
}

TEST(SpecStep, MinTokensMasksTheStopDraft) {
  // min_tokens 2, output_len 0: position 1 has output_len + 1 < 2, token 2 is -inf there, the
  // argmax is 4 and draft 2 is rejected: {5, 4}, nothing finishes.
  const Step s = Read(RunReference("spec_step", "canonical", GreedyInputs(2, 0)));
  EXPECT_EQ(s.emitted, (std::vector<std::int64_t>{5, 4, -1}));
  EXPECT_EQ(s.accepted, 1);
  EXPECT_EQ(s.kept, 2);
  EXPECT_FALSE(s.finished);
  // output_len 1: position 1 sees 1 + 1 = 2 >= 2, the mask is off and the stop finishes.
  EXPECT_TRUE(Read(RunReference("spec_step", "canonical", GreedyInputs(2, 1))).finished);
}

TEST(SpecStep, VerifierSeesFilteredDraftProbabilities) {
  // docs/spec/spec_step.md "Filtered drafts": top_p 0.55 keeps tokens {0, 1} of both rows;
  // tp / dp = 0.5 / (0.4 / 0.7) = 0.875: u = 0.9 rejects (the unfiltered 0.5 / 0.4 = 1.25
  // would accept), u = 0.5 accepts.
  const float l4 = -0.916290731874155f, l3 = -1.203972804325936f, l2 = -1.6094379124341003f, l1 = -2.302585092994046f;
  TensorMap in;
  in.emplace("draft_ids", I32Tensor({2, 1}, {0, 0}));
  in.emplace("target_logits",
             Tensor::FromValues(DType::kF32, {2, 2, 4},
                                std::vector<float>{l3, l3, l2, l2, l3, l3, l2, l2, l3, l3, l2, l2, l3, l3, l2, l2}));
  in.emplace("draft_logits",
             Tensor::FromValues(DType::kF32, {2, 1, 4}, std::vector<float>{l4, l3, l2, l1, l4, l3, l2, l1}));
  in.emplace("temperature", F32Tensor({2}, {1.0f, 1.0f}));
  in.emplace("top_p", F32Tensor({2}, {0.55f, 0.55f}));
  in.emplace("u", Tensor::FromValues<double>(DType::kF64, {2, 1}, {0.9, 0.5}));
  in.emplace("q", F32Tensor({2, 4}, {1, 1, 1, 1, 1, 1, 1, 1}));
  in.emplace("bonus_q", F32Tensor({2, 4}, {1, 1, 1, 1, 1, 1, 1, 1}));
  for (const char* profile : {"canonical", "block_verification"}) {
    SCOPED_TRACE(profile);
    const TensorMap out = RunReference("spec_step", profile, in);
    // Rejected: the residual max(t - d, 0) over {0, 1} is {0, 0.5 - 0.3 / 0.7} -> token 1.
    EXPECT_EQ(Read(out, 0).emitted, (std::vector<std::int64_t>{1, -1}));
    EXPECT_EQ(Read(out, 0).accepted, 0);
    EXPECT_EQ(Read(out, 1).accepted, 1);
  }
}

// One row of the filtered-draft rows above: target {0.3, 0.3, 0.2, 0.2} at both positions
// (top_p 0.55 keeps {0, 1}: {0.5, 0.5, 0, 0}), draft ln {0.4, 0.3, 0.2, 0.1} with draft 0,
// u = 0.9, race noise q = bonus_q = 1.
TensorMap OneRowFilteredDraft() {
  const float l4 = -0.916290731874155f, l3 = -1.203972804325936f, l2 = -1.6094379124341003f, l1 = -2.302585092994046f;
  TensorMap in;
  in.emplace("draft_ids", I32Tensor({1, 1}, {0}));
  in.emplace("target_logits", Tensor::FromValues(DType::kF32, {1, 2, 4}, std::vector<float>{l3, l3, l2, l2, l3, l3, l2, l2}));
  in.emplace("draft_logits", Tensor::FromValues(DType::kF32, {1, 1, 4}, std::vector<float>{l4, l3, l2, l1}));
  in.emplace("temperature", F32Tensor({1}, {1.0f}));
  in.emplace("top_p", F32Tensor({1}, {0.55f}));
  in.emplace("u", Tensor::FromValues<double>(DType::kF64, {1, 1}, {0.9}));
  in.emplace("q", F32Tensor({1, 4}, {1, 1, 1, 1}));
  in.emplace("bonus_q", F32Tensor({1, 4}, {1, 1, 1, 1}));
  return in;
}

TEST(SpecStepVllm, VerifiesAgainstTheDraftAsTheDrafterGaveIt) {
  // vllm (rejection_sampler.py: draft_probs as given, compute_probs filters only the target):
  // the same rows as above, the draft unfiltered: tp / dp = 0.5 / 0.4 = 1.25 >= u, so u = 0.9
  // accepts where canonical rejects; the bonus then comes from target position 1 (filtered
  // {0.5, 0.5, 0, 0}) with bonus_q 1: the tie goes to token 0.
  TensorMap in = OneRowFilteredDraft();
  const Step s = Read(RunReference("spec_step", "vllm", in, {{"draft_sample_method", "probabilistic"}}));
  EXPECT_EQ(s.emitted, (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(s.accepted, 1);
  EXPECT_EQ(Read(RunReference("spec_step", "canonical", in)).accepted, 0);
}

TEST(SpecStepVllm, GreedyDraftsAreOneHotByDefault) {
  // vllm/config/speculative.py @9aaf83ef: draft_sample_method defaults to "greedy", "the draft
  // probabilities are treated as one-hot during rejection sampling" (draft_probs None). The
  // rows above: target position 0 filtered by top_p 0.55 is {0.5, 0.5, 0, 0}; dp = 1 at draft
  // 0: 0.5 / 1 >= 0.9 fails, rejected. Recovered (NO_DRAFT_PROBS: the draft's target probability
  // zeroed): {0, 0.5, 0, 0} / q -> token 1. The draft logits are not read.
  TensorMap in = OneRowFilteredDraft();
  for (const nlohmann::json& params : {nlohmann::json::object(), nlohmann::json{{"draft_sample_method", "greedy"}}}) {
    const Step s = Read(RunReference("spec_step", "vllm", in, params));
    EXPECT_EQ(s.emitted, (std::vector<std::int64_t>{1, -1}));
    EXPECT_EQ(s.accepted, 0);
  }
  // u = 0.4 <= 0.5 accepts the one-hot draft; the bonus from position 1 ({0.5, 0.5}, q 1): 0.
  in["u"] = Tensor::FromValues<double>(DType::kF64, {1, 1}, {0.4});
  EXPECT_EQ(Read(RunReference("spec_step", "vllm", in)).emitted, (std::vector<std::int64_t>{0, 0}));
  // The param is vllm's only, with two values.
  EXPECT_THROW(RunReference("spec_step", "canonical", in, {{"draft_sample_method", "greedy"}}), std::invalid_argument);
  EXPECT_THROW(RunReference("spec_step", "vllm", in, {{"draft_sample_method", "typical"}}), std::invalid_argument);
}

TEST(SpecStepVllm, BonusMinTokensMaskUsesTheLengthBeforeTheStep) {
  // rejection_sampler.py @9aaf83ef: the bonus token goes through self.sampler, whose
  // MinTokensLogitsProcessor.apply masks the stop ids while len(output_token_ids) <
  // min_tokens (the length before the step); the verified positions use
  // apply_with_spec_decode (output_len + i). Greedy row, draft {1}, target rows {0, 5, 0, 0} and
  // {0, 0, 0, 9}, stop id 3, min_tokens 1, output_len 0:
  // - position 0: 0 + 0 < 1 masks 3; argmax 1 = the draft: accepted;
  // - bonus (position 1): canonical 0 + 1 >= 1, no mask: argmax 3, a stop id at output index 1
  //   (0 + 1 >= 1): emitted {1, 3}, finished; vllm 0 < 1 masks 3: argmax of {0, 0, 0, -inf}
  //   is 0: emitted {1, 0}, running.
  TensorMap in;
  in.emplace("draft_ids", I32Tensor({1, 1}, {1}));
  in.emplace("target_logits", Tensor::FromValues(DType::kF32, {1, 2, 4}, std::vector<float>{0, 5, 0, 0, 0, 0, 0, 9}));
  in.emplace("temperature", F32Tensor({1}, {0.0f}));
  in.emplace("stop_ids", I32Tensor({1, 1}, {3}));
  in.emplace("min_tokens", I32Tensor({1}, {1}));
  in.emplace("output_len", I32Tensor({1}, {0}));
  const Step vllm = Read(RunReference("spec_step", "vllm", in));
  EXPECT_EQ(vllm.emitted, (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(vllm.accepted, 1);
  EXPECT_FALSE(vllm.finished);
  const Step canonical = Read(RunReference("spec_step", "canonical", in));
  EXPECT_EQ(canonical.emitted, (std::vector<std::int64_t>{1, 3}));
  EXPECT_TRUE(canonical.finished);
  // With output_len 1 the mask is off everywhere: both emit {1, 3}.
  in["output_len"] = I32Tensor({1}, {1});
  EXPECT_EQ(Read(RunReference("spec_step", "vllm", in)).emitted, (std::vector<std::int64_t>{1, 3}));
}

TEST(SpecStepVllm, MinPOnlyAtTheBonusPosition) {
  // vllm's compute_probs applies no min-p to the verified positions; the bonus token is the
  // main sampler's draw, min-p included. Target rows {0.9, 0.1} (logits 0, ln(1/9)), min_p
  // 0.2 (threshold 0.18 > 0.1), an n-gram draft of token 1, u = 0.05:
  // - vllm: p(1) = 0.1 >= 0.05 accepts; the bonus row masks token 1 by min-p, so the bonus is
  //   0 although bonus_q favours 1 (0.1 / 0.001 = 100 > 0.9 / 1): emitted {1, 0};
  // - canonical: min-p masks token 1 at position 0, p(1) = 0 rejects; the recovered token is
  //   the target without the draft: {0}.
  const float ninth = -2.1972245773362196f;  // ln(1/9)
  TensorMap in;
  in.emplace("draft_ids", I32Tensor({1, 1}, {1}));
  in.emplace("target_logits", Tensor::FromValues(DType::kF32, {1, 2, 2}, std::vector<float>{0.0f, ninth, 0.0f, ninth}));
  in.emplace("temperature", F32Tensor({1}, {1.0f}));
  in.emplace("min_p", F32Tensor({1}, {0.2f}));
  in.emplace("u", Tensor::FromValues<double>(DType::kF64, {1, 1}, {0.05}));
  in.emplace("q", F32Tensor({1, 2}, {1, 1}));
  in.emplace("bonus_q", F32Tensor({1, 2}, {1.0f, 0.001f}));
  const Step vllm = Read(RunReference("spec_step", "vllm", in));
  EXPECT_EQ(vllm.emitted, (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(vllm.accepted, 1);
  const Step canonical = Read(RunReference("spec_step", "canonical", in));
  EXPECT_EQ(canonical.emitted, (std::vector<std::int64_t>{0, -1}));
  EXPECT_EQ(canonical.accepted, 0);
}

// sglang (eagle_info.py verify, sgl-kernel TreeSpeculativeSamplingTargetOnly), hand-worked:
// target rows softmax(ln {0.4, 0.3, 0.2, 0.1}) at both positions, one draft x = 1.
TensorMap SglangInputs(double coin, float final_u) {
  const float l4 = -0.916290731874155f, l3 = -1.203972804325936f, l2 = -1.6094379124341003f, l1 = -2.302585092994046f;
  TensorMap in;
  in.emplace("draft_ids", I32Tensor({1, 1}, {1}));
  in.emplace("target_logits", Tensor::FromValues(DType::kF32, {1, 2, 4}, std::vector<float>{l4, l3, l2, l1, l4, l3, l2, l1}));
  in.emplace("temperature", F32Tensor({1}, {1.0f}));
  in.emplace("u", Tensor::FromValues<double>(DType::kF64, {1, 1}, {coin}));
  in.emplace("final_u", F32Tensor({1}, {final_u}));
  return in;
}

TEST(SpecStepSglang, TargetOnlyAcceptanceAndInverseCdfDraws) {
  // coin 0.25 <= p(1) = 0.3: accepted; the bonus from row 1 by the scan C = {0.4, 0.7, 0.9, 1}
  // at t = 0.5: token 1.
  Step s = Read(RunReference("spec_step", "sglang", SglangInputs(0.25, 0.5f)));
  EXPECT_EQ(s.emitted, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(s.accepted, 1);
  // coin 0.35 > 0.3: rejected; the residual is the row without token 1, {0.4, 0, 0.2, 0.1},
  // total 0.7: final_u 0.5 -> t = 0.35 < 0.4: token 0; final_u 0.9 -> t = 0.63: C = {0.4, 0.6,
  // 0.7} over tokens {0, 2, 3}: token 3.
  s = Read(RunReference("spec_step", "sglang", SglangInputs(0.35, 0.5f)));
  EXPECT_EQ(s.emitted, (std::vector<std::int64_t>{0, -1}));
  EXPECT_EQ(s.accepted, 0);
  EXPECT_EQ(Read(RunReference("spec_step", "sglang", SglangInputs(0.35, 0.9f))).emitted,
            (std::vector<std::int64_t>{3, -1}));
}

TEST(SpecStepSglang, LossyThresholdsAcceptMore) {
  // threshold_single 0.25: p(1) = 0.3 >= 0.25 accepts at coin 0.35; threshold_acc 0.5:
  // 0.35 <= 0.3 / 0.5 accepts too.
  for (const char* param : {"threshold_single", "threshold_acc"}) {
    SCOPED_TRACE(param);
    Case c;
    c.id = "spec_step/thresholds/sglang";
    c.stage = "spec_step";
    c.profile = Profile::kSglang;
    c.inputs = SglangInputs(0.35, 0.5f);
    c.params[param] = std::string(param) == "threshold_single" ? 0.25 : 0.5;
    EXPECT_EQ(Read(reference::RunSpecStep(c, Profile::kSglang)).accepted, 1);
  }
}

TEST(SpecStepSglang, TopKRenormKeepsTiesAndNeedsFinalU) {
  // top_k_renorm_prob keeps every token tied with the k-th (FlashInfer's strictly-greater
  // count): logits {1, 1, 0, 0}, top_k 1 -> {0.5, 0.5, 0, 0}; draft 1 at coin 0.45 is accepted.
  TensorMap in = SglangInputs(0.45, 0.5f);
  in.at("target_logits") = Tensor::FromValues(DType::kF32, {1, 2, 4}, std::vector<float>{1, 1, 0, 0, 1, 1, 0, 0});
  in.emplace("top_k", I32Tensor({1}, {1}));
  EXPECT_EQ(Read(RunReference("spec_step", "sglang", in)).accepted, 1);
  in.erase("final_u");
  EXPECT_THROW(RunReference("spec_step", "sglang", in), std::invalid_argument);
}

TEST(SpecStep, ZeroAndPaddedDrafts) {
  // Row 0: zero drafts: the bonus argmax (greedy). Row 1: one draft then padding.
  std::vector<float> t(2 * 3 * 4, 0.0f);
  t[2] = 1.0f;           // row 0, position 0: argmax 2
  t[12 + 1] = 1.0f;      // row 1, position 0: argmax 1
  t[12 + 4 + 3] = 1.0f;  // row 1, position 1: argmax 3
  TensorMap in;
  in.emplace("draft_ids", I32Tensor({2, 2}, {-1, -1, 1, -1}));
  in.emplace("target_logits", Tensor::FromValues(DType::kF32, {2, 3, 4}, t));
  in.emplace("temperature", F32Tensor({2}, {0.0f, 0.0f}));
  const TensorMap out = RunReference("spec_step", "canonical", in);
  EXPECT_EQ(Read(out, 0).emitted, (std::vector<std::int64_t>{2, -1, -1}));
  EXPECT_EQ(Read(out, 1).emitted, (std::vector<std::int64_t>{1, 3, -1}));
  EXPECT_EQ(Read(out, 1).accepted, 1);
}

TEST(SpecStep, RejectsBadInput) {
  TensorMap in = GreedyInputs(0, 0);
  in.erase("temperature");
  EXPECT_THROW(RunReference("spec_step", "canonical", in), std::invalid_argument);
  TensorMap no_draft = GreedyInputs(0, 0);
  EXPECT_THROW(RunReference("spec_step", "block_verification", no_draft), std::invalid_argument);  // needs draft_logits
  TensorMap random = GreedyInputs(0, 0);
  random.at("temperature") = F32Tensor({1}, {1.0f});
  EXPECT_THROW(RunReference("spec_step", "canonical", random),
               std::invalid_argument);                                      // a random row needs u, q, bonus_q
  EXPECT_ANY_THROW(RunReference("spec_step", "flashinfer", GreedyInputs(0, 0)));  // not a profile of the stage
}

// The paper's example: rows context-independent, p = (1/3, 2/3), q = (2/3, 1/3), k = 2.
std::vector<double> Rows(int n, std::vector<double> row) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.insert(out.end(), row.begin(), row.end());
  return out;
}

double ExpectedAccepted(const std::vector<reference::SpecJointOutcome>& law) {
  double e = 0.0, total = 0.0;
  for (const auto& o : law) {
    e += static_cast<double>(o.accepted) * o.probability;
    total += o.probability;
  }
  EXPECT_NEAR(total, 1.0, 1e-12);
  return e;
}

TEST(BlockVerification, PaperExampleAcceptsElevenNinths) {
  const auto q = Rows(2, {2.0 / 3, 1.0 / 3}), p = Rows(3, {1.0 / 3, 2.0 / 3});
  EXPECT_NEAR(ExpectedAccepted(reference::SpecJointLaw(q, p, 2)), 10.0 / 9, 1e-12);
  EXPECT_NEAR(ExpectedAccepted(reference::BlockJointLaw(q, p, 2)), 11.0 / 9, 1e-12);
}

TEST(BlockVerification, FirstEmittedTokenFollowsTheTarget) {
  // Distribution preservation (the paper's Theorem): whatever the drafts, the first emitted
  // token follows p_0. Rows of the proof test's tiny problem (weights / 16).
  const std::vector<double> q = {8, 4, 2, 2, 0, 4, 4, 8, 4, 4, 4, 4};
  const std::vector<double> p = {2, 2, 4, 8, 4, 4, 4, 4, 1, 3, 5, 7, 6, 2, 6, 2};
  std::vector<double> first(4, 0.0);
  for (const auto& o : reference::BlockJointLaw(q, p, 4)) first[static_cast<std::size_t>(o.tokens[0])] += o.probability;
  for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(first[j], p[j] / 16.0, 1e-12) << j;
}

TEST(BlockVerification, AcceptsWhereTokenWiseRejects) {
  // Paper example, drafts (a, b) = (0, 1): P_1 = 1/2, h_1 = 0 (N_1 = 0); P_2 = min(1/2 * 2, 1)
  // = 1 = h_2, so eta_2 = 0.3 <= 1 accepts the whole block whatever eta_1: {0, 1, bonus}.
  // Token-wise, u_0 = 0.7 > 1/2 rejects draft a and recovers b from max(p - q, 0) = (0, 1/3).
  const std::vector<float> p = {1.0f / 3, 2.0f / 3, 1.0f / 3, 2.0f / 3, 1.0f / 3, 2.0f / 3};
  const std::vector<float> q = {2.0f / 3, 1.0f / 3, 2.0f / 3, 1.0f / 3};
  const std::vector<std::int32_t> x = {0, 1};
  const std::vector<double> u = {0.7, 0.3};
  const std::vector<float> e = {1.0f, 1.0f}, bonus = {1.0f, 0.5f};  // the bonus race picks 1 (2/3 / 0.5)
  const auto block = reference::SpecVerifyBlock({x, q, p, 2}, u, e, bonus);
  EXPECT_EQ(block.tokens, (std::vector<std::int64_t>{0, 1, 1}));
  EXPECT_EQ(block.num_accepted, 2);
  const auto token = reference::SpecRandomVllm({x, q, p, 2}, u, e, bonus);
  EXPECT_EQ(token.tokens, (std::vector<std::int64_t>{1}));
  // Drafts (b, a) with eta = (0.9, 0.6): h_1 = 1, h_2 = P_2 = 1/2 < 0.6: tau = 1, then the
  // residual max(P_1 p - q, 0) = (0, 1/3): {1, 1}.
  const auto ba =
      reference::SpecVerifyBlock({std::vector<std::int32_t>{1, 0}, q, p, 2}, std::vector<double>{0.9, 0.6}, e, bonus);
  EXPECT_EQ(ba.tokens, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(ba.num_accepted, 1);
}

// Random greedy and random rows: the kept tokens start with the accepted drafts, a finished row
// ends with a stop id and holds no earlier stop id past min_tokens, and num_emitted <=
// num_accepted + 1.
RC_GTEST_PROP(SpecStep, KeptTokensAreConsistent, (bool block)) {
  const auto bytes = *rc::gen::container<std::vector<std::uint8_t>>(64, rc::gen::arbitrary<std::uint8_t>());
  const std::int64_t v = 5, k = 3;
  std::size_t at = 0;
  auto next = [&]() { return bytes[at++ % bytes.size()]; };
  std::vector<std::int32_t> drafts;
  const std::int64_t n = next() % (k + 1);
  for (std::int64_t i = 0; i < k; ++i) drafts.push_back(i < n ? static_cast<std::int32_t>(next() % v) : -1);
  std::vector<float> target, draft;
  for (std::int64_t i = 0; i < (k + 1) * v; ++i) target.push_back(static_cast<float>(next() % 9) / 4.0f);
  for (std::int64_t i = 0; i < k * v; ++i) draft.push_back(static_cast<float>(next() % 9) / 4.0f);
  std::vector<double> u;
  for (std::int64_t i = 0; i < k; ++i) u.push_back(static_cast<double>(next() + 1) / 257.0);  // > 0: see below
  std::vector<float> q, bq;
  for (std::int64_t i = 0; i < v; ++i) q.push_back(0.25f + static_cast<float>(next()) / 64.0f);
  for (std::int64_t i = 0; i < v; ++i) bq.push_back(0.25f + static_cast<float>(next()) / 64.0f);
  const std::int32_t stop = next() % v, min_tokens = next() % 3;
  const float temperature = next() % 4 == 0 ? 0.0f : 0.5f + static_cast<float>(next() % 4) / 4.0f;
  TensorMap in;
  in.emplace("draft_ids", I32Tensor({1, k}, drafts));
  in.emplace("target_logits", Tensor::FromValues(DType::kF32, {1, k + 1, v}, target));
  in.emplace("draft_logits", Tensor::FromValues(DType::kF32, {1, k, v}, draft));
  in.emplace("temperature", F32Tensor({1}, {temperature}));
  in.emplace("top_k", I32Tensor({1}, {static_cast<std::int32_t>(next() % 4)}));
  in.emplace("stop_ids", I32Tensor({1, 1}, {stop}));
  in.emplace("min_tokens", I32Tensor({1}, {min_tokens}));
  in.emplace("u", Tensor::FromValues<double>(DType::kF64, {1, k}, u));
  in.emplace("q", F32Tensor({1, v}, q));
  in.emplace("bonus_q", F32Tensor({1, v}, bq));
  const Step s = Read(RunReference("spec_step", block ? "block_verification" : "canonical", in));
  RC_ASSERT(s.accepted <= n);
  RC_ASSERT(s.kept >= 1 && s.kept <= s.accepted + 1);
  for (std::int64_t i = 0; i < s.kept; ++i) {
    RC_ASSERT(s.emitted[static_cast<std::size_t>(i)] >= 0 && s.emitted[static_cast<std::size_t>(i)] < v);
    if (i < s.accepted) RC_ASSERT(s.emitted[static_cast<std::size_t>(i)] == drafts[static_cast<std::size_t>(i)]);
    const bool is_stop = s.emitted[static_cast<std::size_t>(i)] == stop;
    // Masked: a greedy row cannot emit a stop id there. (A random row can only through the
    // documented zero-probability edges: u = 0, excluded above, or an all-zero residual.)
    if (is_stop && i < min_tokens && temperature == 0.0f) RC_ASSERT(false);
    if (is_stop && i >= min_tokens) RC_ASSERT(i + 1 == s.kept);  // the first stop ends the row
  }
  for (std::int64_t i = s.kept; i <= k; ++i) RC_ASSERT(s.emitted[static_cast<std::size_t>(i)] == -1);
  const bool last_is_stop = s.emitted[static_cast<std::size_t>(s.kept - 1)] == stop;
  RC_ASSERT(s.finished == (last_is_stop && s.kept - 1 >= min_tokens));
}

}  // namespace
}  // namespace sampcheck::testing
