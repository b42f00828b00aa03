// SPDX-License-Identifier: Apache-2.0
#pragma once
// greedy kernel: argmax of each row, bit-exact with reference/greedy.h (docs/spec/greedy.md).
//
// Contract:
// - Blocks of 1024 threads, `slices` per row (GreedyLaunch: RowSliceBudget of the batch, so
//   that few rows still fill the SMs: 2 at 64 rows of 128256, 1 from 67 rows on; the share of
//   a wave at two blocks an SM, 4 slices at 64 rows, was slower on an H200 on 2026-12-04: 21.2
//   us against 17.7 in the same run). logits: rows x pitch f32, row b's V entries at b * pitch
//   + [0, V), pitch >= V; the entries at [V, pitch) are padding and are NEVER read, so no pad
//   lane can win. token: rows i64.
// - Block b takes row b / slices and its slice g = b % slices, entries [SliceBegin(g),
//   SliceBegin(g + 1)) (gpu/block/row_slices.cuh): thread l folds (value, index) for its share
//   of the slice, four entries a 16-byte load (until 2026-12-03 the l-th, (l + 1024)-th, ...
//   entries, one a load) from the identity (-inf, kNoIndex), then the block's winner by warps,
//   one barrier (QuadRangeArgmaxF32, gpu/block/block_argmax.cuh). One slice: thread 0 writes
//   the token. Several: thread 0 writes the slice's winner (value bits, index) to `partials` (2
//   words a slice, rows x slices x 2), the row's last block (LastBlockOf,
//   gpu/block/last_block.cuh, one ticket a row) reads them, lane l of each warp folding slices
//   l, l + 32, ..., and its warp's winner by ShuffleDown (StoreSliceWinnerF32 and
//   MergeSliceWinnersF32, gpu/block/block_argmax.cuh); thread 0 writes the token.
// - Total order (torch.argmax's): NaN above every number, equal values (+0 == -0, NaN == NaN)
//   to the lower index. The order is total, so the winner is the row's maximum whatever the
//   lanes, the tree and the slices (docs/spec/greedy.md "Semantics"): the same token
//   as one block folding the row in the canonical lanes. kNoIndex is larger than every index,
//   so an empty lane (a slice shorter than 1024) loses every tie against a real entry: V = 1
//   returns 0 whatever x_0 is (-inf and NaN included).
// - Exact tier, no randomness.
// Example: {1, 3, 3, -inf} -> 1; {-inf, -inf} -> 0; {5, NaN, NaN} -> 1 (tests/gpu_kernels_test.cc;
//   "GpuGreedy.SlicedRowsGiveTheWholeRowsToken" splits rows of 8192 to 151936 entries).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/last_block.cuh"
#include "gpu/block/row_slices.cuh"

namespace sampcheck::gpu {

struct GreedyKernel {
  static constexpr const char* kName = "greedy";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class In, class Out, class Partials, class Tickets>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Out token, std::int64_t vocab, std::int64_t pitch,
                                        Partials partials, Tickets tickets, std::int64_t slices) const {
    const std::int64_t row = block.index() / slices;
    const std::int64_t g = block.index() % slices;
    const std::int64_t begin = SliceBegin(g, slices, vocab);
    const std::int64_t base = row * pitch + begin;
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    QuadRangeArgmaxF32<kCanonicalLanes>(block, logits, base, SliceBegin(g + 1, slices, vocab) - begin, value, index);
    if (slices == 1) {
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) token.Store(row, index[t]);
      });
      return;
    }
    StoreSliceWinnerF32(block, partials, 2 * (row * slices + g), begin, value, index);
    if (!LastBlockOf(block, tickets, row, slices)) return;
    MergeSliceWinnersF32(block, partials, 2 * row * slices, slices, value, index);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, index[t]);
    });
  }
};

}  // namespace sampcheck::gpu
