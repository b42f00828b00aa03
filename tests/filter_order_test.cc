// SPDX-License-Identifier: Apache-2.0
// Tests of the canonical order's selection (reference/filter_order.h, docs/spec/filters.md
// "Order" and "Selection instead of a full sort"): TopIndices(row, n) equals the first n
// entries of a naive stable full sort (tests/support/naive_filters.h, value descending, ties by
// index) for every n and row shape, in particular the running-threshold path taken when
// n <= 1024 and n * 64 <= V: ties at the threshold, both zeros, -inf, ascending rows (the
// threshold tightens on almost every block) and descending ones (it never does).
// Labels: unit property. False-failure budget: none (exact comparisons).
#include "reference/filter_order.h"

#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "golden/case_random.h"
#include "tests/support/naive_filters.h"

namespace sampcheck::testing {
namespace {

// One full sort per row, then every n (the sort dominates the test's time under ASan).
void ExpectPrefixesOfFullSort(const std::vector<float>& row, const char* what) {
  const std::vector<std::int32_t> full = NaiveOrder(row);
  for (std::int64_t n : {1, 2, 7, 50, 64, 1000, 1024, 1025, 3000}) {
    const std::vector<std::int32_t> want(full.begin(), full.begin() + std::min<std::int64_t>(n, static_cast<std::int64_t>(full.size())));
    ASSERT_EQ(reference::TopIndices(row, n), want) << what << " V " << row.size() << " n " << n;
  }
}

TEST(FilterOrder, TopIndicesEqualsFullSortPrefix) {
  golden::SplitMix64 rng(0x0D3E);
  const float inf = std::numeric_limits<float>::infinity();
  for (std::size_t vocab : {64u, 1000u, 4096u, 65536u, 151936u}) {
    std::vector<float> random(vocab), ties(vocab), ascending(vocab), descending(vocab), masked(vocab, -inf);
    for (std::size_t i = 0; i < vocab; ++i) {
      const std::uint64_t r = rng.Next();
      random[i] = static_cast<float>(static_cast<std::int64_t>(r % 100000) - 50000) * 0x1p-10f;
      ties[i] = static_cast<float>(r % 5) - 2.0f;  // a handful of values: huge tie groups
      if (r % 7 == 0) ties[i] = (r & 8) ? -0.0f : 0.0f;
      ascending[i] = static_cast<float>(i) * 0x1p-8f;
      descending[i] = -static_cast<float>(i);
      if (r % 50 == 0) masked[i] = static_cast<float>(r % 3);
    }
    ExpectPrefixesOfFullSort(random, "random");
    ExpectPrefixesOfFullSort(ties, "ties");
    ExpectPrefixesOfFullSort(ascending, "ascending");
    ExpectPrefixesOfFullSort(descending, "descending");
    ExpectPrefixesOfFullSort(masked, "masked");
  }
}

}  // namespace
}  // namespace sampcheck::testing
