// SPDX-License-Identifier: Apache-2.0
#pragma once
// gpu-fast's inverse_cdf kernel: the inverse-CDF draw given a uniform u (docs/spec/draws.md
// "inverse_cdf"), its running sum in a free order (the fused sampler's block scan,
// fast_detail::FastBlockInverseCdf in gpu/fast/fast_sampling.cuh), as a production sampler
// writes it. NOT bit-exact: a token whose cumulative boundary lies within the rounding of the
// sums may differ from the reference's sequential scan, so it is judged by the statistical
// harness only (docs/gpu.md "gpu-fast"); the bit-exact kernel is gpu/kernels/inverse_cdf.cuh.
//
// Contract:
// - One block of kThreads threads (a multiple of 32, at most 1024) per row. probs: rows x
//   pitch f32 (entries [V, pitch) are padding, never read); u: rows f32; token: rows i64. The
//   caller has checked what the reference checks (reference/inverse_cdf.h ParseInverseCdf):
//   probs finite >= 0 with a positive entry per row, u in [0, 1).
// - token = FastBlockInverseCdf(w_i = probs_i, x = u * total): the first i with probs_i > 0
//   whose running sum exceeds u times the row's total, sums in the block scan's order; rounding
//   past the end takes the last positive entry. A token of probability 0 is never drawn. The
//   row is read four entries a load (16-byte loads) when it holds at least 4 x kThreads
//   entries (chunks of whole quads), one a load before 2026-12-03.
// - Deterministic for a given kThreads (no atomics); between block sizes and against the
//   reference, tokens may differ where sums round differently: the distributional tier.
// - options.bug plants a fault for the harness's negative control (`wrong:` variants,
//   registered in gpu/fast/fast_backend.cc): kInverseCdfSkipsRenormalisation takes x = u, as a kernel
//   that assumes its probabilities sum to 1 (FlashInfer's samplers read probabilities that do)
//   would. kNone in every real backend.
// Example: probs {0.25, 0, 0.75}: u = 0 -> 0; u = 0.5 -> 2 (dyadic sums, exact in any order;
//   tests/gpu_fast_inverse_cdf_test.cc).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/fast/fast_inverse_cdf_launch.h"
#include "gpu/fast/fast_sampling.cuh"

namespace sampcheck::gpu {

template <int kBlockThreads>
struct FastInverseCdfKernel {
  static constexpr const char* kName = "fast_inverse_cdf";
  static constexpr int kThreads = kBlockThreads;
  static_assert(kThreads % kWarpSize == 0 && kThreads >= kWarpSize && kThreads <= 1024,
                "one block of whole warps, at most 1024 threads");

  template <class B, class In, class U, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In probs, U u, Out token, std::int64_t vocab, std::int64_t pitch,
                                        FastSamplingBug bug) const {
    const std::int64_t row = block.index();
    const std::int64_t base = row * pitch;
    const float ub = u.Load(row);
    float total = 0.0f;
    // The weights four a load (ValueWeights: chunks of whole quads from 4 x kThreads entries on).
    const std::int64_t j = fast_detail::FastBlockInverseCdf<kThreads>(
        block, vocab, fast_detail::WeightsOfValues(RowOf{probs, base}, [](std::int64_t, float x) { return x; }),
        [&](float sum) { return bug == FastSamplingBug::kInverseCdfSkipsRenormalisation ? ub : ub * sum; }, total);
    block.ForEachThread([&](Thread th) {
      if (th.x == 0) token.Store(row, j);
    });
  }
};

}  // namespace sampcheck::gpu
