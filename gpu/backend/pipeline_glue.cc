// SPDX-License-Identifier: Apache-2.0
// pipeline on the gpu backends (gpu/backend/pipeline_glue.h, docs/spec/pipeline.md). The
// composition up to the draw, its checks and their messages are the reference's
// (reference::ComposePipeline) with every step one gpu stage (RunGpuStage: one kernel launch);
// the draw and the greedy/drawn choice are kernels too.
#include "gpu/backend/pipeline_glue.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gpu/backend/gpu_backend.h"
#include "reference/pipeline.h"
#include "reference/stage_io.h"

namespace sampcheck::gpu {

using reference::Outputs;
using reference::StageInputs;

reference::PipelineStageRunner GpuPipelineStages(KernelRunner& runner) {
  return [&runner](const std::string& stage, const Case& sub) { return RunGpuStage(stage, sub, sub.profile, runner); };
}

TensorMap GpuPipeline(const Case& c, Profile profile, KernelRunner& runner) {
  return GpuPipelineWith(c, profile, runner, {});
}

TensorMap GpuPipelineWith(const Case& c, Profile profile, KernelRunner& runner, const GpuPipelineRules& rules) {
  // Every step up to the draw, each the gpu stage of that name (one kernel launch), with the
  // reference's checks and messages.
  const reference::PipelineDistribution d = reference::ComposePipeline(c, profile, GpuPipelineStages(runner));
  StageInputs in(c, "pipeline");
  const std::int64_t rows = d.rows(), vocab = d.vocab();
  const reference::PipelineNoise noise = reference::ParsePipelineNoise(in, d, profile);

  // One draw launch for the batch; greedy rows' draws are discarded by the select kernel.
  const float* probs = d.probs.data<float>().data();
  Tensor drawn(DType::kI64, {rows});
  std::int64_t* const drawn_out = drawn.data<std::int64_t>().data();
  if (d.any_random) {
    if (profile == Profile::kVllm) {
      runner.Run(ExponentialRaceLaunch(probs, noise.q.data<float>().data(), rows, vocab, vocab, true, drawn_out));
    } else {
      const std::int64_t* s = noise.seed->data<std::int64_t>().data();
      const std::int64_t* p = noise.positions->data<std::int64_t>().data();
      if (profile == Profile::kSglang && !d.sglang_unfiltered && rules.sglang_rank_keys) {
        // SGLang's sorted path: the full softmax's survivors keyed by rank.
        std::vector<std::uint8_t> draw(d.is_greedy.size());
        std::transform(d.is_greedy.begin(), d.is_greedy.end(), draw.begin(), [](std::uint8_t g) { return g == 0; });
        runner.Run(SglangRankDrawLaunch(d.full.data<float>().data(), d.scaled.data<float>().data(),
                                        d.masked.data<float>().data(), draw.data(), s, p, rows, vocab, vocab, drawn_out));
      } else {
        // Canonical and SGLang's unfiltered path keyed by token id (and the planted fault:
        // SGLang's sorted path keyed by token id on the filtered probabilities).
        runner.Run(SeededGumbelLaunch(probs, s, p, nullptr, rows, vocab, vocab, drawn_out));
      }
    }
  }

  // The reference's per-row checks, in its order (the noise of a random row, then its draw).
  for (std::int64_t b = 0; b < rows; ++b) {
    if (d.is_greedy[static_cast<std::size_t>(b)] != 0) continue;
    noise.CheckRow(in, b);
    if (drawn_out[b] < 0 || drawn_out[b] >= vocab) reference::FailNoToken(in, b);
  }

  Tensor token(DType::kI64, {rows});
  runner.Run(PipelineSelectLaunch(d.is_greedy.data(), d.greedy.data<std::int64_t>().data(),
                                  d.any_random ? drawn_out : nullptr, rows, token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

std::string ComposedStageStatisticalSkipReason(const std::string& stage, const std::string& backend) {
  if (stage != "pipeline" && stage != "decode_steps") return {};
  return "backend '" + backend +
         "' runs the pipeline's statistical batches (10^4 to 5 x 10^5 replicas of rows up to V = 8193, each step a "
         "kernel launch) too slowly: hours on the emulator, and SGLang's sorted-path rank count is O(V^2) per row "
         "(docs/gpu.md); the pipeline's goldens are checked bitwise, its statistics on the reference";
}

}  // namespace sampcheck::gpu
