// SPDX-License-Identifier: Apache-2.0
#pragma once
// The pipeline's last step (docs/spec/pipeline.md, reference/pipeline.h contract block
// "Greedy rows", "Degenerate rows"): each row's token is its pinned token (PipelineDistribution
// ::pinned: a greedy row's argmax before temperature, a degenerate row's token) when the row
// has one, else its drawn token. Exact tier.
//
// Contract:
// - One thread per row, kThreads rows per block (grid = ceil(rows / kThreads)); no shared
//   memory. is_pinned [rows] u8 (non-zero: pinned), pinned and drawn [rows] i64; token [rows]
//   i64. drawn is read on rows that draw only (a batch without such rows has no draw).
// Example: is_pinned {1, 0}, pinned {3, 4}, drawn {7, 8} -> token {3, 8}.

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

struct PipelineSelectKernel {
  static constexpr const char* kName = "pipeline_select";
  static constexpr int kThreads = kWarpSize;

  template <class B, class Flags, class Tokens, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Flags is_pinned, Tokens pinned, Tokens drawn, Out token,
                                        std::int64_t rows) const {
    block.ForEachThread([&](Thread t) {
      const std::int64_t b = static_cast<std::int64_t>(block.index()) * kThreads + t.x;
      if (b >= rows) return;
      token.Store(b, is_pinned.Load(b) != 0 ? pinned.Load(b) : drawn.Load(b));
    });
  }
};

}  // namespace sampcheck::gpu
