// SPDX-License-Identifier: Apache-2.0
// Tests of token_bitmask_allowed (reference/token_bitmask_allowed.h,
// docs/spec/token_bitmask_allowed.md). Known answers follow from xgrammar's layout (bit t % 32
// of word t / 32, LSB first: cpp/support/dynamic_bitset.h operator[]) by hand; the wide ids are
// chosen so that their low 32 bits name an allowed token.
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/wrong/wrong_samplers.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

Tensor I64Tensor(Shape shape, const std::vector<std::int64_t>& v) { return Tensor::FromValues(DType::kI64, std::move(shape), v); }
std::vector<std::uint8_t> Flags(const Tensor& t) { return {t.data<std::uint8_t>().begin(), t.data<std::uint8_t>().end()}; }

TEST(TokenBitmaskAllowed, HeaderExample) {
  // 0b1010 allows tokens 1 and 3; 2^32 + 1 is outside [0, 32); -1 is negative.
  auto out = RunReference("token_bitmask_allowed", "canonical",
                          {{"bitmask", I32Tensor({1, 1}, {0b1010})},
                           {"token_ids", I64Tensor({1, 5}, {1, 2, 3, (std::int64_t{1} << 32) + 1, -1})}});
  EXPECT_EQ(Flags(out.at("allowed")), (std::vector<std::uint8_t>{1, 0, 1, 0, 0}));
}

TEST(TokenBitmaskAllowed, WideIdsNeverAliasTheirLowBits) {
  // Every token allowed (word -1): only ids in [0, 32) are allowed; 2^32 + 5, 2^40 + 5,
  // 2^31 + 5 and the int64 extremes are not. Narrowed to int32 the first two would alias 5.
  const std::int64_t k31 = std::int64_t{1} << 31, k32 = std::int64_t{1} << 32, k40 = std::int64_t{1} << 40;
  const std::vector<std::int64_t> ids = {5, k32 + 5, k40 + 5, k31 + 5, std::numeric_limits<std::int64_t>::min(),
                                         std::numeric_limits<std::int64_t>::max(), 31, 32};
  Case c;
  c.id = "wide";
  c.stage = "token_bitmask_allowed";
  c.inputs = {{"bitmask", I32Tensor({1, 1}, {-1})}, {"token_ids", I64Tensor({1, 8}, ids)}};
  auto out = RunReference(c.stage, "canonical", c.inputs);
  EXPECT_EQ(Flags(out.at("allowed")), (std::vector<std::uint8_t>{1, 0, 0, 0, 0, 0, 1, 0}));
  // The planted fault: 2^32 + 5 -> 5 and 2^40 + 5 -> 5 (allowed); 2^31 + 5 -> -2^31 + 5
  // (negative: no); INT64_MIN -> 0 (allowed); INT64_MAX -> -1 (no).
  auto wrong = statistical::MakeWrongSampler("bitmask_id_narrowed_i32")->Run(c.stage, c);
  EXPECT_EQ(Flags(wrong.at("allowed")), (std::vector<std::uint8_t>{1, 1, 1, 0, 1, 0, 1, 0}));
}

TEST(TokenBitmaskAllowed, VocabSizeBelowTheMaskWidth) {
  // Word 1 all ones, vocab_size 40: 39 allowed, 40 and 63 not (their bits are padding).
  auto out = RunReference("token_bitmask_allowed", "canonical",
                          {{"bitmask", I32Tensor({1, 2}, {0, -1})}, {"token_ids", I64Tensor({1, 3}, {39, 40, 63})}},
                          {{"vocab_size", 40}});
  EXPECT_EQ(Flags(out.at("allowed")), (std::vector<std::uint8_t>{1, 0, 0}));
}

TEST(TokenBitmaskAllowed, RejectsMalformedInputs) {
  const TensorMap base = {{"bitmask", I32Tensor({2, 1}, {0, -1})}, {"token_ids", I64Tensor({2, 1}, {0, 1})}};
  EXPECT_THROW(RunReference("token_bitmask_allowed", "canonical", base, {{"vocab_size", 33}}), std::invalid_argument);
  EXPECT_THROW(RunReference("token_bitmask_allowed", "canonical", base, {{"vocab_size", -1}}), std::invalid_argument);
  auto rows = base;
  rows["token_ids"] = I64Tensor({1, 2}, {0, 1});
  EXPECT_THROW(RunReference("token_bitmask_allowed", "canonical", rows), std::invalid_argument);
  auto narrow = base;
  narrow["token_ids"] = I32Tensor({2, 1}, {0, 1});  // ids are i64
  EXPECT_THROW(RunReference("token_bitmask_allowed", "canonical", narrow), std::invalid_argument);
}

// Agrees with the layout rule for any word and any int64 id.
RC_GTEST_PROP(TokenBitmaskAllowed, FollowsTheLayoutForAnyId, (std::int32_t w0, std::int32_t w1, std::int64_t id)) {
  auto out = RunReference("token_bitmask_allowed", "canonical",
                          {{"bitmask", I32Tensor({1, 2}, {w0, w1})}, {"token_ids", I64Tensor({1, 1}, {id})}});
  const std::uint64_t words = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(w1)) << 32) | static_cast<std::uint32_t>(w0);
  const bool expected = id >= 0 && id < 64 && ((words >> id) & 1u) != 0;
  RC_ASSERT(out.at("allowed").data<std::uint8_t>()[0] == (expected ? 1 : 0));
}

}  // namespace
}  // namespace sampcheck::testing
