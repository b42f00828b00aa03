// SPDX-License-Identifier: Apache-2.0
// The kernels on a CUDA device (gpu/runners/kernel_runner.h, docs/gpu.md "Backends"): every launch
// description runs through the device's launcher (gpu/runners/cuda_launch.cuh), gpu-fast's launches too
// (gpu/fast/fast_sampling_launch.h, gpu/fast/fast_inverse_cdf_launch.h,
// gpu/fast/fast_flashinfer_sampling_from_probs_launch.h, gpu/fast/fast_spec_random_launch.h), host buffers copied in and out per call; a failure becomes
// std::runtime_error at the runner's boundary, "no CUDA device" when there is none.
#include <variant>

#include "gpu/runners/cuda_launch.cuh"
#include "gpu/fast/fast_backend.h"
#include "gpu/fast/fast_flashinfer_sampling_from_probs.cuh"
#include "gpu/fast/fast_flashinfer_sampling_from_probs_launch.h"
#include "gpu/fast/fast_inverse_cdf.cuh"
#include "gpu/fast/fast_inverse_cdf_launch.h"
#include "gpu/fast/fast_sampling.cuh"
#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/fast/fast_sampling_slices.cuh"
#include "gpu/fast/fast_spec_random.cuh"
#include "gpu/fast/fast_spec_random_launch.h"
#include "gpu/backend/gpu_backend.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

namespace {

class CudaRunner final : public KernelRunner {
 public:
  std::string Name() const override { return "gpu"; }
  // Every call checks for a device: one may be absent (CI) or lost.
  void Run(const KernelLaunch& launch) override {
    std::visit([](const auto& description) { RunOnCudaDevice(description, "gpu"); }, launch);
  }
};

}  // namespace

std::unique_ptr<KernelRunner> MakeCudaRunner() { return std::make_unique<CudaRunner>(); }
std::unique_ptr<Backend> MakeCudaBackend() { return std::make_unique<GpuBackend>(MakeCudaRunner()); }

void RunFastSamplingCuda(const FastSamplingLaunch& launch) {
  RequireCudaDevice();
  CudaLaunch device("gpu-fast");
  launch.Describe<kFastSamplingDeviceThreads>(device);
}

void RunFastInverseCdfCuda(const FastInverseCdfLaunch& launch) {
  RequireCudaDevice();
  CudaLaunch device("gpu-fast");
  launch.Describe<kFastSamplingDeviceThreads>(device);
}

void RunFastFlashinferSamplingFromProbsCuda(const FastFlashinferSamplingFromProbsLaunch& launch) {
  RequireCudaDevice();
  CudaLaunch device("gpu-fast");
  launch.Describe<kFastSamplingDeviceThreads>(device);
}

void RunFastSpecRandomCuda(const FastSpecRandomLaunch& launch) {
  RequireCudaDevice();
  CudaLaunch device("gpu-fast");
  launch.Describe<kFastSamplingDeviceThreads>(device);
}

std::unique_ptr<Backend> MakeGpuFastCudaBackend() {
  return std::make_unique<GpuFastBackend>("gpu-fast", FastRunners{.sampling = RunFastSamplingCuda, .inverse_cdf = RunFastInverseCdfCuda,
                                                                .flashinfer_sampling_from_probs = RunFastFlashinferSamplingFromProbsCuda,
                                                                .spec_random = RunFastSpecRandomCuda},
                                          FastSamplingBug::kNone, MakeCudaRunner());
}

// Whether a device is present, for tests that must skip with "no CUDA device".
bool CudaDevicePresent() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace sampcheck::gpu
