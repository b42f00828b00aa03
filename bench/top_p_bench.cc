// SPDX-License-Identifier: Apache-2.0
// top_p beside a naive full sort (bench/support/filter_bench.h). p = 0.9 (the value).
// Expected ratio: both compute the row's softmax (one exp per token); the reference then sorts
// a growing prefix (64, 512, 4096, ... keys) until the nucleus ends inside it, the naive
// baseline stable-sorts the whole row. The vllm profile needs the whole ascending order and
// radix-sorts all V keys (O(V)), so its ratio is higher than the others'. Measurements:
// bench/README.md.
#include "bench/support/filter_bench.h"
#include "reference/top_p.h"
#include "tests/support/naive_filters.h"

namespace {
constexpr float kP = 0.9f;
const int kRegistered = [] {
  sampcheck::bench::RegisterFilterBenchmarks(
      "TopP", [](sampcheck::Profile p, std::span<float> row) { sampcheck::reference::TopPRow(p, row, kP); },
      [](sampcheck::Profile p, std::span<float> row) { sampcheck::testing::NaiveTopP(p, row, kP); });
  return 0;
}();
}  // namespace
