// SPDX-License-Identifier: Apache-2.0
#pragma once
// greedy kernel: argmax of each row, bit-exact with reference/greedy.h (docs/spec/greedy.md).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32, row b's V entries at
//   b * pitch + [0, V), pitch >= V; the entries at [V, pitch) are padding and are NEVER read,
//   so no pad lane can win. token: rows i64.
// - Order (docs/spec/reductions.md): gpu/block/block_argmax.cuh's RowArgmax on the values: thread l
//   folds (value, index) for indices l, l + 1024, ... < V in increasing order, starting from the
//   identity (-inf, kNoIndex); then the canonical tree (strides 512 .. 32 in shared memory,
//   16 .. 1 by ShuffleDown in warp 0), the winner in thread 0.
// - Total order (torch.argmax's): NaN above every number, equal values (+0 == -0, NaN == NaN)
//   to the lower index. kNoIndex is larger than every index, so an empty lane (V < 1024) loses
//   every tie against a real entry: V = 1 returns 0 whatever x_0 is (-inf and NaN included).
// - Exact tier, no randomness.
// Example: {1, 3, 3, -inf} -> 1; {-inf, -inf} -> 0; {5, NaN, NaN} -> 1 (tests/gpu_kernels_test.cc).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

struct GreedyKernel {
  static constexpr const char* kName = "greedy";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class In, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Out token, std::int64_t vocab,
                                        std::int64_t pitch) const {
    const std::int64_t row = block.index();
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    RowArgmax<kCanonicalLanes, ArgmaxResult::kThreadZero>(block, vocab, value, index, ArgmaxAboveF32{},
                                                          [&](Thread, std::int64_t i, float& x) {
                                                            x = logits.Load(row * pitch + i);
                                                            return true;
                                                          });
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, index[t]);
    });
  }
};

}  // namespace sampcheck::gpu
