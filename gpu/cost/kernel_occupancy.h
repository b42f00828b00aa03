// SPDX-License-Identifier: Apache-2.0
#pragma once
// The blocks of each kernel resident on one SM, per device architecture: the cost model's
// occupancy (gpu/cost/cost_model.h, docs/gpu.md "Cost model", "Occupancy"), from the registers
// and shared memory of the built kernels rather than from threads alone.
//
// Contract:
// - KernelOccupancySm90(): one row per kernel of the CUDA runner (gpu/runners/kernel_entry.cuh's
//   KernelEntry instantiations), from gpu/cost/kernel_occupancy_sm90.inc: the kernel's name and
//   block size as the emulator reports them (Kernel::kName, Kernel::kThreads, hence
//   LaunchCounters::kernel and ::threads), the blocks of it resident on one compute capability
//   9.0 SM, and the kernel's type as written in the table. The blocks are data: the CUDA
//   occupancy calculator's answer for the sm_90 build's registers and shared memory, checked
//   against the built object by tests/kernel_occupancy_check.py (a ctest when the CUDA parts
//   are built), which fails when they disagree.
// - FindKernelOccupancy(rows, kernel, threads): the row of that name and block size, or null
//   (a kernel the table does not list, e.g. a test's toy kernel: the model then assumes
//   registers and shared memory do not limit it).
// Example: top_p at 1024 threads: 1 block per SM on sm_90 (64 registers a thread: 64 x 1024 =
//   65536, an SM's whole register file); sampling_filters: 2 (32 registers; threads limit it,
//   2048 / 1024) (tests/gpu_cost_test.cc, "OccupancyComesFromTheSm90Table").

#include <span>
#include <string_view>

namespace sampcheck::gpu {

struct KernelOccupancy {
  const char* kernel = "";  // Kernel::kName
  int threads = 0;          // Kernel::kThreads
  int blocks_per_sm = 0;    // resident blocks of this kernel on one SM
  const char* type = "";    // the kernel's type, as KernelEntry's template argument
};

std::span<const KernelOccupancy> KernelOccupancySm90();

const KernelOccupancy* FindKernelOccupancy(std::span<const KernelOccupancy> rows, std::string_view kernel,
                                           int threads);

}  // namespace sampcheck::gpu
