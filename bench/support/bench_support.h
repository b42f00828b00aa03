// SPDX-License-Identifier: Apache-2.0
#pragma once
// Benchmark-only helpers: deterministic random inputs and Case builders for the stage
// benchmarks under bench/ (docs/contributing.md "Build and benchmarks": fixed seeds, ratios against a
// naive baseline measured in the same run).
//
// Contract:
// - Every generator is a pure function of its arguments: SplitMix64 (Steele, Lea and Flood,
//   "Fast splittable pseudorandom number generators", OOPSLA 2014) seeded with the caller's
//   fixed seed. No std:: distributions (their output is implementation-defined, docs/contributing.md
//   "Numerics"), so the inputs are the same bytes on every platform and compiler.
// - Shapes are those of the issue: B = 64 rows of V = 151936 columns (the Qwen2 vocabulary
//   size), f32 logits in [-16, 16).
// - Nothing here is timed; builders run once per benchmark, outside the timing loop.
// Example:
//   Tensor logits = RandomLogits(kRows, kVocab, kSeedLogits);  // same bytes on every run
//   Case c = MakeCase("greedy", "canonical", {{"logits", std::move(logits)}});

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "core/case.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "core/tensor.h"

// Registers a benchmark with the options every sampcheck benchmark uses: milliseconds and
// wall-clock time (file benchmarks wait on fsync, so CPU time would under-count them; using
// real time everywhere keeps every ratio on one clock).
#define SAMPCHECK_BENCHMARK(fn) BENCHMARK(fn)->Unit(benchmark::kMillisecond)->UseRealTime()

namespace sampcheck::bench {

// Batch and vocabulary of the issue: 64 rows, Qwen2's 151936-token vocabulary.
inline constexpr std::int64_t kRows = 64;
inline constexpr std::int64_t kVocab = 151936;
inline constexpr std::int64_t kElements = kRows * kVocab;
inline constexpr std::size_t kLogitsBytes = static_cast<std::size_t>(kElements) * sizeof(float);

// Fixed seeds, one per input kind so that changing one input leaves the others unchanged.
// The values are arbitrary (the first digits of pi, e, sqrt 2, ...); only fixedness matters.
inline constexpr std::uint64_t kSeedLogits = 0x243F6A8885A308D3ull;
inline constexpr std::uint64_t kSeedIds = 0xB7E151628AED2A6Bull;
inline constexpr std::uint64_t kSeedBias = 0x6A09E667F3BCC908ull;
inline constexpr std::uint64_t kSeedMask = 0xBB67AE8584CAA73Bull;

using sampcheck::SplitMix64;

// Uniform on the 2^24-point grid of [lo, hi): 24 random bits scaled exactly.
inline float Uniform(SplitMix64& rng, float lo, float hi) {
  const float u = static_cast<float>(rng.Next() >> 40) * 0x1p-24f;
  return lo + (hi - lo) * u;
}

// [rows, cols] f32 with entries in [-16, 16): the range of real LLM logits, all finite.
inline Tensor RandomLogits(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Tensor t(DType::kF32, {rows, cols});
  SplitMix64 rng(seed);
  for (float& v : t.data<float>()) v = Uniform(rng, -16.0f, 16.0f);
  return t;
}

// [rows, len] i32 token ids, uniform in [0, vocab), repeats allowed.
inline Tensor RandomIds(std::int64_t rows, std::int64_t len, std::int64_t vocab,
                        std::uint64_t seed) {
  Tensor t(DType::kI32, {rows, len});
  SplitMix64 rng(seed);
  for (std::int32_t& v : t.data<std::int32_t>()) {
    v = static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab)));
  }
  return t;
}

// `count` distinct ids in [0, vocab), in draw order (rejection of repeats; count << vocab).
inline std::vector<std::int32_t> DistinctIds(std::int64_t count, std::int64_t vocab,
                                             SplitMix64& rng) {
  std::vector<std::uint8_t> taken(static_cast<std::size_t>(vocab));
  std::vector<std::int32_t> ids;
  ids.reserve(static_cast<std::size_t>(count));
  while (static_cast<std::int64_t>(ids.size()) < count) {
    const auto t = static_cast<std::uint32_t>(rng.Below(static_cast<std::uint64_t>(vocab)));
    if (taken[t]) continue;
    taken[t] = 1;
    ids.push_back(static_cast<std::int32_t>(t));
  }
  return ids;
}

// [n] f32 filled with one value (per-row coefficients such as temperature).
inline Tensor Filled(std::int64_t n, float value) {
  Tensor t(DType::kF32, {n});
  for (float& v : t.data<float>()) v = value;
  return t;
}

// [n] i32 filled with one value.
inline Tensor FilledI32(std::int64_t n, std::int32_t value) {
  Tensor t(DType::kI32, {n});
  for (std::int32_t& v : t.data<std::int32_t>()) v = value;
  return t;
}

inline Case MakeCase(std::string stage, std::string profile, TensorMap inputs,
                     nlohmann::json params = nlohmann::json::object()) {
  Case c;
  c.id = stage + "/bench/" + profile;
  c.stage = std::move(stage);
  c.profile = ParseProfile(profile);
  c.params = std::move(params);
  c.inputs = std::move(inputs);
  return c;
}

// Counters every benchmark reports: one item per logit, and the bytes of the [B, V] f32
// logits read once (the row set a one-pass stage streams), so items/s and bytes/s compare
// across stages and their baselines.
inline void SetRowSetCounters(benchmark::State& state) {
  state.SetItemsProcessed(state.iterations() * kElements);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(kLogitsBytes));
}

// The naive baseline shared by most stages: one plain pass over the [B, V] row set that
// reads every input float once and writes every output float once, into a buffer allocated
// before timing. A stage that is "one pass over the row" cannot beat it, so time(stage) /
// time(baseline) >= ~1 is the stage's overhead over the memory-bandwidth floor.
inline void CopyBaseline(benchmark::State& state) {
  const Tensor in = RandomLogits(kRows, kVocab, kSeedLogits);
  std::vector<float> out(static_cast<std::size_t>(kElements));
  const float* src = in.data<float>().data();
  for (auto _ : state) {
    float* dst = out.data();
    for (std::int64_t i = 0; i < kElements; ++i) dst[i] = src[i];
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  SetRowSetCounters(state);
}

// One plain read of the [B, V] logits, the memory floor of any stage that looks at every
// logit (issue goals are stated as multiples of it): the bit patterns summed as 32-bit
// integers in place — no copy, no write, and an integer sum that GCC vectorises at -O3 on any
// x86-64 (a float max would need fast-math to vectorise, and would then be slower than memory).
inline void PlainReadBaseline(benchmark::State& state) {
  const Tensor in = RandomLogits(kRows, kVocab, kSeedLogits);
  const float* src = in.data<float>().data();
  for (auto _ : state) {
    std::uint32_t acc = 0;
    for (std::int64_t i = 0; i < kElements; ++i) {
      std::uint32_t w;
      std::memcpy(&w, src + i, sizeof(w));
      acc += w;
    }
    benchmark::DoNotOptimize(acc);
  }
  SetRowSetCounters(state);
}

// Times the full public call `fn(c, profile)` of a reference stage, including what every
// call does besides its pass: input checks, the copy/upcast of "logits" into a fresh f32
// tensor (StageInputs::Logits), building the returned TensorMap and freeing it.
template <class StageFn>
void TimeStage(benchmark::State& state, StageFn fn, const Case& c, Profile profile) {
  for (auto _ : state) {
    TensorMap out = fn(c, profile);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  SetRowSetCounters(state);
}

}  // namespace sampcheck::bench
