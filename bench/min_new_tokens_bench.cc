// SPDX-License-Identifier: Apache-2.0
// min_new_tokens (reference/min_new_tokens.h): RunMinNewTokens on B = 64, V = 151936 f32
// logits, every row active (output_len 0 < min_tokens 16) with 4 stop ids, beside a naive
// copy.
//
// Baseline (BM_MinNewTokensBaseline): the plain one-pass copy of the row set into a buffer
// allocated before timing (bench_support.h CopyBaseline).
// Expected ratios: canonical writes 4 entries per row, so it costs what the input copy costs
// (BM_NanHandlingCanonical): ~1x. Sglang adds a full `row += 0.0f` read+write pass: about one
// more baseline on top, ~2x. Measured ratios are in bench/README.md.
#include <cstdint>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/min_new_tokens.h"

namespace sampcheck::bench {
namespace {

// eos plus a few chat-template stop tokens.
constexpr std::int64_t kStopIds = 4;
// Every row still below its minimum, so every row takes the active path.
constexpr std::int32_t kOutputLen = 0;
constexpr std::int32_t kMinTokens = 16;

Case MinNewTokensCase(const char* profile) {
  return MakeCase("min_new_tokens", profile,
                  {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)},
                   {"output_len", FilledI32(kRows, kOutputLen)},
                   {"min_tokens", FilledI32(kRows, kMinTokens)},
                   {"stop_ids", RandomIds(kRows, kStopIds, kVocab, kSeedIds)}});
}

void BM_MinNewTokensBaseline(benchmark::State& state) { CopyBaseline(state); }
SAMPCHECK_BENCHMARK(BM_MinNewTokensBaseline);

void BM_MinNewTokensCanonical(benchmark::State& state) {
  TimeStage(state, reference::RunMinNewTokens, MinNewTokensCase("canonical"),
            Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_MinNewTokensCanonical);

void BM_MinNewTokensSglang(benchmark::State& state) {
  TimeStage(state, reference::RunMinNewTokens, MinNewTokensCase("sglang"), Profile::kSglang);
}
SAMPCHECK_BENCHMARK(BM_MinNewTokensSglang);

}  // namespace
}  // namespace sampcheck::bench
