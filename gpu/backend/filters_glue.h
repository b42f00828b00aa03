// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of the filter kernels (top_k, top_p, min_p, sampling_filters) for the gpu
// backends (gpu/backend/gpu_backend.cc): inputs read and checked by the reference's parse
// functions (reference/top_k.h, top_p.h, min_p.h, sampling_filters.h, logprobs.h), the profile
// resolved into gpu/kernels/filter_rules.h, one kernel launch.

#include "core/case.h"
#include "core/profile.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

TensorMap RunTopKKernel(const Case& c, Profile profile, KernelRunner& runner);
TensorMap RunTopPKernel(const Case& c, Profile profile, KernelRunner& runner);
TensorMap RunMinPKernel(const Case& c, Profile profile, KernelRunner& runner);
TensorMap RunSamplingFiltersKernel(const Case& c, Profile profile, KernelRunner& runner);
TensorMap RunAscendTopKTopPSampleV2Kernel(const Case& c, Profile profile, KernelRunner& runner);
// logprobs (gpu/kernels/logprobs.cuh): here because its processed modes run the filters.
TensorMap RunLogprobsKernel(const Case& c, Profile profile, KernelRunner& runner);

}  // namespace sampcheck::gpu
