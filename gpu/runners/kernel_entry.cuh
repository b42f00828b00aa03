// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one __global__ entry of every kernel on a CUDA device (docs/gpu.md "Backends"): block
// b of a launch runs the kernel functor's body, the same body the host emulator runs, on the
// device's Block (gpu/block/device_block.cuh). Used by the device's launcher
// (gpu/runners/cuda_launch.cuh) and the device-resident entry (gpu/runners/resident_sampling.h).
//
// Launch: KernelEntry<Kernel, Args...><<<grid, Kernel::kThreads>>>(args...). The launch bounds
// are the kernel's block size and KernelMinBlocksPerSm<Kernel>: Kernel::kMinBlocksPerSm when the
// kernel declares it, else 0, which asks for nothing (nvcc then writes no .minnctapersm, as
// with the block size alone). A kernel that asks for n blocks gets at most 65536 / (n x threads)
// registers a thread on sm_90, spilling the rest to local memory. An explicit 1 is not the same
// as nothing: ptxas then takes up to 65536 / threads registers (64 at 1024 threads) where it
// chose fewer (sampling_filters: 64 instead of 32, one block per SM instead of two; docs/gpu.md
// "Occupancy"). The cost model's blocks per SM of each kernel
// (gpu/cost/kernel_occupancy_sm90.inc) follow from the result.
#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

template <class Kernel>
inline constexpr int KernelMinBlocksPerSm = [] {
  if constexpr (requires { Kernel::kMinBlocksPerSm; }) {
    return static_cast<int>(Kernel::kMinBlocksPerSm);
  } else {
    return 0;
  }
}();

template <class Kernel, class... Args>
__global__ void __launch_bounds__(Kernel::kThreads, KernelMinBlocksPerSm<Kernel>) KernelEntry(Args... args) {
  Block block;
  device::TimelineStart();  // the device timeline's first and last stamps (gpu/block/device_timeline.cuh)
  Kernel{}(block, args...);
  device::TimelineEnd();
}

}  // namespace sampcheck::gpu
