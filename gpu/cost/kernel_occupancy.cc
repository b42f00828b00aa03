// SPDX-License-Identifier: Apache-2.0
// The occupancy tables of gpu/cost/kernel_occupancy.h: each row's name and block size are the
// kernel type's own (kName, kThreads), so a row cannot name a kernel that does not exist or
// misstate its block size; the blocks per SM are data checked against the build.
#include "gpu/cost/kernel_occupancy.h"

#include <cstddef>

#include "gpu/fast/fast_flashinfer_sampling_from_probs.cuh"
#include "gpu/fast/fast_inverse_cdf.cuh"
#include "gpu/fast/fast_sampling.cuh"
#include "gpu/fast/fast_sampling_slices.cuh"
#include "gpu/fast/fast_spec_random.cuh"
#include "gpu/runners/kernel_launches.h"

namespace sampcheck::gpu {
namespace {

#define SAMPCHECK_KERNEL_OCCUPANCY(blocks, ...) \
  KernelOccupancy{__VA_ARGS__::kName, __VA_ARGS__::kThreads, blocks, #__VA_ARGS__},
constexpr KernelOccupancy kSm90[] = {
#include "gpu/cost/kernel_occupancy_sm90.inc"
};
#undef SAMPCHECK_KERNEL_OCCUPANCY

// One row per (name, block size): the estimate looks a launch up by the two.
constexpr bool RowsAreDistinct(std::span<const KernelOccupancy> rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = i + 1; j < rows.size(); ++j) {
      if (rows[i].threads == rows[j].threads && std::string_view(rows[i].kernel) == rows[j].kernel) return false;
    }
  }
  return true;
}
static_assert(RowsAreDistinct(kSm90), "two rows of kernel_occupancy_sm90.inc share a name and block size");

}  // namespace

std::span<const KernelOccupancy> KernelOccupancySm90() { return kSm90; }

const KernelOccupancy* FindKernelOccupancy(std::span<const KernelOccupancy> rows, std::string_view kernel,
                                           int threads) {
  for (const KernelOccupancy& row : rows) {
    if (row.threads == threads && kernel == row.kernel) return &row;
  }
  return nullptr;
}

}  // namespace sampcheck::gpu
