// SPDX-License-Identifier: Apache-2.0
#pragma once
// A profile's rule for a kernel, as plain numbers and flags: the host glue
// (gpu/backend/gpu_backend.cc) picks it from the profile, the kernel applies it, so kernels never see
// profile names. Shared by gpu/kernels/temperature.cuh, gpu/kernels/logit_bias.cuh, gpu/kernels/nan_handling.cuh and
// their runners.

namespace sampcheck::gpu {

// docs/spec/temperature.md.
struct TemperatureRule {
  double eps;       // greedy iff double(t) < eps
  double min_temp;  // 0 < t < min_temp is raised to float(min_temp); 0: no raise
};

// docs/spec/nan_handling.md: which non-finite values a profile replaces, and by what.
struct NanRule {
  bool nan = false;
  float nan_value = 0.0f;
  bool neg_inf = false;
  float neg_inf_value = 0.0f;
  bool pos_inf = false;
  float pos_inf_value = 0.0f;
};

// docs/spec/logit_bias.md.
struct LogitBiasRule {
  bool densify;  // sglang: every unlisted entry gets + 0.0f
  bool clamp;    // vllm: bias clamped to [-100, 100], NaN to -100
};

}  // namespace sampcheck::gpu
