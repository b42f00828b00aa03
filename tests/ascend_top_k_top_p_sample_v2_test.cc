// SPDX-License-Identifier: Apache-2.0
// Tests of ascend_top_k_top_p_sample_v2 (reference/ascend_top_k_top_p_sample_v2.h,
// docs/spec/ascend_top_k_top_p_sample_v2.md). Known answers are hand-computed from IEEE
// binary32 rounding; the dyadic row {0, -f32(ln 2), -2 f32(ln 2), -2 f32(ln 2)} has probs
// exactly {0.5, 0.25, 0.125, 0.125} (tests/softmax_test.cc). No statistical tests: every
// expectation is exact, so the false-failure budget is zero.
#include "reference/ascend_top_k_top_p_sample_v2.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/half.h"
#include "reference/filter_order.h"
#include "reference/sampling_filters.h"
#include "reference/softmax.h"
#include "reference/top_k.h"
#include "tests/support/filter_test_rows.h"
#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

using reference::AscendFilterRow;
using reference::AscendSampleParams;
using reference::AscendSamplePosition;
using reference::AscendSampleRow;
using reference::AscendTopKActive;

constexpr char kStage[] = "ascend_top_k_top_p_sample_v2";
constexpr float kInf = std::numeric_limits<float>::infinity();
// Rounded quotients used below: 1 / 1.5 (0x3F2AAAAB), 0.5 / 1.5 (0x3EAAAAAB), 1 / 1.75
// (0x3F124925), 0.5 / 1.75 (0x3E924925), 0.25 / 1.75 (0x3E124925). s = 1.5 and 1.75 are the
// exact canonical sums of e = {1, 0.5} and {1, 0.5, 0.25}.
const float kTwoThirds = FromBits(0x3F2AAAABu), kOneThird = FromBits(0x3EAAAAABu);
const float kFourSevenths = FromBits(0x3F124925u), kTwoSevenths = FromBits(0x3E924925u);

AscendSampleParams Params(std::int32_t k, float p, float m = 0.0f, std::int64_t ks_max = 1024, bool logits = true) {
  return {k, p, m, ks_max, logits};
}

std::int32_t Token(const std::vector<float>& row, const AscendSampleParams& f, const std::vector<float>& q = {},
                   float eps = 1e-8f) {
  const AscendSampleRow r = AscendFilterRow(row, f);
  return r.list[AscendSamplePosition(r, q, eps)];
}

TensorMap RunStage(TensorMap in, nlohmann::json params = nlohmann::json::object()) {
  return RunReference(kStage, "ascend_v2", std::move(in), std::move(params));
}

std::vector<std::int64_t> I64s(const Tensor& t) {
  auto d = t.data<std::int64_t>();
  return {d.begin(), d.end()};
}

TEST(AscendTopKTopPSampleV2, HeaderExample) {
  // top_k 3: e = {1, 0.5, 0.25}, s = 1.75 exactly, probs {4/7, 2/7, 1/7} rounded. top_p 0.7:
  // E = 0, 4/7 = 0.571 (< 0.7, kept), 6/7 = 0.857 (dropped): L = {0, 1}. q = {1, 0.25}:
  // 1 + f32(1e-8) rounds to 1, r = {0.5714, 0.2857 / 0.25 = 1.143}: position 1, token 1.
  const AscendSampleRow r = AscendFilterRow(kDyadic, Params(3, 0.7f));
  EXPECT_EQ(r.list, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(FloatBitsOf(r.probs), FloatBitsOf({kFourSevenths, kTwoSevenths}));
  EXPECT_EQ(Token(kDyadic, Params(3, 0.7f), {1.0f, 0.25f, 4.0f, 4.0f}), 1);
  EXPECT_EQ(Token(kDyadic, Params(3, 0.7f)), 0);  // no q: argmax of probs
}

TEST(AscendTopKTopPSampleV2, QIsIndexedBySortedPositionNotVocabId) {
  // Permuted dyadic row: probs {0.125, 0.25, 0.5, 0.125}; top_k 4 (= V, active): sorted list
  // {2, 1, 0, 3}. q = {0.25, 4, 4, 4} by position: r = {0.5 / 0.25 = 2, 0.0625, 0.03125,
  // 0.03125} -> position 0, token 2. Indexing q by vocab id would give r_i = probs[i] / q[i] =
  // {0.5, 0.0625, 0.125, 0.03125} -> token 0.
  const std::vector<float> row = {-2 * kLn2F, -kLn2F, 0.0f, -2 * kLn2F};
  const std::vector<float> q = {0.25f, 4.0f, 4.0f, 4.0f};
  const AscendSampleRow r = AscendFilterRow(row, Params(4, 1.0f));
  EXPECT_EQ(r.list, (std::vector<std::int32_t>{2, 1, 0, 3}));
  EXPECT_EQ(Token(row, Params(4, 1.0f), q), 2);
  std::int32_t by_vocab = 0;
  std::vector<float> probs(4);
  reference::SoftmaxRow(row, probs);
  for (std::int32_t i = 1; i < 4; ++i) {
    if (probs[static_cast<std::size_t>(i)] / q[static_cast<std::size_t>(i)] >
        probs[static_cast<std::size_t>(by_vocab)] / q[static_cast<std::size_t>(by_vocab)]) {
      by_vocab = i;
    }
  }
  EXPECT_EQ(by_vocab, 0);  // the other reading really differs
  // Through the stage: the same row with q, f32.
  auto out = RunStage({{"logits", F32Tensor({1, 4}, row)},
                  {"top_k", I32Tensor({1}, {4})},
                  {"top_p", F32Tensor({1}, {1.0f})},
                  {"q", F32Tensor({1, 4}, q)}});
  EXPECT_EQ(I64s(out.at("logits_select_idx")), (std::vector<std::int64_t>{2}));
}

TEST(AscendTopKTopPSampleV2, TopKOffAndTopPOffKeepsVocabOrder) {
  // top_k 0 and top_p 1: the kernel's unsorted path; L = {0, 1, 2, 3} in vocab order and q is
  // read by vocab id (= position). Permuted row probs {0.125, 0.25, 0.5, 0.125}, q =
  // {0.25, 4, 4, 4}: r = {0.5, 0.0625, 0.125, 0.03125} -> token 0.
  const std::vector<float> row = {-2 * kLn2F, -kLn2F, 0.0f, -2 * kLn2F};
  EXPECT_EQ(AscendFilterRow(row, Params(0, 1.0f)).list, (std::vector<std::int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(Token(row, Params(0, 1.0f), {0.25f, 4.0f, 4.0f, 4.0f}), 0);
  // top_p in (0, 1) sorts: top_p 0.8 keeps E = 0, 0.5, 0.75 < 0.8, drops E = 0.875: L = {2, 1, 0}.
  EXPECT_EQ(AscendFilterRow(row, Params(0, 0.8f)).list, (std::vector<std::int32_t>{2, 1, 0}));
}

TEST(AscendTopKTopPSampleV2, EpsChangesTheChoiceWhenQHasZeros) {
  // top_k 2: probs {2/3, 1/3} rounded; q = {0.5, 0}. eps = f32(1e-8): r = {1.33, (1/3) / 1e-8
  // = 3.3e7} -> token 1. eps = 1: r = {(2/3) / 1.5 = 0.444, (1/3) / 1 = 0.333} -> token 0.
  const std::vector<float> q = {0.5f, 0.0f, 1.0f, 1.0f};
  EXPECT_EQ(Token(kDyadic, Params(2, 1.0f), q, 1e-8f), 1);
  EXPECT_EQ(Token(kDyadic, Params(2, 1.0f), q, 1.0f), 0);
  // Through the stage: the JSON eps is rounded to f32 and used the same way.
  TensorMap in = {{"logits", F32Tensor({1, 4}, kDyadic)},
                  {"top_k", I32Tensor({1}, {2})},
                  {"top_p", F32Tensor({1}, {1.0f})},
                  {"q", F32Tensor({1, 4}, q)}};
  EXPECT_EQ(I64s(RunStage(in).at("logits_select_idx"))[0], 1);
  EXPECT_EQ(I64s(RunStage(in, {{"eps", 1.0}}).at("logits_select_idx"))[0], 0);
  EXPECT_THROW(RunStage(in, {{"eps", -1.0}}), std::invalid_argument);
  EXPECT_THROW(RunStage(in, {{"eps", 1e300}}), std::invalid_argument);  // inf in f32
  EXPECT_THROW(RunStage(in, {{"eps", "small"}}), std::invalid_argument);
}

TEST(AscendTopKTopPSampleV2, QAbsoluteValueAndZeroOverZero) {
  // |q| is used: q = {-0.5, 0, ...} behaves as {0.5, 0}. With eps = 0 and q = 0: r = prob / 0 =
  // +inf, which wins. An all-NaN ratio list (probs 0, q 0, eps 0) picks position 0, the first
  // NaN (torch.argmax ranks NaN first); a NaN after a number wins too.
  EXPECT_EQ(Token(kDyadic, Params(2, 1.0f), {-0.5f, -0.0f, 1.0f, 1.0f}, 1.0f), 0);
  EXPECT_EQ(Token(kDyadic, Params(2, 1.0f), {0.5f, 0.0f, 1.0f, 1.0f}, 0.0f), 1);
  AscendSampleRow zeros;
  zeros.list = {5, 7};
  zeros.probs = {0.0f, 0.0f};
  EXPECT_EQ(AscendSamplePosition(zeros, std::vector<float>{0.0f, 0.0f}, 0.0f), 0u);
  AscendSampleRow mixed;
  mixed.list = {5, 7};
  mixed.probs = {0.5f, 0.0f};  // r = {0.5 / 1, 0 / 0 = NaN}
  EXPECT_EQ(AscendSamplePosition(mixed, std::vector<float>{1.0f, 0.0f}, 0.0f), 1u);
}

TEST(AscendTopKTopPSampleV2, TiesGoToTheLowestPosition) {
  // Equal logits 0, 1: probs 0.5 each; equal q: r ties -> position 0 = the lower vocab id.
  EXPECT_EQ(Token({3.0f, 3.0f}, Params(2, 1.0f), {1.0f, 1.0f}), 0);
  EXPECT_EQ(Token({3.0f, 3.0f}, Params(2, 1.0f)), 0);
  // Sorted order breaks value ties by lower index: {1, 3, 3} top_k 2 -> L = {1, 2}.
  EXPECT_EQ(AscendFilterRow(std::vector<float>{1.0f, 3.0f, 3.0f}, Params(2, 1.0f)).list, (std::vector<std::int32_t>{1, 2}));
}

TEST(AscendTopKTopPSampleV2, KsMaxRoundsUpToEightAndCapsAt1024) {
  EXPECT_TRUE(AscendTopKActive(8, 20, 1));    // ks_max 1 -> 8
  EXPECT_FALSE(AscendTopKActive(9, 20, 1));
  EXPECT_TRUE(AscendTopKActive(16, 20, 9));   // 9 -> 16
  EXPECT_FALSE(AscendTopKActive(17, 20, 9));
  EXPECT_TRUE(AscendTopKActive(1024, 4096, 5000));  // cap
  EXPECT_FALSE(AscendTopKActive(1025, 4096, 5000));
  EXPECT_TRUE(AscendTopKActive(20, 20, 1024));   // k == V runs (and keeps all, sorted)
  EXPECT_FALSE(AscendTopKActive(21, 20, 1024));  // k > V skips
  EXPECT_FALSE(AscendTopKActive(0, 20, 1024));
  EXPECT_FALSE(AscendTopKActive(-1, 20, 1024));
  // The same limit as top_k's ascend_v2 rule: for k < V, TopKRow masks iff top-k is active.
  std::vector<float> row(40);
  for (std::size_t i = 0; i < row.size(); ++i) row[i] = static_cast<float>((i * 7) % 40);
  for (std::int64_t ks_max : {1, 7, 8, 9, 16, 17, 1024, 3000}) {
    for (std::int64_t k = -1; k < 40; ++k) {
      std::vector<float> masked = row;
      reference::TopKRow(Profile::kAscendV2, masked, k, ks_max);
      EXPECT_EQ(masked != row, AscendTopKActive(k, 40, ks_max)) << "k=" << k << " ks_max=" << ks_max;
    }
  }
  // Through the stage: ks_max 1, k 8 -> sorted list of 8; k 9 -> unsorted, all 20.
  std::vector<float> logits(40);
  for (std::size_t i = 0; i < 40; ++i) logits[i] = static_cast<float>((i * 7) % 20);
  auto out = RunStage({{"logits", F32Tensor({2, 20}, logits)},
                  {"top_k", I32Tensor({2}, {8, 9})},
                  {"top_p", F32Tensor({2}, {1.0f, 1.0f})}},
                 {{"ks_max", 1}, {"is_need_sample_result", true}});
  const auto idx = I64s(out.at("logits_idx"));
  for (std::size_t j = 0; j < 20; ++j) {
    EXPECT_EQ(idx[j], j < 8 ? reference::TopIndices(std::span<const float>(logits).subspan(0, 20), 8)[j] : -1);
    EXPECT_EQ(idx[20 + j], static_cast<std::int64_t>(j));
  }
  // The stage accepts ks_max in [1, 1024] (the op's documented range, ValidateKsMax).
  for (std::int64_t bad : {0, -8, 1025, 2000}) {
    EXPECT_THROW(RunStage({{"logits", F32Tensor({1, 4}, kDyadic)},
                           {"top_k", I32Tensor({1}, {1})},
                           {"top_p", F32Tensor({1}, {1.0f})}},
                          {{"ks_max", bad}}),
                 std::invalid_argument);
  }
}

TEST(AscendTopKTopPSampleV2, SkipConventions) {
  using L = std::vector<std::int32_t>;
  // k <= 0 (and k > V) skip top-k: with p >= 1, L is the whole row in vocab order.
  EXPECT_EQ(AscendFilterRow(kDyadic, Params(0, 1.0f)).list, (L{0, 1, 2, 3}));
  EXPECT_EQ(AscendFilterRow(kDyadic, Params(-1, 1.0f)).list, (L{0, 1, 2, 3}));
  EXPECT_EQ(AscendFilterRow(kDyadic, Params(5, 1.0f)).list, (L{0, 1, 2, 3}));
  // p <= 0 keeps the max, with probs 1.0 (softmax of the top-1 cut), whatever k says.
  for (std::int32_t k : {0, 3, 5}) {
    for (float p : {0.0f, -1.0f, -0.0f}) {
      const AscendSampleRow r = AscendFilterRow(kDyadic, Params(k, p));
      EXPECT_EQ(r.list, (L{0}));
      EXPECT_EQ(FloatBitsOf(r.probs), FloatBitsOf({1.0f}));
    }
  }
  // p >= 1 skips top-p: top_k 2 alone, probs {2/3, 1/3}.
  for (float p : {1.0f, 2.0f}) {
    const AscendSampleRow r = AscendFilterRow(kDyadic, Params(2, p));
    EXPECT_EQ(r.list, (L{0, 1}));
    EXPECT_EQ(FloatBitsOf(r.probs), FloatBitsOf({kTwoThirds, kOneThird}));
  }
  // min_p <= 0 skips; min_p >= 1 keeps only the max, its prob not renormalised (2/3).
  EXPECT_EQ(AscendFilterRow(kDyadic, Params(2, 1.0f, -0.5f)).list, (L{0, 1}));
  EXPECT_EQ(AscendFilterRow(kDyadic, Params(2, 1.0f, 0.0f)).list, (L{0, 1}));
  for (float m : {1.0f, 2.0f}) {
    const AscendSampleRow r = AscendFilterRow(kDyadic, Params(2, 1.0f, m));
    EXPECT_EQ(r.list, (L{0}));
    EXPECT_EQ(FloatBitsOf(r.probs), FloatBitsOf({kTwoThirds}));
  }
  // 0 < min_p < 1 on the top-k softmax: top_k 3, m 0.5: threshold = f32(1/1.75) * 0.5 = 2/7
  // rounded (halving is exact), so 2/7 is kept (>=) and 1/7 dropped.
  EXPECT_EQ(AscendFilterRow(kDyadic, Params(3, 1.0f, 0.5f)).list, (L{0, 1}));
  // top-p boundary: probs {0.5, 0.25, 0.125, 0.125} with top-k off, p = 0.75: E = 0, 0.5,
  // 0.75 -> the third is dropped (E >= p); p = 0.75 + 1 ulp keeps it.
  EXPECT_EQ(AscendFilterRow(kDyadic, Params(0, 0.75f)).list, (L{0, 1}));
  EXPECT_EQ(AscendFilterRow(kDyadic, Params(0, std::nextafter(0.75f, 1.0f))).list, (L{0, 1, 2}));
}

TEST(AscendTopKTopPSampleV2, ProbabilityInputUsesZeroAsDefLogitAndNoSoftmax) {
  // input_is_logits = false: rows are probabilities, used as they are. top_k 3, p = 0.55:
  // E = 0, 0.5 (< 0.55, kept), 0.75: L = {0, 1}. On the dyadic *logits* the top-3 softmax
  // renormalises to {4/7, ...}: E_1 = 0.571 >= 0.55 and only token 0 is kept.
  const std::vector<float> probs = {0.5f, 0.25f, 0.125f, 0.125f};
  EXPECT_EQ(AscendFilterRow(probs, Params(3, 0.55f, 0.0f, 1024, false)).list, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(AscendFilterRow(kDyadic, Params(3, 0.55f)).list, (std::vector<std::int32_t>{0}));
  // min_p reads the raw values: threshold 0.5 * 0.5 = 0.25 keeps {0, 1}.
  EXPECT_EQ(AscendFilterRow(probs, Params(0, 1.0f, 0.5f, 1024, false)).list, (std::vector<std::int32_t>{0, 1}));
  auto out = RunStage({{"logits", F32Tensor({1, 4}, probs)},
                  {"top_k", I32Tensor({1}, {3})},
                  {"top_p", F32Tensor({1}, {0.55f})}},
                 {{"input_is_logits", false}, {"is_need_logits", true}});
  EXPECT_EQ(FloatBits(out.at("logits_top_kp_select")), FloatBitsOf({0.5f, 0.25f, 0.0f, 0.0f}));  // defLogit +0.0
  auto mid = RunStage({{"logits", F32Tensor({1, 4}, probs)},
                  {"top_k", I32Tensor({1}, {3})},
                  {"top_p", F32Tensor({1}, {0.55f})}},
                 {{"input_is_logits", false}, {"is_need_sample_result", true}});
  EXPECT_EQ(FloatBits(mid.at("logits_sort_masked")), FloatBitsOf({0.5f, 0.25f, 0.0f, 0.0f}));
  EXPECT_EQ(I64s(mid.at("logits_idx")), (std::vector<std::int64_t>{0, 1, -1, -1}));
  for (float bad : {-0.25f, kInf, -kInf, std::nanf("")}) {
    EXPECT_THROW(RunStage({{"logits", F32Tensor({1, 2}, {0.5f, bad})},
                      {"top_k", I32Tensor({1}, {0})},
                      {"top_p", F32Tensor({1}, {1.0f})}},
                     {{"input_is_logits", false}}),
                 std::invalid_argument);
  }
}

TEST(AscendTopKTopPSampleV2, OutputsFollowTheFlags) {
  TensorMap in = {{"logits", F32Tensor({1, 4}, kDyadic)},
                  {"top_k", I32Tensor({1}, {3})},
                  {"top_p", F32Tensor({1}, {0.7f})}};
  auto plain = RunStage(in);
  EXPECT_EQ(plain.size(), 1u);
  EXPECT_EQ(I64s(plain.at("logits_select_idx")), (std::vector<std::int64_t>{0}));
  auto with_logits = RunStage(in, {{"is_need_logits", true}});
  EXPECT_EQ(with_logits.size(), 2u);
  EXPECT_EQ(Floats(with_logits.at("logits_top_kp_select")), (std::vector<float>{0.0f, -kLn2F, -kInf, -kInf}));
  auto mid = RunStage(in, {{"is_need_sample_result", true}});
  EXPECT_EQ(mid.count("logits_select_idx"), 0u);
  EXPECT_EQ(FloatBits(mid.at("logits_sort_masked")), FloatBitsOf({kFourSevenths, kTwoSevenths, 0.0f, 0.0f}));
  EXPECT_EQ(I64s(mid.at("logits_idx")), (std::vector<std::int64_t>{0, 1, -1, -1}));
  auto both = RunStage(in, {{"is_need_sample_result", true}, {"is_need_logits", true}});
  EXPECT_EQ(both.size(), 3u);
  // q with is_need_sample_result is the op's error.
  in.emplace("q", F32Tensor({1, 4}, {1.0f, 1.0f, 1.0f, 1.0f}));
  EXPECT_THROW(RunStage(in, {{"is_need_sample_result", true}}), std::invalid_argument);
  EXPECT_THROW(RunStage(in, {{"is_need_logits", 1}}), std::invalid_argument);  // not a bool
}

TEST(AscendTopKTopPSampleV2, NegInfLogitsInsideTheTopKCutStayWithProbZero) {
  // {0, -inf, -1, -inf}, top_k 3: the order is 0, 2, 1 (-inf ties by index); probs {e/s, ..., 0}.
  auto out = RunStage({{"logits", F32Tensor({1, 4}, {0.0f, -kInf, -1.0f, -kInf})},
                  {"top_k", I32Tensor({1}, {3})},
                  {"top_p", F32Tensor({1}, {1.0f})}},
                 {{"is_need_sample_result", true}});
  EXPECT_EQ(I64s(out.at("logits_idx")), (std::vector<std::int64_t>{0, 2, 1, -1}));
  EXPECT_EQ(Bits(Floats(out.at("logits_sort_masked"))[2]), 0u);
}

TEST(AscendTopKTopPSampleV2, TopKGuessNeverChangesResults) {
  std::vector<float> logits(2 * 33);
  for (std::size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>((i * 37) % 29) / 4.0f - 3.0f;
  std::vector<float> q(2 * 33);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(1 + (i * 13) % 17) / 8.0f;
  TensorMap in = {{"logits", F32Tensor({2, 33}, logits)},
                  {"top_k", I32Tensor({2}, {0, 0})},
                  {"top_p", F32Tensor({2}, {0.9f, 0.5f})},
                  {"q", F32Tensor({2, 33}, q)}};
  const auto base = I64s(RunStage(in, {{"is_need_logits", true}}).at("logits_select_idx"));
  for (std::int64_t guess : {-5, 0, 1, 32, 1024, 5000}) {
    auto out = RunStage(in, {{"is_need_logits", true}, {"top_k_guess", guess}});
    EXPECT_EQ(I64s(out.at("logits_select_idx")), base) << "top_k_guess=" << guess;
  }
  EXPECT_THROW(RunStage(in, {{"top_k_guess", std::int64_t{1} << 40}}), std::invalid_argument);
  EXPECT_THROW(RunStage(in, {{"top_k_guess", 1.5}}), std::invalid_argument);
}

TEST(AscendTopKTopPSampleV2, HalfInputsAreUpcastExactlyAndTopPMustMatchTheDtype) {
  // {0, -1, -2, -3, 0.5, 1.5}: exact in f16 and bf16. top_p 0.9 rounds to the dtype
  // (bf16 0x3F66 = 0.8984375, f16 0x3B33 = 0.89990234): the f32 run with those values agrees.
  const std::vector<float> row = {0.0f, -1.0f, -2.0f, -3.0f, 0.5f, 1.5f};
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(std::string(DTypeName(dtype)));
    auto narrow = [&](const std::vector<float>& v, Shape shape) {
      Tensor t(dtype, std::move(shape));
      for (std::size_t i = 0; i < v.size(); ++i) {
        t.data<std::uint16_t>()[i] = dtype == DType::kF16 ? F32ToF16Bits(v[i]) : F32ToBF16Bits(v[i]);
      }
      return t;
    };
    const float p = dtype == DType::kF16 ? F16BitsToF32(F32ToF16Bits(0.9f)) : BF16BitsToF32(F32ToBF16Bits(0.9f));
    const float m = dtype == DType::kF16 ? F16BitsToF32(F32ToF16Bits(0.1f)) : BF16BitsToF32(F32ToBF16Bits(0.1f));
    const std::vector<float> q = {0.5f, 1.0f, 2.0f, 0.25f, 3.0f, 1.0f};
    auto half = RunStage({{"logits", narrow(row, {1, 6})},
                     {"top_k", I32Tensor({1}, {5})},
                     {"top_p", narrow({0.9f}, {1})},
                     {"min_p", narrow({0.1f}, {1})},
                     {"q", F32Tensor({1, 6}, q)}},
                    {{"is_need_logits", true}});
    auto full = RunStage({{"logits", F32Tensor({1, 6}, row)},
                     {"top_k", I32Tensor({1}, {5})},
                     {"top_p", F32Tensor({1}, {p})},
                     {"min_p", F32Tensor({1}, {m})},
                     {"q", F32Tensor({1, 6}, q)}},
                    {{"is_need_logits", true}});
    EXPECT_EQ(I64s(half.at("logits_select_idx")), I64s(full.at("logits_select_idx")));
    EXPECT_EQ(FloatBits(half.at("logits_top_kp_select")), FloatBits(full.at("logits_top_kp_select")));
    EXPECT_THROW(RunStage({{"logits", narrow(row, {1, 6})},
                      {"top_k", I32Tensor({1}, {5})},
                      {"top_p", F32Tensor({1}, {0.9f})}}),
                 std::invalid_argument);  // top_p f32 with half logits: the op's dtype rule
  }
}

TEST(AscendTopKTopPSampleV2, RejectsNanInfAndRowsWithoutAFiniteLogit) {
  auto run = [](std::vector<float> row, std::vector<float> q = {}, float p = 1.0f) {
    TensorMap in = {{"logits", F32Tensor({1, static_cast<std::int64_t>(row.size())}, row)},
                    {"top_k", I32Tensor({1}, {0})},
                    {"top_p", F32Tensor({1}, {p})}};
    if (!q.empty()) in.emplace("q", F32Tensor({1, static_cast<std::int64_t>(q.size())}, q));
    return RunStage(std::move(in));
  };
  EXPECT_THROW(run({0.0f, std::nanf("")}), std::invalid_argument);
  EXPECT_THROW(run({0.0f, kInf}), std::invalid_argument);
  EXPECT_THROW(run({-kInf, -kInf}), std::invalid_argument);
  EXPECT_THROW(run({0.0f, 1.0f}, {1.0f, std::nanf("")}), std::invalid_argument);
  EXPECT_THROW(run({0.0f, 1.0f}, {}, std::nanf("")), std::invalid_argument);
  EXPECT_THROW(run({0.0f, 1.0f}, {1.0f, 1.0f, 1.0f}), std::invalid_argument);  // q must be [B, V]
  EXPECT_NO_THROW(run({-kInf, 2.0f}));
  EXPECT_THROW(RunStage({{"logits", F32Tensor({1, 2}, {0.0f, 1.0f})}, {"top_k", I32Tensor({1}, {0})}}),
               std::invalid_argument);  // top_p is required, as in the op
}

// The kept set agrees with sampling_filters under ascend_v2 (the finite-logit survivors), and
// the probs are bit-identical to the softmax sampling_filters reads (that of the top-k-masked
// row), for p > 0; for p <= 0 the single survivor has prob 1.
RC_GTEST_PROP(AscendTopKTopPSampleV2, AgreesWithSamplingFiltersAscendV2, ()) {
  const auto row = *FilterRows();
  if (std::none_of(row.begin(), row.end(), [](float v) { return std::isfinite(v); })) return;
  const auto v = static_cast<std::int32_t>(row.size());
  const std::int32_t k = *rc::gen::inRange<std::int32_t>(-1, v + 2);
  const float p = *rc::gen::element(-1.0f, 0.0f, 0.3f, 0.8f, 1.0f);
  const float m = *rc::gen::element(0.0f, 0.1f, 0.5f, 1.0f);
  const std::int64_t ks_max = *rc::gen::element<std::int64_t>(1, 8, 1024);
  const AscendSampleRow mine = AscendFilterRow(row, Params(k, p, m, ks_max));
  std::vector<float> masked = row;
  reference::SamplingFiltersRow(Profile::kAscendV2, masked, {k, p, m, "", ks_max});
  std::vector<bool> in_list(row.size(), false);
  for (std::int32_t i : mine.list) in_list[static_cast<std::size_t>(i)] = true;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (std::isfinite(row[i])) RC_ASSERT(in_list[i] == std::isfinite(masked[i]));
  }
  if (p > 0.0f) {
    std::vector<float> top_k_masked = row, probs(row.size());
    reference::TopKRow(Profile::kAscendV2, top_k_masked, k, ks_max);
    reference::SoftmaxRow(top_k_masked, probs);
    for (std::size_t j = 0; j < mine.list.size(); ++j) {
      RC_ASSERT(Bits(mine.probs[j]) == Bits(probs[static_cast<std::size_t>(mine.list[j])]));
    }
  } else {
    RC_ASSERT(mine.list.size() == 1u);
    RC_ASSERT(mine.probs[0] == 1.0f);
  }
}

// The sampled token is always a survivor; with one survivor every q gives it.
RC_GTEST_PROP(AscendTopKTopPSampleV2, SampledTokenIsASurvivor, ()) {
  const auto row = *FilterRows();
  if (std::none_of(row.begin(), row.end(), [](float v) { return std::isfinite(v); })) return;
  const auto v = static_cast<std::int32_t>(row.size());
  const std::int32_t k = *rc::gen::inRange<std::int32_t>(-1, v + 2);
  const float p = *rc::gen::element(0.0f, 0.3f, 0.8f, 1.0f);
  const float m = *rc::gen::element(0.0f, 0.1f, 0.5f, 1.0f);
  const float eps = *rc::gen::element(0.0f, 1e-8f, 1.0f);
  std::vector<float> q;
  for (std::int32_t i = 0; i < v; ++i) q.push_back(static_cast<float>(*rc::gen::inRange(-8, 9)) / 4.0f);
  const AscendSampleRow r = AscendFilterRow(row, Params(k, p, m));
  RC_ASSERT(!r.list.empty());
  const std::int32_t token = r.list[AscendSamplePosition(r, q, eps)];
  RC_ASSERT(std::find(r.list.begin(), r.list.end(), token) != r.list.end());
  RC_ASSERT(std::isfinite(row[static_cast<std::size_t>(token)]));
  const std::int32_t first = reference::TopIndices(row, 1)[0];
  for (const AscendSampleParams& one : {Params(k, 0.0f, m), Params(k, p, 1.0f)}) {
    const AscendSampleRow single = AscendFilterRow(row, one);
    RC_ASSERT(single.list.size() == 1u);
    RC_ASSERT(single.list[AscendSamplePosition(single, q, eps)] == first);
  }
}

}  // namespace
}  // namespace sampcheck::testing
