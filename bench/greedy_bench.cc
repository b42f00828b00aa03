// SPDX-License-Identifier: Apache-2.0
// greedy (reference/greedy.h): RunGreedy on B = 64, V = 151936 f32 logits beside a naive
// argmax.
//
// Baseline (BM_GreedyBaseline): a plain first-maximum argmax of each row, `if (v > best)`,
// reading the logits in place — one read pass, B outputs, no NaN rule. Expected ratio: the
// reference does the same single read pass, but RunGreedy first copies the logits into a
// fresh, uninitialised f32 tensor (StageInputs::Logits), one more read and write of the row
// set; the NaN test per element adds a compare. RunGreedy now reads f32 logits in place (no
// copy) with a 16-lane argmax, so it should beat the scalar baseline and approach
// BM_GreedyPlainRead, one plain vectorised read of the logits (the memory floor; the issue's
// goal is within 2x of it). Measured ratios are in bench/README.md.
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/greedy.h"

namespace sampcheck::bench {
namespace {

void BM_GreedyBaseline(benchmark::State& state) {
  const Tensor logits = RandomLogits(kRows, kVocab, kSeedLogits);
  const float* x = logits.data<float>().data();
  std::vector<std::int64_t> token(static_cast<std::size_t>(kRows));
  for (auto _ : state) {
    for (std::int64_t b = 0; b < kRows; ++b) {
      const float* row = x + b * kVocab;
      std::int64_t best = 0;
      for (std::int64_t t = 1; t < kVocab; ++t) {
        if (row[t] > row[best]) best = t;
      }
      token[static_cast<std::size_t>(b)] = best;
    }
    benchmark::DoNotOptimize(token.data());
    benchmark::ClobberMemory();
  }
  SetRowSetCounters(state);
}
SAMPCHECK_BENCHMARK(BM_GreedyBaseline);

void BM_GreedyCanonical(benchmark::State& state) {
  const Case c =
      MakeCase("greedy", "canonical", {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)}});
  TimeStage(state, reference::RunGreedy, c, Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_GreedyCanonical);

void BM_GreedyPlainRead(benchmark::State& state) { PlainReadBaseline(state); }
SAMPCHECK_BENCHMARK(BM_GreedyPlainRead);

}  // namespace
}  // namespace sampcheck::bench
