// SPDX-License-Identifier: Apache-2.0
// Counter-based noise and the seeded draw (reference/rng/, reference/seeded_gumbel.h) on one
// row of V = 151936.
//
// - BM_SeededDrawBaseline: one plain pass reading the row (a first-maximum argmax of the
//   probabilities, in place): the cost floor of anything that looks at every token.
// - BM_SeededDrawSglang: SeededGumbelColumn, the reference's multinomial_with_seed, on the
//   softmax of random logits in [-16, 16). It hashes every positive column (one MurmurHash3
//   of 16 bytes) and computes the two binary64 logarithms only for columns whose bound can
//   still win, so expect hash cost per token, about 2-3x the baseline.
// - BM_SeededDrawPlainEvaluation: the naive loop, every column's log p + Gumbel evaluated
//   (three binary64 logarithms per token): what the bound saves.
// - BM_MurmurKeyHashes, BM_PhiloxBlocks: generator throughput, items = hashes / blocks of
//   four words, read as items_per_second.
// Measured ratios are in bench/README.md.
#include <cmath>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/math/log.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/seeded_gumbel.h"
#include "reference/softmax.h"

namespace sampcheck::bench {
namespace {

constexpr std::uint64_t kSeed = 0x9E3779B97F4A7C15ull;

std::vector<float> RowProbabilities() {
  const Tensor logits = RandomLogits(1, kVocab, kSeedLogits);
  std::vector<float> probs(static_cast<std::size_t>(kVocab));
  reference::SoftmaxRow(logits.data<float>(), probs);
  return probs;
}

void SetRowCounters(benchmark::State& state) {
  state.SetItemsProcessed(state.iterations() * kVocab);
  state.SetBytesProcessed(state.iterations() * kVocab * static_cast<std::int64_t>(sizeof(float)));
}

void BM_SeededDrawBaseline(benchmark::State& state) {
  const std::vector<float> probs = RowProbabilities();
  for (auto _ : state) {
    std::size_t best = 0;
    for (std::size_t t = 1; t < probs.size(); ++t) {
      if (probs[t] > probs[best]) best = t;
    }
    benchmark::DoNotOptimize(best);
  }
  SetRowCounters(state);
}
BENCHMARK(BM_SeededDrawBaseline)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_SeededDrawSglang(benchmark::State& state) {
  const std::vector<float> probs = RowProbabilities();
  std::uint32_t position = 0;
  for (auto _ : state) benchmark::DoNotOptimize(reference::SeededGumbelColumn(probs, kSeed, position++));
  SetRowCounters(state);
}
BENCHMARK(BM_SeededDrawSglang)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_SeededDrawPlainEvaluation(benchmark::State& state) {
  const std::vector<float> probs = RowProbabilities();
  std::uint32_t position = 0;
  for (auto _ : state) {
    std::int64_t best = -1;
    double best_value = 0.0;
    for (std::size_t j = 0; j < probs.size(); ++j) {
      if (!(probs[j] > 0.0f)) continue;
      const double v = math::LogF64Dd(probs[j]) +
                       rng::GumbelSglangFromHashF64(rng::SglangMurmurKey(kSeed, position, static_cast<std::uint32_t>(j)));
      if (best < 0 || v > best_value) best = static_cast<std::int64_t>(j), best_value = v;
    }
    ++position;
    benchmark::DoNotOptimize(best);
  }
  SetRowCounters(state);
}
BENCHMARK(BM_SeededDrawPlainEvaluation)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_MurmurKeyHashes(benchmark::State& state) {
  std::uint32_t position = 0;
  for (auto _ : state) {
    std::uint32_t acc = 0;
    for (std::uint32_t column = 0; column < kVocab; ++column) acc ^= rng::SglangMurmurKey(kSeed, position, column);
    ++position;
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * kVocab);
}
BENCHMARK(BM_MurmurKeyHashes)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_PhiloxBlocks(benchmark::State& state) {
  std::uint32_t step = 0;
  for (auto _ : state) {
    std::uint32_t acc = 0;
    for (std::uint32_t token = 0; token < kVocab; ++token) {
      const rng::Philox4x32Block out = rng::Philox4x32<10>({token, 0, step, 0}, {0x12345678u, 0x9abcdef0u});
      acc ^= out.v[0] ^ out.v[1] ^ out.v[2] ^ out.v[3];
    }
    ++step;
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * kVocab);
}
BENCHMARK(BM_PhiloxBlocks)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace sampcheck::bench
