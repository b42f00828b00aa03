// SPDX-License-Identifier: Apache-2.0
// Tests of a-priori pooling (statistical/pooling.h, docs/method.md "Omnibus statistic and
// pooling"). Expected bins are worked out by hand from the rule in the header.
#include "statistical/pooling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace sampcheck::statistical {
namespace {

std::vector<std::vector<std::int64_t>> Tokens(const std::vector<Bin>& bins) {
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& b : bins) out.push_back(b.tokens);
  return out;
}

TEST(Pooling, HeaderExampleMergesShortLastPoolIntoSmallestSingleBin) {
  // E = 50, 30, 10, 6, 4 with E_min = 5: token 4 is short and there is no pool -> {3, 4}.
  const std::vector<double> p = {0.5, 0.3, 0.1, 0.06, 0.04};
  auto bins = PoolCategories(p, 100, 5);
  EXPECT_EQ(Tokens(bins), (std::vector<std::vector<std::int64_t>>{{0}, {1}, {2}, {3, 4}}));
  EXPECT_DOUBLE_EQ(bins[3].expected, 10.0);
}

TEST(Pooling, SmallTokensPoolInDescendingOrderTiesByLowerId) {
  // n = 100, E_min = 5. E: t0 = 60, t1..t8 = 4 each (ties: ids ascending), t9 = 8.
  // Singles: t0 (60), t9 (8). Pools: {1, 2} = 8, {3, 4} = 8, {5, 6} = 8, {7, 8} = 8.
  std::vector<double> p = {0.6, 0.04, 0.04, 0.04, 0.04, 0.04, 0.04, 0.04, 0.04, 0.08};
  auto bins = PoolCategories(p, 100, 5);
  EXPECT_EQ(Tokens(bins),
            (std::vector<std::vector<std::int64_t>>{{0}, {9}, {1, 2}, {3, 4}, {5, 6}, {7, 8}}));
}

TEST(Pooling, ShortLastPoolJoinsThePreviousPool) {
  // E: t0 = 50, t1 = t2 = 3, t3 = 2 (E_min 5): {1, 2} = 6 closes; {3} = 2 is short -> {1, 2, 3}.
  auto bins = PoolCategories(std::vector<double>{0.5, 0.03, 0.03, 0.02}, 100, 5);
  EXPECT_EQ(Tokens(bins), (std::vector<std::vector<std::int64_t>>{{0}, {1, 2, 3}}));
}

TEST(Pooling, ZeroProbabilityTokensAreInNoBinAndTinyTotalsMakeOneBin) {
  auto bins = PoolCategories(std::vector<double>{0.0, 0.5, 0.5}, 4, 5);  // E = 2, 2: total 4 < 5
  EXPECT_EQ(Tokens(bins), (std::vector<std::vector<std::int64_t>>{{1, 2}}));
  EXPECT_THROW(PoolCategories(std::vector<double>{0.0, 0.0}, 10, 5), std::invalid_argument);
  EXPECT_THROW(PoolCategories(std::vector<double>{-0.1, 1.1}, 10, 5), std::invalid_argument);
  EXPECT_THROW(PoolCategories(std::vector<double>{1.0}, 0, 5), std::invalid_argument);
}

// Every token with p > 0 lands in exactly one bin; every bin but possibly a lone one reaches
// E_min; expected counts add up to n * sum(p).
RC_GTEST_PROP(Pooling, PartitionsThePositiveTokens, (std::vector<std::uint16_t> weights, std::uint16_t n_raw)) {
  RC_PRE(std::any_of(weights.begin(), weights.end(), [](auto w) { return w > 0; }));
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<double> p;
  for (auto w : weights) p.push_back(w / total);
  const double n = 1 + n_raw;
  auto bins = PoolCategories(p, n, 5);
  std::vector<int> seen(p.size(), 0);
  double expected = 0;
  for (const auto& b : bins) {
    for (auto t : b.tokens) ++seen[static_cast<std::size_t>(t)];
    expected += b.expected;
    if (bins.size() > 1) RC_ASSERT(b.expected >= 5 * (1 - 1e-12));
  }
  for (std::size_t t = 0; t < p.size(); ++t) RC_ASSERT(seen[t] == (p[t] > 0 ? 1 : 0));
  RC_ASSERT(std::abs(expected - n) <= 1e-9 * n);
}

}  // namespace
}  // namespace sampcheck::statistical
