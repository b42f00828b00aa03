// SPDX-License-Identifier: Apache-2.0
// penalties (reference/penalties.h): RunPenalties on B = 64, V = 151936 f32 logits with 512
// prompt ids and 256 output ids per row and all three coefficients set, beside a naive copy.
//
// Baseline (BM_PenaltiesBaseline): the plain one-pass copy of the row set into a buffer
// allocated before timing (bench_support.h CopyBaseline).
// Expected ratio: the stage copies the logits into a fresh, uninitialised tensor (see
// BM_NanHandlingCanonical for that cost alone, ~1x). Per row it then scatters the 256 output
// ids (canonical also notes the 512 prompt ids) into V-sized scratch arrays allocated once per
// call (counts, seen flags and, for sglang, running sums of f; ~1.4 MB in all, so they stay in
// L2/L3), applies the repetition penalty to the distinct seen ids only, makes one branch-free
// read+write pass over the row that also reads the counts (and sums), and resets the scratch
// through the seen ids. That is one pass with more traffic than a copy: expect ~2-3x.
// Measured ratios are in bench/README.md.
#include <cstdint>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/penalties.h"

namespace sampcheck::bench {
namespace {

// Row shape of a typical chat turn: a 512-token prompt and 256 generated tokens.
constexpr std::int64_t kPromptLen = 512;
constexpr std::int64_t kOutputLen = 256;
// OpenAI-style coefficients within the documented ranges (repetition > 0, others finite).
constexpr float kRepetition = 1.1f;
constexpr float kFrequency = 0.5f;
constexpr float kPresence = 0.25f;

Case PenaltiesCase(const char* profile) {
  return MakeCase("penalties", profile,
                  {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)},
                   {"prompt_ids", RandomIds(kRows, kPromptLen, kVocab, kSeedIds)},
                   {"output_ids", RandomIds(kRows, kOutputLen, kVocab, kSeedIds + 1)},
                   {"repetition_penalty", Filled(kRows, kRepetition)},
                   {"frequency_penalty", Filled(kRows, kFrequency)},
                   {"presence_penalty", Filled(kRows, kPresence)}});
}

void BM_PenaltiesBaseline(benchmark::State& state) { CopyBaseline(state); }
SAMPCHECK_BENCHMARK(BM_PenaltiesBaseline);

void BM_PenaltiesCanonical(benchmark::State& state) {
  TimeStage(state, reference::RunPenalties, PenaltiesCase("canonical"), Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_PenaltiesCanonical);

void BM_PenaltiesSglang(benchmark::State& state) {
  TimeStage(state, reference::RunPenalties, PenaltiesCase("sglang"), Profile::kSglang);
}
SAMPCHECK_BENCHMARK(BM_PenaltiesSglang);

}  // namespace
}  // namespace sampcheck::bench
