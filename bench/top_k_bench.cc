// SPDX-License-Identifier: Apache-2.0
// top_k beside a naive full sort (bench/support/filter_bench.h). k = 50 (the value).
// Expected ratio: the reference builds 64-bit keys and runs nth_element (O(V)), then sorts 50
// keys; the naive baseline stable-sorts all V indices (O(V log V)): well under 0.1 at
// V = 151936. Measurements: bench/README.md.
#include "bench/support/filter_bench.h"
#include "reference/top_k.h"
#include "tests/support/naive_filters.h"

namespace {
constexpr std::int64_t kK = 50;
const int kRegistered = [] {
  sampcheck::bench::RegisterFilterBenchmarks(
      "TopK", [](sampcheck::Profile p, std::span<float> row) { sampcheck::reference::TopKRow(p, row, kK); },
      [](sampcheck::Profile p, std::span<float> row) { sampcheck::testing::NaiveTopK(p, row, kK); });
  return 0;
}();
}  // namespace
