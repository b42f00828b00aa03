// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of the noise kernel (gpu/kernels/noise.cuh) for the gpu backends (gpu/backend/gpu_backend.h):
// the request is read and checked by the reference's own parser (reference/noise.h), so bad
// input gets the reference's message; the kernel computes every sample.

#include "core/case.h"
#include "core/profile.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

TensorMap RunNoiseStage(const Case& c, Profile profile, KernelRunner& runner);

}  // namespace sampcheck::gpu
