// SPDX-License-Identifier: Apache-2.0
// temperature (reference/temperature.h): RunTemperature with t = 0.7 on every row of
// B = 64, V = 151936 f32 logits, beside a naive one-pass division.
//
// Baseline (BM_TemperatureBaseline): `out[i] = in[i] / 0.7f` over the [B, V] row set into a
// buffer allocated before timing — the same arithmetic as the stage in one plain read+write
// pass, the floor a one-pass stage can approach. Expected ratio: the stage's own pass is this
// loop (Eigen `row /= t`), plus the copy of the logits into a fresh, uninitialised tensor
// that every call makes (StageInputs::Logits; the tensor is then moved into the returned map,
// not copied): expect ~2x. Measured ratios are in bench/README.md.
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/temperature.h"

namespace sampcheck::bench {
namespace {

// A typical chat-completion temperature; any value >= 1e-5 takes the division path.
constexpr float kTemperature = 0.7f;

void BM_TemperatureBaseline(benchmark::State& state) {
  const Tensor in = RandomLogits(kRows, kVocab, kSeedLogits);
  std::vector<float> out(static_cast<std::size_t>(kElements));
  const float* src = in.data<float>().data();
  for (auto _ : state) {
    float* dst = out.data();
    for (std::int64_t i = 0; i < kElements; ++i) dst[i] = src[i] / kTemperature;
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  SetRowSetCounters(state);
}
SAMPCHECK_BENCHMARK(BM_TemperatureBaseline);

Case TemperatureCase(const char* profile) {
  return MakeCase("temperature", profile,
                  {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)},
                   {"temperature", Filled(kRows, kTemperature)}});
}

void BM_TemperatureCanonical(benchmark::State& state) {
  TimeStage(state, reference::RunTemperature, TemperatureCase("canonical"), Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_TemperatureCanonical);

}  // namespace
}  // namespace sampcheck::bench
