// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of spec_step for the gpu backends (gpu/backend/gpu_backend.h), composed like the
// pipeline (docs/gpu.md "The pipeline and decode_steps: composed, not fused"): the case's inputs
// are checked by the reference's ParseSpecStep; the min_tokens mask of every position is the
// min_new_tokens stage, a greedy row's verification the spec_greedy kernel, a random row's
// positions go through the temperature and sampling_filters stages and the token-wise verifier
// (the spec_random kernel, vllm rule), and gpu/kernels/spec_step.cuh picks each row's outcome and
// applies the stop ids. Profiles canonical and vllm; block_verification and sglang are not
// claimed (gpu_backend.cc's capabilities; docs/gpu.md "Skips").

#include "core/case.h"
#include "core/profile.h"
#include "core/stage_capabilities.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

TensorMap GpuSpecStep(const Case& c, Profile profile, KernelRunner& runner);

// The profiles whose chains have kernels: sglang's (FlashInfer's renorm survivor rule and the
// final scan) has none yet, so its cases are skipped with that reason (docs/gpu.md "Skips").
inline constexpr ProfileSet kGpuSpecStepProfiles =
    ProfileSet{}.Add(Profile::kCanonical).Add(Profile::kVllm).Add(Profile::kBlockVerification);

}  // namespace sampcheck::gpu
