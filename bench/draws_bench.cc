// SPDX-License-Identifier: Apache-2.0
// The reference backend's own draws for the statistical harness (reference/count_draws.h):
// an exponential race on counter-based noise (Philox4x32-10, 24-bit uniforms, -log1p(-u)).
// Goals: >= 3e6 draws/s per core at support 50 and >= 1.5e5 at support 1024 (met); 1e7 and 1e6
// (the memory-floor goals).
//
// - BM_CountDrawsFast/S: RaceRow::DrawMany, the harness's path (CountRaceDraws; the widest the
//   host runs), 1024 draws per call: lanes = draws, 16 draws per Philox call and per key
//   vector, an approximate key per token in f32 lanes and the exact per-draw path only for near
//   ties (reference/count_draws.h "Many draws at once").
// - BM_CountDrawsFastAvx2/S: the same forced through the AVX2 path (8 draws per pass).
// - BM_CountDrawsOne/S: RaceRow::Draw, one draw per call (the path DrawMany redraws near ties
//   with): Philox words for every support token in SIMD lanes, the logarithm only for tokens
//   that pass the bound and whose bracketed ratio is not decided by products.
// - BM_CountDrawsNaive/S: RaceRow::DrawNaive, the same draws (bit for bit) computing every
//   q and calling ExponentialRaceRow: the naive per-draw loop.
// - BM_CountDrawsPhilox/S: the Philox blocks of one draw alone (ceil(S / 64) calls of the
//   16-lane Philox10x16 of reference/rng/philox_lanes.h, AVX-512F hosts only): the share of
//   BM_CountDrawsOne spent on noise, the rest being the bound test and the logarithms; the same
//   blocks per draw as BM_CountDrawsFast, which counts them by draws instead of tokens.
// Items = draws, read as items_per_second. Rows: softmax-like decaying weights exp(-i/S * 4)
// (peaked but not degenerate). Measured numbers in bench/README.md.
#include <cmath>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's avx512fintrin.h starts some results from _mm512_undefined_*(), which
// -Wmaybe-uninitialized reports once inlined at -O3 (GCC bug 105593); the code is correct.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "reference/count_draws.h"
#include "reference/rng/philox_lanes.h"
#include "reference/rng/streams.h"

namespace sampcheck::bench {
namespace {

constexpr std::uint64_t kSeed = 0x5eedd4a3ull;
// Draws per DrawMany call in BM_CountDrawsFast (CountRaceDraws passes up to 4096).
constexpr std::uint32_t kBatch = 1024;

std::vector<float> Row(std::int64_t support) {
  std::vector<float> p(static_cast<std::size_t>(support));
  for (std::int64_t i = 0; i < support; ++i) {
    p[static_cast<std::size_t>(i)] = std::exp(-4.0f * static_cast<float>(i) / static_cast<float>(support));
  }
  return p;
}

void BM_CountDrawsFast(benchmark::State& state) {
  const reference::RaceRow race(Row(state.range(0)));
  std::vector<std::int64_t> winners(kBatch);
  std::uint32_t d = 0;
  std::int64_t redrawn = 0;
  for (auto _ : state) {
    redrawn += race.DrawMany(kSeed, 0, d, winners);
    benchmark::DoNotOptimize(winners.data());
    d += kBatch;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kBatch));
  // The share of draws whose lane was uncertain (a near tie) and drawn again one at a time.
  state.counters["redrawn"] = static_cast<double>(redrawn) / static_cast<double>(state.iterations() * kBatch);
}
BENCHMARK(BM_CountDrawsFast)->Arg(50)->Arg(1024);

// The same through the AVX2 path (8 draws per pass), where the host runs it.
void BM_CountDrawsFastAvx2(benchmark::State& state) {
  if (!reference::RaceRow::Runs(rng::PhiloxIsa::kAvx2)) return state.SkipWithError("no AVX2 + BMI2 on this host");
  const reference::RaceRow race(Row(state.range(0)), rng::PhiloxIsa::kAvx2);
  std::vector<std::int64_t> winners(kBatch);
  std::uint32_t d = 0;
  for (auto _ : state) {
    race.DrawMany(kSeed, 0, d, winners);
    benchmark::DoNotOptimize(winners.data());
    d += kBatch;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kBatch));
}
BENCHMARK(BM_CountDrawsFastAvx2)->Arg(50)->Arg(1024);

void BM_CountDrawsOne(benchmark::State& state) {
  const reference::RaceRow race(Row(state.range(0)));
  std::uint32_t d = 0;
  for (auto _ : state) benchmark::DoNotOptimize(race.Draw(kSeed, 0, d++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountDrawsOne)->Arg(50)->Arg(1024);

void BM_CountDrawsNaive(benchmark::State& state) {
  const reference::RaceRow race(Row(state.range(0)));
  std::uint32_t d = 0;
  for (auto _ : state) benchmark::DoNotOptimize(race.DrawNaive(kSeed, 0, d++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountDrawsNaive)->Arg(50)->Arg(1024);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"))) std::uint32_t PhiloxOfOneDraw(std::int64_t support, std::uint32_t draw) {
  __m512i acc = _mm512_setzero_si512();
  for (std::int64_t g = 0; 64 * g < support; ++g) {
    __m512i c0 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(16 * g)),
                                  _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    __m512i c1 = _mm512_set1_epi32(static_cast<int>(draw)), c2 = _mm512_setzero_si512(),
            c3 = _mm512_set1_epi32(0x5eed);
    rng::Philox10x16(c0, c1, c2, c3, rng::SeedKey(kSeed));
    acc = _mm512_xor_si512(acc, _mm512_xor_si512(_mm512_xor_si512(c0, c1), _mm512_xor_si512(c2, c3)));
  }
  alignas(64) std::uint32_t lanes[16];
  _mm512_store_si512(lanes, acc);
  return lanes[0] ^ lanes[15];
}

void BM_CountDrawsPhilox(benchmark::State& state) {
  if (!rng::HostRuns(rng::PhiloxIsa::kAvx512)) return state.SkipWithError("no AVX-512F on this host");
  std::uint32_t d = 0;
  for (auto _ : state) benchmark::DoNotOptimize(PhiloxOfOneDraw(state.range(0), d++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountDrawsPhilox)->Arg(50)->Arg(1024);
#endif

}  // namespace
}  // namespace sampcheck::bench
