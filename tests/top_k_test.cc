// SPDX-License-Identifier: Apache-2.0
// Tests of top_k (reference/top_k.h, docs/spec/filters.md#top_k).
#include "reference/top_k.h"

#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "golden/case_random.h"
#include "tests/support/filter_test_rows.h"
#include "tests/support/naive_filters.h"
#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> TopK(Profile profile, std::vector<float> row, std::int64_t k, std::int64_t ks_max = 1024) {
  reference::TopKRow(profile, row, k, ks_max);
  return row;
}

TEST(TopK, TiesAtTheKthValuePerProfile) {
  // {1, 3, 3, 2}, k = 1 (header example): exactly-k profiles keep index 1 (lower of the tie);
  // vLLM's `logits < kth` mask and FlashInfer's "fewer than k strictly greater" keep both 3s.
  const std::vector<float> row = {1, 3, 3, 2};
  for (Profile p : {Profile::kCanonical, Profile::kSglang, Profile::kAscendV2}) {
    EXPECT_EQ(TopK(p, row, 1), (std::vector<float>{-kInf, 3, -kInf, -kInf})) << ProfileName(p);
  }
  for (Profile p : {Profile::kVllm, Profile::kFlashinfer}) {
    EXPECT_EQ(TopK(p, row, 1), (std::vector<float>{-kInf, 3, 3, -kInf})) << ProfileName(p);
  }
}

TEST(TopK, DisabledValuesPerProfile) {
  const std::vector<float> row = {1, 3, 2};
  for (Profile p : kFilterProfiles) {
    EXPECT_EQ(TopK(p, row, 0), row) << ProfileName(p);
    EXPECT_EQ(TopK(p, row, -1), row) << ProfileName(p);
    EXPECT_EQ(TopK(p, row, 3), row) << ProfileName(p);  // k >= V
  }
  // Ascend: ks_max 1 rounds up to 8, so k = 2 <= min(V, 8) filters; ks_max outside
  // [1, 1024] is refused by the stage.
  EXPECT_EQ(TopK(Profile::kAscendV2, row, 2, 1), (std::vector<float>{-kInf, 3, 2}));
  for (int ks_max : {0, 1025}) {
    EXPECT_THROW(RunReference("top_k", "ascend_v2", {{"logits", F32Tensor({1, 3}, row)}, {"top_k", I32Tensor({1}, {2})}},
                              {{"ks_max", ks_max}}),
                 std::invalid_argument);
  }
  std::vector<float> wide(2000, 0.0f);
  wide[1999] = 1.0f;
  EXPECT_EQ(TopK(Profile::kAscendV2, wide, 1025), wide);  // above the 1024 cap: all kept
}

TEST(TopK, ZerosTieAndMinusInfinityComesLast) {
  // -0.0 and +0.0 are equal: k = 1 keeps index 0; kept entries keep their bits.
  EXPECT_EQ(FloatBitsOf(TopK(Profile::kCanonical, {-0.0f, 0.0f, -kInf}, 1)),
            (std::vector<std::uint32_t>{0x80000000u, Bits(-kInf), Bits(-kInf)}));
  EXPECT_EQ(TopK(Profile::kVllm, {-kInf, -kInf, 1.0f}, 2), (std::vector<float>{-kInf, -kInf, 1.0f}));
}

// Expected rows derived by hand from filters.md "Degenerate rows" (the peers' rules: torch's
// order ranks every NaN first and vLLM's `logits < kth` never masks one; FlashInfer's
// RadixTopKTraits<float>::ToOrdered ranks a sign-clear NaN above +inf, a sign-set one below
// -inf, and `logits >= pivot` keeps no NaN). Compared as bits: NaN != NaN.
TEST(TopK, DegenerateRowsPerProfile) {
  const float nan = std::numeric_limits<float>::quiet_NaN();  // 0x7fc00000, sign clear
  const float neg_nan = -nan;                                  // 0xffc00000, sign set
  const float I = -kInf;
  struct Row {
    int line;
    std::vector<float> in;
    std::int64_t k;
    std::vector<float> exactly_k, vllm, flashinfer;
  };
  // Row {1, NaN, 3, 2, +inf, -inf}: torch's order NaN, +inf, 3, 2, 1, -inf.
  const std::vector<float> a = {1, nan, 3, 2, kInf, -kInf};
  const Row rows[] = {
      // k = 1: the NaN alone; vLLM's k-th value is the NaN, so nothing is masked; FlashInfer's
      // pivot is the NaN, so nothing is kept.
      {__LINE__, a, 1, {I, nan, I, I, I, I}, a, {I, I, I, I, I, I}},
      // k = 2: NaN and +inf; FlashInfer drops the NaN and keeps the 1 number left: +inf.
      {__LINE__, a, 2, {I, nan, I, I, kInf, I}, {I, nan, I, I, kInf, I}, {I, I, I, I, kInf, I}},
      // k = 3: NaN, +inf, 3; FlashInfer: +inf and 3.
      {__LINE__, a, 3, {I, nan, 3, I, kInf, I}, {I, nan, 3, I, kInf, I}, {I, I, 3, I, kInf, I}},
      // k = 0 and k = V: disabled, the row unchanged (NaN included) everywhere.
      {__LINE__, a, 0, a, a, a},
      {__LINE__, a, 6, a, a, a},
      // Sign-set NaN, k = 3 of V = 4: torch ranks it first (NaN, 3, 2); FlashInfer ranks it
      // last, k = 3 <= V - 1 keeps the three numbers and drops the NaN.
      {__LINE__, {1, neg_nan, 3, 2}, 3, {I, neg_nan, 3, 2}, {I, neg_nan, 3, 2}, {1, I, 3, 2}},
      // Two sign-set NaNs, k = 3 > V - 2 = 2: FlashInfer's k-th key is a NaN, nothing kept;
      // torch: NaN, NaN, 2 (vLLM's k-th value 2: keeps 2 and both NaNs).
      {__LINE__, {neg_nan, neg_nan, 1, 2}, 3, {neg_nan, neg_nan, I, 2}, {neg_nan, neg_nan, I, 2}, {I, I, I, I}},
      // +inf twice, k = 1: the first +inf under exactly k, both as ties under vllm and flashinfer.
      {__LINE__, {0, kInf, 5, kInf}, 1, {I, kInf, I, I}, {I, kInf, I, kInf}, {I, kInf, I, kInf}},
      // Three NaNs, k = 2: exactly k keeps the first two; vLLM nothing masked; FlashInfer nothing kept.
      {__LINE__, {nan, 4, nan, nan}, 2, {nan, I, nan, I}, {nan, 4, nan, nan}, {I, I, I, I}},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE("line " + std::to_string(r.line));
    for (Profile p : {Profile::kCanonical, Profile::kSglang, Profile::kAscendV2}) {
      EXPECT_EQ(FloatBitsOf(TopK(p, r.in, r.k)), FloatBitsOf(r.exactly_k)) << ProfileName(p);
    }
    EXPECT_EQ(FloatBitsOf(TopK(Profile::kVllm, r.in, r.k)), FloatBitsOf(r.vllm));
    EXPECT_EQ(FloatBitsOf(TopK(Profile::kFlashinfer, r.in, r.k)), FloatBitsOf(r.flashinfer));
  }
}

TEST(TopK, StageAcceptsNanAndInfinityRowByRow) {
  // A degenerate row is a row's result, not an input error; the healthy row beside it is
  // filtered as alone: {1, 3, 2}, k = 1 -> {-inf, 3, -inf}.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const TensorMap out = RunReference(
      "top_k", "canonical",
      {{"logits", F32Tensor({2, 3}, {nan, kInf, 1, 1, 3, 2})}, {"top_k", I32Tensor({2}, {1, 1})}});
  EXPECT_EQ(FloatBits(out.at("logits")),
            (std::vector<std::uint32_t>{Bits(nan), Bits(-kInf), Bits(-kInf), Bits(-kInf), Bits(3.0f), Bits(-kInf)}));
}

TEST(TopK, SelectionEqualsFullSortOnLargeVocabulary) {
  SplitMix64 rng(0x70B0);
  Tensor t = golden::RandomLogits(rng, 1, 151936, DType::kF32);
  const auto row = Floats(t);
  for (Profile p : kFilterProfiles) {
    for (std::int64_t k : {1, 50, 1000, 151935}) {
      std::vector<float> naive = row;
      NaiveTopK(p, naive, k);
      EXPECT_EQ(FloatBitsOf(TopK(p, row, k)), FloatBitsOf(naive)) << ProfileName(p) << " k = " << k;
    }
  }
}

RC_GTEST_PROP(TopK, EqualsNaiveFullSort, ()) {
  const auto row = *FilterRows();
  const auto k = *rc::gen::inRange<std::int64_t>(-1, static_cast<std::int64_t>(row.size()) + 2);
  for (Profile p : kFilterProfiles) {
    std::vector<float> naive = row;
    NaiveTopK(p, naive, k, 8);
    RC_ASSERT(FloatBitsOf(TopK(p, row, k, 8)) == FloatBitsOf(naive));
  }
}

// Keeps at least min(k, V) of the row's entries (exactly k for the exact-k profiles), never
// raises a logit, and is idempotent.
RC_GTEST_PROP(TopK, KeepsAtLeastKNeverRaisesAndIsIdempotent, ()) {
  const auto row = *FilterRows();
  const auto v = static_cast<std::int64_t>(row.size());
  const auto k = *rc::gen::inRange<std::int64_t>(1, v + 1);
  for (Profile p : kFilterProfiles) {
    const auto out = TopK(p, row, k);
    std::int64_t kept = 0;
    for (std::size_t i = 0; i < row.size(); ++i) {
      RC_ASSERT(Bits(out[i]) == Bits(row[i]) || out[i] == -kInf);
      kept += Bits(out[i]) == Bits(row[i]);
    }
    RC_ASSERT(kept >= std::min(k, v));
    RC_ASSERT(FloatBitsOf(TopK(p, out, k)) == FloatBitsOf(out));
  }
}

}  // namespace
}  // namespace sampcheck::testing
