// SPDX-License-Identifier: Apache-2.0
// Tests of token_bitmask (reference/token_bitmask.h, docs/spec/masks.md#token_bitmask). Known
// answers are xgrammar's own (tests/python/test_token_bitmask_operations.py, quoted in
// docs/peers.md); the rest follow from the bit layout by hand.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(TokenBitmask, XgrammarAlternatingWord) {
  // xgrammar: word 0b1010101010 over logits 1..10 keeps tokens 1, 3, 5, 7, 9.
  auto out = RunReference("token_bitmask", "canonical",
                          {{"logits", F32Tensor({1, 10}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})},
                           {"bitmask", I32Tensor({1, 1}, {0b1010101010})}});
  EXPECT_EQ(Floats(out.at("logits")), (std::vector<float>{-kInf, 2, -kInf, 4, -kInf, 6, -kInf, 8, -kInf, 10}));
}

TEST(TokenBitmask, XgrammarWordsExpandLsbFirst) {
  // xgrammar: words 0xFFFF0000, 0x0000FFFF expand to 16 false, 16 true, 16 true, 16 false.
  std::vector<float> ones(64, 1.0f);
  auto out = RunReference("token_bitmask", "canonical",
                          {{"logits", F32Tensor({1, 64}, ones)},
                           {"bitmask", I32Tensor({1, 2}, {static_cast<std::int32_t>(0xFFFF0000u), 0x0000FFFF})}});
  auto v = Floats(out.at("logits"));
  for (int t = 0; t < 64; ++t) {
    const bool allowed = (t >= 16 && t < 48);
    EXPECT_EQ(v[static_cast<std::size_t>(t)], allowed ? 1.0f : -kInf) << "token " << t;
  }
}

TEST(TokenBitmask, LogitsWiderThanMaskStayUnmaskedBeyondIt) {
  // 40 columns, one all-zero word: tokens 0..31 -> -inf, 32..39 untouched (default vocab_size
  // = min(40, 32) = 32).
  std::vector<float> ones(40, 1.0f);
  auto v = Floats(RunReference("token_bitmask", "canonical",
                               {{"logits", F32Tensor({1, 40}, ones)}, {"bitmask", I32Tensor({1, 1}, {0})}})
                      .at("logits"));
  for (int t = 0; t < 40; ++t) EXPECT_EQ(v[static_cast<std::size_t>(t)], t < 32 ? -kInf : 1.0f) << t;
}

TEST(TokenBitmask, MaskWiderThanLogitsIgnoresExtraBits) {
  // 3 columns, word 0b010 plus a second all-zero word: only token 1 survives.
  auto v = Floats(RunReference("token_bitmask", "canonical",
                               {{"logits", F32Tensor({1, 3}, {1, 2, 3})}, {"bitmask", I32Tensor({1, 2}, {0b010, 0})}})
                      .at("logits"));
  EXPECT_EQ(v, (std::vector<float>{-kInf, 2, -kInf}));
}

TEST(TokenBitmask, IndicesSelectTheSameRowOfLogitsAndMaskAndVocabSizeLimitsColumns) {
  // Rows 0..2, mask row r = all zero except row 1 all ones; indices {2}: only row 2 is
  // masked, with bitmask row 2; vocab_size 2 leaves column 2 alone.
  auto out = RunReference("token_bitmask", "canonical",
                          {{"logits", F32Tensor({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
                           {"bitmask", I32Tensor({3, 1}, {0, -1, 0})},
                           {"indices", I32Tensor({1}, {2})}},
                          {{"vocab_size", 2}});
  EXPECT_EQ(Floats(out.at("logits")), (std::vector<float>{1, 2, 3, 4, 5, 6, -kInf, -kInf, 9}));
}

TEST(TokenBitmask, RejectsBadShapesIndicesAndVocabSize) {
  TensorMap base = {{"logits", F32Tensor({2, 3}, {1, 2, 3, 4, 5, 6})}, {"bitmask", I32Tensor({2, 1}, {0, 0})}};
  EXPECT_THROW(RunReference("token_bitmask", "canonical", base, {{"vocab_size", 4}}), std::invalid_argument);
  EXPECT_THROW(RunReference("token_bitmask", "canonical", base, {{"vocab_size", -1}}), std::invalid_argument);
  auto idx = base;
  idx["indices"] = I32Tensor({1}, {2});
  EXPECT_THROW(RunReference("token_bitmask", "canonical", idx), std::invalid_argument);
  auto rows = base;
  rows["bitmask"] = I32Tensor({1, 1}, {0});
  EXPECT_THROW(RunReference("token_bitmask", "canonical", rows), std::invalid_argument);
  EXPECT_THROW(RunReference("token_bitmask", "vllm", base), std::exception);  // no such profile
}

// An all-ones mask is the identity, bit for bit.
RC_GTEST_PROP(TokenBitmask, AllOnesIsTheIdentity, (std::vector<float> values)) {
  RC_PRE(!values.empty());
  const auto v = static_cast<std::int64_t>(values.size());
  Tensor logits = F32Tensor({1, v}, values);
  auto out = RunReference("token_bitmask", "canonical",
                          {{"logits", logits}, {"bitmask", I32Tensor({1, (v + 31) / 32}, std::vector<std::int32_t>((v + 31) / 32, -1))}});
  RC_ASSERT(FloatBits(out.at("logits")) == FloatBits(logits));
}

// Masking never raises a logit: every output is its input, bit for bit, or -inf.
RC_GTEST_PROP(TokenBitmask, NeverRaisesALogit, (std::vector<float> values, std::vector<std::int32_t> words)) {
  RC_PRE(!values.empty() && !words.empty());
  const auto v = static_cast<std::int64_t>(values.size());
  const auto w = static_cast<std::int64_t>(words.size());
  Tensor logits = F32Tensor({1, v}, values);
  auto out = FloatBits(RunReference("token_bitmask", "canonical", {{"logits", logits}, {"bitmask", I32Tensor({1, w}, words)}})
                           .at("logits"));
  for (std::size_t i = 0; i < values.size(); ++i) RC_ASSERT(out[i] == Bits(values[i]) || out[i] == Bits(-kInf));
}

}  // namespace
}  // namespace sampcheck::testing
