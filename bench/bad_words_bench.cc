// SPDX-License-Identifier: Apache-2.0
// bad_words (reference/bad_words.h): RunBadWords on B = 64, V = 151936 f32 logits with 256
// output ids and 8 bad words of length 1..3 per row, beside a naive copy.
//
// Baseline (BM_BadWordsBaseline): the plain one-pass copy of the row set into a buffer
// allocated before timing (bench_support.h CopyBaseline).
// Expected ratio: the stage touches at most 8 logits per row after the input copy, so it
// costs what the input copy costs (BM_NanHandlingCanonical): expect ~1x. Measured ratios are
// in bench/README.md.
#include <cstdint>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/bad_words.h"

namespace sampcheck::bench {
namespace {

constexpr std::int64_t kOutputLen = 256;
constexpr std::int64_t kWordsPerRow = 8;
constexpr std::int64_t kMaxWordLen = 3;

// Word w of a row has length 1 + w % 3. Even words end with the row's last output tokens
// (their prefix matches, so they ban a token); odd words are random (almost never match).
// Padding is -1.
Case BadWordsCase() {
  Tensor output = RandomIds(kRows, kOutputLen, kVocab, kSeedIds);
  Tensor words(DType::kI32, {kRows, kWordsPerRow, kMaxWordLen});
  SplitMix64 rng(kSeedIds + 1);
  auto out = output.data<std::int32_t>();
  auto all = words.data<std::int32_t>();
  for (std::int64_t b = 0; b < kRows; ++b) {
    const std::int32_t* tail = out.data() + (b + 1) * kOutputLen;
    for (std::int64_t w = 0; w < kWordsPerRow; ++w) {
      std::int32_t* word = all.data() + (b * kWordsPerRow + w) * kMaxWordLen;
      const std::int64_t len = 1 + w % kMaxWordLen;
      for (std::int64_t k = 0; k < kMaxWordLen; ++k) word[k] = -1;
      for (std::int64_t k = 0; k + 1 < len; ++k) {
        word[k] = w % 2 == 0 ? tail[k - (len - 1)]
                             : static_cast<std::int32_t>(rng.Below(kVocab));
      }
      word[len - 1] = static_cast<std::int32_t>(rng.Below(kVocab));
    }
  }
  return MakeCase("bad_words", "canonical",
                  {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)},
                   {"output_ids", std::move(output)},
                   {"bad_words", std::move(words)}});
}

void BM_BadWordsBaseline(benchmark::State& state) { CopyBaseline(state); }
SAMPCHECK_BENCHMARK(BM_BadWordsBaseline);

void BM_BadWordsCanonical(benchmark::State& state) {
  TimeStage(state, reference::RunBadWords, BadWordsCase(), Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_BadWordsCanonical);

}  // namespace
}  // namespace sampcheck::bench
