// SPDX-License-Identifier: Apache-2.0
// The noise stage on a kernel runner (gpu/backend/noise_glue.h, docs/spec/noise.md).
#include "gpu/backend/noise_glue.h"

#include <utility>

#include "reference/noise.h"
#include "reference/stage_io.h"

namespace sampcheck::gpu {

TensorMap RunNoiseStage(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  const reference::NoiseRequest r = reference::ParseNoiseRequest(c);
  Tensor out = Tensor::Uninitialized(DType::kF32, {r.rows, r.n});
  if (r.rows > 0 && r.n > 0)
    runner.Run(NoiseLaunch(r.seed, r.offset, r.rows, r.n, r.generator, r.law, out.data<float>().data()));
  return reference::Outputs("noise", std::move(out));
}

}  // namespace sampcheck::gpu
