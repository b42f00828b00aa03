// SPDX-License-Identifier: Apache-2.0
// nan_handling (reference/nan_handling.h): RunNanHandling on B = 64, V = 151936 f32 logits
// with one NaN per 1024 entries, beside a naive copy.
//
// Baseline (BM_NanHandlingBaseline): the plain one-pass copy of the row set into a buffer
// allocated before timing (bench_support.h CopyBaseline).
// Expected ratios:
// - Canonical is the identity, so RunNanHandling is nothing but the call's fixed cost: copying
//   the logits into a fresh, uninitialised f32 tensor (StageInputs::Logits) and moving it into
//   the returned map. Its ratio is the overhead every other stage pays before its own pass:
//   one copy, like the baseline, so expect ~1x.
// - Sglang adds one read+write pass replacing NaN by -1e5: expect canonical's ratio + ~1.
// - FreshCopy is not a stage: it is the naive spelling of a stage's allocate-and-copy with the
//   public Tensor constructor, which zero-fills before the copy, so expect a little above 1x;
//   Canonical / FreshCopy shows what StageInputs::Logits saves by skipping that fill.
// bench_main.cc keeps large blocks in the heap, so neither side pays first-touch page faults
// for a fresh 38.9 MB block (bench/README.md "Allocator"). Measured ratios are in
// bench/README.md.
#include <cstdint>
#include <limits>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/nan_handling.h"

namespace sampcheck::bench {
namespace {

// One NaN per 1024 logits: rare enough to be realistic, frequent enough that every row has
// ~148 of them, so the replacement branch is exercised.
constexpr std::int64_t kNanStride = 1024;

Case NanCase(const char* profile) {
  Tensor logits = RandomLogits(kRows, kVocab, kSeedLogits);
  auto x = logits.data<float>();
  for (std::size_t i = 0; i < x.size(); i += kNanStride) {
    x[i] = std::numeric_limits<float>::quiet_NaN();
  }
  return MakeCase("nan_handling", profile, {{"logits", std::move(logits)}});
}

void BM_NanHandlingBaseline(benchmark::State& state) { CopyBaseline(state); }
SAMPCHECK_BENCHMARK(BM_NanHandlingBaseline);

void BM_NanHandlingFreshCopy(benchmark::State& state) {
  const Tensor in = RandomLogits(kRows, kVocab, kSeedLogits);
  const float* src = in.data<float>().data();
  for (auto _ : state) {
    Tensor out(DType::kF32, {kRows, kVocab});
    float* dst = out.data<float>().data();
    for (std::int64_t i = 0; i < kElements; ++i) dst[i] = src[i];
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  SetRowSetCounters(state);
}
SAMPCHECK_BENCHMARK(BM_NanHandlingFreshCopy);

void BM_NanHandlingCanonical(benchmark::State& state) {
  TimeStage(state, reference::RunNanHandling, NanCase("canonical"), Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_NanHandlingCanonical);

void BM_NanHandlingSglang(benchmark::State& state) {
  TimeStage(state, reference::RunNanHandling, NanCase("sglang"), Profile::kSglang);
}
SAMPCHECK_BENCHMARK(BM_NanHandlingSglang);

}  // namespace
}  // namespace sampcheck::bench
