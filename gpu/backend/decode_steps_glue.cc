// SPDX-License-Identifier: Apache-2.0
// decode_steps on the gpu backends (gpu/backend/decode_steps_glue.h, docs/spec/decode_steps.md).
#include "gpu/backend/decode_steps_glue.h"

#include "gpu/backend/pipeline_glue.h"
#include "reference/decode_steps.h"

namespace sampcheck::gpu {

TensorMap GpuDecodeSteps(const Case& c, Profile profile, KernelRunner& runner) {
  return reference::RunDecodeStepsOn(c, profile, {},
                                     [&](const Case& step) { return GpuPipeline(step, profile, runner); });
}

}  // namespace sampcheck::gpu
