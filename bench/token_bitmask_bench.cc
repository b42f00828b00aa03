// SPDX-License-Identifier: Apache-2.0
// token_bitmask (reference/token_bitmask.h): RunTokenBitmask on B = 64, V = 151936 f32
// logits with a random [B, 4748] bitmask (each bit allowed with probability 1/2), beside a
// naive copy.
//
// Baseline (BM_TokenBitmaskBaseline): the plain one-pass copy of the row set into a buffer
// allocated before timing (bench_support.h CopyBaseline).
// Expected ratio: the input copy (~1x, BM_NanHandlingCanonical) plus one read+write pass
// that selects, per token, the logit or -inf from its bit (a mask-and-compare select, no
// branch on the bit): ~2x. All-ones words are skipped; with random words no word is all ones,
// so every word takes the select loop, the worst case (grammar masks are mostly all-ones or
// all-zero words). Measured ratios are in bench/README.md.
#include <cstdint>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/token_bitmask.h"

namespace sampcheck::bench {
namespace {

// xgrammar's bitmask width: ceil(V / 32) 32-bit words per row.
constexpr std::int64_t kWords = (kVocab + 31) / 32;

Case BitmaskCase() {
  Tensor mask(DType::kI32, {kRows, kWords});
  SplitMix64 rng(kSeedMask);
  for (std::int32_t& w : mask.data<std::int32_t>()) {
    w = static_cast<std::int32_t>(static_cast<std::uint32_t>(rng.Next()));
  }
  return MakeCase("token_bitmask", "canonical",
                  {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)},
                   {"bitmask", std::move(mask)}});
}

void BM_TokenBitmaskBaseline(benchmark::State& state) { CopyBaseline(state); }
SAMPCHECK_BENCHMARK(BM_TokenBitmaskBaseline);

void BM_TokenBitmaskRandomWords(benchmark::State& state) {
  TimeStage(state, reference::RunTokenBitmask, BitmaskCase(), Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_TokenBitmaskRandomWords);

}  // namespace
}  // namespace sampcheck::bench
