// SPDX-License-Identifier: Apache-2.0
// Tests of flashinfer_sampling_from_probs (reference/flashinfer_sampling_from_probs.h,
// docs/spec/flashinfer_sampling_from_probs.md). Expected tokens, valid flags and round counts
// follow by hand from FlashInfer's kernels (include/flashinfer/sampling.cuh) on dyadic
// probabilities, whose f32 sums are exact; properties check the survivor rule on random rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "reference/flashinfer_sampling_from_probs.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Out {
  std::int64_t token;
  bool valid;
  std::int32_t rounds;
};

Out Run1(const std::string& kernel, std::vector<float> probs, std::vector<float> u, std::int32_t top_k = 0,
         float top_p = 1.0f, float min_p = 0.0f) {
  const auto v = static_cast<std::int64_t>(probs.size());
  const auto r = static_cast<std::int64_t>(u.size());
  TensorMap in;
  in.emplace("probs", F32Tensor({1, v}, probs));
  in.emplace("u", F32Tensor({1, r}, u));
  in.emplace("top_k", I32Tensor({1}, {top_k}));
  in.emplace("top_p", F32Tensor({1}, {top_p}));
  in.emplace("min_p", F32Tensor({1}, {min_p}));
  const TensorMap out =
      RunReference("flashinfer_sampling_from_probs", "flashinfer", std::move(in), {{"kernel", kernel}});
  return {out.at("token").data<std::int64_t>()[0], out.at("valid").data<std::uint8_t>()[0] != 0,
          out.at("rounds").data<std::int32_t>()[0]};
}

TEST(FlashinferSamplingFromProbs, HeaderExampleRejectsThenAccepts) {
  // {1/2, 1/4, 1/8, 1/8}, top_p 0.7, u = 0.9: C = {1/2, 3/4, 7/8, 1}: token 3; mass above
  // 1/8 is 3/4 >= 0.7: rejected; pivot1 = 9/16 has mass 0 above: low = 1/8, high = 9/16,
  // q = 3/4; u = 0.2: t = 0.15 over {0, 1}: token 0, mass above 1/2 is 0 < 0.7.
  const Out o = Run1("top_p", {0.5f, 0.25f, 0.125f, 0.125f}, {0.9f, 0.2f, 0.5f}, 0, 0.7f);
  EXPECT_EQ(o.token, 0);
  EXPECT_TRUE(o.valid);
  EXPECT_EQ(o.rounds, 2);
  // u = 0.3 draws token 0 at once; u = 0.6 draws token 1: mass above 1/4 is 1/2 < 0.7.
  EXPECT_EQ(Run1("top_p", {0.5f, 0.25f, 0.125f, 0.125f}, {0.6f}, 0, 0.7f).token, 1);
  EXPECT_EQ(Run1("top_p", {0.5f, 0.25f, 0.125f, 0.125f}, {0.6f}, 0, 0.7f).rounds, 1);
}

// filter_apply_order "top_k_first" (flashinfer/sampling.py top_k_top_p_sampling_from_probs:
// top_k_renorm_probs, then top_p_sampling_from_probs).
Out RunOrder(const std::string& order, std::vector<float> probs, std::vector<float> u, std::int32_t top_k, float top_p) {
  const auto v = static_cast<std::int64_t>(probs.size());
  const auto r = static_cast<std::int64_t>(u.size());
  TensorMap in;
  in.emplace("probs", F32Tensor({1, v}, probs));
  in.emplace("u", F32Tensor({1, r}, u));
  in.emplace("top_k", I32Tensor({1}, {top_k}));
  in.emplace("top_p", F32Tensor({1}, {top_p}));
  const TensorMap out = RunReference("flashinfer_sampling_from_probs", "flashinfer", std::move(in),
                                     {{"kernel", "top_k_top_p"}, {"filter_apply_order", order}});
  return {out.at("token").data<std::int64_t>()[0], out.at("valid").data<std::uint8_t>()[0] != 0,
          out.at("rounds").data<std::int32_t>()[0]};
}

TEST(FlashinferSamplingFromProbs, TopKFirstRenormalisesBeforeTopP) {
  // {0.4, 0.3, 0.2, 0.1}, k 2, top_p 0.5, u {0.6, 0.3}.
  // joint: t = 0.6, C = {0.4, 0.7}: token 1; count above 0.3 is 1 < 2 and mass 0.4 < 0.5:
  //   accepted in one round.
  const Out joint = RunOrder("joint", {0.4f, 0.3f, 0.2f, 0.1f}, {0.6f, 0.3f}, 2, 0.5f);
  EXPECT_EQ(joint.token, 1);
  EXPECT_EQ(joint.rounds, 1);
  // top_k_first: renormalised {4/7, 3/7, 0, 0}; t = 0.6, C = {0.571, 1}: token 1; mass above
  //   3/7 is 4/7 >= 0.5: rejected; pivot1 = (3/7 + 1) / 2 has mass 0 above: low = 3/7, q = 4/7;
  //   round 2: t = 0.3 * 4/7 = 0.171 over {0}: token 0, accepted.
  const Out first = RunOrder("top_k_first", {0.4f, 0.3f, 0.2f, 0.1f}, {0.6f, 0.3f}, 2, 0.5f);
  EXPECT_EQ(first.token, 0);
  EXPECT_TRUE(first.valid);
  EXPECT_EQ(first.rounds, 2);
  // k = 0 keeps nothing: invalid; ties at the k-th value are kept ({0.4, 0.2, 0.2, 0.2}, k 2):
  // u = 0.95 reaches token 3.
  EXPECT_FALSE(RunOrder("top_k_first", {0.4f, 0.3f, 0.2f, 0.1f}, {0.5f}, 0, 0.9f).valid);
  EXPECT_EQ(RunOrder("top_k_first", {0.4f, 0.2f, 0.2f, 0.2f}, {0.95f}, 2, 1.0f).token, 3);
  // The survivor set (the law's support): {0} under top_k_first, {0, 1} joint.
  reference::FlashinferRowParams f;
  f.top_k = 2;
  f.top_p = 0.5f;
  const std::vector<float> row = {0.4f, 0.3f, 0.2f, 0.1f};
  EXPECT_EQ(reference::FlashinferSurvivors(row, f), (std::vector<bool>{true, true, false, false}));
  f.top_k_first = true;
  EXPECT_EQ(reference::FlashinferSurvivors(row, f), (std::vector<bool>{true, false, false, false}));
  // The order is a parameter of the top_k_top_p kernel only.
  TensorMap bad;
  bad.emplace("probs", F32Tensor({1, 2}, {0.5f, 0.5f}));
  bad.emplace("u", F32Tensor({1, 1}, {0.5f}));
  bad.emplace("top_p", F32Tensor({1}, {0.5f}));
  EXPECT_THROW(RunReference("flashinfer_sampling_from_probs", "flashinfer", bad,
                            {{"kernel", "top_p"}, {"filter_apply_order", "top_k_first"}}),
               std::invalid_argument);
  EXPECT_THROW(RunOrder("sorted", {0.5f, 0.5f}, {0.5f}, 1, 0.5f), std::invalid_argument);
}

TEST(FlashinferSamplingFromProbs, NanRowReturnsTokenZeroNotValid) {
  for (const char* kernel : {"top_k_top_p", "top_k", "top_p", "min_p"}) {
    SCOPED_TRACE(kernel);
    const Out o = Run1(kernel, {kNaN, kNaN, kNaN}, {0.5f, 0.5f}, 2, 0.9f, 0.1f);
    EXPECT_EQ(o.token, 0);
    EXPECT_FALSE(o.valid);
    EXPECT_EQ(o.rounds, 1);
  }
  // NaN entries beside finite ones are skipped, never drawn: {NaN, 1/2, NaN, 1/2}, u = 0.75:
  // C over tokens 1, 3 = {1/2, 1}: token 3.
  EXPECT_EQ(Run1("top_p", {kNaN, 0.5f, kNaN, 0.5f}, {0.75f}, 0, 1.0f).token, 3);
  EXPECT_EQ(Run1("min_p", {kNaN, 0.5f, kNaN, 0.5f}, {0.75f}, 0, 1.0f, 0.5f).token, 3);
}

TEST(FlashinferSamplingFromProbs, NothingPassesIsInvalid) {
  // top_k 0 (uint32 0: count < 0 never holds) and top_p 0 on a flat row: round 1 rejects both
  // pivots (pivot1 = (1/4 + 1) / 2 = 5/8), low = 5/8 > every probability: round 2 finds no
  // valid token.
  for (const auto& [kernel, k, p] : std::vector<std::tuple<std::string, int, float>>{
           {"top_k", 0, 1.0f}, {"top_k_top_p", 0, 1.0f}, {"top_p", 0, 0.0f}, {"top_k_top_p", 4, -1.0f}}) {
    SCOPED_TRACE(kernel);
    const Out o = Run1(kernel, {0.25f, 0.25f, 0.25f, 0.25f}, {0.6f, 0.5f}, k, p);
    EXPECT_EQ(o.token, 0);
    EXPECT_FALSE(o.valid);
    EXPECT_EQ(o.rounds, 2);
  }
}

TEST(FlashinferSamplingFromProbs, OneHotRowEndsTheLoopValid) {
  // top_p 0 on {0, 1, 0}: token 1 rejected, pivot1 = (1 + 1) / 2 = 1 = high: low = 1 is not
  // below high, so the kernel's loop exits with token 1, valid (docs "Edge rules").
  const Out o = Run1("top_p", {0.0f, 1.0f, 0.0f}, {0.5f, 0.5f}, 0, 0.0f);
  EXPECT_EQ(o.token, 1);
  EXPECT_TRUE(o.valid);
  EXPECT_EQ(o.rounds, 1);
}

TEST(FlashinferSamplingFromProbs, TopKKeepsEveryTieAtTheKthValue) {
  // {0.4, 0.2, 0.2, 0.2}: count above 0.2 is 1 < 2, so k = 2 keeps all four; u = 0.9 draws
  // token 3 (the f32 running sums round to 0.4f, 0.6f, 0.8f, 1: 0.8f < 0.9f < 1) in one round.
  EXPECT_EQ(Run1("top_k", {0.4f, 0.2f, 0.2f, 0.2f}, {0.9f}, 2).token, 3);
  // k = 1: token 3 rejected, pivot1 = 0.6 passes (count 0): low = 0.2, q = 0.4; u = 0.5 ->
  // t = 0.2 < C_0 = 0.4: token 0 in round 2.
  const Out o = Run1("top_k", {0.4f, 0.2f, 0.2f, 0.2f}, {0.9f, 0.5f}, 1);
  EXPECT_EQ(o.token, 0);
  EXPECT_EQ(o.rounds, 2);
  // k = -1 is 2^32 - 1 as uint32: no limit.
  EXPECT_EQ(Run1("top_k_top_p", {0.4f, 0.2f, 0.2f, 0.2f}, {0.9f}, -1, 1.0f).token, 3);
}

TEST(FlashinferSamplingFromProbs, UOfOneFallsBackToTheLastValidToken) {
  // top_p kernel, row sums to 7/8 < q = 1: t = 1 exceeds every running sum: the last valid
  // token (3), then accepted (mass above 1/8 is 3/4 < 1).
  EXPECT_EQ(Run1("top_p", {0.25f, 0.25f, 0.25f, 0.125f}, {1.0f}, 0, 1.0f).token, 3);
  // min_p 0 keeps zeros (p >= 0): u = 1 -> t = q = 1 = C_1, nothing exceeds it: the last
  // valid token is 3, of probability 0 (FlashInfer's fallback; not part of the law).
  const Out o = Run1("min_p", {0.5f, 0.5f, 0.0f, 0.0f}, {1.0f}, 0, 1.0f, 0.0f);
  EXPECT_EQ(o.token, 3);
  EXPECT_TRUE(o.valid);
  // min_p 0.5 on {1/2, 1/4, 1/8, 1/8}: pivot 1/4 keeps {0, 1}, q = 3/4; u = 0.75 -> t = 9/16
  // > 1/2: token 1.
  EXPECT_EQ(Run1("min_p", {0.5f, 0.25f, 0.125f, 0.125f}, {0.75f}, 0, 1.0f, 0.5f).token, 1);
}

TEST(FlashinferSamplingFromProbs, RejectsBadInput) {
  EXPECT_THROW(Run1("top_p", {0.5f, 0.5f}, {0.0f}), std::invalid_argument);   // u = 0
  EXPECT_THROW(Run1("top_p", {0.5f, 0.5f}, {1.5f}), std::invalid_argument);   // u > 1
  EXPECT_THROW(Run1("top_p", {-0.5f, 0.5f}, {0.5f}), std::invalid_argument);  // negative
  EXPECT_THROW(Run1("top_p", {std::numeric_limits<float>::infinity(), 0.5f}, {0.5f}), std::invalid_argument);
  EXPECT_THROW(Run1("top_p", {0.5f, 0.5f}, {0.5f}, 0, kNaN), std::invalid_argument);  // NaN top_p
  EXPECT_THROW(Run1("nucleus", {0.5f, 0.5f}, {0.5f}), std::invalid_argument);         // unknown kernel
  // Too few uniforms: the worked example needs 2.
  EXPECT_THROW(Run1("top_p", {0.5f, 0.25f, 0.125f, 0.125f}, {0.9f}, 0, 0.7f), std::invalid_argument);
}

// Random rows of k/64 weights (>= 2 positive, so no probability reaches 1), normalised in
// f32: a row is valid exactly when the survivor set is not empty, the token is a survivor,
// and at most distinct values + 1 rounds run.
RC_GTEST_PROP(FlashinferSamplingFromProbs, EmitsOnlySurvivors,
              (std::vector<std::uint8_t> weights, std::vector<std::uint32_t> bits, std::uint8_t k, std::uint8_t p,
               std::uint8_t kernel_index)) {
  RC_PRE(weights.size() >= 2);
  std::vector<float> probs;
  float sum = 0.0f;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const float w = i < 2 ? 1.0f + static_cast<float>(weights[i] % 64) : static_cast<float>(weights[i] % 64);
    probs.push_back(w);
    sum = sum + w;
  }
  std::set<float> distinct;
  for (float& x : probs) {
    x /= sum;
    if (x > 0.0f) distinct.insert(x);
  }
  std::vector<float> u(probs.size() + 1);
  for (std::size_t i = 0; i < u.size(); ++i) {
    const std::uint32_t w = i < bits.size() ? bits[i] : static_cast<std::uint32_t>(i * 2654435761u);
    u[i] = static_cast<float>((w >> 8) + 1) * 0x1p-24f;  // (0, 1]
  }
  const char* kernels[] = {"top_k_top_p", "top_k", "top_p", "min_p"};
  const std::string kernel = kernels[kernel_index % 4];
  reference::FlashinferRowParams f;
  f.kernel = static_cast<reference::FlashinferKernel>(kernel_index % 4);
  f.top_k = 1u + k % 8;
  f.top_p = (1.0f + static_cast<float>(p % 100)) / 100.0f;
  f.min_p = f.top_p;
  const Out o = Run1(kernel, probs, u, static_cast<std::int32_t>(f.top_k), f.top_p, f.min_p);
  const std::vector<bool> keep = reference::FlashinferSurvivors(probs, f);
  const bool any = std::find(keep.begin(), keep.end(), true) != keep.end();
  RC_ASSERT(o.valid == any);
  if (o.valid) RC_ASSERT(keep[static_cast<std::size_t>(o.token)]);
  RC_ASSERT(o.rounds >= 1);
  RC_ASSERT(static_cast<std::size_t>(o.rounds) <= distinct.size() + 1);
}

}  // namespace
}  // namespace sampcheck::testing
