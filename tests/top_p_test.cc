// SPDX-License-Identifier: Apache-2.0
// Tests of top_p (reference/top_p.h, docs/spec/filters.md#top_p).
#include "reference/top_p.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "golden/case_random.h"
#include "reference/softmax.h"
#include "tests/support/filter_test_rows.h"
#include "tests/support/naive_filters.h"
#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> TopP(Profile profile, std::vector<float> row, float p) {
  reference::TopPRow(profile, row, p);
  return row;
}

TEST(TopP, BoundaryOfPeersMd) {
  // docs/peers.md: probs (0.5, 0.25, 0.125, 0.125), p = 0.75: vLLM and Ascend keep 2, SGLang 3.
  // Exclusive prefixes E = 0, 0.5, 0.75, 0.875 (exact). canonical/ascend: 0.75 < 0.75 fails at
  // the third token -> 2. sglang: 0.75 <= 0.75 keeps it -> 3. flashinfer: the two 0.125 tokens
  // form a group with E = 0.75, not < 0.75 -> 2. vllm: ascending cumsum 0.125, 0.25, 0.5, 1
  // against 1 - 0.75 = 0.25: the first two are <= 0.25 and dropped -> 2.
  EXPECT_EQ(Kept(TopP(Profile::kCanonical, kDyadic, 0.75f)), 2);
  EXPECT_EQ(Kept(TopP(Profile::kAscendV2, kDyadic, 0.75f)), 2);
  EXPECT_EQ(Kept(TopP(Profile::kVllm, kDyadic, 0.75f)), 2);
  EXPECT_EQ(Kept(TopP(Profile::kFlashinfer, kDyadic, 0.75f)), 2);
  EXPECT_EQ(TopP(Profile::kSglang, kDyadic, 0.75f), (std::vector<float>{0.0f, -kLn2F, -2 * kLn2F, -kInf}));
}

TEST(TopP, TieGroupsGoTogetherOnlyInFlashinfer) {
  // p = 0.8: E at the third token is 0.75 < 0.8, so it is kept; the fourth has E = 0.875.
  // flashinfer keeps the whole tie group {2, 3} (group E = 0.75 < 0.8).
  EXPECT_EQ(Kept(TopP(Profile::kCanonical, kDyadic, 0.8f)), 3);
  EXPECT_EQ(Kept(TopP(Profile::kFlashinfer, kDyadic, 0.8f)), 4);
  // vllm (apply_top_k_top_p_pytorch, vllm/v1/sample/ops/topk_topp_sampler.py @01fa3fe7):
  // `logits.sort(descending=False)` on the CPU is stable, so the tied pair {2, 3} comes in
  // index order: ascending 2, 3, 1, 0. probs_sum = cumsum = 0.125, 0.25, 0.5, 1;
  // `probs_sum <= 1 - p` with f32(1 - 0.8f) = 0.19999999 (0x3e4ccccc): 0.125 drops token 2,
  // 0.25 keeps token 3 -> {0, 1, 3}: the higher index of the tie survives.
  EXPECT_EQ(TopP(Profile::kVllm, kDyadic, 0.8f), (std::vector<float>{0.0f, -kLn2F, -kInf, -2 * kLn2F}));
}

TEST(TopP, SglangMasksAtPOneOnceTheSumPassesOne) {
  // SGLang's top_k_top_p_min_p_sampling_from_probs_torch (python/sglang/srt/layers/sampler.py):
  // probs_sum = cumsum(probs_sort); positions with (probs_sum - probs_sort) > top_p are zeroed,
  // for every row of a batch on that path, p = 1 included. Given sorted probs (f32)
  //   {0.5, 0.375, 0.125 + 3 * 2^-25, 2^-30}:
  //   sums 0.5, 0.875, fl(1 + 1.5 * 2^-24) = 1 + 2^-23 (0.75 ulp rounds up), fl(1 + 2^-23 + 2^-30)
  //   = 1 + 2^-23; sum - prob: 0, 0.5, fl(0.875 + 2^-25) = 0.875 (a tie, to even),
  //   fl(1 + 2^-23 - 2^-30) = 1 + 2^-23 > 1 -> position 3 is zeroed, 0..2 kept.
  const std::vector<float> row = {3.0f, 2.0f, 1.0f, 0.0f};  // the order 0, 1, 2, 3
  const std::vector<float> probs = {0.5f, 0.375f, 0.125f + 0x3p-25f, 0x1p-30f};
  EXPECT_EQ(reference::TopPKept(Profile::kSglang, row, probs, 1.0f, 4), (std::vector<std::int32_t>{0, 1, 2}));
  // With top-k's limit 3 the fourth position is not a candidate: the same three.
  EXPECT_EQ(reference::TopPKept(Profile::kSglang, row, probs, 1.0f, 3), (std::vector<std::int32_t>{0, 1, 2}));
  // SGLang's prefix is `probs_sum - probs_sort`, not a running exclusive sum: they part where
  // the sum crosses a binade. probs {0.5, 0.5 - 2^-24, 5 * 2^-25}, p = 1 - 2^-24 (0x3f7fffff):
  //   sums 0.5, 1 - 2^-24 (exact), fl(1 + 3 * 2^-25) = 1 + 2^-23 (0.75 ulp above 1 rounds up);
  //   at position 2: (1 + 2^-23) - 5 * 2^-25 = 1 - 2^-25, a tie between 1 - 2^-24 (odd) and 1
  //   (even) -> 1.0 > p: zeroed. The running exclusive sum there is 1 - 2^-24 <= p, which
  //   would have kept it.
  const std::vector<float> cross = {0.5f, 0.5f - 0x1p-24f, 0x5p-25f};
  const std::vector<float> three = {3.0f, 2.0f, 1.0f};
  EXPECT_EQ(reference::TopPKept(Profile::kSglang, three, cross, 1.0f - 0x1p-24f, 3), (std::vector<std::int32_t>{0, 1}));
  // canonical at p >= 1: the identity (TopPRow returns before any rule).
  EXPECT_EQ(TopP(Profile::kCanonical, {3.0f, 2.0f, 1.0f, 0.0f}, 1.0f), (std::vector<float>{3.0f, 2.0f, 1.0f, 0.0f}));
}

TEST(TopP, OutOfRangeP) {
  for (Profile p : kFilterProfiles) {
    EXPECT_EQ(TopP(p, kDyadic, 1.0f), kDyadic) << ProfileName(p);
    EXPECT_EQ(TopP(p, kDyadic, 2.0f), kDyadic) << ProfileName(p);
    EXPECT_EQ(Kept(TopP(p, kDyadic, 0.0f)), 1) << ProfileName(p);
    EXPECT_EQ(Kept(TopP(p, kDyadic, -1.0f)), 1) << ProfileName(p);
  }
  // flashinfer at p <= 0 keeps the first tie group: two equal maxima stay together.
  EXPECT_EQ(Kept(TopP(Profile::kFlashinfer, {1.0f, 1.0f, 0.0f}, 0.0f)), 2);
  EXPECT_EQ(Kept(TopP(Profile::kCanonical, {1.0f, 1.0f, 0.0f}, 0.0f)), 1);
  const std::vector<float> masked = {-kInf, -kInf};
  for (Profile p : kFilterProfiles) EXPECT_EQ(TopP(p, masked, 0.5f), masked) << ProfileName(p);
}

// Expected rows derived by hand from filters.md "Degenerate rows": a NaN or +inf logit makes
// the softmax NaN everywhere; torch's `probs_sum <= 1 - p` (vLLM) and `(probs_sum - probs_sort)
// > p` (SGLang) are false for NaN, so nothing is masked; FlashInfer's pivot search starts from
// an fmaxf maximum of 0 and keeps `prob > low`, false for every NaN: nothing is kept (p < 1).
TEST(TopP, DegenerateRowsPerProfile) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float I = -kInf;
  struct Row {
    int line;
    std::vector<float> in;
    float p;
    bool flashinfer_empty;
  };
  const Row rows[] = {
      {__LINE__, {1, nan, 3}, 0.5f, true},
      {__LINE__, {0, kInf, 2}, 0.9f, true},
      {__LINE__, {kInf, 1, nan, kInf}, 0.0f, true},
      {__LINE__, {nan, nan}, -1.0f, true},
      {__LINE__, {1, nan, 3}, 1.0f, false},  // p >= 1: disabled in every profile
      {__LINE__, {kInf, -kInf}, 2.0f, false},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE("line " + std::to_string(r.line));
    for (Profile p : kFilterProfiles) {
      std::vector<float> row = r.in;
      ASSERT_TRUE(reference::TopPDegenerateRow(p, row, r.p)) << ProfileName(p);
      const bool empty = p == Profile::kFlashinfer && r.flashinfer_empty;
      EXPECT_EQ(FloatBitsOf(row), FloatBitsOf(empty ? std::vector<float>(r.in.size(), I) : r.in)) << ProfileName(p);
    }
  }
  // A healthy row is not the degenerate rule's business (TopPRow's).
  std::vector<float> healthy = {1, -kInf, 3};
  EXPECT_FALSE(reference::TopPDegenerateRow(Profile::kFlashinfer, healthy, 0.5f));
  EXPECT_EQ(healthy, (std::vector<float>{1, -kInf, 3}));
}

TEST(TopP, StageAcceptsNanAndInfinityRowByRow) {
  // The dyadic row beside a NaN row is filtered as alone: p = 0.75 keeps {0, 1} under canonical
  // (BoundaryOfPeersMd); the NaN row stays as it is.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> logits = {nan, 1, kInf, 0};
  logits.insert(logits.end(), kDyadic.begin(), kDyadic.end());
  const TensorMap out = RunReference("top_p", "canonical",
                                     {{"logits", F32Tensor({2, 4}, logits)}, {"top_p", F32Tensor({2}, {0.75f, 0.75f})}});
  EXPECT_EQ(FloatBits(out.at("logits")), (std::vector<std::uint32_t>{Bits(nan), Bits(1.0f), Bits(kInf), Bits(0.0f),
                                                                     Bits(kDyadic[0]), Bits(kDyadic[1]), Bits(-kInf),
                                                                     Bits(-kInf)}));
}

TEST(TopP, SelectionEqualsFullSortOnLargeVocabulary) {
  SplitMix64 rng(0x70B1);
  Tensor t = golden::RandomLogits(rng, 1, 151936, DType::kF32);
  const auto row = Floats(t);
  for (Profile p : kFilterProfiles) {
    for (float top_p : {0.1f, 0.9f, 0.999f}) {
      std::vector<float> naive = row;
      NaiveTopP(p, naive, top_p);
      EXPECT_EQ(FloatBitsOf(TopP(p, row, top_p)), FloatBitsOf(naive)) << ProfileName(p) << " p = " << top_p;
    }
  }
}

RC_GTEST_PROP(TopP, EqualsNaiveFullSort, ()) {
  const auto row = *FilterRows();
  const float p = *rc::gen::element(0.0f, 0.1f, 0.25f, 0.5f, 0.75f, 0.9f, 0.99f, 1.0f);
  for (Profile prof : kFilterProfiles) {
    std::vector<float> naive = row;
    NaiveTopP(prof, naive, p);
    RC_ASSERT(FloatBitsOf(TopP(prof, row, p)) == FloatBitsOf(naive));
  }
}

// Never drops the maximum (vllm: the highest-index one of tied maxima), never raises a logit,
// and (canonical) keeps the smallest prefix
// whose mass reaches p: the kept mass without its last token is < p, and the kept mass
// reaches p unless everything is kept. Masses are summed in the order, as the rule does.
//
// Not a property: idempotence. Applying top-p again renormalises the survivors, which can
// shrink the nucleus: probs (0.5, 0.3, 0.2), p = 0.6 keeps 2; renormalised (0.625, 0.375),
// the second token's E = 0.625 >= 0.6 drops it.
RC_GTEST_PROP(TopP, KeepsTheMaximumAndTheSmallestSufficientPrefix, ()) {
  const auto row = *FilterRows();
  const float p = *rc::gen::element(0.1f, 0.5f, 0.75f, 0.9f);
  const auto order = NaiveOrder(row);
  // vllm's ascending walk ends at the highest index among the maxima (its stable ascending
  // sort keeps ties in index order) and always keeps that one; the prefix rules keep the first.
  std::size_t last_max = static_cast<std::size_t>(order[0]);
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (row[i] == row[last_max]) last_max = i;
  }
  for (Profile prof : kFilterProfiles) {
    const auto out = TopP(prof, row, p);
    const std::size_t kept_max = prof == Profile::kVllm ? last_max : static_cast<std::size_t>(order[0]);
    RC_ASSERT(Bits(out[kept_max]) == Bits(row[kept_max]));
    for (std::size_t i = 0; i < row.size(); ++i) RC_ASSERT(Bits(out[i]) == Bits(row[i]) || out[i] == -kInf);
  }
  if (std::isinf(row[static_cast<std::size_t>(order[0])])) return;
  std::vector<float> probs(row.size());
  reference::SoftmaxRow(row, probs);
  const auto out = TopP(Profile::kCanonical, row, p);
  float mass = 0.0f, before_last = 0.0f;
  std::size_t kept = 0;
  for (auto i : order) {
    if (out[static_cast<std::size_t>(i)] == -kInf && row[static_cast<std::size_t>(i)] != -kInf) break;
    before_last = mass;
    mass = mass + probs[static_cast<std::size_t>(i)];
    ++kept;
  }
  RC_ASSERT(before_last < p);
  RC_ASSERT(kept == row.size() || mass >= p);
}

}  // namespace
}  // namespace sampcheck::testing
