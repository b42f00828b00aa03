// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of the gpu backends for `pipeline` (docs/spec/pipeline.md, reference/pipeline.h):
// the reference's composition (reference::ComposePipeline) over the gpu backend's own stages —
// each step one kernel launch on a sub-case holding the current logits, in the profile's order;
// then one draw kernel for the batch (vllm's exponential race, the seeded Gumbel keyed by token
// id, or SGLang's sorted-path draw keyed by rank: gpu/kernels/sglang_rank_draw.cuh) and one kernel
// that picks each row's greedy or drawn token (gpu/kernels/pipeline_select.cuh). Inputs are checked
// with the reference's own boundary code and messages (reference/stage_io.h); the host
// computes no token.

#include <string>

#include "core/case.h"
#include "core/profile.h"
#include "gpu/runners/kernel_runner.h"
#include "reference/pipeline.h"

namespace sampcheck::gpu {

// The seam the planted-fault test uses (tests/gpu_pipeline_test.cc); the stage always runs with
// the defaults.
struct GpuPipelineRules {
  bool sglang_rank_keys = true;  // false: the sorted path keyed by token id (a planted fault)
};

// The pipeline's steps as this backend's stages on `runner` (RunGpuStage), for ComposePipeline.
reference::PipelineStageRunner GpuPipelineStages(KernelRunner& runner);

TensorMap GpuPipeline(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuPipelineWith(const Case& c, Profile profile, KernelRunner& runner, const GpuPipelineRules& rules);

// For GpuBackend::Capabilities' statistical_skip_reason: non-empty for pipeline and decode_steps, whose
// statistical batches (10^4 to 5 x 10^5 replicas of rows up to V = 8193) these backends run
// too slowly (docs/gpu.md "The pipeline and decode_steps").
std::string ComposedStageStatisticalSkipReason(const std::string& stage, const std::string& backend);

}  // namespace sampcheck::gpu
