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
#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "gpu/backend/gpu_backend.h"
#include "reference/reference_backend.h"

namespace sampcheck::bench {
namespace {

void TimeBackend(benchmark::State& state, Backend& backend, const char* stage, const Case& c) {
  for (auto _ : state) {
    TensorMap out = backend.Run(stage, c);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
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

SAMPCHECK_GPU_BENCH_PAIR(Greedy, "greedy", false);
SAMPCHECK_GPU_BENCH_PAIR(Softmax, "softmax", false);
SAMPCHECK_GPU_BENCH_PAIR(LogSoftmax, "log_softmax", false);
SAMPCHECK_GPU_BENCH_PAIR(Temperature, "temperature", true);

}  // namespace
}  // namespace sampcheck::bench
