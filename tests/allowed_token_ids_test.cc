// SPDX-License-Identifier: Apache-2.0
// Tests of allowed_token_ids (reference/allowed_token_ids.h,
// docs/spec/masks.md#allowed_token_ids).
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(AllowedTokenIds, MasksEverythingNotListed) {
  // Header example: {1, 2, 3, 4}, allowed {3, 1} -> {-inf, 2, -inf, 4}. Row 1 lists nothing:
  // unrestricted.
  auto out = RunReference("allowed_token_ids", "vllm",
                          {{"logits", F32Tensor({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})},
                           {"allowed_ids", I32Tensor({2, 2}, {3, 1, -1, -1})}});
  EXPECT_EQ(Floats(out.at("logits")), (std::vector<float>{-kInf, 2, -kInf, 4, 5, 6, 7, 8}));
}

TEST(AllowedTokenIds, AllowedNanAndInfinityAreKept) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto v = Floats(RunReference("allowed_token_ids", "canonical",
                               {{"logits", F32Tensor({1, 3}, {nan, kInf, nan})}, {"allowed_ids", I32Tensor({1, 3}, {0, 1, 1})}})
                      .at("logits"));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], kInf);
  EXPECT_EQ(v[2], -kInf);  // assignment, as masked_fill_: a NaN becomes -inf
}

TEST(AllowedTokenIds, RejectsOutOfVocabularyIds) {
  EXPECT_THROW(RunReference("allowed_token_ids", "vllm",
                            {{"logits", F32Tensor({1, 2}, {1, 2})}, {"allowed_ids", I32Tensor({1, 1}, {2})}}),
               std::invalid_argument);
}

// Never raises a logit; listed ids keep their bits.
RC_GTEST_PROP(AllowedTokenIds, NeverRaisesALogit, (std::vector<float> values, std::vector<std::uint16_t> picks)) {
  RC_PRE(!values.empty() && !picks.empty());
  const auto v = static_cast<std::int64_t>(values.size());
  std::vector<std::int32_t> ids;
  for (auto p : picks) ids.push_back(static_cast<std::int32_t>(p % v));
  Tensor logits = F32Tensor({1, v}, values);
  auto out = FloatBits(RunReference("allowed_token_ids", "vllm",
                                    {{"logits", logits}, {"allowed_ids", I32Tensor({1, static_cast<std::int64_t>(ids.size())}, ids)}})
                           .at("logits"));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool listed = std::find(ids.begin(), ids.end(), static_cast<std::int32_t>(i)) != ids.end();
    RC_ASSERT(out[i] == (listed ? Bits(values[i]) : Bits(-kInf)));
  }
}

}  // namespace
}  // namespace sampcheck::testing
