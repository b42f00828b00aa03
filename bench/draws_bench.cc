// SPDX-License-Identifier: Apache-2.0
// The reference backend's own draws for the statistical harness (reference/count_draws.h):
// an exponential race on counter-based noise (Philox4x32-10, 24-bit uniforms, -log1p(-u)).
// Goal: >= 3e6 draws/s per core at support 50 and >= 1.5e5 at support 1024.
//
// - BM_CountDrawsFast/S: RaceRow::Draw, the harness's path: Philox words for every support
//   token, the logarithm only for tokens that pass the bound u * best < p (1 + 2^-22).
// - BM_CountDrawsNaive/S: RaceRow::DrawNaive, the same draws (bit for bit) computing every
//   q and calling ExponentialRaceRow: the naive per-draw loop.
// Items = draws, read as items_per_second. Rows: softmax-like decaying weights exp(-i/S * 4)
// (peaked but not degenerate). Measured numbers in bench/README.md.
#include <cmath>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "reference/count_draws.h"

namespace sampcheck::bench {
namespace {

constexpr std::uint64_t kSeed = 0x5eedd4a3ull;

std::vector<float> Row(std::int64_t support) {
  std::vector<float> p(static_cast<std::size_t>(support));
  for (std::int64_t i = 0; i < support; ++i) {
    p[static_cast<std::size_t>(i)] = std::exp(-4.0f * static_cast<float>(i) / static_cast<float>(support));
  }
  return p;
}

void BM_CountDrawsFast(benchmark::State& state) {
  const reference::RaceRow race(Row(state.range(0)));
  std::uint32_t d = 0;
  for (auto _ : state) benchmark::DoNotOptimize(race.Draw(kSeed, 0, d++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountDrawsFast)->Arg(50)->Arg(1024);

void BM_CountDrawsNaive(benchmark::State& state) {
  const reference::RaceRow race(Row(state.range(0)));
  std::uint32_t d = 0;
  for (auto _ : state) benchmark::DoNotOptimize(race.DrawNaive(kSeed, 0, d++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountDrawsNaive)->Arg(50)->Arg(1024);

}  // namespace
}  // namespace sampcheck::bench
