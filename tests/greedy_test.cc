// SPDX-License-Identifier: Apache-2.0
// Tests of greedy (reference/greedy.h, docs/spec/greedy.md). The rule is torch.argmax's
// comparator (aten/src/ATen/native/SharedReduceOps.h, GreaterOrNan): NaN wins, ties go to the
// lower index.
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/half.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<std::int64_t> Greedy(Tensor logits) {
  const TensorMap out = RunReference("greedy", "canonical", {{"logits", std::move(logits)}});
  auto t = out.at("token").data<std::int64_t>();
  return {t.begin(), t.end()};
}

TEST(Greedy, HeaderExamples) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // {1, 3, 3, -inf} -> 1; {-inf, -inf, -inf, -inf} -> 0; {5, NaN, 7, NaN} -> 1;
  // {-0.0, 0.0, -1, -0.0} -> 0 (zeros are equal); {inf, 2, inf, 1} -> 0.
  EXPECT_EQ(Greedy(F32Tensor({5, 4}, {1, 3, 3, -kInf, -kInf, -kInf, -kInf, -kInf, 5, nan, 7, nan,
                                      -0.0f, 0.0f, -1, -0.0f, kInf, 2, kInf, 1})),
            (std::vector<std::int64_t>{1, 0, 1, 0, 0}));
}

TEST(Greedy, UpcastsHalfPrecisionFirst) {
  // f16 {0x3C00 = 1.0, 0x4000 = 2.0, 0x3C00} -> 1; bf16 {0x3F80 = 1.0, 0xBF80 = -1.0} -> 0.
  EXPECT_EQ(Greedy(Tensor::FromValues<std::uint16_t>(DType::kF16, {1, 3}, {0x3C00, 0x4000, 0x3C00})),
            (std::vector<std::int64_t>{1}));
  EXPECT_EQ(Greedy(Tensor::FromValues<std::uint16_t>(DType::kBF16, {1, 2}, {0x3F80, 0xBF80})),
            (std::vector<std::int64_t>{0}));
}

TEST(Greedy, RejectsEmptyVocabularyAndIntegerLogits) {
  EXPECT_THROW(Greedy(Tensor(DType::kF32, {1, 0})), std::invalid_argument);
  EXPECT_THROW(Greedy(Tensor(DType::kI32, {1, 2})), std::invalid_argument);
}

// A row with a unique maximum returns it, wherever it is.
RC_GTEST_PROP(Greedy, ReturnsTheUniqueMaximum, (std::vector<std::int16_t> raw, std::uint16_t where)) {
  RC_PRE(!raw.empty());
  std::vector<float> row;
  for (auto v : raw) row.push_back(static_cast<float>(v));  // all below 32768
  const auto at = static_cast<std::size_t>(where % raw.size());
  row[at] = 40000.0f;
  RC_ASSERT(Greedy(F32Tensor({1, static_cast<std::int64_t>(row.size())}, row)) ==
            (std::vector<std::int64_t>{static_cast<std::int64_t>(at)}));
}

}  // namespace
}  // namespace sampcheck::testing
