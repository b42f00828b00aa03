// SPDX-License-Identifier: Apache-2.0
// Tests of token_bitmask_stop_tokens (reference/token_bitmask_stop_tokens.h,
// docs/spec/token_bitmask_stop_tokens.md). Known answers follow from xgrammar's stop-token rule
// (cpp/grammar_matcher.cc GrammarMatcher::Impl::SetTokenBitmask: stop ids set when the grammar
// can reach its end, cleared when it cannot) and the bit layout, by hand.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/wrong/wrong_samplers.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

Tensor BoolTensor(const std::vector<std::uint8_t>& v) {
  return Tensor::FromValues(DType::kBool, {static_cast<std::int64_t>(v.size())}, v);
}
std::vector<std::int32_t> Ints(const Tensor& t) { return {t.data<std::int32_t>().begin(), t.data<std::int32_t>().end()}; }

TEST(TokenBitmaskStopTokens, HeaderExample) {
  // Row 0 cannot end: bit 2 of -1 cleared -> 0xFFFFFFFB = -5. Row 1 can: bits 2 and 5 set
  // on 0 -> 0b100100 = 36.
  Case c;
  c.id = "header";
  c.stage = "token_bitmask_stop_tokens";
  c.inputs = {{"bitmask", I32Tensor({2, 1}, {-1, 0})}, {"stop_ids", I32Tensor({2, 2}, {2, -1, 2, 5})}, {"can_end", BoolTensor({0, 1})}};
  EXPECT_EQ(Ints(RunReference(c.stage, "canonical", c.inputs).at("bitmask")), (std::vector<std::int32_t>{-5, 36}));
  // The planted fault leaves row 0's stale stop bit set.
  EXPECT_EQ(Ints(statistical::MakeWrongSampler("bitmask_stop_never_cleared")->Run(c.stage, c).at("bitmask")),
            (std::vector<std::int32_t>{-1, 36}));
}

TEST(TokenBitmaskStopTokens, BothEndsOfEveryWordAndRepeats) {
  // Stop ids 0, 31, 32, 63 (31 twice): cleared from all ones -> {0x7FFFFFFE, 0x7FFFFFFE};
  // set on zeros -> {0x80000001, 0x80000001}.
  auto out = RunReference("token_bitmask_stop_tokens", "canonical",
                          {{"bitmask", I32Tensor({2, 2}, {-1, -1, 0, 0})},
                           {"stop_ids", I32Tensor({2, 5}, {0, 31, 32, 63, 31, 0, 31, 32, 63, 31})},
                           {"can_end", BoolTensor({0, 1})}});
  EXPECT_EQ(Ints(out.at("bitmask")), (std::vector<std::int32_t>{0x7FFFFFFE, 0x7FFFFFFE, static_cast<std::int32_t>(0x80000001u),
                                                                static_cast<std::int32_t>(0x80000001u)}));
}

TEST(TokenBitmaskStopTokens, RejectsMalformedInputs) {
  const TensorMap base = {{"bitmask", I32Tensor({1, 1}, {0})}, {"stop_ids", I32Tensor({1, 1}, {3})}, {"can_end", BoolTensor({1})}};
  auto outside = base;
  outside["stop_ids"] = I32Tensor({1, 1}, {32});  // past 32 W
  EXPECT_THROW(RunReference("token_bitmask_stop_tokens", "canonical", outside), std::invalid_argument);
  auto rows = base;
  rows["can_end"] = BoolTensor({1, 0});
  EXPECT_THROW(RunReference("token_bitmask_stop_tokens", "canonical", rows), std::invalid_argument);
  auto missing = base;
  missing.erase("can_end");
  EXPECT_THROW(RunReference("token_bitmask_stop_tokens", "canonical", missing), std::invalid_argument);
}

// Stop bits end up equal to can_end; every other bit keeps its input value.
RC_GTEST_PROP(TokenBitmaskStopTokens, StopBitsEqualCanEndOtherBitsKept, (std::int32_t word, bool end, std::uint8_t s)) {
  const std::int32_t stop = s % 32;
  auto out = RunReference("token_bitmask_stop_tokens", "canonical",
                          {{"bitmask", I32Tensor({1, 1}, {word})},
                           {"stop_ids", I32Tensor({1, 1}, {stop})},
                           {"can_end", BoolTensor({static_cast<std::uint8_t>(end)})}});
  const auto got = static_cast<std::uint32_t>(out.at("bitmask").data<std::int32_t>()[0]);
  const std::uint32_t bit = std::uint32_t{1} << stop;
  RC_ASSERT(((got & bit) != 0) == end);
  RC_ASSERT((got & ~bit) == (static_cast<std::uint32_t>(word) & ~bit));
}

}  // namespace
}  // namespace sampcheck::testing
