// SPDX-License-Identifier: Apache-2.0
// The kernels on the checking host emulator (gpu/runners/kernel_runner.h, docs/gpu.md): every launch
// description runs through the emulator's launcher (gpu/runners/emulated_launch.h) with every check on,
// and any violation fails the run with the emulator's report; gpu-fast's launches too
// (gpu/fast/fast_sampling_launch.h, gpu/fast/fast_inverse_cdf_launch.h,
// gpu/fast/fast_flashinfer_sampling_from_probs_launch.h, gpu/fast/fast_spec_random_launch.h).
#include <variant>

#include "gpu/runners/emulated_launch.h"
#include "gpu/fast/fast_flashinfer_sampling_from_probs.cuh"
#include "gpu/fast/fast_flashinfer_sampling_from_probs_launch.h"
#include "gpu/fast/fast_inverse_cdf.cuh"
#include "gpu/fast/fast_inverse_cdf_launch.h"
#include "gpu/fast/fast_sampling.cuh"
#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/fast/fast_sampling_slices.cuh"
#include "gpu/fast/fast_spec_random.cuh"
#include "gpu/fast/fast_spec_random_launch.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

namespace {

class EmulatedRunner final : public KernelRunner {
 public:
  std::string Name() const override { return "gpu-emulated"; }
  bool Reentrant() const override { return true; }
  void Run(const KernelLaunch& launch) override {
    std::visit([](const auto& description) { RunEmulated(description, "gpu-emulated"); }, launch);
  }
};

}  // namespace

std::unique_ptr<KernelRunner> MakeEmulatedRunner() { return std::make_unique<EmulatedRunner>(); }

void RunFastSamplingEmulated(const FastSamplingLaunch& launch) {
  EmulatedLaunch emulated("gpu-fast-emulated");
  launch.Describe<kFastSamplingEmulatedThreads>(emulated);
}

void RunFastSamplingEmulatedDeviceBlock(const FastSamplingLaunch& launch) {
  EmulatedLaunch emulated("gpu-fast-emulated");
  launch.Describe<kFastSamplingDeviceThreads>(emulated);
}

void RunFastInverseCdfEmulated(const FastInverseCdfLaunch& launch) {
  EmulatedLaunch emulated("gpu-fast-emulated");
  launch.Describe<kFastSamplingEmulatedThreads>(emulated);
}

void RunFastFlashinferSamplingFromProbsEmulated(const FastFlashinferSamplingFromProbsLaunch& launch) {
  EmulatedLaunch emulated("gpu-fast-emulated");
  launch.Describe<kFastSamplingEmulatedThreads>(emulated);
}

void RunFastSpecRandomEmulated(const FastSpecRandomLaunch& launch) {
  EmulatedLaunch emulated("gpu-fast-emulated");
  launch.Describe<kFastSamplingEmulatedThreads>(emulated);
}

}  // namespace sampcheck::gpu
