// SPDX-License-Identifier: Apache-2.0
// ExpF32CrArray (reference/math/exp_array.h) on the row set, B = 64 x V = 151936 f32
// logits in [-16, 16), each row shifted by 16 (softmax's x - max, so inputs lie in [-32, 0)).
//
// - BM_ExpArrayBaseline: the current scalar path, `out[i] = ExpF32Cr(x[i] - 16)`: the ratio of
//   every other benchmark to it is the speed-up of the vectorised exp (same bits, tested).
// - BM_ExpArrayPortable / Avx2 / Avx512: ExpF32CrArrayWith forcing one path (a path the host
//   lacks falls back to the next lower one; the host's is printed as a counter "isa").
// - BM_ExpArrayPlainRead: one plain read of the same floats, the memory floor.
// Measured ratios: bench/README.md.
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/math/exp.h"
#include "reference/math/exp_array.h"

namespace sampcheck::bench {
namespace {

constexpr float kShift = 16.0f;

void BM_ExpArrayBaseline(benchmark::State& state) {
  const Tensor logits = RandomLogits(kRows, kVocab, kSeedLogits);
  const float* x = logits.data<float>().data();
  std::vector<float> out(static_cast<std::size_t>(kElements));
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kElements; ++i) out[static_cast<std::size_t>(i)] = math::ExpF32Cr(x[i] - kShift);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRowSetCounters(state);
}
SAMPCHECK_BENCHMARK(BM_ExpArrayBaseline);

void ExpArray(benchmark::State& state, math::ExpIsa isa) {
  const Tensor logits = RandomLogits(kRows, kVocab, kSeedLogits);
  std::vector<float> out(static_cast<std::size_t>(kElements));
  for (auto _ : state) {
    math::ExpF32CrArrayWith(isa, logits.data<float>().data(), out.size(), kShift, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRowSetCounters(state);
  state.SetLabel(math::ExpIsaName(math::ExpF32CrArrayIsa()));
}
void BM_ExpArrayPortable(benchmark::State& state) { ExpArray(state, math::ExpIsa::kPortable); }
void BM_ExpArrayAvx2(benchmark::State& state) { ExpArray(state, math::ExpIsa::kAvx2); }
void BM_ExpArrayAvx512(benchmark::State& state) { ExpArray(state, math::ExpIsa::kAvx512); }
SAMPCHECK_BENCHMARK(BM_ExpArrayPortable);
SAMPCHECK_BENCHMARK(BM_ExpArrayAvx2);
SAMPCHECK_BENCHMARK(BM_ExpArrayAvx512);

void BM_ExpArrayPlainRead(benchmark::State& state) { PlainReadBaseline(state); }
SAMPCHECK_BENCHMARK(BM_ExpArrayPlainRead);

}  // namespace
}  // namespace sampcheck::bench
