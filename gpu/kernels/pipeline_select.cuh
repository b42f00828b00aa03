// SPDX-License-Identifier: Apache-2.0
#pragma once
// The pipeline's last step (docs/spec/pipeline.md, reference/pipeline.h contract block
// "Greedy rows"): each row's token is its greedy token (the argmax before temperature) when
// the row is greedy, else its drawn token. Exact tier.
//
// Contract:
// - One thread per row, kThreads rows per block (grid = ceil(rows / kThreads)); no shared
//   memory. is_greedy [rows] u8 (non-zero: greedy), greedy and drawn [rows] i64; token [rows]
//   i64. drawn is read on random rows only (a batch without random rows has no draw).
// Example: is_greedy {1, 0}, greedy {3, 4}, drawn {7, 8} -> token {3, 8}.

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

struct PipelineSelectKernel {
  static constexpr const char* kName = "pipeline_select";
  static constexpr int kThreads = kWarpSize;

  template <class B, class Flags, class Tokens, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Flags is_greedy, Tokens greedy, Tokens drawn, Out token,
                                        std::int64_t rows) const {
    block.ForEachThread([&](Thread t) {
      const std::int64_t b = static_cast<std::int64_t>(block.index()) * kThreads + t.x;
      if (b >= rows) return;
      token.Store(b, is_greedy.Load(b) != 0 ? greedy.Load(b) : drawn.Load(b));
    });
  }
};

}  // namespace sampcheck::gpu
