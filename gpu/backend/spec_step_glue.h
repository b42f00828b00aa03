// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of spec_step for the gpu backends (gpu/backend/gpu_backend.h), composed like the
// pipeline (docs/gpu.md "The pipeline and decode_steps: composed, not fused"): the case's inputs
// are checked by the reference's ParseSpecStep; the min_tokens mask of every position is the
// min_new_tokens stage, a greedy row's verification the spec_greedy kernel, a random row's
// positions go through the temperature and sampling_filters stages and the token-wise verifier
// (the spec_random kernel, vllm rule) or block verification (gpu/kernels/spec_verify_block.cuh);
// sglang's positions through temperature and softmax and SGLang's chain verifier
// (gpu/kernels/spec_verify_sglang.cuh: the renorms, the acceptance and the final scan); then
// gpu/kernels/spec_step.cuh picks each row's outcome and applies the stop ids. Every profile of
// the stage.

#include <cstdint>
#include <functional>

#include "core/case.h"
#include "core/profile.h"
#include "core/stage_capabilities.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

TensorMap GpuSpecStep(const Case& c, Profile profile, KernelRunner& runner);

// The token-wise verifier of the random rows under canonical and vllm (the vllm rule of
// spec_random on the composed probabilities): fills emitted [B, K + 1] and num_accepted [B].
// GpuSpecStep launches the bit-exact spec_random kernel on `runner`; gpu-fast passes its own
// (gpu/fast/fast_spec_random.cuh), so both backends run this one composition.
using SpecStepVerifier =
    std::function<void(const SpecRandomInputs& in, SpecShape shape, std::int64_t* emitted, std::int64_t* accepted)>;
TensorMap GpuSpecStepWith(const Case& c, Profile profile, KernelRunner& runner, const SpecStepVerifier& verifier);

// The profiles whose chains have kernels: all of the stage's.
inline constexpr ProfileSet kGpuSpecStepProfiles =
    ProfileSet{}.Add(Profile::kCanonical).Add(Profile::kVllm).Add(Profile::kBlockVerification).Add(Profile::kSglang);

}  // namespace sampcheck::gpu
