// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of the flashinfer_sampling_from_probs kernel (gpu/kernels/flashinfer_sampling_from_probs.cuh)
// for the gpu backends (gpu/backend/gpu_backend.h): the case's inputs are checked in
// reference/flashinfer_sampling_from_probs.cc's order with its messages, each row's parameters
// resolved by the reference's own FlashinferParamsOfRow, and one launch draws every row
// (docs/gpu.md "Stages with kernels").

#include "core/case.h"
#include "core/profile.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

TensorMap GpuFlashinferSamplingFromProbs(const Case& c, Profile profile, KernelRunner& runner);

}  // namespace sampcheck::gpu
