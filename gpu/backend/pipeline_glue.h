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

#include <cstdint>
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

// The gpu backends' own draws of a pipeline case (Backend::CountDraws / CountDrawsRange; docs/gpu.md
// "The pipeline's statistical cases"): counts [B, V] of draws [first_draw, first_draw + draws)
// per row. Each row's distribution is composed once through the kernels (ComposePipeline over
// GpuPipelineStages, as Run does); a greedy row gives its greedy token every time; a random
// row's draws then run through the draw kernel Run would launch, with the noise the draw
// harness gives draw d of row r through Run (reference/rng/draw_harness_noise.h): the seed of
// (d, r) at position 0 for the seeded draws, the q of (d, r) for vllm's race. The kernel sees
// only the row's kept tokens (ids ascending, keyed by their token id; on SGLang's sorted path
// the survivors in rank order, keyed by rank, SglangSortedOrder), which leaves every draw's
// winner unchanged: a dropped token never wins. So the counts equal those of the replicated
// case through Run (harness/draw_harness.h CountDrawsThroughRun) bit for bit
// (tests/gpu_pipeline_test.cc), at the cost of the draws alone.
Tensor GpuPipelineCountDraws(const Case& c, std::int64_t first_draw, std::int64_t draws, std::uint64_t seed,
                             KernelRunner& runner);
// Elements of one draw launch (replicas x kept tokens): 2^22, 16 MiB per f32 array.
inline constexpr std::int64_t kCountDrawsLaunchElements = std::int64_t{1} << 22;

}  // namespace sampcheck::gpu
