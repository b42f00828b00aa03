// SPDX-License-Identifier: Apache-2.0
// min_p beside a naive version that finds the largest probability by fully sorting the row
// (bench/support/filter_bench.h). min_p = 0.1. Expected ratio: the reference needs no order
// at all (softmax, one max, one comparison pass), so it is the softmax's cost against the
// softmax plus a full sort. Measurements: bench/README.md.
#include <limits>

#include "bench/support/filter_bench.h"
#include "reference/min_p.h"
#include "reference/softmax.h"
#include "tests/support/naive_filters.h"

namespace {
constexpr float kMinP = 0.1f;

void NaiveMinP(sampcheck::Profile /*profile*/, std::span<float> row) {
  std::vector<float> probs(row.size());
  sampcheck::reference::SoftmaxRow(row, probs);
  const auto order = sampcheck::testing::NaiveOrder(row);
  const float threshold = probs[static_cast<std::size_t>(order[0])] * kMinP;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (!(probs[i] >= threshold)) row[i] = -std::numeric_limits<float>::infinity();
  }
}

const int kRegistered = [] {
  sampcheck::bench::RegisterFilterBenchmarks(
      "MinP", [](sampcheck::Profile p, std::span<float> row) { sampcheck::reference::MinPRow(p, row, kMinP); },
      NaiveMinP);
  return 0;
}();
}  // namespace
