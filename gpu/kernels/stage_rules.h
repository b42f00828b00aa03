// SPDX-License-Identifier: Apache-2.0
#pragma once
// A profile's rule for a kernel, as plain numbers and flags: the host glue
// (gpu/backend/gpu_backend.cc) picks it from the profile, the kernel applies it, so kernels never see
// profile names. Shared by gpu/kernels/temperature.cuh, gpu/kernels/logit_bias.cuh, gpu/kernels/nan_handling.cuh and
// their runners.

#include "reference/profile_rules.h"

namespace sampcheck::gpu {

// docs/spec/temperature.md: the profile's epsilon and raise (reference/profile_rules.h, where
// the peers' constants are written once).
using TemperatureRule = reference::TemperatureRule;

// docs/spec/nan_handling.md (reference/profile_rules.h).
using NanRule = reference::NanRule;

// docs/spec/logit_bias.md (reference/profile_rules.h).
using LogitBiasRule = reference::LogitBiasRule;

}  // namespace sampcheck::gpu
