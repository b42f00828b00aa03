// SPDX-License-Identifier: Apache-2.0
// Tests of spec_greedy (reference/spec_greedy.h, docs/spec/speculative.md#spec_greedy).
// Expected tokens are worked out by hand from the rule: emit argmax a_i; stop at the first
// draft != a_i or after the bonus a_n.
#include <algorithm>
#include <limits>
#include <span>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

struct GreedyResult {
  std::vector<std::int64_t> emitted;
  std::vector<std::int64_t> accepted;
};

GreedyResult SpecGreedy(Shape draft_shape, const std::vector<std::int32_t>& drafts, Shape target_shape,
                        const std::vector<float>& target) {
  const TensorMap out = RunReference("spec_greedy", "canonical",
                                     {{"draft_ids", I32Tensor(std::move(draft_shape), drafts)},
                                      {"target_logits", Tensor::FromValues(DType::kF32, std::move(target_shape), target)}});
  auto e = out.at("emitted").data<std::int64_t>();
  auto a = out.at("num_accepted").data<std::int64_t>();
  return {{e.begin(), e.end()}, {a.begin(), a.end()}};
}

TEST(SpecGreedy, HeaderExample) {
  // drafts {5, 2}, argmaxes {5, 7, 1} -> {5, 7, -1}, 1 accepted. V = 8.
  std::vector<float> t(3 * 8, 0.0f);
  t[0 * 8 + 5] = 1;
  t[1 * 8 + 7] = 1;
  t[2 * 8 + 1] = 1;
  const auto r = SpecGreedy({1, 2}, {5, 2}, {1, 3, 8}, t);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{5, 7, -1}));
  EXPECT_EQ(r.accepted, (std::vector<std::int64_t>{1}));
}

TEST(SpecGreedy, EveryExitOfTheLoop) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // V = 3, K = 2. Row 0: both accepted, bonus = argmax {1, 1, 0} = 0 (tie, lower index).
  // Row 1: first draft rejected (argmax 2). Row 2: one draft (then -1), accepted; the bonus is
  // position 1's argmax, position 2 is never read (holds NaN). Row 3: no drafts: argmax of
  // position 0 = first NaN = 1. Row 4: draft 2 vs {-inf, -inf, -inf} (argmax 0): rejected.
  const std::vector<float> t = {
      0, 9, 0,  0, 0, 9,  1, 1, 0,           // row 0, drafts 1 2
      0, 0, 9,  0, 0, 0,  0, 0, 0,           // row 1, drafts 1 2
      9, 0, 0,  0, 3, 0,  nan, nan, nan,     // row 2, drafts 0 -1
      0, nan, nan,  0, 0, 0,  0, 0, 0,       // row 3, no drafts
      -kInf, -kInf, -kInf,  0, 0, 0,  0, 0, 0};  // row 4, drafts 2 2
  const auto r = SpecGreedy({5, 2}, {1, 2, 1, 2, 0, -1, -1, -1, 2, 2}, {5, 3, 3}, t);
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{1, 2, 0,  2, -1, -1,  0, 1, -1,  1, -1, -1,  0, -1, -1}));
  EXPECT_EQ(r.accepted, (std::vector<std::int64_t>{2, 0, 1, 0, 0}));
}

TEST(SpecGreedy, NoDraftColumns) {
  // K = 0: emitted [B, 1] holds each row's argmax.
  const auto r = SpecGreedy({2, 0}, {}, {2, 1, 3}, {0, 1, 0, 2, 2, 1});
  EXPECT_EQ(r.emitted, (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(r.accepted, (std::vector<std::int64_t>{0, 0}));
}

TEST(SpecGreedy, RejectsBadDrafts) {
  // Padding before a token, an id >= V, -2, a target with K positions instead of K + 1.
  EXPECT_THROW(SpecGreedy({1, 2}, {-1, 0}, {1, 3, 3}, std::vector<float>(9, 0.0f)), std::invalid_argument);
  EXPECT_THROW(SpecGreedy({1, 1}, {3}, {1, 2, 3}, std::vector<float>(6, 0.0f)), std::invalid_argument);
  EXPECT_THROW(SpecGreedy({1, 1}, {-2}, {1, 2, 3}, std::vector<float>(6, 0.0f)), std::invalid_argument);
  EXPECT_THROW(SpecGreedy({1, 1}, {0}, {1, 1, 3}, std::vector<float>(3, 0.0f)), std::invalid_argument);
}

// When every draft equals its position's argmax, all are accepted and the bonus follows; the
// emitted prefix always equals the target argmaxes.
RC_GTEST_PROP(SpecGreedy, EmitsTheTargetArgmaxPrefix, ()) {
  const auto seeds = *rc::gen::container<std::vector<std::uint8_t>>(16, rc::gen::arbitrary<std::uint8_t>());
  const std::int64_t v = 4, k = 3;
  std::vector<float> t(static_cast<std::size_t>(k + 1) * v);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(seeds[i % seeds.size()] % 5);
  std::vector<std::int32_t> drafts;
  for (std::int64_t i = 0; i < k; ++i) drafts.push_back(static_cast<std::int32_t>(seeds[static_cast<std::size_t>(i)] % v));
  const auto r = SpecGreedy({1, k}, drafts, {1, k + 1, v}, t);
  const std::int64_t a = r.accepted[0];
  for (std::int64_t i = 0; i <= a; ++i) {
    const auto row = std::span<const float>(t).subspan(static_cast<std::size_t>(i * v), static_cast<std::size_t>(v));
    const auto best = std::max_element(row.begin(), row.end()) - row.begin();  // first maximum
    RC_ASSERT(r.emitted[static_cast<std::size_t>(i)] == best);
    if (i < a) RC_ASSERT(drafts[static_cast<std::size_t>(i)] == best);
  }
  if (a < k) RC_ASSERT(drafts[static_cast<std::size_t>(a)] != r.emitted[static_cast<std::size_t>(a)]);
  for (std::int64_t i = a + 1; i <= k; ++i) RC_ASSERT(r.emitted[static_cast<std::size_t>(i)] == -1);
}

}  // namespace
}  // namespace sampcheck::testing
