// SPDX-License-Identifier: Apache-2.0
#pragma once
// Filter + draw on device-resident buffers (docs/gpu.md "Backends"; bench/device_sampling_bench.cu
// times it, bench/README.md "Device"): what a serving engine would launch, with no copy and no
// synchronisation. It runs the runners' own launch descriptions on the caller's arrays
// (gpu/runners/cuda_resident_launch.cuh), so it launches exactly what the gpu and gpu-fast
// backends launch. Every row takes the same top-k (the slice plan follows from it):
// - kDeterministic: SamplingFiltersLaunch (gpu/runners/kernel_launches.h) for a caller that
//   wants only the token: the canonical pipeline's random-row path, bit-exact with the
//   reference: sampling_filters (top-k -> top-p -> min-p on the top-k survivors,
//   gpu/kernels/sampling_filters.cuh) with the seeded Gumbel-max draw on the survivors by the
//   same kernel (gpu/kernels/sampling_filters_on_survivors.cuh), the masked rows not written;
//   its split form (gpu/kernels/sampling_filters_slices.cuh) when the batch has fewer rows than
//   the SMs; temperature 1 (the pipeline's temperature kernel is not launched).
// - kFast: FastSamplingLaunch (gpu/fast/fast_sampling_launch.h): gpu-fast's fused kernel
//   (gpu/fast/fast_sampling.cuh) or its split form (gpu/fast/fast_sampling_slices.cuh),
//   canonical rules, the device's block size.
// Defined in gpu/runners/cuda_runner.cu beside the runners' launches of the same kernels, so nvcc
// compiles each kernel once for both (a caller's own translation unit would compile them again:
// minutes of ptxas). Host-only header: no CUDA type appears here.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sampcheck::gpu {

enum class ResidentMode { kDeterministic, kFast };

// Device pointers, each array of the length its comment gives (B = rows, V = vocab).
struct ResidentSampling {
  ResidentMode mode = ResidentMode::kDeterministic;
  std::int64_t rows = 0, vocab = 0;
  int top_k = 0;  // every row's top-k (0: off); top_k_rows holds it per row
  bool has_min_p = false;
  // Every row greedy: both modes launch the greedy stage's argmax kernel (GreedyLaunch,
  // gpu/kernels/greedy.cuh: the batch's slices a row) instead of the filters, as gpu-fast's
  // all-greedy batch does (FastSamplingLaunch::AllGreedy), so temperature is not read then.
  bool greedy = false;
  const float* logits = nullptr;              // [B V], read only
  const std::int32_t* top_k_rows = nullptr;   // [B], each equal to top_k
  const float* top_p = nullptr;               // [B]
  const float* min_p = nullptr;               // [B]
  const float* temperature = nullptr;         // [B], kFast, unless greedy
  const std::int64_t* seed = nullptr;         // [B], kDeterministic
  const std::int64_t* positions = nullptr;    // [B], kDeterministic
  const std::uint64_t* seed_u64 = nullptr;    // [B], kFast
  const std::uint64_t* position_u64 = nullptr;  // [B], kFast
  std::int64_t* token = nullptr;              // [B], written
};

class ResidentLaunch;

// The device scratch the launch descriptions ask for beyond the caller's arrays (the filters'
// full rows and order keys, the split rows' partials and ticket counters), allocated by the
// first launch that needs them and kept for the next ones, so that a launch of a shape already
// seen allocates nothing and does not synchronise. Ticket counters are zeroed when allocated;
// every launch leaves them zero (gpu/block/last_block.cuh). One workspace serves one stream's
// launches at a time.
class ResidentWorkspace {
 public:
  ResidentWorkspace() = default;
  ~ResidentWorkspace();  // frees the buffers (cuda_runner.cu)
  ResidentWorkspace(const ResidentWorkspace&) = delete;
  ResidentWorkspace& operator=(const ResidentWorkspace&) = delete;

 private:
  friend class ResidentLaunch;
  struct Buffer {
    void* device = nullptr;
    std::size_t bytes = 0;
  };
  // The k-th scratch (tickets) array a description asks for is buffer k of its list.
  std::vector<Buffer> scratch_, tickets_;
};

// One stage kernel of the gpu backend on device-resident rows, for the device benchmark's stage
// rows (bench/device_sampling_bench.cu, BM_DeviceStage): the launch description the backend's
// stage runs (gpu/runners/kernel_launches.h: SoftmaxLaunch, TopKLaunch, TopPLaunch,
// MinPLaunch) with the descriptions' default rules, the canonical profile's; each reads the
// [B V] logits and writes [B V] (the probabilities, or the logits with the dropped entries
// -inf).
enum class ResidentStage { kSoftmax, kTopK, kTopP, kMinP };

struct ResidentStageRows {
  ResidentStage stage = ResidentStage::kSoftmax;
  std::int64_t rows = 0, vocab = 0;
  const float* logits = nullptr;        // [B V], read only
  const std::int32_t* top_k = nullptr;  // [B], kTopK
  const float* p = nullptr;             // [B], kTopP's top_p or kMinP's min_p
  float* out = nullptr;                 // [B V], written
};

// Launches the mode's kernel(s) on the default stream, through the launch description the
// runners use (SamplingFiltersLaunch or FastSamplingLaunch), with the slices planned from
// `top_k` on the host; returns the first CUDA error as an int (0: launched), so that this
// header needs no CUDA header.
int LaunchResidentSampling(const ResidentSampling& s, ResidentWorkspace& workspace);

// Launches the stage's kernel likewise (the workspace is unused by these four; kept for the
// same signature as the sampling entry).
int LaunchResidentStage(const ResidentStageRows& s, ResidentWorkspace& workspace);

}  // namespace sampcheck::gpu
