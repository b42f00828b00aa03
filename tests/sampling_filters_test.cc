// SPDX-License-Identifier: Apache-2.0
// Tests of sampling_filters (reference/sampling_filters.h,
// docs/spec/filters.md#sampling_filters).
#include "reference/sampling_filters.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "reference/min_p.h"
#include "reference/softmax.h"
#include "reference/top_k.h"
#include "reference/top_p.h"
#include "tests/support/filter_test_rows.h"
#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

using reference::FilterParams;
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Filter(Profile profile, std::vector<float> row, FilterParams f) {
  if (!reference::SamplingFiltersDegenerateRow(profile, row, f)) reference::SamplingFiltersRow(profile, row, f);
  return row;
}

TEST(SamplingFilters, TopPReadsRenormalisedOrOriginalDistribution) {
  // Header example: top_k = 3, top_p = 0.75. canonical and ascend_v2 keep exactly 3; their
  // renormalised probs 4/7, 2/7, 1/7 give E = 0, 0.571, 0.857: the third is dropped. vllm and
  // flashinfer keep the tie at the k-th value (all 4: nothing is renormalised), and their top-p
  // rules drop both 0.125 tokens (E = 0.75). sglang reads the original E = 0, 0.5, 0.75 <= 0.75.
  const FilterParams f{3, 0.75f, 0.0f, "", 1024};
  EXPECT_EQ(Kept(Filter(Profile::kCanonical, kDyadic, f)), 2);
  EXPECT_EQ(Kept(Filter(Profile::kVllm, kDyadic, f)), 2);
  EXPECT_EQ(Kept(Filter(Profile::kAscendV2, kDyadic, f)), 2);
  EXPECT_EQ(Kept(Filter(Profile::kFlashinfer, kDyadic, f)), 2);
  EXPECT_EQ(Kept(Filter(Profile::kSglang, kDyadic, f)), 3);  // E = 0.75 <= 0.75
  // flashinfer joint: top-k keeps the tie at the k-th value (all 4); top-p on the original:
  // the 0.125 group has E = 0.75, not < 0.75: 2 kept.
  EXPECT_EQ(Kept(Filter(Profile::kFlashinfer, kDyadic, {3, 0.75f, 0.0f, "joint", 1024})), 2);
  // top_k = 2, top_p = 0.6 separates flashinfer's orders: top_k_first renormalises {0.5, 0.25}
  // to {2/3, 1/3}, whose second token has E = 0.667 >= 0.6 (1 kept); joint reads the original
  // E = 0.5 < 0.6 (2 kept).
  EXPECT_EQ(Kept(Filter(Profile::kFlashinfer, kDyadic, {2, 0.6f, 0.0f, "top_k_first", 1024})), 1);
  EXPECT_EQ(Kept(Filter(Profile::kFlashinfer, kDyadic, {2, 0.6f, 0.0f, "joint", 1024})), 2);
}

TEST(SamplingFilters, MinPBeforeOrAfterTopP) {
  // top_p = 0.6, min_p = 0.5. vllm runs min-p first on the full softmax: threshold
  // 0.5 * 0.5 = 0.25 keeps {0.5, 0.25}; top-p on the renormalised {2/3, 1/3}: the second
  // token's E = 0.667 >= 0.6 drops it: 1 kept. canonical runs top-p first on the original:
  // E = 0, 0.5 < 0.6 keep two; min-p on the renormalised pair: e = {1, 0.5}, s = 1.5,
  // probs {0.6666667, 0.33333334}, threshold 0.6666667 * 0.5 = 0.33333334 (exact halving),
  // and 0.33333334 >= it: 2 kept. (Min-p and top-k commute in exact arithmetic, so only
  // top-p shows the order.)
  EXPECT_EQ(Kept(Filter(Profile::kVllm, kDyadic, {0, 0.6f, 0.5f, "", 1024})), 1);
  EXPECT_EQ(Kept(Filter(Profile::kCanonical, kDyadic, {0, 0.6f, 0.5f, "", 1024})), 2);
  EXPECT_EQ(Kept(Filter(Profile::kAscendV2, kDyadic, {0, 0.6f, 0.5f, "", 1024})), 2);
}

TEST(SamplingFilters, OutputsRenormalisedProbabilities) {
  // top_k = 2 keeps e = {1, 0.5}: s = 1.5, probs 1/1.5 = 0x3F2AAAAB, 0.5/1.5 = 0x3EAAAAAB, 0, 0.
  auto out = RunReference("sampling_filters", "canonical",
                          {{"logits", F32Tensor({1, 4}, kDyadic)}, {"top_k", I32Tensor({1}, {2})}});
  EXPECT_EQ(FloatBits(out.at("probs")), (std::vector<std::uint32_t>{0x3F2AAAABu, 0x3EAAAAABu, 0u, 0u}));
  EXPECT_EQ(Floats(out.at("logits")), (std::vector<float>{0.0f, -kLn2F, -kInf, -kInf}));
}

// Expected rows derived by hand from filters.md "Degenerate rows" (each filter's rule in the
// profile's order; the single stages' rules are tested in top_k_test, top_p_test, min_p_test).
TEST(SamplingFilters, DegenerateRowsPerProfile) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float I = -kInf;
  const std::vector<float> a = {1, nan, 3, 2};
  // k = 2, p = 0.5: top-k keeps the NaN (ranked first) and 3, or under vllm the NaN and every
  // value >= 3; top-p leaves the still degenerate row. flashinfer top_k_first: top-k drops the
  // NaN and keeps the 1 number left, {3}, a healthy row whose top-p at 0.5 keeps it (E = 0);
  // joint: top-p's set on the original degenerate row is empty at p < 1.
  const FilterParams f = {2, 0.5f, 0.0f, "", 1024};
  for (Profile p : {Profile::kCanonical, Profile::kVllm, Profile::kSglang, Profile::kAscendV2}) {
    EXPECT_EQ(FloatBitsOf(Filter(p, a, f)), FloatBitsOf({I, nan, 3, I})) << ProfileName(p);
  }
  EXPECT_EQ(FloatBitsOf(Filter(Profile::kFlashinfer, a, f)), FloatBitsOf({I, I, 3, I}));
  EXPECT_EQ(FloatBitsOf(Filter(Profile::kFlashinfer, a, {2, 0.5f, 0.0f, "joint", 1024})), FloatBitsOf({I, I, I, I}));
  // {0, +inf, 2}, top-k off, p = 1, m = 0.5: unchanged, except flashinfer (either order), whose
  // min-p at m > 0 keeps nothing of a row holding +inf.
  const std::vector<float> b = {0, kInf, 2};
  for (Profile p : {Profile::kCanonical, Profile::kVllm, Profile::kSglang, Profile::kAscendV2}) {
    EXPECT_EQ(FloatBitsOf(Filter(p, b, {0, 1.0f, 0.5f, "", 1024})), FloatBitsOf(b)) << ProfileName(p);
  }
  EXPECT_EQ(FloatBitsOf(Filter(Profile::kFlashinfer, b, {0, 1.0f, 0.5f, "", 1024})), FloatBitsOf({I, I, I}));
  EXPECT_EQ(FloatBitsOf(Filter(Profile::kFlashinfer, b, {0, 1.0f, 0.5f, "joint", 1024})), FloatBitsOf({I, I, I}));
  // The stage: probs of a row still holding a NaN are NaN (softmax.md "Edge rows"); of
  // flashinfer's {3} alone, (0, 0, 1, 0).
  auto out = RunReference("sampling_filters", "canonical",
                          {{"logits", F32Tensor({1, 4}, a)}, {"top_k", I32Tensor({1}, {2})}, {"top_p", F32Tensor({1}, {0.5f})}});
  for (float v : Floats(out.at("probs"))) EXPECT_TRUE(std::isnan(v));
  out = RunReference("sampling_filters", "flashinfer",
                     {{"logits", F32Tensor({1, 4}, a)}, {"top_k", I32Tensor({1}, {2})}, {"top_p", F32Tensor({1}, {0.5f})}});
  EXPECT_EQ(Floats(out.at("probs")), (std::vector<float>{0, 0, 1, 0}));
}

TEST(SamplingFilters, RejectsOrdersTheProfileLacks) {
  EXPECT_THROW(Filter(Profile::kCanonical, kDyadic, {0, 1.0f, 0.0f, "joint", 1024}), std::invalid_argument);
  EXPECT_THROW(Filter(Profile::kVllm, kDyadic, {0, 1.0f, 0.0f, "top_k_first", 1024}), std::invalid_argument);
  EXPECT_NO_THROW(Filter(Profile::kFlashinfer, kDyadic, {0, 1.0f, 0.0f, "top_k_first", 1024}));
  // The stage checks the order before any row, so an empty batch is refused too, and the
  // message names the stage and the case.
  try {
    RunReference("sampling_filters", "vllm", {{"logits", F32Tensor({0, 4}, {})}}, {{"order", "joint"}});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sampling_filters (case"), std::string::npos) << e.what();
  }
}

// Disabled parameters are the identity; the kept set is a subset of the single filter that
// reads the same distribution first in the profile's order (top_k for canonical, sglang,
// ascend_v2, flashinfer; min_p for vllm) and, for sglang's joint order, of every single
// filter on the original row.
RC_GTEST_PROP(SamplingFilters, DisabledIsIdentityAndKeptSetsNest, ()) {
  const auto row = *FilterRows();
  const auto v = static_cast<std::int64_t>(row.size());
  const FilterParams f{*rc::gen::inRange<std::int64_t>(1, v + 1), *rc::gen::element(0.3f, 0.8f, 1.0f),
                       *rc::gen::element(0.0f, 0.1f, 0.5f), "", 1024};
  auto subset = [&](const std::vector<float>& a, const std::vector<float>& b) {  // kept(a) ⊆ kept(b)
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] != -kInf && b[i] == -kInf) return false;
    }
    return true;
  };
  for (Profile p : kFilterProfiles) {
    RC_ASSERT(FloatBitsOf(Filter(p, row, {0, 1.0f, 0.0f, "", 1024})) == FloatBitsOf(row));
    const auto out = Filter(p, row, f);
    auto k_only = row, p_only = row, m_only = row;
    reference::TopKRow(p, k_only, f.top_k);
    reference::TopPRow(p, p_only, f.top_p);
    reference::MinPRow(p, m_only, f.min_p);
    RC_ASSERT(subset(out, p == Profile::kVllm ? m_only : k_only));
    if (p == Profile::kSglang) RC_ASSERT(subset(out, k_only) && subset(out, p_only) && subset(out, m_only));
  }
}

// The joint orders equal the literal intersection of the single filters on the original row
// (the reference walks top-p only over top-k's prefix; this is the naive form).
RC_GTEST_PROP(SamplingFilters, JointEqualsIntersectionOfSingleFilters, ()) {
  const auto row = *FilterRows();
  const auto v = static_cast<std::int64_t>(row.size());
  const FilterParams f{*rc::gen::inRange<std::int64_t>(0, v + 1), *rc::gen::element(0.0f, 0.3f, 0.8f, 1.0f),
                       *rc::gen::element(0.0f, 0.1f, 0.5f), "joint", 1024};
  for (Profile p : {Profile::kSglang, Profile::kFlashinfer}) {
    auto k_only = row, p_only = row;
    reference::TopKRow(p, k_only, f.top_k);
    reference::TopPRow(p, p_only, f.top_p);
    std::vector<float> expected = row;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (k_only[i] == -kInf || p_only[i] == -kInf) expected[i] = -kInf;
    }
    if (p == Profile::kSglang) {
      std::vector<float> probs(row.size());
      reference::SoftmaxRow(row, probs);
      reference::MinPRowFromProbs(p, expected, probs, f.min_p);
    } else {
      reference::MinPRow(p, expected, f.min_p);
    }
    RC_ASSERT(FloatBitsOf(Filter(p, row, f)) == FloatBitsOf(expected));
  }
}

}  // namespace
}  // namespace sampcheck::testing
