// SPDX-License-Identifier: Apache-2.0
// The gpu/ kernels on the checking host emulator (gpu-emulated backend) beside the reference
// on the same inputs, in the same run: B = 64 rows of V = 151936 f32 logits (bench_support.h).
//
// Each pair BM_Gpu<Stage>Reference / BM_Gpu<Stage>Emulated times the stage through its
// backend's Run (input checks and the f32 copy included on both sides), so the ratio
// Emulated / Reference is the emulator's cost on that stage: per-thread phases over 1024
// threads, a bounds check per global access and the shadow bookkeeping per shared access.
// docs/gpu.md "Speed" records measured ratios and the goal (a whole gpu-emulated conform run
// on golden/v1 within 5x of the reference's).
//
// BM_GpuFastPipelineReference / BM_GpuFastPipelineEmulated: the pipeline stage on a batch shaped
// like the statistical suite's V = 8193 case (kDrawRows rows of V = 8193, top-k 50 and top-p 0.9
// at temperature 0.8, a seed and a position each), on the reference and on gpu-fast-emulated (its
// fused kernel at the emulator's 128 threads a block): the emulator's cost on the draws that
// make most of `sampcheck conform --backend gpu-fast-emulated`'s time.
#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "gpu/backend/gpu_backend.h"
#include "gpu/fast/fast_backend.h"
#include "reference/reference_backend.h"

namespace sampcheck::bench {
namespace {

// The stage's Run on c, timed (the caller sets the counters).
void TimeRuns(benchmark::State& state, Backend& backend, const char* stage, const Case& c) {
  for (auto _ : state) {
    TensorMap out = backend.Run(stage, c);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
}

void TimeBackend(benchmark::State& state, Backend& backend, const char* stage, const Case& c) {
  TimeRuns(state, backend, stage, c);
  SetRowSetCounters(state);
}

// temperature needs a temperature per row; the others take logits alone.
Case StageCase(const char* stage, bool with_temperature) {
  TensorMap inputs;
  inputs.emplace("logits", RandomLogits(kRows, kVocab, kSeedLogits));
  if (with_temperature) {
    Tensor t(DType::kF32, {kRows});
    for (float& v : t.data<float>()) v = 0.7f;
    inputs.emplace("temperature", std::move(t));
  }
  return MakeCase(stage, "canonical", std::move(inputs));
}

#define SAMPCHECK_GPU_BENCH_PAIR(Name, stage, t)                               \
  void BM_Gpu##Name##Reference(benchmark::State& state) {                     \
    reference::ReferenceBackend backend;                                       \
    TimeBackend(state, backend, stage, StageCase(stage, t));                    \
  }                                                                            \
  SAMPCHECK_BENCHMARK(BM_Gpu##Name##Reference);                                \
  void BM_Gpu##Name##Emulated(benchmark::State& state) {                      \
    auto backend = gpu::MakeGpuEmulatedBackend();                              \
    TimeBackend(state, *backend, stage, StageCase(stage, t));                   \
  }                                                                            \
  SAMPCHECK_BENCHMARK(BM_Gpu##Name##Emulated)

// The draw batch (header): rows of V = 8193, one seed, positions 0, 1, ...
inline constexpr std::int64_t kDrawRows = 16;
inline constexpr std::int64_t kDrawVocab = 8193;

Case DrawBatchCase() {
  TensorMap inputs;
  inputs.emplace("logits", RandomLogits(kDrawRows, kDrawVocab, kSeedLogits));
  inputs.emplace("temperature", Filled(kDrawRows, 0.8f));
  inputs.emplace("top_k", FilledI32(kDrawRows, 50));
  inputs.emplace("top_p", Filled(kDrawRows, 0.9f));
  inputs.emplace("min_p", Filled(kDrawRows, 0.0f));
  Tensor seed(DType::kI64, {kDrawRows});
  Tensor positions(DType::kI64, {kDrawRows});
  for (std::int64_t i = 0; i < kDrawRows; ++i) {
    seed.data<std::int64_t>()[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(kSeedIds >> 1);
    positions.data<std::int64_t>()[static_cast<std::size_t>(i)] = i;
  }
  inputs.emplace("seed", std::move(seed));
  inputs.emplace("positions", std::move(positions));
  return MakeCase("pipeline", "canonical", std::move(inputs));
}

void TimeDrawBatch(benchmark::State& state, Backend& backend) {
  TimeRuns(state, backend, "pipeline", DrawBatchCase());
  state.SetItemsProcessed(state.iterations() * kDrawRows);  // draws
}

void BM_GpuFastPipelineReference(benchmark::State& state) {
  reference::ReferenceBackend backend;
  TimeDrawBatch(state, backend);
}
SAMPCHECK_BENCHMARK(BM_GpuFastPipelineReference);

void BM_GpuFastPipelineEmulated(benchmark::State& state) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  TimeDrawBatch(state, *backend);
}
SAMPCHECK_BENCHMARK(BM_GpuFastPipelineEmulated);

SAMPCHECK_GPU_BENCH_PAIR(Greedy, "greedy", false);
SAMPCHECK_GPU_BENCH_PAIR(Softmax, "softmax", false);
SAMPCHECK_GPU_BENCH_PAIR(LogSoftmax, "log_softmax", false);
SAMPCHECK_GPU_BENCH_PAIR(Temperature, "temperature", true);

}  // namespace
}  // namespace sampcheck::bench
