// SPDX-License-Identifier: Apache-2.0
#pragma once
// spec_greedy kernel: greedy verification of speculative drafts, exact tier, bit-exact with
// reference/spec_greedy.h (docs/spec/speculative.md "spec_greedy").
//
// Contract:
// - One block of kBlock threads per request row b (1024, or one warp of 32 when
//   V <= kOneWarpVocab: gpu/block/block_argmax.cuh; the result is the same). target: rows x (K + 1) x V f32 (position i
//   at (b (K + 1) + i) V); drafts: rows x K i32; counts: rows i64, n_b = the row's draft count
//   (checked and counted by the caller with the reference's DraftCounts); emitted: rows x (K + 1)
//   i64; accepted: rows i64.
// - For i = 0, 1, ..., K (a block-level loop): a_i = argmax of position i in greedy.cuh's total
//   order (first NaN, else the lowest index among equal maxima: CanonicalArgmax), thread l
//   folding l, l + kBlock, ... then the canonical tree (gpu/block/block_argmax.cuh); emitted[b][i] = a_i;
//   the row stops at i when i == n_b (a_{n_b} is the bonus token) or draft_i != a_i (a_i
//   replaced the rejected draft). A stopped row's threads load nothing more (a per-thread flag,
//   the same in every thread); the loop still runs its barriers, since block-level code cannot
//   branch on a register.
// - Then emitted[b][i] = -1 for every i after the stop, num_accepted = the stop position.
// - Exact tier; no randomness; profile canonical.
// Example: drafts {5, 2}, argmaxes {5, 7, 1} -> emitted {5, 7, -1}, num_accepted 1; K = 0 ->
// emitted {a_0}, num_accepted 0 (tests/gpu_kernels_test.cc, GpuSpecGreedy).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/kernels/greedy.cuh"

namespace sampcheck::gpu {

template <int kBlock = kCanonicalLanes>
struct SpecGreedyKernel {
  static constexpr const char* kName = "spec_greedy";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Drafts, class Counts, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In target, Drafts drafts, Counts counts, Out emitted, Out accepted,
                                        std::int64_t width, std::int64_t vocab) const {
    const std::int64_t row = block.index();
    const std::int64_t positions = width + 1;
    auto n = Registers<std::int64_t>(block);
    auto stop = Registers<std::int64_t>(block);  // -1 while verifying, then the stop position
    block.ForEachThread([&](Thread t) {
      n[t] = counts.Load(row);
      stop[t] = -1;
    });
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    for (std::int64_t i = 0; i < positions; ++i) {
      const std::int64_t at = (row * positions + i) * vocab;
      RowArgmax<kBlock>(block, vocab, value, index, ArgmaxAboveF32{}, [&](Thread t, std::int64_t k, float& x) {
        if (stop[t] >= 0) return false;
        x = target.Load(at + k);
        return true;
      });
      block.ForEachThread([&](Thread t) {
        if (stop[t] >= 0) return;
        if (t.x == 0) emitted.Store(row * positions + i, index[t]);
        if (i == n[t] || drafts.Load(row * width + i) != index[t]) stop[t] = i;
      });
    }
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < positions; i += kBlock) {
        if (i > stop[t]) emitted.Store(row * positions + i, std::int64_t{-1});
      }
      if (t.x == 0) accepted.Store(row, stop[t]);
    });
  }
};

}  // namespace sampcheck::gpu
