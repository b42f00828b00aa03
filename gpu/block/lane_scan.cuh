// SPDX-License-Identifier: Apache-2.0
#pragma once
// One thread's walk over the entries of its canonical lane, first, first + step, ... below
// end (docs/spec/reductions.md: lane l folds l, l + 1024, ... in increasing index order):
// ScanLane for reads that test each entry and do more work for the entries they keep (the
// partition's reads of the keys in range, gpu/block/radix_partition.cuh; the survivors' sums
// read four entries a load by warps instead, gpu/block/lane_quads.cuh), and
// ForEachLaneEntry (below) for reads that do the same work for every entry.
//
// Contract: ScanLane<kGroup>(first, end, step, load, keep, dropped, kept) calls, for each index
// i of the walk in increasing order, x = load(i) once, then kept(i, x) when keep(x, i) holds
// and dropped(i, x) otherwise: the calls of
//   for (i = first; i < end; i += step) { x = load(i); keep(x, i) ? kept(i, x) : dropped(i, x); }
// in that order, except that with kGroup > 1 the loads of a group of kGroup consecutive
// indices of the walk are all made before the group's first keep (never a load past end): the
// calls for a group's earlier entries must not write what a later entry's load reads (a mask
// written in place, at each entry's own index, does not).
// Why a function (docs/gpu.md "Reading the SASS"):
// - kGroup > 1: a group's loads are in flight together. In the plain loop each load waited
//   for the previous entry's test (a branch): one load in flight a thread, and a read of the
//   row bound by the memory's latency (docs/gpu.md "Quad reads", "Loads in flight"). kept(i,
//   x) has one call site, outside the group's unrolled tests.
// - kGroup 1: the dropped entries run in a loop of their own, so that the compiler can keep
//   the walk's state (the index, the bound, the row's handle) in registers there and spill
//   it, when the kept entries' work needs the registers, around that work alone. As one loop
//   the spills sat at the loop's head and cost every entry local-memory loads. A group's
//   values live across kept's work, and where that work is large (an ExpF32Cr, the draw's
//   candidates) ptxas spilled them at every group: those reads take kGroup 1.
// ForEachLaneEntry<kGroup>(first, end, step, load, f): the walk without a test, the calls of
//   for (i = first; i < end; i += step) f(i, load(i));
// in that order, except that a group's kGroup loads are all made before its first f (never a
// load past end; the same condition on what f writes). For the reads that do the same work
// for every entry: the stage kernels' canonical lane sums, copies and masks (RowSoftmaxStats,
// RowMaxProb and CopyRow, gpu/block/radix_select.cuh; the copies' tallies,
// gpu/block/row_tally.cuh; softmax's, min_p's, top_k's, top_p's and logprobs' reads of the
// row; the copies of nan_handling, logit_bias and min_new_tokens). Their loops hold an
// ExpF32Cr or a store between two loads, so nvcc issued each load after the previous entry's
// work: one load in flight a thread (docs/gpu.md "Reading the SASS").
// Example: kGroup 2, first 2, end 11, step 3, load(i) = i, keep "x odd": load(2), load(5),
// dropped(2, 2), kept(5, 5), load(8), dropped(8, 8); kGroup 1: load(2), dropped(2, 2),
// load(5), kept(5, 5), load(8), dropped(8, 8); ForEachLaneEntry<2> on the same walk: load(2),
// load(5), f(2, 2), f(5, 5), load(8), f(8, 8) (tests/gpu_kernels_test.cc, GpuLaneScan).

#include <cstdint>
#include <type_traits>

#include "core/portability.h"
#include "gpu/block/quad_reads.cuh"  // SAMPCHECK_UNROLL_GROUP

namespace sampcheck::gpu {

template <int kGroup = 1, class Load, class Keep, class Dropped, class Kept>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ScanLane(std::int64_t first, std::int64_t end, std::int64_t step,
                                                           Load&& load, Keep&& keep, Dropped&& dropped, Kept&& kept) {
  static_assert(kGroup >= 1, "a group holds an entry at least");
  if constexpr (kGroup == 1) {
    std::int64_t i = first;
    while (i < end) {
      auto x = load(i);
      while (!keep(x, i)) {  // the dropped entries' own loop
        dropped(i, x);
        i += step;
        if (i >= end) return;
        x = load(i);
      }
      kept(i, x);
      i += step;
    }
  } else {
    for (std::int64_t i = first; i < end; i += std::int64_t{kGroup} * step) {
      std::decay_t<decltype(load(i))> x[kGroup]{};  // {}: the selects below read every slot
      bool in_walk[kGroup];
      SAMPCHECK_UNROLL_GROUP
      for (int u = 0; u < kGroup; ++u) {  // the group's loads first
        in_walk[u] = u == 0 || i + std::int64_t{u} * step < end;
        if (in_walk[u]) x[u] = load(i + std::int64_t{u} * step);
      }
      // Then its entries in order: the dropped ones here, each kept one at the call below,
      // after which the scan goes on from the entry after it.
      int from = 0;
      while (true) {
        int hit = kGroup;
        SAMPCHECK_UNROLL_GROUP
        for (int u = 0; u < kGroup; ++u) {
          if (u < from || !in_walk[u] || hit < kGroup) continue;
          if (keep(x[u], i + std::int64_t{u} * step)) {
            hit = u;
          } else {
            dropped(i + std::int64_t{u} * step, x[u]);
          }
        }
        if (hit == kGroup) break;
        auto kept_x = x[0];
        SAMPCHECK_UNROLL_GROUP
        for (int u = 1; u < kGroup; ++u) kept_x = u == hit ? x[u] : kept_x;  // constant indices
        kept(i + std::int64_t{hit} * step, kept_x);
        from = hit + 1;
      }
    }
  }
}

// The group of the stage kernels' reads by ForEachLaneEntry: 4 loads in flight a thread, as the
// partition's (kRowKeysGroup) and the quad reads' (kQuadGroup).
inline constexpr int kLaneSumGroup = 4;

template <int kGroup = 1, class Load, class F>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEachLaneEntry(std::int64_t first, std::int64_t end,
                                                                   std::int64_t step, Load&& load, F&& f) {
  static_assert(kGroup >= 1, "a group holds an entry at least");
  for (std::int64_t i = first; i < end; i += std::int64_t{kGroup} * step) {
    std::decay_t<decltype(load(i))> x[kGroup]{};
    bool in_walk[kGroup];
    SAMPCHECK_UNROLL_GROUP
    for (int u = 0; u < kGroup; ++u) {  // the group's loads first
      in_walk[u] = u == 0 || i + std::int64_t{u} * step < end;
      if (in_walk[u]) x[u] = load(i + std::int64_t{u} * step);
    }
    SAMPCHECK_UNROLL_GROUP
    for (int u = 0; u < kGroup; ++u) {
      if (in_walk[u]) f(i + std::int64_t{u} * step, x[u]);
    }
  }
}

}  // namespace sampcheck::gpu
