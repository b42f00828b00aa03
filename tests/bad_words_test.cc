// SPDX-License-Identifier: Apache-2.0
// Tests of bad_words (reference/bad_words.h, docs/spec/masks.md#bad_words). Expected bans
// follow vLLM's rule (vllm/v1/sample/ops/bad_words.py) applied by hand.
#include <limits>

#include <gtest/gtest.h>

#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> BanWords(std::vector<std::int32_t> output, std::vector<std::int32_t> words, std::int64_t n_words,
                       std::int64_t word_len) {
  return Floats(RunReference("bad_words", "vllm",
                             {{"logits", F32Tensor({1, 8}, {0, 1, 2, 3, 4, 5, 6, 7})},
                              {"output_ids", I32Tensor({1, static_cast<std::int64_t>(output.size())}, output)},
                              {"bad_words", I32Tensor({1, n_words, word_len}, words)}})
                    .at("logits"));
}

TEST(BadWords, BansLastTokenWhenPrefixEndsTheOutput) {
  // Output {5, 7}: word {7, 2} -> prefix {7} is the last output token -> ban 2.
  EXPECT_EQ(BanWords({5, 7}, {7, 2}, 1, 2), (std::vector<float>{0, 1, -kInf, 3, 4, 5, 6, 7}));
  // word {5, 2}: prefix {5} is not the last token -> nothing.
  EXPECT_EQ(BanWords({5, 7}, {5, 2}, 1, 2), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  // word {5, 7, 6}: prefix {5, 7} is the whole output -> ban 6.
  EXPECT_EQ(BanWords({5, 7}, {5, 7, 6}, 1, 3), (std::vector<float>{0, 1, 2, 3, 4, 5, -kInf, 7}));
}

TEST(BadWords, SingleTokenWordsAlwaysBannedLongWordsSkipped) {
  // Empty output: word {4} is banned; word {1, 2} (2 > 0 + 1) is skipped. Padding after -1.
  EXPECT_EQ(BanWords({-1, -1}, {4, -1, 1, 2}, 2, 2), (std::vector<float>{0, 1, 2, 3, -kInf, 5, 6, 7}));
  // Output {3}: word {0, 1, 2} has length 3 > 1 + 1 -> skipped even though nothing matches.
  EXPECT_EQ(BanWords({3}, {0, 1, 2}, 1, 3), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(BadWords, OutputEndsAtFirstPadding) {
  // {5, -1, 7}: the output is {5}; word {7, 2} does not match, word {5, 3} does.
  EXPECT_EQ(BanWords({5, -1, 7}, {7, 2, 5, 3}, 2, 2), (std::vector<float>{0, 1, 2, -kInf, 4, 5, 6, 7}));
}

TEST(BadWords, RejectsOutOfVocabularyIds) {
  EXPECT_THROW(BanWords({9}, {1}, 1, 1), std::invalid_argument);
  EXPECT_THROW(BanWords({1}, {8}, 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace sampcheck::testing
