// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one interface between a backend's stage glue (gpu/backend/gpu_backend.h) and a place that runs
// the kernels: the host emulator (gpu/runners/emulated_runner.cc) or a CUDA device
// (gpu/runners/cuda_runner.cu). A runner runs any launch description listed in KernelLaunch
// (gpu/runners/kernel_launches.h): host pointers in, host pointers out; it copies to and from its
// device itself.
//
// Contract: a runner throws std::runtime_error when a kernel cannot run or its checks fail:
// the emulator's violations (kernel, block, thread, array, index), or the device's error
// ("no CUDA device" when there is none). It never aborts the process.
// Example: runner.Run(GreedyLaunch{logits, rows, vocab, pitch, token}).

#include <memory>
#include <string>

#include "gpu/runners/kernel_launches.h"

namespace sampcheck::gpu {

class KernelRunner {
 public:
  virtual ~KernelRunner() = default;
  virtual std::string Name() const = 0;
  virtual void Run(const KernelLaunch& launch) = 0;
  // Whether Run may be called from several threads at once: the emulator's state is per
  // thread (gpu/emulator), a device's stream is shared.
  virtual bool Reentrant() const { return false; }

  // The parameter structs of three launches, under the names the glue and tests use.
  using SpecShape = gpu::SpecShape;
  using SpecRandomInputs = gpu::SpecRandomInputs;
  using FinishRulesInputs = gpu::FinishRulesInputs;
};

std::unique_ptr<KernelRunner> MakeEmulatedRunner();
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA): gpu/runners/cuda_runner.cu.
std::unique_ptr<KernelRunner> MakeCudaRunner();
bool CudaDevicePresent();

}  // namespace sampcheck::gpu
