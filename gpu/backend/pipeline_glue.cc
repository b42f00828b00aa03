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

#include "core/error.h"
#include "gpu/backend/gpu_backend.h"
#include "reference/rng/draw_harness_noise.h"
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
        std::vector<std::uint8_t> draw(d.pinned.size());
        std::transform(d.pinned.begin(), d.pinned.end(), draw.begin(), [](std::int64_t p) { return p < 0; });
        runner.Run(SglangRankDrawLaunch(d.full.data<float>().data(), d.scaled.data<float>().data(),
                                        d.masked.data<float>().data(), draw.data(), s, p, rows, vocab, vocab, drawn_out));
      } else {
        // Canonical and SGLang's unfiltered path keyed by token id (and the planted fault:
        // SGLang's sorted path keyed by token id on the filtered probabilities).
        runner.Run(SeededGumbelLaunch(probs, s, p, nullptr, rows, vocab, vocab, drawn_out));
      }
    }
  }

  // The reference's per-row checks, in its order (the noise of a row that draws, then its
  // draw); a pinned row (greedy, or degenerate: docs/spec/pipeline.md "Degenerate rows") reads
  // no noise and its draw is discarded.
  std::vector<std::uint8_t> is_pinned(d.pinned.size());
  for (std::int64_t b = 0; b < rows; ++b) {
    is_pinned[static_cast<std::size_t>(b)] = d.Pinned(b) >= 0 ? 1 : 0;
    if (is_pinned[static_cast<std::size_t>(b)] != 0) continue;
    noise.CheckRow(in, b);
    if (drawn_out[b] < 0 || drawn_out[b] >= vocab) reference::FailNoToken(in, b);
  }

  Tensor token(DType::kI64, {rows});
  runner.Run(PipelineSelectLaunch(is_pinned.data(), d.pinned.data(), d.any_random ? drawn_out : nullptr, rows,
                                  token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

Tensor GpuPipelineCountDraws(const Case& c, std::int64_t first_draw, std::int64_t draws, std::uint64_t seed,
                             KernelRunner& runner) {
  if (draws < 0 || first_draw < 0 || first_draw + draws > std::int64_t{1} << 32) {
    throw InputError("CountDraws: draws [" + std::to_string(first_draw) + ", " + std::to_string(first_draw + draws) +
                     ") must lie in [0, 2^32)");
  }
  const Profile profile = c.profile;
  // Each row's distribution once, through the kernels (the same composition as Run).
  const reference::PipelineDistribution d = reference::ComposePipeline(c, profile, GpuPipelineStages(runner));
  const StageInputs in(c, "pipeline");
  const std::int64_t rows = d.rows(), vocab = d.vocab();
  const bool by_rank = profile == Profile::kSglang && !d.sglang_unfiltered;
  Tensor counts(DType::kI64, {rows, vocab});
  auto out = counts.data<std::int64_t>();
  for (std::int64_t b = 0; b < rows; ++b) {
    auto row_counts = out.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
    if (const std::int64_t pinned = d.Pinned(b); pinned >= 0) {
      row_counts[static_cast<std::size_t>(pinned)] = draws;
      continue;
    }
    // The columns a draw can pick, in the draw kernel's order (header: the draws are Run's).
    const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
    std::vector<std::int32_t> ids;
    std::vector<float> p;
    if (by_rank) {
      const auto full = d.full.data<float>().subspan(at, n);
      ids = reference::SglangSortedOrder(full, d.scaled.data<float>().subspan(at, n), d.masked.data<float>().subspan(at, n));
      for (std::int32_t id : ids) p.push_back(full[static_cast<std::size_t>(id)]);
    } else {
      const auto probs = d.probs.data<float>().subspan(at, n);
      for (std::size_t i = 0; i < n; ++i) {
        if (probs[i] > 0.0f) ids.push_back(static_cast<std::int32_t>(i)), p.push_back(probs[i]);
      }
    }
    if (ids.empty()) reference::FailNoToken(in, b);
    const auto width = static_cast<std::int64_t>(ids.size());
    const std::int64_t per_launch = std::max<std::int64_t>(1, kCountDrawsLaunchElements / width);
    std::vector<float> p_rep, q_rep;
    std::vector<std::int32_t> ids_rep;
    std::vector<std::int64_t> seeds, positions, drawn;
    for (std::int64_t first = first_draw; first < first_draw + draws; first += per_launch) {
      const std::int64_t m = std::min(per_launch, first_draw + draws - first);
      p_rep.resize(static_cast<std::size_t>(m * width));
      for (std::int64_t i = 0; i < m; ++i) std::copy(p.begin(), p.end(), p_rep.begin() + i * width);
      drawn.assign(static_cast<std::size_t>(m), -1);
      const auto row = static_cast<std::uint32_t>(b);
      if (profile == Profile::kVllm) {
        // The harness's q of each kept token (a dropped token's ratio 0 / q is 0 whatever its q,
        // and the best ratio is positive, so its q cannot matter).
        q_rep.resize(p_rep.size());
        for (std::int64_t i = 0; i < m; ++i) {
          const auto draw = static_cast<std::uint32_t>(first + i);
          rng::Philox4x32Block words{};
          std::int64_t block = -1;
          for (std::int64_t j = 0; j < width; ++j) {
            const std::int32_t id = ids[static_cast<std::size_t>(j)];
            if (id / 4 != block) block = id / 4, words = rng::draw_harness::Block(seed, static_cast<std::uint32_t>(block), draw, row);
            q_rep[static_cast<std::size_t>(i * width + j)] = rng::draw_harness::Exponential(words.v[id % 4]);
          }
        }
        runner.Run(ExponentialRaceLaunch(p_rep.data(), q_rep.data(), m, width, width, true, drawn.data()));
      } else {
        seeds.resize(static_cast<std::size_t>(m));
        positions.assign(static_cast<std::size_t>(m), 0);
        for (std::int64_t i = 0; i < m; ++i) {
          seeds[static_cast<std::size_t>(i)] = rng::draw_harness::Seed(seed, static_cast<std::uint32_t>(first + i), row);
        }
        // Keyed by token id (canonical, SGLang's unfiltered path), or by rank on SGLang's sorted
        // path, whose columns are then the positions in the sorted row.
        if (!by_rank) {
          ids_rep.resize(p_rep.size());
          for (std::int64_t i = 0; i < m; ++i) std::copy(ids.begin(), ids.end(), ids_rep.begin() + i * width);
        }
        runner.Run(SeededGumbelLaunch(p_rep.data(), seeds.data(), positions.data(), by_rank ? nullptr : ids_rep.data(),
                                      m, width, width, drawn.data()));
      }
      for (const std::int64_t j : drawn) {
        if (j < 0 || j >= width) reference::FailNoToken(in, b);
        ++row_counts[static_cast<std::size_t>(ids[static_cast<std::size_t>(j)])];
      }
    }
  }
  return counts;
}

}  // namespace sampcheck::gpu
