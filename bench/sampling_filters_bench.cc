// SPDX-License-Identifier: Apache-2.0
// sampling_filters (top_k = 50, top_p = 0.9) beside the naive full-sort top-k followed by the
// naive full-sort top-p (bench/support/filter_bench.h). Expected ratio: like top_k's, since
// after top-k only 50 finite logits remain and top-p's prefix search stops at once.
//
// The whole stage on the shape (BM_SamplingFiltersStage*): RunSamplingFilters on
// B = 64 x V = 151936 with top_k = 50, top_p = 0.9, min_p = 0.05 per row — input checks, the
// logits copy, the three filters and the probs output — beside BM_SamplingFiltersStageBaseline,
// one plain read of the logits (the memory floor; the goal is within 15x of it), and
// the canonical stage on two threads (--threads 2).
// Measurements: bench/README.md.
#include "bench/support/filter_bench.h"
#include "reference/row_threads.h"
#include "reference/sampling_filters.h"
#include "tests/support/naive_filters.h"

namespace sampcheck::bench {
namespace {

const int kRegistered = [] {
  RegisterFilterBenchmarks(
      "SamplingFilters",
      [](Profile p, std::span<float> row) { reference::SamplingFiltersRow(p, row, {50, 0.9f, 0.0f, "", 1024}); },
      [](Profile p, std::span<float> row) {
        testing::NaiveTopK(p, row, 50);
        testing::NaiveTopP(p, row, 0.9f);
      });
  return 0;
}();

Case StageCase(const char* profile) {
  return MakeCase("sampling_filters", profile,
                  {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)},
                   {"top_k", FilledI32(kRows, 50)},
                   {"top_p", Filled(kRows, 0.9f)},
                   {"min_p", Filled(kRows, 0.05f)}});
}

void BM_SamplingFiltersStageBaseline(benchmark::State& state) { PlainReadBaseline(state); }
SAMPCHECK_BENCHMARK(BM_SamplingFiltersStageBaseline);

void BM_SamplingFiltersStageCanonical(benchmark::State& state) {
  TimeStage(state, reference::RunSamplingFilters, StageCase("canonical"), Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_SamplingFiltersStageCanonical);

// Two threads on the two halves of the rows (reference/row_threads.h); goal: >= 1.7x one thread.
void BM_SamplingFiltersStageCanonical2Threads(benchmark::State& state) {
  reference::SetRowThreads(2);
  TimeStage(state, reference::RunSamplingFilters, StageCase("canonical"), Profile::kCanonical);
  reference::SetRowThreads(1);
}
SAMPCHECK_BENCHMARK(BM_SamplingFiltersStageCanonical2Threads);

void BM_SamplingFiltersStageVllm(benchmark::State& state) {
  TimeStage(state, reference::RunSamplingFilters, StageCase("vllm"), Profile::kVllm);
}
SAMPCHECK_BENCHMARK(BM_SamplingFiltersStageVllm);

}  // namespace
}  // namespace sampcheck::bench
