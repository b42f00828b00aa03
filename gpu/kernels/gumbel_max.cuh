// SPDX-License-Identifier: Apache-2.0
#pragma once
// gumbel_max kernel: the Gumbel-max draw given its noise, exact tier, bit-exact with
// reference/gumbel_max.h (docs/spec/draws.md "gumbel_max").
//
// Contract:
// - One block of kBlock threads per row (1024, or one warp of 32 when V <= kOneWarpVocab:
//   gpu/block/block_argmax.cuh; the winner is the same). scores and gumbel: rows x pitch f32, row b's V entries
//   at b * pitch + [0, V) (pitch >= V; [V, pitch) is padding, never read); token: rows i64.
//   The caller has checked the inputs as the reference does: every noise value finite. Scores
//   may be NaN, +inf or all -inf (docs/spec/draws.md "Degenerate rows").
// - Candidates: the i with score_i != -inf (probability zero is never drawn, whatever the
//   noise). Value v_i = score_i + gumbel_i, one f32 addition; a sum that overflows competes as
//   +-inf (a candidate whose sum is -inf still beats "no candidate").
// - token = argmax of v over the candidates in greedy.cuh's total order (ArgmaxAbove: NaN, from
//   a NaN score, above every number; equal values to the lower index), the reference's
//   DrawArgmaxAbove scan (reference/draw_rows.h). Thread l folds indices l, l + kBlock, ... in
//   increasing order, then the canonical tree (gpu/block/block_argmax.cuh). A row with no
//   candidate (every score -inf) leaves the tree's identity index kNoIndex, which is not an id:
//   the row stores kNoDrawToken (0) instead.
// - Exact tier; profiles canonical and sglang (identical for given noise).
// Example: scores {0, -1}, gumbel {0, 2}: sums {0, 1} -> 1; scores {-inf, 0}, gumbel {100, 0}
// -> 1; scores {-inf, -inf} -> 0 (tests/gpu_kernels_test.cc, GpuGumbelMax).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/kernels/greedy.cuh"
#include "reference/profile_rules.h"

namespace sampcheck::gpu {

template <int kBlock = kCanonicalLanes>
struct GumbelMaxKernel {
  static constexpr const char* kName = "gumbel_max";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Noise, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In scores, Noise gumbel, Out token, std::int64_t vocab,
                                        std::int64_t pitch) const {
    const std::int64_t row = block.index();
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    RowArgmax<kBlock>(block, vocab, value, index, ArgmaxAboveF32{}, [&](Thread, std::int64_t i, float& x) {
      const float s = scores.Load(row * pitch + i);
      if (s == NegativeInfinity()) return false;  // probability zero: never drawn
      x = s + gumbel.Load(row * pitch + i);
      return true;
    });
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, index[t] == kNoIndex ? reference::kNoDrawToken : index[t]);
    });
  }
};

}  // namespace sampcheck::gpu
