// SPDX-License-Identifier: Apache-2.0
// logit_bias (reference/logit_bias.h): RunLogitBias on B = 64, V = 151936 f32 logits with a
// sparse bias of 100 entries per row (6400 (row, id, value) triples) under each profile, and
// with a dense [B, V] bias, beside naive one-pass loops.
//
// Baselines:
// - BM_LogitBiasBaseline, for the sparse variants: the plain one-pass copy of the row set into
//   a buffer allocated before timing (bench_support.h CopyBaseline).
// - BM_LogitBiasDenseBaseline, for the dense variant: `out[i] = in[i] + bias[i]`, one pass that
//   reads two [B, V] arrays and writes one (ratios.py pairs each benchmark with the baseline
//   of the longest matching name).
// Expected ratios (measured ratios are in bench/README.md):
// - SparseCanonical/SparseVllm: the input copy (~1x, BM_NanHandlingCanonical) plus 6400
//   scattered additions and a std::set of the 6400 pairs for the duplicate check: ~1-1.5x.
// - SparseSglang densifies, as SGLang does: a zeroed [B, V] bias array, then a full add pass:
//   about two baselines more than canonical, ~3x.
// - DenseCanonical: the input copy, then the bias added in place through a const Eigen map
//   (no copy of the bias). The add baseline already streams three arrays, so the copy adds
//   less than one of it: ~1.5x the add baseline.
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "reference/logit_bias.h"

namespace sampcheck::bench {
namespace {

// An OpenAI-style logit_bias map of 100 tokens per request (the OpenAI API's documented
// maximum is 300 entries).
constexpr std::int64_t kBiasPerRow = 100;
constexpr std::int64_t kBiasEntries = kRows * kBiasPerRow;

Case SparseCase(const char* profile) {
  Tensor rows(DType::kI32, {kBiasEntries});
  Tensor ids(DType::kI32, {kBiasEntries});
  Tensor values(DType::kF32, {kBiasEntries});
  SplitMix64 rng(kSeedBias);
  for (std::int64_t b = 0; b < kRows; ++b) {
    const auto row_ids = DistinctIds(kBiasPerRow, kVocab, rng);  // a pair may not repeat
    for (std::int64_t k = 0; k < kBiasPerRow; ++k) {
      const auto i = static_cast<std::size_t>(b * kBiasPerRow + k);
      rows.data<std::int32_t>()[i] = static_cast<std::int32_t>(b);
      ids.data<std::int32_t>()[i] = row_ids[static_cast<std::size_t>(k)];
      values.data<float>()[i] = Uniform(rng, -100.0f, 100.0f);  // the OpenAI API's range
    }
  }
  return MakeCase("logit_bias", profile,
                  {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)},
                   {"bias_rows", std::move(rows)},
                   {"bias_ids", std::move(ids)},
                   {"bias_values", std::move(values)}});
}

void BM_LogitBiasBaseline(benchmark::State& state) { CopyBaseline(state); }
SAMPCHECK_BENCHMARK(BM_LogitBiasBaseline);

void BM_LogitBiasSparseCanonical(benchmark::State& state) {
  TimeStage(state, reference::RunLogitBias, SparseCase("canonical"), Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_LogitBiasSparseCanonical);

void BM_LogitBiasSparseVllm(benchmark::State& state) {
  TimeStage(state, reference::RunLogitBias, SparseCase("vllm"), Profile::kVllm);
}
SAMPCHECK_BENCHMARK(BM_LogitBiasSparseVllm);

void BM_LogitBiasSparseSglang(benchmark::State& state) {
  TimeStage(state, reference::RunLogitBias, SparseCase("sglang"), Profile::kSglang);
}
SAMPCHECK_BENCHMARK(BM_LogitBiasSparseSglang);

void BM_LogitBiasDenseBaseline(benchmark::State& state) {
  const Tensor in = RandomLogits(kRows, kVocab, kSeedLogits);
  const Tensor bias = RandomLogits(kRows, kVocab, kSeedBias);
  std::vector<float> out(static_cast<std::size_t>(kElements));
  const float* x = in.data<float>().data();
  const float* y = bias.data<float>().data();
  for (auto _ : state) {
    float* dst = out.data();
    for (std::int64_t i = 0; i < kElements; ++i) dst[i] = x[i] + y[i];
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  SetRowSetCounters(state);
}
SAMPCHECK_BENCHMARK(BM_LogitBiasDenseBaseline);

void BM_LogitBiasDenseCanonical(benchmark::State& state) {
  const Case c = MakeCase("logit_bias", "canonical",
                          {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)},
                           {"bias", RandomLogits(kRows, kVocab, kSeedBias)}});
  TimeStage(state, reference::RunLogitBias, c, Profile::kCanonical);
}
SAMPCHECK_BENCHMARK(BM_LogitBiasDenseCanonical);

}  // namespace
}  // namespace sampcheck::bench
