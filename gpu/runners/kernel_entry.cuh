// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one __global__ entry of every kernel on a CUDA device (docs/gpu.md "Backends"): block
// b of a launch runs the kernel functor's body, the same body the host emulator runs, on the
// device's Block (gpu/block/device_block.cuh). Used by the device's launcher
// (gpu/runners/cuda_launch.cuh) and the device benchmarks (bench/device_sampling.cuh).
//
// Launch: KernelEntry<Kernel, Args...><<<grid, Kernel::kThreads>>>(args...); the launch
// bound is the kernel's block size, so the compiler may give each thread the registers of
// exactly that many threads.
#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

template <class Kernel, class... Args>
__global__ void __launch_bounds__(Kernel::kThreads) KernelEntry(Args... args) {
  Block block;
  Kernel{}(block, args...);
}

}  // namespace sampcheck::gpu
