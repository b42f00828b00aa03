// SPDX-License-Identifier: Apache-2.0
#pragma once
// An inverse CDF's last step by a warp (docs/gpu.md "Warp operations"): one thread's entries
// split into 32 runs, one a lane, summed by the lanes, scanned by a butterfly, and the run
// that holds the target walked by its lane. gpu-fast's proposals (gpu/fast/fast_proposals.cuh:
// the owner's strided indices) and its inverse CDF (gpu/fast/fast_sampling.cuh: the owner's
// contiguous chunk) take it.
//
// Contract:
// - WalkWarpRuns(block, active, start, x, visit_run, pick), block-level: in each warp whose
//   lanes all have active(t) (active is the same in the whole warp), lane l's run is the entries
//   visit_run(t, f) visits in order, calling f(i, w) for entry i of weight w (finite, >= 0; the
//   same bits at every call) until f returns true. start[t]: the mass before the first run,
//   x[t]: the target (both the same in the warp). Lane l sums its run's positive weights in
//   order (m_l), a butterfly scan (WarpButterflyScan) starts run l at start + m_0 + .. +
//   m_{l-1} (s_l), and the walker is the last run of positive mass with s_l <= x
//   (LastSegmentAtOrBelow, gpu/block/warp_min.cuh), -1 when none. The walker's lane adds its
//   positive weights to s_l in order and sets pick[t] to the first i whose running sum exceeds
//   x, or to the run's last positive weight when rounding keeps the sum at or below x; every
//   other lane keeps its pick[t]. Returns the walker's lane in every lane of the warp.
// - Cost: each run visited twice at most (its sum, and its walk by one lane): about 2 ceil(n /
//   32) entries a lane for n entries, where one thread walking them all visits n in sequence.
//   Five ShuffleXor and one Ballot; no barrier, no shared memory.
// - The sums round in the butterfly's order and the walk adds the exact weights, so the pick
//   may differ from a sequential inverse CDF where the two round differently; with weights
//   whose every sum is exact, it is the inverse CDF of the runs' order (tests/
//   gpu_fast_sampling_test.cc, "ProposalsFollowTheWeights" and "InverseCdfFollowsTheDefinition").
// Example: lanes 0 and 1 with runs {1, 0, 2} and {4}, start 0, x = 3: m = {3, 4}, s = {0, 3};
//   the walker is lane 1 (s_1 = 3 <= 3), whose running sum 3 + 4 exceeds 3 at its first entry.

#include <cstdint>

#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/warp_min.cuh"

namespace sampcheck::gpu {

template <class B, class Active, class R, class VisitRun, class P>
SAMPCHECK_KERNEL_BODY auto WalkWarpRuns(B& block, const Active& active, const R& start, const R& x,
                                        const VisitRun& visit_run, P& pick) {
  auto mass = Registers<float>(block);
  auto sum = Registers<float>(block);
  auto run_start = Registers<float>(block);
  block.ForEachThread([&](Thread t) {
    float m = 0.0f;
    if (active(t)) {
      visit_run(t, [&](std::int64_t, float w) {
        if (w > 0.0f) m += w;
        return false;
      });
    }
    mass[t] = m;
    sum[t] = m;
    run_start[t] = start[t];
  });
  WarpButterflyScan(block, sum, run_start);
  auto walker = LastSegmentAtOrBelow(block, active, mass, run_start, x);
  block.ForEachThread([&](Thread t) {
    if (t.lane() != walker[t]) return;
    float c = run_start[t];
    auto chosen = pick[t];
    visit_run(t, [&](std::int64_t i, float w) {
      if (!(w > 0.0f)) return false;
      c += w;
      chosen = i;  // the last positive weight when rounding keeps c at or below x
      return c > x[t];
    });
    pick[t] = chosen;
  });
  return walker;
}

}  // namespace sampcheck::gpu
