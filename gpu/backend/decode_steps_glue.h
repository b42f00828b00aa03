// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of the gpu backends for `decode_steps` (docs/spec/decode_steps.md,
// reference/decode_steps.h): the reference's steps (reference::RunDecodeStepsOn: the same
// input checks and per-step inputs) with the gpu pipeline (gpu/backend/pipeline_glue.h) as each step,
// so every token comes from the kernels.

#include "core/case.h"
#include "core/profile.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

TensorMap GpuDecodeSteps(const Case& c, Profile profile, KernelRunner& runner);

}  // namespace sampcheck::gpu
