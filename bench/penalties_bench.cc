// SPDX-License-Identifier: Apache-2.0
// penalties (reference/penalties.h): RunPenalties on B = 64, V = 151936 f32 logits with 512
// prompt ids and 256 output ids per row and all three coefficients set, beside a naive copy.
//
// Baseline (BM_PenaltiesBaseline): the plain one-pass copy of the row set into a buffer
// allocated before timing (bench_support.h CopyBaseline).
// Expected ratio: the stage copies the logits into a fresh tensor (allocate, zero-fill, copy;
// see BM_NanHandlingCanonical for that cost alone), then per row clears its V-sized count,
// in_prompt (and, for sglang, freq_sum) scratch arrays — 0.75 MB to 1.4 MB per row, so these
// stay in L2/L3 — scatters 768 ids, and makes one read+write pass with a branch on `seen`.
// A vectorised pass would give ~3x with the heap retained; measured 7x (canonical) and 5x
// (sglang) because the per-token loop is scalar (bench/README.md); ~20x with glibc's default
// allocator, which adds page faults for the two fresh [B, V] tensors of every call.
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
