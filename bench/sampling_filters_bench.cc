// SPDX-License-Identifier: Apache-2.0
// sampling_filters (top_k = 50, top_p = 0.9) beside the naive full-sort top-k followed by the
// naive full-sort top-p (bench/support/filter_bench.h). Expected ratio: like top_k's, since
// after top-k only 50 finite logits remain and top-p's prefix search stops at once.
// Measurements: bench/README.md.
#include "bench/support/filter_bench.h"
#include "reference/sampling_filters.h"
#include "tests/support/naive_filters.h"

namespace {
const int kRegistered = [] {
  sampcheck::bench::RegisterFilterBenchmarks(
      "SamplingFilters",
      [](sampcheck::Profile p, std::span<float> row) {
        sampcheck::reference::SamplingFiltersRow(p, row, {50, 0.9f, 0.0f, "", 1024});
      },
      [](sampcheck::Profile p, std::span<float> row) {
        sampcheck::testing::NaiveTopK(p, row, 50);
        sampcheck::testing::NaiveTopP(p, row, 0.9f);
      });
  return 0;
}();
}  // namespace
