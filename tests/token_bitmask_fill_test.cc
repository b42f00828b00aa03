// SPDX-License-Identifier: Apache-2.0
// Tests of token_bitmask_fill (reference/token_bitmask_fill.h, docs/spec/token_bitmask_fill.md).
// Known answers follow from xgrammar's layout (bit t % 32 of word t / 32, LSB first; a fresh
// bitmask is -1: python/xgrammar/matcher.py allocate_token_bitmask) and vLLM's assembly
// (vllm/v1/structured_output/utils.py apply_grammar_bitmask: np.full(-1), logit index = batch
// index + the speculative tokens before it), worked by hand in the comments; the planted
// faults of the stage are rejected by their golden cases (tests/statistical_power_proof_test.cc)
// and, on the header's example, here.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/wrong/wrong_samplers.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

std::vector<std::int32_t> Ints(const Tensor& t) { return {t.data<std::int32_t>().begin(), t.data<std::int32_t>().end()}; }
constexpr std::int32_t I32Of(std::uint32_t w) { return static_cast<std::int32_t>(w); }

TensorMap HeaderExample() {
  return {{"allowed_ids", I32Tensor({2, 2}, {0, 4, 2, -1})},
          {"spec_tokens", I32Tensor({2}, {0, 1})},
          {"structured", I32Tensor({1}, {1})}};
}

TEST(TokenBitmaskFill, HeaderExample) {
  // Request 0 (no spec tokens) owns logits row 0; request 1 owns rows 1 and 2. Row 1 allows
  // {0, 4}: 0b10001 | tail bits 5..31 = 0xFFFFFFF1; row 2 allows {2}: 0b100 | tail = 0xFFFFFFE4.
  auto out = RunReference("token_bitmask_fill", "canonical", HeaderExample(), {{"vocab_size", 5}});
  EXPECT_EQ(Ints(out.at("bitmask")), (std::vector<std::int32_t>{-1, I32Of(0xFFFFFFF1u), I32Of(0xFFFFFFE4u)}));
  EXPECT_EQ(Ints(out.at("indices")), (std::vector<std::int32_t>{1, 2}));
}

TEST(TokenBitmaskFill, CompactedOrderAndSpeculativeOffsets) {
  // spec_tokens {1, 0, 2}: logits rows 0-1 (request 0), 2 (request 1), 3-5 (request 2).
  // Compacted order {2, 0}: rows 0..2 of allowed_ids belong to request 2 (logits 3, 4, 5),
  // rows 3..4 to request 0 (logits 0, 1). V = 32 (no tail). Request 1 is unguided: -1.
  auto out = RunReference("token_bitmask_fill", "canonical",
                          {{"allowed_ids", I32Tensor({5, 1}, {0, 1, 2, 3, 31})},
                           {"spec_tokens", I32Tensor({3}, {1, 0, 2})},
                           {"structured", I32Tensor({2}, {2, 0})}},
                          {{"vocab_size", 32}});
  EXPECT_EQ(Ints(out.at("indices")), (std::vector<std::int32_t>{3, 4, 5, 0, 1}));
  EXPECT_EQ(Ints(out.at("bitmask")), (std::vector<std::int32_t>{1 << 3, I32Of(0x80000000u), -1, 1 << 0, 1 << 1, 1 << 2}));
}

TEST(TokenBitmaskFill, PaddedStrideAndStaleBufferNeverShowThrough) {
  // V = 33: word 0 holds tokens 0..31, word 1 token 32 and 31 tail bits; words = 3 adds a
  // word of padding. The guided row allows nothing: word 0 = 0, word 1 = ~1 (tail), word 2 =
  // -1. The stale buffer (all 0) changes nothing.
  auto out = RunReference("token_bitmask_fill", "canonical",
                          {{"allowed_ids", I32Tensor({1, 1}, {-1})},
                           {"spec_tokens", I32Tensor({2}, {0, 0})},
                           {"structured", I32Tensor({1}, {1})},
                           {"buffer", I32Tensor({2, 3}, {0, 0, 0, 0, 0, 0})}},
                          {{"vocab_size", 33}, {"words", 3}});
  EXPECT_EQ(Ints(out.at("bitmask")), (std::vector<std::int32_t>{-1, -1, -1, 0, I32Of(0xFFFFFFFEu), -1}));
}

TEST(TokenBitmaskFill, PlantedFaultsChangeTheHeaderExampleOrAPaddedBatch) {
  // On the header's example over an all-zero buffer: the stale tail leaves rows 1 and 2 with
  // tail 0 (0x11 and 0x4); the zero fill bans row 0. The stride fault needs words > ceil(V/32).
  TensorMap in = HeaderExample();
  in.emplace("buffer", I32Tensor({3, 1}, {0, 0, 0}));
  Case c;
  c.id = "header";
  c.stage = "token_bitmask_fill";
  c.inputs = in;
  c.params = {{"vocab_size", 5}};
  auto stale = statistical::MakeWrongSampler("bitmask_fill_stale_tail")->Run(c.stage, c);
  EXPECT_EQ(Ints(stale.at("bitmask")), (std::vector<std::int32_t>{-1, 0x11, 0x4}));
  auto zero = statistical::MakeWrongSampler("bitmask_fill_unguided_zero")->Run(c.stage, c);
  EXPECT_EQ(Ints(zero.at("bitmask")), (std::vector<std::int32_t>{0, I32Of(0xFFFFFFF1u), I32Of(0xFFFFFFE4u)}));
  c.params["words"] = 2;
  c.inputs.erase("buffer");
  // Right: rows {-1, -1}, {0xFFFFFFF1, -1}, {0xFFFFFFE4, -1}. Written 1 word apart into a
  // 6-word buffer of -1: words 0, 1, 2 = -1, 0xFFFFFFF1, 0xFFFFFFE4, read 2 apart.
  auto stride = statistical::MakeWrongSampler("bitmask_fill_row_stride")->Run(c.stage, c);
  EXPECT_EQ(Ints(stride.at("bitmask")), (std::vector<std::int32_t>{-1, I32Of(0xFFFFFFF1u), I32Of(0xFFFFFFE4u), -1, -1, -1}));
  auto right = RunReference("token_bitmask_fill", "canonical", c.inputs, c.params);
  EXPECT_EQ(Ints(right.at("bitmask")), (std::vector<std::int32_t>{-1, -1, I32Of(0xFFFFFFF1u), -1, I32Of(0xFFFFFFE4u), -1}));
}

TEST(TokenBitmaskFill, RejectsMalformedInputs) {
  const TensorMap base = HeaderExample();
  EXPECT_THROW(RunReference("token_bitmask_fill", "canonical", base), std::invalid_argument);  // no vocab_size
  EXPECT_THROW(RunReference("token_bitmask_fill", "canonical", base, {{"vocab_size", 0}}), std::invalid_argument);
  EXPECT_THROW(RunReference("token_bitmask_fill", "canonical", base, {{"vocab_size", 4}}), std::invalid_argument);  // id 4
  EXPECT_THROW(RunReference("token_bitmask_fill", "canonical", base, {{"vocab_size", 40}, {"words", 1}}), std::invalid_argument);
  auto repeated = base;
  repeated["structured"] = I32Tensor({2}, {1, 1});
  EXPECT_THROW(RunReference("token_bitmask_fill", "canonical", repeated, {{"vocab_size", 5}}), std::invalid_argument);
  auto outside = base;
  outside["structured"] = I32Tensor({1}, {2});
  EXPECT_THROW(RunReference("token_bitmask_fill", "canonical", outside, {{"vocab_size", 5}}), std::invalid_argument);
  auto count = base;
  count["allowed_ids"] = I32Tensor({1, 2}, {0, 4});  // request 1 needs 2 compacted rows
  EXPECT_THROW(RunReference("token_bitmask_fill", "canonical", count, {{"vocab_size", 5}}), std::invalid_argument);
  auto negative = base;
  negative["spec_tokens"] = I32Tensor({2}, {0, -1});
  EXPECT_THROW(RunReference("token_bitmask_fill", "canonical", negative, {{"vocab_size", 5}}), std::invalid_argument);
  auto buffer = base;
  buffer["buffer"] = I32Tensor({2, 1}, {0, 0});  // 3 logits rows
  EXPECT_THROW(RunReference("token_bitmask_fill", "canonical", buffer, {{"vocab_size", 5}}), std::invalid_argument);
}

// A filled row allows exactly its listed ids below V, every bit at or past V is 1, and an
// unguided row is all ones, whatever the buffer held.
RC_GTEST_PROP(TokenBitmaskFill, AllowsExactlyTheListedIds, (std::vector<std::uint16_t> ids, std::int32_t stale)) {
  const std::int64_t vocab = 1 + *rc::gen::inRange<std::int64_t>(0, 200);
  const std::int64_t words = (vocab + 31) / 32 + *rc::gen::inRange<std::int64_t>(0, 2);
  std::vector<std::int32_t> list;
  for (std::uint16_t id : ids) list.push_back(static_cast<std::int32_t>(id % vocab));
  if (list.empty()) list.push_back(-1);
  auto out = RunReference("token_bitmask_fill", "canonical",
                          {{"allowed_ids", I32Tensor({1, static_cast<std::int64_t>(list.size())}, list)},
                           {"spec_tokens", I32Tensor({2}, {0, 0})},
                           {"structured", I32Tensor({1}, {0})},
                           {"buffer", I32Tensor({2, words}, std::vector<std::int32_t>(static_cast<std::size_t>(2 * words), stale))}},
                          {{"vocab_size", vocab}, {"words", words}});
  const auto mask = out.at("bitmask").data<std::int32_t>();
  for (std::int64_t t = 0; t < 32 * words; ++t) {
    const bool bit = ((static_cast<std::uint32_t>(mask[static_cast<std::size_t>(t / 32)]) >> (t % 32)) & 1u) != 0;
    const bool listed = std::find(list.begin(), list.end(), static_cast<std::int32_t>(t)) != list.end();
    RC_ASSERT(bit == (t >= vocab || listed));
    RC_ASSERT(mask[static_cast<std::size_t>(words + t / 32)] == -1);
  }
}

}  // namespace
}  // namespace sampcheck::testing
