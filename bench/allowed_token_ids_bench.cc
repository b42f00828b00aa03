// SPDX-License-Identifier: Apache-2.0
// allowed_token_ids (reference/allowed_token_ids.h): RunAllowedTokenIds on B = 64,
// V = 151936 f32 logits with 1000 allowed ids per row, beside a naive copy.
//
// Baseline (BM_AllowedTokenIdsBaseline): the plain one-pass copy of the row set into a buffer
// allocated before timing (bench_support.h CopyBaseline).
// Expected ratio: the input copy (~1x, BM_NanHandlingCanonical), then per row 1000 gathers
// of the kept values, one branch-free pass filling the row with -inf (write only), and 1000
// scattered stores restoring the kept values: about one baseline more, ~2x. Measured ratios
// are in bench/README.md.
#include <cstdint>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/allowed_token_ids.h"

namespace sampcheck::bench {
namespace {

// A constrained choice list (an enum-like schema or a restricted tool vocabulary).
constexpr std::int64_t kAllowed = 1000;

Case AllowedCase() {
  Tensor allowed(DType::kI32, {kRows, kAllowed});
  SplitMix64 rng(kSeedIds);
  auto all = allowed.data<std::int32_t>();
  for (std::int64_t b = 0; b < kRows; ++b) {
    const auto ids = DistinctIds(kAllowed, kVocab, rng);
    std::copy(ids.begin(), ids.end(), all.begin() + b * kAllowed);
  }
  return MakeCase("allowed_token_ids", "canonical",
                  {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)},
                   {"allowed_ids", std::move(allowed)}});
}

void BM_AllowedTokenIdsBaseline(benchmark::State& state) { CopyBaseline(state); }
SAMPCHECK_BENCHMARK(BM_AllowedTokenIdsBaseline);

void BM_AllowedTokenIdsCanonical(benchmark::State& state) {
  TimeStage(state, reference::RunAllowedTokenIds, AllowedCase(), Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_AllowedTokenIdsCanonical);

}  // namespace
}  // namespace sampcheck::bench
