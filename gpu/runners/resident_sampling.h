// SPDX-License-Identifier: Apache-2.0
#pragma once
// Filter + draw on device-resident buffers (docs/gpu.md "Backends"; bench/device_sampling_bench.cu
// times it, bench/README.md "Device"): what a serving engine would launch, with no copy and no
// synchronisation. Every row takes the same top-k (the slice plan follows from it):
// - kDeterministic: the canonical pipeline's random-row path, bit-exact with the reference:
//   sampling_filters (top-k -> top-p -> min-p on the top-k survivors, gpu/kernels/sampling_filters.cuh)
//   with the seeded Gumbel-max draw on the survivors by the same kernel
//   (gpu/kernels/sampling_filters_on_survivors.cuh), the masked rows not written; its split form
//   (gpu/kernels/sampling_filters_slices.cuh) when the batch has fewer rows than the SMs, as
//   SamplingFiltersLaunch (gpu/runners/kernel_launches.h) describes them for a caller that wants
//   only the token; temperature 1 (the pipeline's temperature kernel is not launched).
// - kFast: gpu-fast's fused kernel (gpu/fast/fast_sampling.cuh) or its split form
//   (gpu/fast/fast_sampling_slices.cuh), as FastSamplingLaunch (gpu/fast/fast_sampling_launch.h)
//   describes them, canonical rules.
// Defined in gpu/runners/cuda_runner.cu beside the runners' launches of the same kernels, so nvcc
// compiles each kernel once for both (a caller's own translation unit would compile them again:
// minutes of ptxas). Host-only header: no CUDA type appears here.
#include <cstdint>

namespace sampcheck::gpu {

enum class ResidentMode { kDeterministic, kFast };

// Device pointers, each array of the length its comment gives (B = rows, V = vocab).
struct ResidentSampling {
  ResidentMode mode = ResidentMode::kDeterministic;
  std::int64_t rows = 0, vocab = 0;
  int top_k = 0;  // every row's top-k (0: off); top_k_rows holds it per row
  bool has_min_p = false;
  const float* logits = nullptr;              // [B V], read only
  const std::int32_t* top_k_rows = nullptr;   // [B]
  const float* top_p = nullptr;               // [B]
  const float* min_p = nullptr;               // [B]
  const float* temperature = nullptr;         // [B], kFast
  const std::int64_t* seed = nullptr;         // [B], kDeterministic
  const std::int64_t* positions = nullptr;    // [B], kDeterministic
  const std::uint64_t* seed_u64 = nullptr;    // [B], kFast
  const std::uint64_t* position_u64 = nullptr;  // [B], kFast
  float* work_a = nullptr;                    // [B V], kDeterministic scratch
  float* work_b = nullptr;                    // [B V], kDeterministic scratch
  std::uint64_t* order_keys = nullptr;        // [2 B V], kDeterministic scratch
  std::uint64_t* partials = nullptr;          // [ResidentPartialWords(...)]
  std::uint64_t* survivor_rows = nullptr;     // [1], never read (no row written after the filters)
  std::uint32_t* tickets = nullptr;           // [B], zero before the first launch; launches leave it zero
  std::int64_t* token = nullptr;              // [B], written
};

// The words `partials` must hold for this shape (either mode).
std::int64_t ResidentPartialWords(std::int64_t rows, std::int64_t vocab, int top_k);

// Launches the mode's kernel(s) on the current stream; returns cudaGetLastError() as an int
// (0: launched), so that this header needs no CUDA header.
int LaunchResidentSampling(const ResidentSampling& s);

}  // namespace sampcheck::gpu
