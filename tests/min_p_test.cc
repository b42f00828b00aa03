// SPDX-License-Identifier: Apache-2.0
// Tests of min_p (reference/min_p.h, docs/spec/filters.md#min_p).
#include "reference/min_p.h"

#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/filter_test_rows.h"
#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> MinP(Profile profile, std::vector<float> row, float m) {
  reference::MinPRow(profile, row, m);
  return row;
}

TEST(MinP, ThresholdIsMaxProbTimesMinP) {
  // max 0.5: m = 0.5 -> 0.25 keeps {0.5, 0.25}; m = 0.25 -> 0.125 keeps all (>=);
  // m = 0.26 -> 0.13 keeps two.
  for (Profile p : kFilterProfiles) {
    EXPECT_EQ(MinP(p, kDyadic, 0.5f), (std::vector<float>{0.0f, -kLn2F, -kInf, -kInf})) << ProfileName(p);
    EXPECT_EQ(MinP(p, kDyadic, 0.25f), kDyadic) << ProfileName(p);
    EXPECT_EQ(MinP(p, kDyadic, 0.26f), (std::vector<float>{0.0f, -kLn2F, -kInf, -kInf})) << ProfileName(p);
  }
}

// Expected rows derived by hand from filters.md "Degenerate rows": a NaN or +inf logit makes
// the softmax NaN everywhere; vLLM's `probs < amax(probs) * min_p` and SGLang's `probs_sort <
// probs_sort[:, 0] * min_ps` are false against a NaN threshold, so nothing is masked;
// FlashInfer's pivot is max_val * p with an fmaxf maximum of 0 over NaN probabilities, and
// `probs >= pivot` is false for every NaN: nothing is kept (m > 0).
TEST(MinP, DegenerateRowsPerProfile) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Row {
    int line;
    std::vector<float> in;
    float m;
    bool flashinfer_empty;
  };
  const Row rows[] = {
      {__LINE__, {1, nan, 3}, 0.1f, true},
      {__LINE__, {0, kInf, 2}, 1.0f, true},
      {__LINE__, {kInf, 1, nan, kInf}, 3.0f, true},
      {__LINE__, {nan, nan}, 0.5f, true},
      {__LINE__, {1, nan, 3}, 0.0f, false},  // m <= 0: disabled in every profile
      {__LINE__, {kInf, -kInf}, -1.0f, false},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE("line " + std::to_string(r.line));
    for (Profile p : kFilterProfiles) {
      std::vector<float> row = r.in;
      ASSERT_TRUE(reference::MinPDegenerateRow(p, row, r.m)) << ProfileName(p);
      const bool empty = p == Profile::kFlashinfer && r.flashinfer_empty;
      EXPECT_EQ(FloatBitsOf(row), FloatBitsOf(empty ? std::vector<float>(r.in.size(), -kInf) : r.in))
          << ProfileName(p);
    }
  }
  std::vector<float> healthy = {1, -kInf, 3};
  EXPECT_FALSE(reference::MinPDegenerateRow(Profile::kFlashinfer, healthy, 0.5f));
  EXPECT_EQ(healthy, (std::vector<float>{1, -kInf, 3}));
}

TEST(MinP, StageAcceptsNanAndInfinityRowByRow) {
  // The dyadic row beside a +inf row is filtered as alone: m = 0.5 gives threshold 0.25 and
  // keeps {0, 1} (ThresholdIsMaxProbTimesMinP); the +inf row stays as it is.
  std::vector<float> logits = {0, kInf, 1, -kInf};
  logits.insert(logits.end(), kDyadic.begin(), kDyadic.end());
  const TensorMap out = RunReference("min_p", "canonical",
                                     {{"logits", F32Tensor({2, 4}, logits)}, {"min_p", F32Tensor({2}, {0.5f, 0.5f})}});
  EXPECT_EQ(FloatBits(out.at("logits")), (std::vector<std::uint32_t>{Bits(0.0f), Bits(kInf), Bits(1.0f), Bits(-kInf),
                                                                     Bits(kDyadic[0]), Bits(kDyadic[1]), Bits(-kInf),
                                                                     Bits(-kInf)}));
}

TEST(MinP, OutOfRangeValues) {
  const std::vector<float> tied = {1.0f, 1.0f, 0.0f};
  for (Profile p : kFilterProfiles) {
    EXPECT_EQ(MinP(p, kDyadic, 0.0f), kDyadic) << ProfileName(p);
    EXPECT_EQ(MinP(p, kDyadic, -1.0f), kDyadic) << ProfileName(p);
  }
  // m >= 1: the tokens tied with the maximum, except ascend_v2, which keeps one token.
  EXPECT_EQ(MinP(Profile::kCanonical, tied, 3.0f), (std::vector<float>{1.0f, 1.0f, -kInf}));
  EXPECT_EQ(MinP(Profile::kAscendV2, tied, 1.0f), (std::vector<float>{1.0f, -kInf, -kInf}));
}

// Disabled is the identity, the maximum is never dropped, no logit is raised.
RC_GTEST_PROP(MinP, KeepsTheMaximumAndNeverRaises, ()) {
  const auto row = *FilterRows();
  const float m = *rc::gen::element(0.0f, 0.05f, 0.3f, 0.9f, 1.0f);
  for (Profile p : kFilterProfiles) {
    const auto out = MinP(p, row, m);
    float best = -kInf;
    for (float v : row) best = std::max(best, v);
    bool max_kept = false;
    for (std::size_t i = 0; i < row.size(); ++i) {
      RC_ASSERT(Bits(out[i]) == Bits(row[i]) || out[i] == -kInf);
      max_kept |= row[i] == best && out[i] == best;
    }
    RC_ASSERT(max_kept);
    if (m == 0.0f) RC_ASSERT(FloatBitsOf(out) == FloatBitsOf(row));
  }
}

// Idempotent. In exact arithmetic min-p compares e_i / s with m e_max / s, and s cancels, so
// dropping tokens (a smaller s) cannot change any decision. In f32 both sides are rounded
// after dividing by s, so a token within one rounding of the threshold could flip when s
// changes; rows of multiples of 1/8 with these m (the generator here) do not sit that close,
// which is what the property checks — it is a regression guard on the order of operations,
// not a proof for every input.
RC_GTEST_PROP(MinP, IsIdempotent, ()) {
  const auto row = *FilterRows();
  const float m = *rc::gen::element(0.05f, 0.3f, 0.5f, 0.9f, 1.0f);
  for (Profile p : kFilterProfiles) {
    const auto once = MinP(p, row, m);
    RC_ASSERT(FloatBitsOf(MinP(p, once, m)) == FloatBitsOf(once));
  }
}

}  // namespace
}  // namespace sampcheck::testing
