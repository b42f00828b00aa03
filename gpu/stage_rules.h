// SPDX-License-Identifier: Apache-2.0
#pragma once
// A profile's rule for a kernel, as plain numbers and flags: the host glue
// (gpu/gpu_backend.cc) picks it from the profile, the kernel applies it, so kernels never see
// profile names. Shared by gpu/temperature.cuh and gpu/logit_bias.cuh and their runners.

namespace sampcheck::gpu {

// docs/spec/temperature.md.
struct TemperatureRule {
  double eps;       // greedy iff double(t) < eps
  double min_temp;  // 0 < t < min_temp is raised to float(min_temp); 0: no raise
};

// docs/spec/logit_bias.md.
struct LogitBiasRule {
  bool densify;  // sglang: every unlisted entry gets + 0.0f
  bool clamp;    // vllm: bias clamped to [-100, 100], NaN to -100
};

}  // namespace sampcheck::gpu
